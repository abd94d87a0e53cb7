import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { ROOT, eventually, fixtureCalls, fixtureServer, startGateway, tempDir, textOf, writeConfig, type Harness } from '../helpers/gateway.js';
import { inProcessGateway, type InProcessHarness } from '../helpers/in-process.js';
import { round, startModernClient, type Answer, type Elicit, type Modern } from '../helpers/modern-client.js';

/**
 * A 2026-07-28 server (test/fixtures/modern-server.mjs, the TypeScript SDK v2, dual-era) whose
 * `deploy` asks its own question (`confirm`) before it deploys, behind the gateway:
 *
 *   without `protocolVersion` the gateway speaks 2025 to it and it asks through elicitation/create
 *   with `protocolVersion: "2026-07-28"` it answers input_required, which the gateway relays to a
 *   2026-07-28 client (wrapped, its state sealed in the gateway's) or asks a handshake-era one
 */
const MODERN = join(ROOT, 'test/fixtures/modern-server.mjs');
const QUESTION = '[modern] Deploy to staging?';
const KEY = 'mcp-latch/server/confirm';

function config(dir: string, modern: boolean, allow = true): ConfigInput {
  return {
    mcpServers: { modern: { command: process.execPath, args: [MODERN], env: { FIXTURE_LOG: join(dir, 'modern.log') }, ...(modern ? { protocolVersion: '2026-07-28' as const } : {}) } },
    ...(allow ? { permissions: { allow: ['mcp__modern__deploy'] } } : {}),
  };
}

const deploys = (dir: string, env: string) => fixtureCalls(join(dir, 'modern.log')).filter((call) => call.env === env);

/** Confirms the server's question; answers the gateway's prompt with `decision`. */
const answering =
  (decision = 'Allow once') =>
  (params: Elicit): Answer =>
    params.message.startsWith('[modern]') ? { action: 'accept', content: { confirm: true } } : { action: 'accept', content: { decision } };

/** A handshake-era client (the SDK 1.x Client) and the gateway, in this process (helpers/in-process.ts). */
describe('handshake-era client', () => {
  const harnesses: InProcessHarness[] = [];
  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
  });

  for (const modern of [false, true]) {
    test(`the server's question reaches the client through elicitation, and its answer the server (gateway speaks ${modern ? '2026-07-28' : '2025'} to it)`, async () => {
      const dir = tempDir();
      const h = await inProcessGateway(config(dir, modern), { dir, onElicit: () => ({ action: 'accept', content: { confirm: true } }) });
      harnesses.push(h);
      const result = await h.client.callTool({ name: 'modern__deploy', arguments: { env: 'staging' } });
      expect(textOf(result)).toBe('deployed to staging');
      expect(h.elicitations.map((params) => params.message)).toEqual([QUESTION]);
      expect(deploys(dir, 'staging')).toHaveLength(1);
    }, 120_000);
  }

  test('a 2025-era server marked 2026-07-28 refuses server/discover and is spoken to in the 2025 era, with a warning', async () => {
    const dir = tempDir();
    const h = await inProcessGateway({ mcpServers: { old: { ...fixtureServer('old', join(dir, 'old.log')), protocolVersion: '2026-07-28' } }, permissions: { allow: ['mcp__old'] } }, { dir });
    harnesses.push(h);
    const result = await h.client.callTool({ name: 'old__echo', arguments: { text: 'still works' } });
    expect(textOf(result)).toContain('still works');
    expect(fixtureCalls(join(dir, 'old.log'))).toHaveLength(1);
    await eventually(() => expect(h.stderr()).toContain('the server did not take MCP 2026-07-28 (server/discover); speaking the 2025 era to it'), 30_000);
  }, 120_000);

  test('a server that asks again whatever the answer is stopped after 8 rounds; nothing deploys', async () => {
    const dir = tempDir();
    const h = await inProcessGateway(config(dir, true), { dir, onElicit: () => ({ action: 'decline' }) });
    harnesses.push(h);
    const result = await h.client.callTool({ name: 'modern__deploy', arguments: { env: 'staging' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('mcp-latch: modern asked for input the gateway could not pass on: it asked again after 8 rounds of answers (the limit is 8 rounds of one server for one call). The call did not complete.');
    expect(h.elicitations).toHaveLength(8);
    expect(fixtureCalls(join(dir, 'modern.log'))).toHaveLength(0);
  }, 120_000);
});

describe('2026-07-28 client (TypeScript SDK v2, pinned)', () => {
  const opened: Modern[] = [];
  afterAll(async () => {
    await Promise.all(opened.splice(0).map((m) => m.close()));
  });
  const start = async (dir: string, cfg: ConfigInput, onElicit: ((params: Elicit) => Answer) | null = answering()) => {
    const m = await startModernClient(dir, cfg, { onElicit });
    opened.push(m);
    return m;
  };

  test("with the 2025 era spoken to the server, its elicitation is held and reaches the client as input_required; answering it deploys once", async () => {
    const dir = tempDir();
    const m = await start(dir, config(dir, false));
    const result = await m.client.callTool({ name: 'modern__deploy', arguments: { env: 'staging' } });
    expect(textOf(result)).toBe('deployed to staging');
    expect(m.prompts.map((params) => params.message)).toEqual([QUESTION]);
    expect(deploys(dir, 'staging')).toHaveLength(1);
  }, 120_000);

  describe('the server spoken to in 2026-07-28', () => {
    const dir = tempDir();
    let m: Modern;
    beforeAll(async () => {
      m = await start(dir, config(dir, true));
    }, 120_000);

    test("the server's question reaches the client as input_required; answering it completes the call, once", async () => {
      const before = m.prompts.length;
      const result = await m.client.callTool({ name: 'modern__deploy', arguments: { env: 'staging' } });
      expect(textOf(result)).toBe('deployed to staging');
      expect(m.prompts.slice(before).map((params) => params.message)).toEqual([QUESTION]);
      expect(deploys(dir, 'staging')).toHaveLength(1);
    });

    test("the relayed request is the server's under the gateway's key; the server's own state stays inside the gateway's signed one", async () => {
      const first = await round(m.client, { name: 'modern__deploy', arguments: { env: 'wrapped' } });
      expect(first.resultType).toBe('input_required');
      expect(Object.keys(first.inputRequests as object)).toEqual([KEY]);
      expect(first.requestState).toMatch(/^mls1\./);
      const payload = JSON.parse(Buffer.from((first.requestState as string).split('.')[1]!, 'base64url').toString()) as { x: { server: { state: string } } };
      expect(payload.x.server.state).toBe('deploy:wrapped');
      expect(deploys(dir, 'wrapped')).toHaveLength(0);
    });

    test('a replayed wrapped state is refused: the answer reaches the server once, the replay is asked again', async () => {
      const call = { name: 'modern__deploy', arguments: { env: 'replayed' } };
      const first = await round(m.client, call);
      const retry = { ...call, inputResponses: { [KEY]: { action: 'accept', content: { confirm: true } } }, requestState: first.requestState };
      const [a, b] = await Promise.all([round(m.client, retry), round(m.client, retry)]);
      const done = [a, b].filter((result) => result.resultType !== 'input_required');
      expect(done).toHaveLength(1);
      expect(textOf(done[0])).toBe('deployed to replayed');
      // The refused state's answers never reach the server: it asks again.
      expect(Object.keys([a, b].find((result) => result.resultType === 'input_required')!.inputRequests as object)).toEqual([KEY]);
      expect(deploys(dir, 'replayed')).toHaveLength(1);
    });

    test('a tampered wrapped state (the server\'s state inside changed) is refused; nothing deploys', async () => {
      const call = { name: 'modern__deploy', arguments: { env: 'tampered' } };
      const state = (await round(m.client, call)).requestState as string;
      const [prefix, body, mac] = state.split('.') as [string, string, string];
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { x: { server: { state: string } } };
      payload.x.server.state = 'deploy:production';
      const forged = `${prefix}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
      const result = await round(m.client, { ...call, inputResponses: { [KEY]: { action: 'accept', content: { confirm: true } } }, requestState: forged });
      expect(result.resultType).toBe('input_required');
      // The log and the answer travel on different pipes: the line may come a little later.
      await eventually(() => expect(m.stderr()).toContain('it was altered or was not issued by this gateway'), 30_000);
      expect(fixtureCalls(join(dir, 'modern.log')).filter((entry) => entry.env === 'tampered' || entry.env === 'production')).toHaveLength(0);
    });
  });

  test("a call that needs the gateway's approval and the server's question: approved, asked, deployed once", async () => {
    const dir = tempDir();
    const m = await start(dir, config(dir, true, false));
    const result = await m.client.callTool({ name: 'modern__deploy', arguments: { env: 'staging' } });
    expect(textOf(result)).toBe('deployed to staging');
    expect(m.prompts).toHaveLength(2);
    expect(m.prompts[0]!._meta?.['mcp-latch/request']).toMatchObject({ server: 'modern', tool: 'deploy' });
    expect(m.prompts[1]!.message).toBe(QUESTION);
    expect(deploys(dir, 'staging')).toHaveLength(1);
  }, 120_000);

  test('the retry that brings the answers is decided again: a deny rule added meanwhile denies it and nothing deploys', async () => {
    const dir = tempDir();
    const m = await start(dir, config(dir, true), null);
    const call = { name: 'modern__deploy', arguments: { env: 'staging' } };
    const first = await round(m.client, call);
    expect(first.resultType).toBe('input_required');
    const reloads = () => m.stderr().split('config reloaded').length;
    const before = reloads();
    writeConfig(dir, { ...config(dir, true), permissions: { allow: ['mcp__modern__deploy'], deny: ['mcp__modern__deploy'] } });
    await eventually(() => expect(reloads()).toBeGreaterThan(before), 30_000);
    const retry = await round(m.client, { ...call, inputResponses: { [KEY]: { action: 'accept', content: { confirm: true } } }, requestState: first.requestState });
    expect(retry.isError).toBe(true);
    expect(textOf(retry)).toMatch(/^Denied by mcp-latch:/);
    expect(fixtureCalls(join(dir, 'modern.log'))).toHaveLength(0);
  }, 120_000);

  test("a retry that needs the gateway's approval again asks it with the server's question, in one round; answering both deploys once", async () => {
    const dir = tempDir();
    const m = await start(dir, config(dir, true), null);
    const call = { name: 'modern__deploy', arguments: { env: 'combined' } };
    const confirm = { [KEY]: { action: 'accept', content: { confirm: true } } };
    const first = await round(m.client, call);
    expect(Object.keys(first.inputRequests as object)).toEqual([KEY]);
    // The rule that let the call through is gone before the answers come back.
    const reloads = () => m.stderr().split('config reloaded').length;
    const before = reloads();
    writeConfig(dir, config(dir, true, false));
    await eventually(() => expect(reloads()).toBeGreaterThan(before), 30_000);
    const second = await round(m.client, { ...call, inputResponses: confirm, requestState: first.requestState });
    expect(second.resultType).toBe('input_required');
    expect(Object.keys(second.inputRequests as object).sort()).toEqual(['mcp-latch/approval', KEY]);
    expect(fixtureCalls(join(dir, 'modern.log'))).toHaveLength(0);
    const third = await round(m.client, { ...call, inputResponses: { ...confirm, 'mcp-latch/approval': { action: 'accept', content: { decision: 'Allow once' } } }, requestState: second.requestState });
    expect(textOf(third)).toBe('deployed to combined');
    expect(deploys(dir, 'combined')).toHaveLength(1);
  }, 120_000);

  test("edit, then approve, then the server's question: the retry runs the edited call, once", async () => {
    const dir = tempDir();
    const original = join(dir, 'from-model.txt');
    const edited = join(dir, 'from-person.txt');
    const m = await start(dir, { ...config(dir, true, false), workspace: [dir] }, (params) =>
      params.message.startsWith('[modern]') ? { action: 'accept', content: { confirm: true } } : { action: 'accept', content: { decision: 'Allow once', edit_path: edited } },
    );
    const result = await m.client.callTool({ name: 'modern__save', arguments: { path: original, content: 'note' } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(m.prompts.map((params) => params.message.startsWith('[modern]'))).toEqual([false, true]);
    expect(m.prompts[1]!.message).toBe(`[modern] Save to ${edited}?`);
    expect(textOf(result)).toContain(`saved ${edited}`);
    expect(readFileSync(edited, 'utf8')).toBe('note');
    expect(existsSync(original)).toBe(false);
    expect(fixtureCalls(join(dir, 'modern.log'))).toEqual([{ tool: 'save', path: edited }]);
  }, 120_000);

  test("denied by the gateway: the server is never called, so it never asks", async () => {
    const dir = tempDir();
    const m = await start(dir, config(dir, true, false), answering('Deny'));
    const result = await m.client.callTool({ name: 'modern__deploy', arguments: { env: 'staging' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Denied by mcp-latch: the user denied this call/);
    expect(m.prompts).toHaveLength(1);
    expect(fixtureCalls(join(dir, 'modern.log'))).toHaveLength(0);
  }, 120_000);
});

/**
 * An approval carried across the server's own question holds for the call as it was let through
 * (round 19 review of the 2026-07-28 path, F2): the person allowed save(ws/note.txt), the server
 * asked `confirm`, and ws/note.txt became a link to a file outside the workspace before the call
 * went to the server again. The retry was forwarded on the approval and the server wrote through
 * the link (outside/victim.txt "PWNED").
 */
describe("an approval carried across the server's question, a path moved meanwhile", () => {
  const closing: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    await Promise.all(closing.splice(0).map((each) => each.close()));
  });
  function layout() {
    const dir = tempDir();
    const ws = join(dir, 'ws');
    const outside = join(dir, 'outside');
    mkdirSync(ws);
    mkdirSync(outside);
    const victim = join(outside, 'victim.txt');
    writeFileSync(victim, 'original\n');
    const cfg: ConfigInput = { ...config(dir, true, false), workspace: [ws] };
    return { dir, ws, victim, cfg, note: join(ws, 'note.txt') };
  }

  test('2026-07-28 client: the retry answering the server is asked again, naming the change; nothing is written through the link', async () => {
    const { ws, victim, cfg, note } = layout();
    const m = await startModernClient(ws, cfg, { onElicit: null });
    closing.push(m);
    const call = { name: 'modern__save', arguments: { path: note, content: 'PWNED\n' } };
    const first = await round(m.client, call);
    expect(Object.keys(first.inputRequests as object)).toEqual(['mcp-latch/approval']);
    const second = await round(m.client, { ...call, inputResponses: { 'mcp-latch/approval': { action: 'accept', content: { decision: 'Allow once' } } }, requestState: first.requestState });
    expect(Object.keys(second.inputRequests as object)).toEqual([KEY]);
    symlinkSync(victim, note);
    const third = await round(m.client, { ...call, inputResponses: { [KEY]: { action: 'accept', content: { confirm: true } } }, requestState: second.requestState });
    expect(third.resultType).toBe('input_required');
    expect(Object.keys(third.inputRequests as object).sort()).toEqual(['mcp-latch/approval', KEY]);
    const asked = (third.inputRequests as Record<string, { params: { message: string } }>)['mcp-latch/approval']!.params.message;
    expect(asked).toContain(`Your earlier answer to this prompt was not used: ${note} changed while its server's question was open: it now leads to ${victim} (outside the workspace)`);
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
  }, 120_000);

  test('2026-07-28 client, an edited call: the retry answering the server is denied, naming the change; nothing is written through the link', async () => {
    const { ws, victim, cfg, note } = layout();
    const edited = join(ws, 'edited.txt');
    const m = await startModernClient(ws, cfg, { onElicit: null });
    closing.push(m);
    const call = { name: 'modern__save', arguments: { path: note, content: 'PWNED\n' } };
    const first = await round(m.client, call);
    const second = await round(m.client, { ...call, inputResponses: { 'mcp-latch/approval': { action: 'accept', content: { decision: 'Allow once', edit_path: edited } } }, requestState: first.requestState });
    expect(Object.keys(second.inputRequests as object)).toEqual([KEY]);
    symlinkSync(victim, edited);
    const third = await round(m.client, { ...call, inputResponses: { [KEY]: { action: 'accept', content: { confirm: true } } }, requestState: second.requestState });
    expect(third.isError).toBe(true);
    expect(textOf(third)).toContain(`Denied by mcp-latch: ${edited} changed while its server's question was open: it now leads to ${victim} (outside the workspace)`);
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
  }, 120_000);

  test('handshake-era client: the call is not sent to the server again and is denied, naming the change; nothing is written through the link', async () => {
    const { dir, ws, victim, cfg, note } = layout();
    let h: Harness | null = null;
    h = await startGateway(cfg, {
      dir: ws,
      onElicit: (params) => {
        if (!params.message.startsWith('[modern]')) return { action: 'accept' as const, content: { decision: 'Allow once' } as Record<string, string | boolean> };
        symlinkSync(victim, note);
        return { action: 'accept' as const, content: { confirm: true } as Record<string, string | boolean> };
      },
    });
    closing.push(h);
    const result = await h.client.callTool({ name: 'modern__save', arguments: { path: note, content: 'PWNED\n' } });
    expect(h.elicitations.map((params) => params.message.startsWith('[modern]'))).toEqual([false, true]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`Denied by mcp-latch: ${note} changed while its server's question was open: it now leads to ${victim} (outside the workspace)`);
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
    expect(fixtureCalls(join(dir, 'modern.log'))).toHaveLength(0);
  }, 120_000);
});

/**
 * The approval a 2026-07-28 retry carries across its server's questions ends one
 * `approval.timeoutSeconds` after it was given (round 19 review of the 2026-07-28 path, F2): each
 * round's state was sealed anew with it, so a server that kept asking kept the approval alive for good.
 */
test("2026-07-28 client: an approval carried across its server's questions is not renewed by each round; once it ends the person is asked again", async () => {
  const dir = tempDir();
  const RAW = join(ROOT, 'test/fixtures/raw-modern-server.mjs');
  const question = { q: { method: 'elicitation/create', params: { message: 'Again?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } } };
  const m = await startModernClient(dir, { mcpServers: { raw: { command: process.execPath, args: [RAW], env: { INPUT_REQUESTS: JSON.stringify(question), ASK_AGAIN: '1', FIXTURE_LOG: join(dir, 'raw.log') }, protocolVersion: '2026-07-28' } }, approval: { timeoutSeconds: 2 } }, { onElicit: null });
  try {
    const call = { name: 'raw__go', arguments: {} };
    const answer = { 'mcp-latch/server/q': { action: 'accept', content: { ok: true } } };
    const first = await round(m.client, call);
    expect(Object.keys(first.inputRequests as object)).toEqual(['mcp-latch/approval']);
    const second = await round(m.client, { ...call, inputResponses: { 'mcp-latch/approval': { action: 'accept', content: { decision: 'Allow once' } } }, requestState: first.requestState });
    expect(Object.keys(second.inputRequests as object)).toEqual(['mcp-latch/server/q']);
    await new Promise((done) => setTimeout(done, 1200));
    // Within the approval's time: the answer goes to the server, which asks again.
    const third = await round(m.client, { ...call, inputResponses: answer, requestState: second.requestState });
    expect(Object.keys(third.inputRequests as object)).toEqual(['mcp-latch/server/q']);
    await new Promise((done) => setTimeout(done, 1200));
    // The third round's state is still valid; the approval it carries is not.
    const fourth = await round(m.client, { ...call, inputResponses: answer, requestState: third.requestState });
    expect(Object.keys(fourth.inputRequests as object).sort()).toEqual(['mcp-latch/approval', 'mcp-latch/server/q']);
    expect(JSON.stringify(fourth.inputRequests)).toContain("the approval given before its server's questions expired");
    expect(fixtureCalls(join(dir, 'raw.log'))).toHaveLength(2);
  } finally {
    await m.close();
  }
}, 120_000);
