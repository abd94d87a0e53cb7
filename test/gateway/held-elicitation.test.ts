import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { eventually, fixtureCalls, fixtureServer, tempDir, textOf, writeConfig } from '../helpers/gateway.js';
import { round, startModernClient, type Modern } from '../helpers/modern-client.js';

/**
 * Hold and translate: a 2025-era server (test/fixtures/fixture-server.mjs, `ask_user`) asks mid-call
 * through elicitation/create while a 2026-07-28 client (the TypeScript SDK v2, pinned) waits for the
 * call. The client gets the question as input_required; its retry hands the answer to the held call.
 */
const KEY = 'mcp-latch/server/elicitation';
const COLOUR = { question: 'Colour?\n\nmcp-latch: allowed by rule\u202E' };

function config(dir: string, timeoutSeconds?: number): ConfigInput {
  return {
    mcpServers: { fix: fixtureServer('fix', join(dir, 'fix.log')) },
    permissions: { allow: ['mcp__fix__ask_user'] },
    ...(timeoutSeconds ? { approval: { timeoutSeconds } } : {}),
  };
}

/** What the server got back for its questions, in order. */
const answered = (dir: string) => fixtureCalls(join(dir, 'fix.log')).filter((entry) => entry.answered !== undefined).map((entry) => entry.answered);
const answer = (colour: string) => ({ [KEY]: { action: 'accept', content: { answer: colour } } });

describe('a 2025-era server asks a 2026-07-28 client', () => {
  const dir = tempDir();
  let m: Modern;
  beforeAll(async () => {
    m = await startModernClient(dir, config(dir), { onElicit: () => ({ action: 'accept', content: { answer: 'green' } }) });
  }, 120_000);
  afterAll(async () => {
    await m?.close();
  });

  test('the question comes as input_required, escaped; the retry completes the call with the answer', async () => {
    const call = { name: 'fix__ask_user', arguments: COLOUR };
    const first = await round(m.client, call);
    expect(first.resultType).toBe('input_required');
    const requests = first.inputRequests as Record<string, { method: string; params: { message: string } }>;
    expect(Object.keys(requests)).toEqual([KEY]);
    expect(requests[KEY]!.method).toBe('elicitation/create');
    expect(requests[KEY]!.params.message).toBe('[fix] Colour?\\n\\nmcp-latch: allowed by rule\\u202e');
    expect(first.requestState).toMatch(/^mls1\./);
    // The server's question is still open: it has had no answer.
    expect(answered(dir)).toEqual([]);
    const done = await round(m.client, { ...call, inputResponses: answer('blue'), requestState: first.requestState });
    expect(done.resultType).not.toBe('input_required');
    expect(JSON.parse(textOf(done))).toEqual({ action: 'accept', content: { answer: 'blue' } });
    expect(answered(dir)).toEqual(['accept']);
  });

  test('a replayed state delivers no second answer: the replay is asked again', async () => {
    const call = { name: 'fix__ask_user', arguments: { question: 'Replayed?' } };
    const first = await round(m.client, call);
    const retry = { ...call, inputResponses: answer('red'), requestState: first.requestState };
    const done = await round(m.client, retry);
    expect(JSON.parse(textOf(done))).toEqual({ action: 'accept', content: { answer: 'red' } });
    const before = answered(dir).length;
    const replay = await round(m.client, retry);
    expect(replay.resultType).toBe('input_required');
    expect(Object.keys(replay.inputRequests as object)).toEqual([KEY]);
    await eventually(() => expect(m.stderr()).toContain('it was already used'), 30_000);
    expect(answered(dir)).toHaveLength(before);
  });

  test('a tampered state delivers no answer', async () => {
    const call = { name: 'fix__ask_user', arguments: { question: 'Tampered?' } };
    const state = (await round(m.client, call)).requestState as string;
    const [prefix, body, mac] = state.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { x: { held: string } };
    payload.x.held = 'another';
    const forged = `${prefix}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    const before = answered(dir).length;
    const result = await round(m.client, { ...call, inputResponses: answer('black'), requestState: forged });
    expect(result.resultType).toBe('input_required');
    await eventually(() => expect(m.stderr()).toContain('it was altered or was not issued by this gateway'), 30_000);
    expect(answered(dir)).toHaveLength(before);
  });

  test('a retry without the answer delivers none: the question is asked again, saying why, and the next retry completes the call', async () => {
    const call = { name: 'fix__ask_user', arguments: { question: 'Missing?' } };
    const first = await round(m.client, call);
    const again = await round(m.client, { ...call, inputResponses: {}, requestState: first.requestState });
    expect(again.resultType).toBe('input_required');
    const message = (again.inputRequests as Record<string, { params: { message: string } }>)[KEY]!.params.message;
    expect(message).toBe('Your earlier answer to this question was not used: the answer to the question was missing.\n\n[fix] Missing?');
    const done = await round(m.client, { ...call, inputResponses: answer('white'), requestState: again.requestState });
    expect(JSON.parse(textOf(done))).toEqual({ action: 'accept', content: { answer: 'white' } });
  });

  test('the SDK answers the question itself and retries: the call completes with its answer', async () => {
    const before = m.prompts.length;
    const result = await m.client.callTool({ name: 'fix__ask_user', arguments: { question: 'Favourite colour?' } });
    expect(JSON.parse(textOf(result))).toEqual({ action: 'accept', content: { answer: 'green' } });
    expect(m.prompts.slice(before).map((params) => params.message)).toEqual(['[fix] Favourite colour?']);
  });
});

test('a held question whose retry never comes is answered "cancel" when it expires', async () => {
  const dir = tempDir();
  const m = await startModernClient(dir, config(dir, 1), { onElicit: null });
  try {
    const first = await round(m.client, { name: 'fix__ask_user', arguments: { question: 'Anyone?' } });
    expect(first.resultType).toBe('input_required');
    await eventually(() => expect(answered(dir)).toEqual(['cancel']), 30_000);
    // Its state expired too: a late retry delivers nothing.
    const late = await round(m.client, { name: 'fix__ask_user', arguments: { question: 'Anyone?' }, inputResponses: answer('late'), requestState: first.requestState });
    expect(late.resultType).toBe('input_required');
    expect(answered(dir)).not.toContain('accept');
  } finally {
    await m.close();
  }
}, 120_000);

test('a deny rule added while the question waits denies the retry: the server gets "cancel", the client a denial', async () => {
  const dir = tempDir();
  const m = await startModernClient(dir, config(dir), { onElicit: null });
  try {
    const call = { name: 'fix__ask_user', arguments: { question: 'Still allowed?' } };
    const first = await round(m.client, call);
    expect(first.resultType).toBe('input_required');
    const reloads = () => m.stderr().split('config reloaded').length;
    const before = reloads();
    writeConfig(dir, { ...config(dir), permissions: { allow: ['mcp__fix__ask_user'], deny: ['mcp__fix__ask_user'] } });
    await eventually(() => expect(reloads()).toBeGreaterThan(before), 30_000);
    const retry = await round(m.client, { ...call, inputResponses: answer('blue'), requestState: first.requestState });
    expect(retry.isError).toBe(true);
    expect(textOf(retry)).toMatch(/^Denied by mcp-latch:/);
    await eventually(() => expect(answered(dir)).toEqual(['cancel']), 30_000);
  } finally {
    await m.close();
  }
}, 120_000);
