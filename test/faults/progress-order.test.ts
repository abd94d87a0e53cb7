import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';
import { faultServer } from '../helpers/faults.js';

/**
 * A server's progress updates read with its answer are superseded by it on every path of the
 * answer (round 31 review, P31-1). The SDK Client handles an update a microtask after the read it
 * came in and an answer at once, so an update it reads with its answer is lost and its token
 * reported unknown to `onerror` (typescript-sdk#2580). The gateway held such updates until the end
 * of the read, which is enough for an answer written in that read (a call forwarded at once); an
 * answer passed on through a promise (a new tool's first call, a call that waited for approval)
 * comes microtasks later, so the updates were written alone right before it, and a client reading
 * the two writes at once lost them by chance. Counted off the wire, whatever the client's reads:
 * the fault server writes its updates and its answer in one write (`flood {together: true}`), so
 * the gateway reads them as one and must write none of them.
 */
let h: Harness;
const errors: string[] = [];

beforeAll(async () => {
  const dir = tempDir();
  h = await startGateway(
    { mcpServers: { f: faultServer('progress-flood', join(dir, 'f-starts')), g: faultServer('progress-flood', join(dir, 'g-starts')) }, permissions: { allow: ['mcp__f'], ask: ['mcp__g__flood'] } },
    { dir, onElicit: () => ({ action: 'accept', content: { decision: 'Allow once' } }) },
  );
  h.client.onerror = (error) => void errors.push(String(error));
}, 60_000);

afterAll(async () => {
  await h.close();
});

/** The progress notifications the gateway wrote for one call, and whether its answer came after them, read off the wire. */
async function wireOf(name: string, args: Record<string, unknown>): Promise<{ text: string; updates: number[]; lastBeforeAnswer: boolean }> {
  const seen: Array<number | 'answer'> = [];
  const transport = (h.client as unknown as { transport: { onmessage?: (message: unknown, extra?: unknown) => void; send: (message: unknown) => Promise<void> } }).transport;
  const inner = transport.onmessage!;
  const send = transport.send;
  let token: unknown;
  // The SDK Client's progress token is the request's id.
  transport.send = (message) => {
    const record = message as { method?: string; id?: unknown };
    if (record.method === 'tools/call') token = record.id;
    return send.call(transport, message);
  };
  transport.onmessage = (message, extra) => {
    const record = message as { method?: string; id?: unknown; params?: { progress: number; progressToken: unknown } };
    if (record.method === 'notifications/progress' && record.params!.progressToken === token) seen.push(record.params!.progress);
    else if (record.method === undefined && record.id === token) seen.push('answer');
    inner(message, extra);
  };
  let result: unknown;
  try {
    result = await h.client.callTool({ name, arguments: args }, undefined, { onprogress: () => undefined, timeout: 30_000 });
    // Anything written after the answer would come within a turn or two: wait well past them.
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    transport.onmessage = inner;
    transport.send = send;
  }
  const answerAt = seen.indexOf('answer');
  return { text: textOf(result), updates: seen.filter((each): each is number => each !== 'answer'), lastBeforeAnswer: answerAt === seen.length - 1 };
}

test('updates read with their answer are not written: a new tool\'s first call (its answer through a promise), then a call forwarded at once', async () => {
  // Before round 31 the first call's 5 updates were written, alone, right before its answer.
  const first = await wireOf('f__flood', { count: 5, together: true });
  expect(first.text).toBe('sent 5');
  expect(first.updates).toEqual([]);
  const again = await wireOf('f__flood', { count: 5, together: true });
  expect(again.text).toBe('sent 5');
  expect(again.updates).toEqual([]);
  expect(errors.filter((error) => error.includes('unknown token'))).toEqual([]);
}, 60_000);

test('updates read with their answer are not written for a call that waited for approval', async () => {
  // Before round 31: 5 updates written alone right before the answer.
  const approved = await wireOf('g__flood', { count: 5, together: true });
  expect(approved.text).toBe('sent 5');
  expect(approved.updates).toEqual([]);
  expect(h.elicitations.length).toBeGreaterThan(0);
  expect(errors.filter((error) => error.includes('unknown token'))).toEqual([]);
}, 60_000);

test('updates read before their answer reach the client before it, on both paths', async () => {
  for (const name of ['g__flood', 'f__flood']) {
    const early = await wireOf(name, { count: 5, kb: 0, waitMs: 300 });
    expect(early.text).toBe('sent 5');
    expect(early.updates).toEqual([1, 2, 3, 4, 5]);
    expect(early.lastBeforeAnswer).toBe(true);
  }
}, 60_000);
