import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { MAX_REQUEST_STATE_CHARS } from '../../src/latch/request-state.js';
import { MAX_CALL_PATHS, MAX_CANDIDATES } from '../../src/subjects/inspect.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { FS_SERVER, ROOT, eventually, fixtureCalls, fixtureServer, startGateway, tempDir, textOf, writeConfig, type Harness } from '../helpers/gateway.js';
import { readAudit } from '../../src/store/audit.js';
import { round, startModernClient, type Answer, type Elicit, type Modern } from '../helpers/modern-client.js';
import { openPage, pageRequest } from '../helpers/page-session.js';

/**
 * MCP 2026-07-28 end to end: the official TypeScript SDK v2 client, pinned to 2026-07-28, in front
 * of the built gateway (test/helpers/modern-client.ts). A call that needs a person comes back
 * `input_required` with the prompt; the client's elicitation handler answers it and the SDK
 * retries with `inputResponses` and the `requestState`.
 */
const open: Modern[] = [];
afterAll(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

function config(dir: string, extra: Partial<ConfigInput> = {}): ConfigInput {
  return {
    mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] }, fix: fixtureServer('fix', join(dir, 'fixture.log')), open: fixtureServer('open', join(dir, 'open.log')) },
    workspace: [dir],
    ...extra,
  };
}

async function modernGateway(dir: string, onElicit: ((params: Elicit) => Answer | Promise<Answer>) | null, extra: Partial<ConfigInput> = {}): Promise<Modern> {
  const m = await startModernClient(dir, config(dir, extra), { onElicit });
  open.push(m);
  return m;
}

const choose = (decision: string, note?: string) => (): Answer => ({ action: 'accept', content: { decision, ...(note ? { note } : {}) } });

const approval = (decision: string, note?: string) => ({ 'mcp-latch/approval': { action: 'accept', content: { decision, ...(note ? { note } : {}) } } });

describe('a 2026-07-28 client (TypeScript SDK v2, pinned)', () => {
  // One gateway for the tests below (each start is seconds on a loaded machine); each test uses its own files and arguments.
  const dir = tempDir();
  let m: Modern;
  let answer: Answer = { action: 'cancel' };
  const calls = (text: string) => fixtureCalls(join(dir, 'fixture.log')).filter((call) => (call.args as { text?: string }).text === text);
  beforeAll(async () => {
    m = await modernGateway(dir, () => answer, { permissions: { allow: ['mcp__open__echo'] } });
  }, 120_000);

  test('negotiates 2026-07-28 and lists the tools of every server', async () => {
    expect(m.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await m.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['fs__write_file', 'fix__echo']));
  });

  test('an allowed call runs at once, without a prompt; the envelope is not passed on to the server', async () => {
    const before = m.prompts.length;
    const result = await m.client.callTool({ name: 'open__echo', arguments: { text: 'allowed-1' } });
    expect(textOf(result)).toContain('allowed-1');
    expect(m.prompts).toHaveLength(before);
    const reached = fixtureCalls(join(dir, 'open.log'));
    expect(reached).toHaveLength(1);
    // The gateway speaks 2025 to the server: the client's envelope stays with the gateway.
    expect(JSON.stringify(reached[0]!.meta ?? {})).not.toContain('io.modelcontextprotocol/');
  });

  test('ask → Allow once: the prompt comes as input_required, the write runs once, on disk', async () => {
    answer = choose('Allow once')();
    const before = m.prompts.length;
    const target = join(dir, 'approved.txt');
    const result = await m.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'approved' } });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('approved');
    const prompts = m.prompts.slice(before);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]!.message).toContain('write_file');
    expect(prompts[0]!._meta?.['mcp-latch/request']).toMatchObject({ server: 'fs', tool: 'write_file', kind: 'write' });
    // The key lives beside the config, readable by its owner only.
    expect(statSync(join(dir, 'mcp-latch-state.key')).mode & 0o777).toBe(0o600);
  });

  test('ask → Deny with a note: nothing runs, the note reaches the assistant', async () => {
    answer = choose('Deny', 'use the staging folder')();
    const target = join(dir, 'denied.txt');
    const result = await m.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'x' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Denied by mcp-latch: the user denied this call/);
    expect(textOf(result)).toContain('use the staging folder');
    expect(existsSync(target)).toBe(false);
  });

  test('edit, then approve: the form offers the content prefilled; the changed write runs instead, and the assistant is told', async () => {
    answer = { action: 'accept', content: { decision: 'Allow once', edit_content: 'changed by the person' } };
    const before = m.prompts.length;
    const target = join(dir, 'edited.txt');
    const result = await m.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'from the model' } });
    const prompt = m.prompts.slice(before)[0]!;
    expect((prompt.requestedSchema.properties as Record<string, { default?: string }>).edit_content?.default).toBe('from the model');
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('changed by the person');
    expect(textOf(result)).toMatch(/^mcp-latch: the user changed this call before approving it \(content "from the model" → "changed by the person"\)/);
  });

  test('an approval resumes the call exactly once: the same state again is refused and asks again', async () => {
    const call = { name: 'fix__echo', arguments: { text: 'once' } };
    const first = await round(m.client, call);
    expect(first.resultType).toBe('input_required');
    const retry = { ...call, inputResponses: approval('Allow once'), requestState: first.requestState };
    const [a, b] = await Promise.all([round(m.client, retry), round(m.client, retry)]);
    const done = [a, b].filter((result) => result.resultType !== 'input_required');
    expect(done).toHaveLength(1);
    expect(textOf(done[0])).toContain('once');
    const again = [a, b].find((result) => result.resultType === 'input_required')!;
    expect(JSON.stringify(again.inputRequests)).toContain('it was already used');
    expect((await round(m.client, retry)).resultType).toBe('input_required');
    expect(calls('once')).toHaveLength(1);
  });

  // Round 15 review of the approvals, A5: the answer comes back on the retry, after the model chose what to do on disk meanwhile.
  test('an approval whose file became a link since the prompt is not used: the retry asks again, naming the change; the call does not run', async () => {
    const own = tempDir();
    // The fixture's echo with a path argument (server-filesystem's write_file has an output schema the v2 client checks on an input_required result).
    const swap = await modernGateway(own, null, { tools: { fix__echo: { kind: 'write', paths: ['path'] } } });
    const target = join(own, 'swapped.txt');
    const other = join(own, 'other.txt');
    writeFileSync(target, 'old');
    writeFileSync(other, 'PRECIOUS');
    const call = { name: 'fix__echo', arguments: { text: 'swapped', path: target } };
    const first = await round(swap.client, call);
    expect(first.resultType).toBe('input_required');
    rmSync(target);
    symlinkSync(other, target);
    const retry = await round(swap.client, { ...call, inputResponses: approval('Allow once'), requestState: first.requestState });
    expect(retry.resultType, JSON.stringify(retry).slice(0, 600)).toBe('input_required');
    expect(JSON.stringify(retry.inputRequests)).toContain(`Your earlier answer to this prompt was not used: ${target} changed while the person was asked: it now leads to ${other}`);
    expect(fixtureCalls(join(own, 'fixture.log'))).toHaveLength(0);
    // Answered again for the call as it is now, it runs.
    const again = await round(swap.client, { ...call, inputResponses: approval('Allow once'), requestState: retry.requestState });
    expect(textOf(again)).toContain('swapped');
  }, 120_000);

  test('a tampered state is refused and asks again; nothing runs', async () => {
    const call = { name: 'fix__echo', arguments: { text: 'tampered' } };
    const state = (await round(m.client, call)).requestState as string;
    const [prefix, body, mac] = state.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${prefix}.${Buffer.from(JSON.stringify({ ...payload, e: (payload.e as number) + 3_600_000 })).toString('base64url')}.${mac}`;
    for (const requestState of [forged, `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`, 'not-a-state']) {
      const result = await round(m.client, { ...call, inputResponses: approval('Allow once'), requestState });
      expect(result.resultType).toBe('input_required');
      expect(JSON.stringify(result.inputRequests)).toMatch(/was not used: it (was altered|is not a state)/);
    }
    expect(calls('tampered')).toHaveLength(0);
  });

  test('a retry with changed arguments asks again; neither set of arguments runs', async () => {
    const state = (await round(m.client, { name: 'fix__echo', arguments: { text: 'harmless' } })).requestState as string;
    const changed = await round(m.client, { name: 'fix__echo', arguments: { text: 'something else' }, inputResponses: approval('Allow once'), requestState: state });
    expect(changed.resultType).toBe('input_required');
    expect(JSON.stringify(changed.inputRequests)).toContain('it was issued for another call');
    expect([...calls('harmless'), ...calls('something else')]).toHaveLength(0);
  });

  // fix__echo asks and declares no outputSchema: the v2 client checks an input_required result handed back by hand against a tool's outputSchema.
  test('calls of one turn: each call that needs a person gets its own input_required; an allowed call is not held back', async () => {
    const [first, allowed, second] = await Promise.all([
      round(m.client, { name: 'fix__echo', arguments: { text: 'turn-a' } }),
      round(m.client, { name: 'open__echo', arguments: { text: 'allowed-now' } }),
      round(m.client, { name: 'fix__echo', arguments: { text: 'turn-b' } }),
    ]);
    expect(first.resultType).toBe('input_required');
    expect(second.resultType).toBe('input_required');
    expect(first.requestState).not.toBe(second.requestState);
    expect(textOf(allowed)).toContain('allowed-now');
    expect([...calls('turn-a'), ...calls('turn-b')]).toHaveLength(0);
  });
});

test('a 2026-07-28 client: an expired state asks again', async () => {
  const dir = tempDir();
  const m = await modernGateway(dir, null, { approval: { timeoutSeconds: 0.2 } });
  const call = { name: 'fix__echo', arguments: { text: 'late' } };
  const state = (await round(m.client, call)).requestState as string;
  await new Promise((done) => setTimeout(done, 600));
  const late = await round(m.client, { ...call, inputResponses: approval('Allow once'), requestState: state });
  expect(late.resultType).toBe('input_required');
  expect(JSON.stringify(late.inputRequests)).toContain('it expired');
  expect(fixtureCalls(join(dir, 'fixture.log'))).toHaveLength(0);
}, 120_000);

describe('a 2026-07-28 client whose envelope declares no elicitation', () => {
  test('fallback "deny": the call is denied naming the rule that would allow it; nothing runs', async () => {
    const dir = tempDir();
    const m = await startModernClient(dir, config(dir, { approval: { fallback: 'deny' } }), { capabilities: {} });
    open.push(m);
    const target = join(dir, 'no-prompt.txt');
    const result = await m.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'x' } });
    expect(textOf(result)).toMatch(/^Denied by mcp-latch: this call needs the user's approval/);
    expect(textOf(result)).toContain('this client cannot show approval prompts');
    expect(existsSync(target)).toBe(false);
    expect(m.prompts).toHaveLength(0);
  }, 120_000);

  test('the approval page: the call waits, is approved on the page, and the write runs once', async () => {
    const dir = tempDir();
    const m = await startModernClient(dir, config(dir, { approval: { fallback: 'browser-manual', timeoutSeconds: 120 } }), { capabilities: {} });
    open.push(m);
    const target = join(dir, 'on-page.txt');
    const pending = m.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'approved on the page' } });
    const url = new URL(await eventually(() => /"msg":"a call waits for approval: open (http:\/\/127\.0\.0\.1:\d+\/\?nonce=\S+) /.exec(m.stderr())![1]!, 60_000));
    const session = await openPage(url);
    const item = await eventually(async () => {
      const items = (JSON.parse((await pageRequest(url, '/api/pending', session)).text) as { items: Array<{ id: string; tool: string }> }).items;
      expect(items).toHaveLength(1);
      return items[0]!;
    }, 60_000);
    expect(item.tool).toBe('write_file');
    await pageRequest(url, '/api/answer', session, JSON.stringify({ id: item.id, decision: 'Allow once' }));
    const result = await pending;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('approved on the page');
    expect(m.prompts).toHaveLength(0);
  }, 120_000);
});

/**
 * The gateway's own state must fit its own limit (round 19 review of the 2026-07-28 path, F7): the
 * picture of where a call's paths led (two absolute paths a line) made the state of a read of ~400
 * files outside the workspace 85,512 characters, refused by its own retry ("longer than 65536
 * characters") and asked again, forever. Now each path is a digest: the most paths a call may
 * have (MAX_CALL_PATHS) fit, and the approval runs the call.
 */
test(`a 2026-07-28 client: a call showing ${MAX_CALL_PATHS} paths can be approved (its state fits MAX_REQUEST_STATE_CHARS)`, async () => {
  const dir = tempDir();
  const ws = join(dir, 'ws');
  const outside = join(dir, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(join(outside, 'some-longish-file-name-number-0.txt'), 'read through the approval');
  const m = await startModernClient(ws, { mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, ws, outside] } }, workspace: [ws] }, { onElicit: null });
  open.push(m);
  const call = { name: 'fs__read_multiple_files', arguments: { paths: Array.from({ length: MAX_CALL_PATHS }, (_, i) => join(outside, `some-longish-file-name-number-${i}.txt`)) } };
  const first = await round(m.client, call);
  expect(first.resultType).toBe('input_required');
  expect((first.requestState as string).length).toBeLessThanOrEqual(MAX_REQUEST_STATE_CHARS);
  const second = await round(m.client, { ...call, inputResponses: approval('Allow once'), requestState: first.requestState });
  expect(second.resultType ?? 'complete').toBe('complete');
  expect(textOf(second)).toContain('read through the approval');
}, 120_000);

/**
 * A prompt state that would still not fit (round 19 review of the 2026-07-28 path, F7): the call
 * ends unrun with a tool error naming the limit, never an approval loop, and the audit trail says
 * so. Reached when the state carries a server's questions and the call's paths grew meanwhile: the
 * first round, allowed by a rule, relays the server's question (its own state 47,300 characters;
 * the call's 100 long paths not yet read as paths); a reload then reads them as paths outside the
 * workspace and drops the rule, so the retry needs the person, with the server's question carried.
 * (Until round 30 the call held 1,000 such strings; a `tools` entry's unnamed strings are now
 * deny-only candidates, and more than MAX_CANDIDATES (100) of them ask in the first round.) The first
 * state is ~63,900 characters (the server's, ~4/3 of its length as carried, and the gateway's own), the retry's
 * ~3,300 more for the 100 paths shown: past the limit.
 */
test(`a 2026-07-28 client: a prompt state still longer than ${MAX_REQUEST_STATE_CHARS} characters ends the call unrun, naming the limit, audited`, async () => {
  const dir = tempDir();
  const ws = join(dir, 'ws');
  mkdirSync(ws);
  const RAW = join(ROOT, 'test/fixtures/raw-modern-server.mjs');
  const question = { q: { method: 'elicitation/create', params: { message: 'Go on?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } } };
  const log = join(dir, 'raw.log');
  const server = { raw: { command: process.execPath, args: [RAW], env: { INPUT_REQUESTS: JSON.stringify(question), STATE_CHARS: '47300', FIXTURE_LOG: log }, protocolVersion: '2026-07-28' as const } };
  const m = await startModernClient(ws, { mcpServers: server, workspace: [ws], audit: { file: join(dir, 'audit.jsonl') }, tools: { raw__go: { kind: 'read', paths: [] } }, permissions: { allow: ['mcp__raw__go'] } }, { onElicit: null });
  open.push(m);
  const call = { name: 'raw__go', arguments: { items: Array.from({ length: MAX_CANDIDATES }, () => join(dir, 'outside', `file-${randomBytes(150).toString('hex')}.txt`)) } };
  const first = await round(m.client, call);
  expect(Object.keys(first.inputRequests as object)).toEqual(['mcp-latch/server/q']);
  expect((first.requestState as string).length).toBeLessThanOrEqual(MAX_REQUEST_STATE_CHARS);
  const reloads = () => m.stderr().split('config reloaded').length;
  const before = reloads();
  writeConfig(ws, { mcpServers: server, workspace: [ws], audit: { file: join(dir, 'audit.jsonl') }, tools: { raw__go: { kind: 'read', paths: ['items[]'] } } });
  await eventually(() => expect(reloads()).toBeGreaterThan(before), 30_000);
  const second = await round(m.client, { ...call, inputResponses: { 'mcp-latch/server/q': { action: 'accept', content: { ok: true } } }, requestState: first.requestState });
  expect(second.resultType ?? 'complete').toBe('complete');
  expect(second.isError).toBe(true);
  expect(textOf(second)).toMatch(new RegExp(`^mcp-latch: the call to raw/go needs the user's approval, but its prompt's requestState would be \\d+ characters, more than the ${MAX_REQUEST_STATE_CHARS} a requestState may hold \\(the limit\\)\\. The call was not run`));
  // Only the first round reached the server.
  expect(fixtureCalls(log)).toEqual([{ tool: 'go', answers: null }]);
  await eventually(() => expect(m.stderr()).toContain("a call's prompt state would be too long; the call was not run"), 30_000);
  const records = readAudit(join(dir, 'audit.jsonl'), 100).filter((record) => record.tool === 'go');
  expect(records.map((record) => [record.decision, record.by])).toEqual([['allow', 'rule'], ['deny', 'gateway']]);
  expect(records[1]!.reason).toContain(`more than the ${MAX_REQUEST_STATE_CHARS} a requestState may hold (the limit)`);
}, 120_000);

/**
 * Mixed framing (round 19 review of the 2026-07-28 path, F6): a session that did `initialize` is of
 * the handshake era (2026-07-28 basic/versioning, "Backward Compatibility"). One call whose `_meta`
 * carries the 2026-07-28 envelope was answered input_required, the prompt in the result, and the
 * caller's own retry with "Allow once" wrote the file: no prompt was shown to the person.
 */
describe('a session that did initialize: a 2026-07-28 envelope in a call is ignored', () => {
  const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
  const selfApproval = { 'mcp-latch/approval': { action: 'accept', content: { decision: 'Allow once' } } };
  const harnesses: Harness[] = [];
  afterAll(async () => {
    await Promise.all(harnesses.splice(0).map((h) => h.close()));
  });

  /** The call with the envelope, then (if it was paused as a result) the caller's own "Allow once" with its state. */
  async function mixedCall(h: Harness, args: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
    const first = (await h.client.request({ method: 'tools/call', params: { name: 'fs__write_file', arguments: args, _meta: envelope } }, ResultSchema)) as Record<string, unknown>;
    if (first.resultType !== 'input_required') return [first];
    const second = await h.client.request({ method: 'tools/call', params: { name: 'fs__write_file', arguments: args, _meta: envelope, inputResponses: selfApproval, requestState: first.requestState } }, ResultSchema);
    return [first, second as Record<string, unknown>];
  }

  test('a client showing forms: the person is asked through elicitation (answers Deny); nothing is written', async () => {
    const dir = tempDir();
    const h = await startGateway({ mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } }, workspace: [dir] }, { dir, onElicit: () => ({ action: 'accept', content: { decision: 'Deny' } }) });
    harnesses.push(h);
    const target = join(dir, 'mixed.txt');
    const answers = await mixedCall(h, { path: target, content: 'no person saw this' });
    expect(answers).toHaveLength(1);
    expect(answers[0]!.resultType).toBeUndefined();
    expect(textOf(answers[0])).toMatch(/^Denied by mcp-latch/);
    expect(h.elicitations).toHaveLength(1);
    expect(h.elicitations[0]!.message).toContain('write_file');
    expect(existsSync(target)).toBe(false);
  }, 120_000);

  test('a client showing no forms, fallback "deny": denied as without the envelope; nothing is written', async () => {
    const dir = tempDir();
    const h = await startGateway({ mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } }, workspace: [dir], approval: { fallback: 'deny' } }, { dir });
    harnesses.push(h);
    const target = join(dir, 'mixed-no-forms.txt');
    const answers = await mixedCall(h, { path: target, content: 'no person saw this' });
    expect(answers).toHaveLength(1);
    expect(textOf(answers[0])).toMatch(/^Denied by mcp-latch: this call needs the user's approval/);
    expect(existsSync(target)).toBe(false);
  }, 120_000);
});
