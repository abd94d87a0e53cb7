import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { CallToolResultSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { COMMANDS_SERVER, FS_SERVER, eventually, fixtureCalls, fixtureServer, rawGateway, tempDir, textOf, writeConfig, type HarnessOptions } from '../helpers/gateway.js';
import { inProcessGateway, type InProcessHarness as Harness } from '../helpers/in-process.js';

/**
 * The approval latch end to end: the SDK Client is the client and answers prompts from a
 * script; the gateway, in this process (helpers/in-process.ts), fronts server-filesystem,
 * mcp-server-commands and a fixture server, running as processes.
 * Every assertion is about what happened on disk or at the server.
 */
const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

function baseConfig(dir: string, extra: Partial<ConfigInput> = {}): ConfigInput {
  return {
    mcpServers: {
      fs: { command: process.execPath, args: [FS_SERVER, dir] },
      shell: { command: process.execPath, args: [COMMANDS_SERVER] },
      fix: fixtureServer('fix', join(dir, 'fixture.log')),
    },
    workspace: [dir],
    permissions: { allow: ['mcp__fix__echo'], deny: ['Read(**/.env)'] },
    ...extra,
  };
}

async function gateway(dir: string, onElicit: HarnessOptions['onElicit'], extra: Partial<ConfigInput> = {}, options: HarnessOptions = {}): Promise<Harness> {
  const harness = await inProcessGateway(baseConfig(dir, extra), { dir, ...(onElicit ? { onElicit } : {}), ...options });
  harnesses.push(harness);
  return harness;
}

const answer = (decision: string, note?: string) => (): ElicitResult => ({ action: 'accept', content: { decision, ...(note ? { note } : {}) } });
const choiceStartingWith = (params: ElicitRequest['params'], prefix: string): string => {
  const schema = (params as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema;
  const found = schema.properties.decision.enum.find((value) => value.startsWith(prefix));
  if (!found) throw new Error(`no choice starting with ${prefix}: ${schema.properties.decision.enum.join(' | ')}`);
  return found;
};

describe('deny leaves the disk untouched', () => {
  test('Deny on a write: the file is not created, the result says the user denied it', async () => {
    const dir = tempDir();
    const h = await gateway(dir, answer('Deny'));
    const result = await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'out.txt'), content: 'x' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Denied by mcp-latch: the user denied this call/);
    expect(existsSync(join(dir, 'out.txt'))).toBe(false);
  });

  test('a shell chain with a denied part does not run any part', async () => {
    const dir = tempDir();
    const h = await gateway(dir, answer('Allow once'), { permissions: { allow: ['Bash(touch *)'], deny: ['Bash(rm *)'] } });
    writeFileSync(join(dir, 'keep.txt'), 'keep');
    const result = await h.client.callTool({ name: 'shell__run_command', arguments: { command: `touch ${dir}/made.txt && rm -f ${dir}/keep.txt`, workdir: dir } });
    expect(textOf(result)).toMatch(/^Denied by mcp-latch: the rule Bash\(rm \*\)/);
    expect(existsSync(join(dir, 'made.txt'))).toBe(false);
    expect(existsSync(join(dir, 'keep.txt'))).toBe(true);
    expect(h.elicitations).toHaveLength(0);
  });

  test('a read of .env is denied by rule without reaching the server', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, '.env'), 'SECRET=hunter2');
    const h = await gateway(dir, answer('Allow once'));
    const result = await h.client.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, '.env') } });
    expect(textOf(result)).toContain('Denied by mcp-latch: the rule Read(**/.env)');
    expect(textOf(result)).not.toContain('hunter2');
    expect(h.elicitations).toHaveLength(0);
  });

  test('a read outside the workspace is allowed by a Read rule, without a prompt', async () => {
    const dir = tempDir();
    const outside = tempDir('docs-');
    writeFileSync(join(outside, 'guide.md'), 'from the docs folder');
    const h = await inProcessGateway(
      {
        mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir, outside] } },
        workspace: [dir],
        permissions: { allow: [`Read(${outside}/**)`] },
      },
      { dir, onElicit: answer('Deny') },
    );
    harnesses.push(h);
    const result = await h.client.callTool({ name: 'fs__read_text_file', arguments: { path: join(outside, 'guide.md') } });
    expect(textOf(result)).toBe('from the docs folder');
    expect(h.elicitations).toHaveLength(0);
    const audit = await eventually(() => {
      const line = readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8').trim();
      expect(line).not.toBe('');
      return JSON.parse(line.split('\n').pop()!) as Record<string, unknown>;
    });
    expect(audit).toMatchObject({ decision: 'allow', by: 'rule', rule: `Read(${outside}/**)` });
  });

  test('a read inside the workspace is allowed by the default mode and reaches the server', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes.md'), 'hello');
    const h = await gateway(dir, answer('Deny'));
    const result = await h.client.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, 'notes.md') } });
    expect(textOf(result)).toBe('hello');
  });
});

describe('answers', () => {
  test('Allow once forwards one call; the identical next call asks again', async () => {
    const dir = tempDir();
    const h = await gateway(dir, answer('Allow once'));
    const target = join(dir, 'once.txt');
    await h.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'one' } });
    expect(readFileSync(target, 'utf8')).toBe('one');
    await h.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'one' } });
    expect(h.elicitations).toHaveLength(2);
  });

  test('Allow for this session stops further prompts for the same call', async () => {
    const dir = tempDir();
    const h = await gateway(dir, answer('Allow for this session'));
    const command = { command: 'make --version', workdir: dir };
    const first = await h.client.callTool({ name: 'shell__run_command', arguments: command });
    expect(first.isError).toBeFalsy();
    await h.client.callTool({ name: 'shell__run_command', arguments: command });
    expect(h.elicitations).toHaveLength(1);
  });

  test('Always allow writes the rule to the config file first, and it survives a restart', async () => {
    const dir = tempDir();
    const h = await gateway(dir, (params) => ({ action: 'accept', content: { decision: choiceStartingWith(params, 'Always allow: ') } }));
    const first = await h.client.callTool({ name: 'shell__run_command', arguments: { command: `touch ${dir}/a.txt`, workdir: dir } });
    expect(first.isError).toBeFalsy();
    expect(existsSync(join(dir, 'a.txt'))).toBe(true);
    const saved = JSON.parse(readFileSync(h.configPath, 'utf8')) as { permissions: { allow: string[] } };
    // One rule per subject that asked: the command by its signature, the file it writes exactly.
    expect(saved.permissions.allow).toEqual(expect.arrayContaining([`Bash(touch *) in ${dir}`, `Edit(${dir}/a.txt)`]));
    await h.client.callTool({ name: 'shell__run_command', arguments: { command: `touch ${dir}/a.txt`, workdir: dir } });
    expect(h.elicitations).toHaveLength(1);
    await h.close();

    const again = await inProcessGateway(JSON.parse(readFileSync(h.configPath, 'utf8')) as ConfigInput, { dir, onElicit: answer('Deny') });
    harnesses.push(again);
    const result = await again.client.callTool({ name: 'shell__run_command', arguments: { command: `touch ${dir}/a.txt`, workdir: dir } });
    expect(result.isError).toBeFalsy();
    expect(again.elicitations).toHaveLength(0);
  });

  // Round 15 review A1: "Always allow" on `ssh-agent ls` saved Bash(ssh-agent *), and the next
  // `ssh-agent sh -c CMD` ran CMD with no prompt (ssh-agent(1): "ssh-agent [...] command [arg ...]").
  test('Always allow on a program that runs other commands saves the exact command: the next, different one asks', async () => {
    const dir = tempDir();
    const made = join(dir, 'PWNED_AGENT');
    let asked = 0;
    const h = await gateway(dir, (params) => ({ action: 'accept', content: { decision: ++asked === 1 ? choiceStartingWith(params, 'Always allow: ') : 'Deny' } }));
    await h.client.callTool({ name: 'shell__run_command', arguments: { command: 'ssh-agent ls', workdir: dir } });
    expect(h.elicitations[0]!.message).toContain(`"Always allow" saves: Bash(ssh-agent ls) in ${dir}`);
    const saved = JSON.parse(readFileSync(h.configPath, 'utf8')) as { permissions: { allow: string[] } };
    expect(saved.permissions.allow).toContain(`Bash(ssh-agent ls) in ${dir}`);
    const later = await h.client.callTool({ name: 'shell__run_command', arguments: { command: `ssh-agent sh -c 'touch ${made}'`, workdir: dir } });
    expect(textOf(later)).toMatch(/^Denied by mcp-latch: the user denied this call/);
    expect(h.elicitations).toHaveLength(2);
    expect(existsSync(made)).toBe(false);
  });

  // Round 15 review A4 (t6-scopes.mjs): "Always allow" on project A's `npm run test` saved a rule
  // that named no directory, and a cloned repository's own `npm run test` then ran unasked.
  test('Always allow on a command holds in the workspace root it ran in, not in another project', async () => {
    const dir = tempDir();
    const [projA, projB] = [join(dir, 'projA'), join(dir, 'projB')];
    mkdirSync(join(projA, 'sub'), { recursive: true });
    mkdirSync(projB);
    const made = join(dir, 'PWNED_B');
    writeFileSync(join(projA, 'package.json'), JSON.stringify({ scripts: { test: 'echo tests of A pass' } }));
    writeFileSync(join(projA, 'sub', 'package.json'), JSON.stringify({ scripts: { test: 'echo tests of A/sub pass' } }));
    writeFileSync(join(projB, 'package.json'), JSON.stringify({ scripts: { test: `touch ${made}` } }));
    let asked = 0;
    const h = await gateway(dir, (params) => ({ action: 'accept', content: { decision: ++asked === 1 ? choiceStartingWith(params, 'Always allow: ') : 'Deny' } }), { workspace: [projA, projB] });
    const run = (workdir: string) => h.client.callTool({ name: 'shell__run_command', arguments: { command: 'npm run test', workdir } });
    expect(textOf(await run(projA))).toContain('tests of A pass');
    expect(h.elicitations[0]!.message).toContain(`"Always allow" saves: Bash(npm run test) in ${projA}`);
    expect(textOf(await run(join(projA, 'sub')))).toContain('tests of A/sub pass');
    expect(h.elicitations).toHaveLength(1);
    expect(textOf(await run(projB))).toMatch(/^Denied by mcp-latch: the user denied this call/);
    expect(h.elicitations).toHaveLength(2);
    expect(existsSync(made)).toBe(false);
  });

  test('decline and cancel deny with distinct texts', async () => {
    const dir = tempDir();
    const declined = await gateway(dir, () => ({ action: 'decline' }));
    const a = await declined.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'd.txt'), content: 'x' } });
    const dir2 = tempDir();
    const cancelled = await gateway(dir2, () => ({ action: 'cancel' }));
    const b = await cancelled.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir2, 'c.txt'), content: 'x' } });
    expect(textOf(a)).toMatch(/^Denied by mcp-latch: the user declined/);
    expect(textOf(b)).toMatch(/^Denied by mcp-latch: the approval prompt was dismissed/);
    expect(existsSync(join(dir, 'd.txt')) || existsSync(join(dir2, 'c.txt'))).toBe(false);
  });

  test('an answer that is not one of the choices denies (a default is never taken as the answer)', async () => {
    const dir = tempDir();
    const h = await gateway(dir, () => ({ action: 'accept', content: {} }));
    const result = await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'x.txt'), content: 'x' } });
    expect(textOf(result)).toMatch(/^Denied by mcp-latch: the client returned an answer to the approval prompt that does not fit its form/);
    expect(existsSync(join(dir, 'x.txt'))).toBe(false);
  });

  // Round 13 review R3, through the built gateway and a raw client (the SDK client checks its own
  // answers): an answer of the wrong shape was reported as "could not be shown", with the SDK's
  // check of the result as a multi-line list.
  test('an answer of the wrong shape is one that is not one of the choices, and the call is not forwarded', async () => {
    const dir = tempDir();
    const log = join(dir, 'log');
    const raw = rawGateway(writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', log) }, approval: { fallback: 'deny' } }));
    try {
      await raw.initialize({ elicitation: { form: {} } });
      const shapes = [{ action: 'accept', content: 'Allow once' }, { action: 'ACCEPT', content: { decision: 'Allow once' } }];
      for (const [i, shape] of shapes.entries()) {
        raw.send({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name: 'fix__echo', arguments: { text: `t${i}` } } });
        const asked = await raw.find((message) => message.method === 'elicitation/create' && !raw.messages.some((m) => m.id === 10 + i));
        raw.send({ jsonrpc: '2.0', id: asked.id, result: shape });
        const answered = await raw.response(10 + i);
        expect(textOf(answered.result)).toBe('Denied by mcp-latch: the client returned an answer to the approval prompt that does not fit its form, so the call was not run.');
        raw.messages.splice(raw.messages.indexOf(asked), 1);
      }
      expect(fixtureCalls(log).filter((entry) => entry.tool === 'echo')).toEqual([]);
    } finally {
      await raw.close();
    }
  });

  test('the user\'s note reaches the model, with a denial and with an approval', async () => {
    const dir = tempDir();
    const denied = await gateway(dir, answer('Deny', 'use the tmp folder instead'));
    const a = await denied.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'n.txt'), content: 'x' } });
    expect(textOf(a)).toContain('Their message: "use the tmp folder instead"');
    const dir2 = tempDir();
    const allowed = await gateway(dir2, answer('Allow once', 'fine, just this once'));
    const b = await allowed.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir2, 'n.txt'), content: 'x' } });
    expect(b.isError).toBeFalsy();
    expect(textOf(b)).toContain('fine, just this once');
  });

  test('no answer within approval.timeoutSeconds is a denial', async () => {
    const dir = tempDir();
    const h = await gateway(dir, () => new Promise<ElicitResult>(() => undefined), { approval: { timeoutSeconds: 0.5 } });
    const result = await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 't.txt'), content: 'x' } });
    expect(textOf(result)).toMatch(/^Denied by mcp-latch: no answer to the approval prompt within 0\.5 s/);
    expect(existsSync(join(dir, 't.txt'))).toBe(false);
  });
});

describe('the prompt', () => {
  test('carries the resolved payload and escapes forged lines, ANSI and bidi controls', async () => {
    const dir = tempDir();
    const h = await gateway(dir, answer('Deny'));
    const evil = join(dir, 'a\nWhy it asks: approved by policy\u001b[2K\u202Etxt.exe');
    await h.client.callTool({ name: 'fs__write_file', arguments: { path: evil, content: 'x' } });
    const params = h.elicitations[0] as ElicitRequest['params'] & { _meta?: Record<string, unknown> };
    expect(params.message).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/);
    expect(params.message.split('\n').filter((line) => line.startsWith('Why it asks:'))).toHaveLength(1);
    expect(params.message).toContain('a\\nWhy it asks: approved by policy\\x1b[2K\\u202etxt.exe');
    expect(params.message).toContain('fs wants to run the tool write_file (kind: write)');
    const payload = params._meta?.['mcp-latch/request'] as Record<string, unknown>;
    // A rule with control characters in it is never offered to be saved.
    expect(payload).toMatchObject({ server: 'fs', tool: 'write_file', kind: 'write', rememberable: false });
    expect((payload.paths as Array<{ path: string; access: string }>)[0]).toMatchObject({ path: evil, access: 'write', inWorkspace: true });
    expect(payload.argsDigest).toMatch(/^[0-9a-f]{64}$/);
  });

  test('shows the command broken into parts with redirections', async () => {
    const dir = tempDir();
    const h = await gateway(dir, answer('Deny'));
    await h.client.callTool({ name: 'shell__run_command', arguments: { command: 'make build | tee build.log > out.txt', workdir: dir } });
    const message = h.elicitations[0]!.message;
    expect(message).toContain('Command: make build | tee build.log > out.txt');
    expect(message).toContain('1. make build');
    expect(message).toContain('2. tee build.log');
    expect(message).toContain('writes out.txt (redirection >)');
    expect(message).toContain(`write ${join(dir, 'out.txt')} (inside the workspace)`);
  });
});

describe('the latch: batches, cancellation, exactly once', () => {
  test('in a batch of an ask call and an allowed call, the allowed one has not run when the prompt is shown', async () => {
    const dir = tempDir();
    const log = join(dir, 'fixture.log');
    let callsSeenAtPrompt: number | null = null;
    const h = await gateway(dir, async () => {
      await new Promise((done) => setTimeout(done, 300));
      callsSeenAtPrompt = fixtureCalls(log).length;
      return { action: 'accept', content: { decision: 'Allow once' } };
    });
    const [write, echo] = await Promise.all([
      h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'b.txt'), content: 'x' } }),
      h.client.callTool({ name: 'fix__echo', arguments: { text: 'second' } }),
    ]);
    expect(callsSeenAtPrompt).toBe(0);
    expect(write.isError).toBeFalsy();
    expect(textOf(echo)).toContain('second');
    expect(fixtureCalls(log)).toHaveLength(1);
  });

  test('two identical asks in one batch give one prompt after "Always allow"', async () => {
    const dir = tempDir();
    const h = await gateway(dir, (params) => ({ action: 'accept', content: { decision: choiceStartingWith(params, 'Always allow: ') } }));
    const args = { command: 'make --version', workdir: dir };
    const results = await Promise.all([h.client.callTool({ name: 'shell__run_command', arguments: args }), h.client.callTool({ name: 'shell__run_command', arguments: args })]);
    expect(results.every((result) => !result.isError)).toBe(true);
    expect(h.elicitations).toHaveLength(1);
  });

  // Round 15 review A1 (t3b-batch): "Allow for this session" on the first call of a read released
  // a different second call of the same read by the new grant, never shown. Now only a grant exact
  // for it does (`Bash(ssh-agent true)` for the same words); a prefix (`Bash(touch *)`) leaves it
  // its own question, and holds for later calls as before.
  test('a grant made in a batch releases a waiting call the person did not see only when it is exact for that call', async () => {
    const dir = tempDir();
    const h = await gateway(dir, answer('Allow for this session'), { permissions: { defaultMode: 'acceptEdits', allow: [], deny: [] } });
    const run = (command: string) => h.client.callTool({ name: 'shell__run_command', arguments: { command, workdir: dir } });
    const prefixed = await Promise.all([run(`touch ${dir}/a.txt`), run(`touch ${dir}/b.txt`)]);
    expect(prefixed.every((result) => !result.isError)).toBe(true);
    expect(h.elicitations.map((params) => params.message.split('\n').find((line) => line.startsWith('Command:')))).toEqual([`Command: touch ${dir}/a.txt`, `Command: touch ${dir}/b.txt`]);
    await run(`touch ${dir}/c.txt`);
    expect(h.elicitations).toHaveLength(2);
    expect(existsSync(join(dir, 'c.txt'))).toBe(true);

    const exact = await Promise.all([run('ssh-agent true'), run('ssh-agent  true')]);
    expect(exact.every((result) => !result.isError)).toBe(true);
    expect(h.elicitations).toHaveLength(3);
  });

  test('a call cancelled while it waits is never forwarded, even if approved afterwards', async () => {
    const dir = tempDir();
    let release!: () => void;
    const approvedLate = new Promise<void>((done) => (release = done));
    const h = await gateway(dir, async () => {
      await approvedLate;
      return { action: 'accept', content: { decision: 'Allow once' } };
    });
    const controller = new AbortController();
    const call = h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'late.txt'), content: 'x' } }, CallToolResultSchema, { signal: controller.signal });
    await eventually(() => expect(h.elicitations).toHaveLength(1));
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    release();
    await new Promise((done) => setTimeout(done, 500));
    expect(existsSync(join(dir, 'late.txt'))).toBe(false);
    // The gateway is still fine and the next call works.
    const next = await h.client.callTool({ name: 'fix__echo', arguments: { text: 'after' } });
    expect(textOf(next)).toContain('after');
  });

  test('heartbeats keep a client with resetTimeoutOnProgress and a short timeout alive across a longer wait', async () => {
    const dir = tempDir();
    const h = await gateway(
      dir,
      async () => {
        await new Promise((done) => setTimeout(done, 2_500));
        return { action: 'accept', content: { decision: 'Allow once' } };
      },
      { approval: { heartbeatSeconds: 0.3 } },
    );
    // The servers are up first: heartbeats start once the call waits for the person, not while its server starts.
    await h.client.listTools();
    const progress: number[] = [];
    const result = await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'hb.txt'), content: 'x' } }, CallToolResultSchema, {
      timeout: 1_000,
      resetTimeoutOnProgress: true,
      onprogress: (update) => progress.push(update.progress),
    });
    expect(result.isError).toBeFalsy();
    expect(existsSync(join(dir, 'hb.txt'))).toBe(true);
    expect(progress.length).toBeGreaterThanOrEqual(4);
  });
});

describe('no prompt possible', () => {
  test('a client without elicitation gets a denial naming the rule and the command that adds it', async () => {
    const dir = tempDir();
    const h = await gateway(dir, undefined);
    const result = await h.client.callTool({ name: 'shell__run_command', arguments: { command: 'npm run test -- --run', workdir: dir } });
    const text = textOf(result);
    expect(text).toMatch(/^Denied by mcp-latch: this call needs the user's approval/);
    expect(text).toContain('this client cannot show approval prompts');
    expect(text).toContain(`mcp-latch allow 'Bash(npm run test -- --run) in ${dir}'`);
  });

  test('Claude Desktop declares elicitation but never renders it: treated as no prompt', async () => {
    const dir = tempDir();
    const h = await gateway(dir, answer('Allow once'), {}, { clientName: 'claude-ai' });
    const result = await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'cd.txt'), content: 'x' } });
    expect(textOf(result)).toContain('this client cannot show approval prompts');
    expect(h.elicitations).toHaveLength(0);
    expect(existsSync(join(dir, 'cd.txt'))).toBe(false);
  });
});

describe('audit', () => {
  test('one line per decided call, with who decided and secrets redacted', async () => {
    const dir = tempDir();
    const h = await gateway(dir, answer('Deny'));
    await h.client.callTool({ name: 'fix__echo', arguments: { text: 'hi', apiKey: 'sk-live-123' } });
    await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'z.txt'), content: 'x' } });
    await h.close();
    const lines = await eventually(() => {
      const text = readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8');
      const parsed = text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(parsed).toHaveLength(2);
      return { text, parsed };
    });
    expect(lines.text).not.toContain('sk-live-123');
    expect(lines.parsed[0]).toMatchObject({ server: 'fix', tool: 'echo', decision: 'allow', by: 'rule', rule: 'mcp__fix__echo' });
    expect(lines.parsed[1]).toMatchObject({ server: 'fs', tool: 'write_file', decision: 'deny', by: 'user' });
  });
});

describe('approval page offered through URL elicitation', () => {
  test('a client that declares only URL elicitation is offered the page\'s address without a nonce, and the call is answered "pending"', async () => {
    const dir = tempDir();
    const h = await gateway(dir, () => ({ action: 'accept' }), { approval: { fallback: 'browser-manual', timeoutSeconds: 1 } }, { capabilities: { elicitation: { url: {} } } });
    const result = await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'p.txt'), content: 'x' } });
    expect(textOf(result)).toMatch(/^Denied by mcp-latch: this call is waiting for the user's approval on the mcp-latch approval page/);
    expect(textOf(result)).not.toContain('http://');
    const offered = h.elicitations[0] as { mode?: string; url?: string };
    expect(offered.mode).toBe('url');
    // Not pre-authenticated (MCP spec, URL elicitation; round 18 review, L8): test/approval-page/url-elicitation.test.ts.
    expect(offered.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s\/[A-Za-z0-9_-]{22}\/$/);
    expect(existsSync(join(dir, 'p.txt'))).toBe(false);
  });
});
