import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { stateKeyPath } from '../../src/config/locate.js';
import { createHmac } from 'node:crypto';
import { ISSUED_ELSEWHERE, RequestStates, SERVER_QUESTIONS_ELSEWHERE, readOrCreateStateKey } from '../../src/latch/request-state.js';
import { tempDir } from '../helpers/gateway.js';

const binding = { session: 's-1', server: 'fs', tool: 'write_file', argsDigest: 'abc' };
const key = Buffer.alloc(32, 7);

function states(clock = { now: 1_000 }) {
  return { book: new RequestStates(() => key, () => clock.now), clock };
}

/** A state as another process would seal it (its own `r`), signed with `withKey`. */
function sealedElsewhere(x: Record<string, unknown>, withKey = key): string {
  const payload = { r: 'another-process', s: 'its-session', v: binding.server, t: binding.tool, d: binding.argsDigest, e: 9e15, n: 'nonce', x };
  const body = `mls1.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${body}.${createHmac('sha256', withKey).update(body).digest('base64url')}`;
}

describe('request states', () => {
  // Round 24 (docs/team.md, "Two replicas"): what a retry on another replica is told, and whether the
  // call may be decided anew there, follow what the state was for.
  test("another process's state: the prompt's, its server's questions', or a held question's, each told apart", () => {
    const { book } = states();
    expect(book.open(sealedElsewhere({ shown: [] }), binding)).toEqual({ ok: false, problem: ISSUED_ELSEWHERE, elsewhere: 'prompt' });
    expect(book.open(sealedElsewhere({ server: { requests: {} }, approved: false }), binding)).toEqual({ ok: false, problem: SERVER_QUESTIONS_ELSEWHERE, elsewhere: 'server' });
    expect(book.open(sealedElsewhere({ held: 'h-1' }), binding)).toEqual({ ok: false, problem: ISSUED_ELSEWHERE, elsewhere: 'held' });
    // Signed with another replica's key: still a held question there, so not run here (read unverified only to run less).
    expect(book.open(sealedElsewhere({ held: 'h-1' }, Buffer.alloc(32, 9)), binding)).toMatchObject({ ok: false, problem: expect.stringContaining('not issued by this gateway'), elsewhere: 'held' });
    expect(book.open(sealedElsewhere({ shown: [] }, Buffer.alloc(32, 9)), binding)).toEqual({ ok: false, problem: expect.stringContaining('not issued by this gateway') });
    // This process's own state with a broken signature is not "elsewhere".
    const own = book.seal(binding, 60_000, { held: 'h-2' });
    expect(book.open(`${own.slice(0, -1)}${own.endsWith('A') ? 'B' : 'A'}`, binding)).toEqual({ ok: false, problem: expect.stringContaining('not issued by this gateway') });
  });

  test('a state opens once for the call it was sealed for, with what was sealed in it', () => {
    const { book } = states();
    const token = book.seal(binding, 60_000, { inner: 'downstream-state' });
    expect(book.open(token, binding)).toEqual({ ok: true, data: { inner: 'downstream-state' } });
    expect(book.open(token, binding)).toEqual({ ok: false, problem: 'it was already used' });
  });

  test('another session, server, tool or argument digest is refused, and does not spend the state', () => {
    const { book } = states();
    const token = book.seal(binding, 60_000);
    expect(book.open(token, { ...binding, session: 's-2' })).toMatchObject({ ok: false, problem: 'it was issued to another session' });
    for (const other of [{ server: 'other' }, { tool: 'read_file' }, { argsDigest: 'def' }]) {
      expect(book.open(token, { ...binding, ...other })).toMatchObject({ ok: false, problem: expect.stringContaining('issued for another call') });
    }
    expect(book.open(token, binding)).toMatchObject({ ok: true });
  });

  test('an altered payload or signature, a foreign key, or not a state at all is refused', () => {
    const { book } = states();
    const token = book.seal(binding, 60_000);
    const [prefix, body, mac] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const longer = `${prefix}.${Buffer.from(JSON.stringify({ ...payload, e: 9e15 })).toString('base64url')}.${mac}`;
    const foreign = new RequestStates(() => Buffer.alloc(32, 8)).seal(binding, 60_000);
    for (const bad of [longer, `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, `${token.slice(0, -1)}${token.endsWith('A') ? 'C' : 'A'}`, foreign, 'mls1.', 'mls1..', 'nonsense', 42, null, 'mls1.x'.repeat(20_000)]) {
      expect(book.open(bad, binding)).toMatchObject({ ok: false });
    }
    expect(book.open(token, binding)).toMatchObject({ ok: true });
  });

  test('a signature spelled differently is refused, even where base64url decodes it to the same bytes', () => {
    const { book } = states();
    // The last of 43 characters carries 4 bits; its 2 spare bits make e.g. A/B/C/D decode alike.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const token = book.seal(binding, 60_000);
    const twins = [...alphabet].filter((c) => c !== token.at(-1)).map((c) => token.slice(0, -1) + c);
    for (const bad of twins) expect(book.open(bad, binding)).toMatchObject({ ok: false });
    expect(book.open(token, binding)).toMatchObject({ ok: true });
  });

  test('an expired state is refused', () => {
    const { book, clock } = states();
    const token = book.seal(binding, 5_000);
    clock.now += 5_000;
    expect(book.open(token, binding)).toEqual({ ok: false, problem: 'it expired' });
  });
});

describe('the state key', () => {
  test('is made beside the config, 32 bytes, readable by its owner only, and read back the same', () => {
    const dir = tempDir();
    const path = stateKeyPath(join(dir, 'mcp-latch.json'));
    expect(path).toBe(join(dir, 'mcp-latch-state.key'));
    const made = readOrCreateStateKey(path, 'linux');
    expect(made).toHaveLength(32);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readOrCreateStateKey(path, 'linux').equals(made)).toBe(true);
  });

  test('a key others can read, or a file that holds no key, is refused with the fix', () => {
    const dir = tempDir();
    const path = join(dir, 'mcp-latch-state.key');
    readOrCreateStateKey(path, 'linux');
    chmodSync(path, 0o644);
    expect(() => readOrCreateStateKey(path, 'linux')).toThrow(/can be read by other users; run: chmod 600/);
    writeFileSync(path, 'short\n', { mode: 0o600 });
    chmodSync(path, 0o600);
    expect(() => readOrCreateStateKey(path, 'linux')).toThrow(/does not hold a key/);
    expect(readFileSync(path, 'utf8')).toBe('short\n');
  });
});
