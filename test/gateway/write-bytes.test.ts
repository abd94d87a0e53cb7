import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { argsDigest } from '../../src/policy/digest.js';
import { readAudit } from '../../src/store/audit.js';
import { fixtureCalls, fixtureServer, startGateway, tempDir, textOf } from '../helpers/gateway.js';

/**
 * The bytes the gateway writes (its three writers: the call to the server, the answer to the client,
 * the audit records) are encoded into one buffer kept for the process when the text fits, else
 * written as a string (src/text-bytes.ts). Through the built gateway with the SDK Client, 16 calls
 * in flight, texts of one- to four-byte characters on both sides of the buffer's limit (21,845
 * UTF-16 units): the server receives each call's arguments exactly, the client reads each answer
 * exactly, and each call's record, exact, is in the audit file before the server receives the call.
 */
const AUDIT = 'mcp-latch-audit.jsonl';
/** 5 UTF-16 units, 10 UTF-8 bytes. */
const MIXED = 'aé€😀';

describe('the bytes of the writes, 16 calls in flight', () => {
  test('every call reaches the server unchanged, every answer the client unchanged, every record before its call', async () => {
    const dir = tempDir();
    const log = join(dir, 'fixture.log');
    const harness = await startGateway({ mcpServers: { fix: fixtureServer('fix', log, [], { FIXTURE_AUDIT: join(dir, AUDIT) }) }, permissions: { allow: ['mcp__fix__echo'] } }, { dir });
    // One long text each (its record cuts it: checked by digest), and many short values (recorded
    // whole, so the server can find its record); sizes around the buffer's limit, in units.
    const long = [1, 4_000, 16_000, 21_600, 21_700, 21_750, 21_800, 21_900, 30_000].map((units, index) => ({ text: `${index}:${MIXED.repeat(Math.ceil(units / 5))}` }));
    const wide = [10, 60, 95, 140].map((keys, index) => Object.fromEntries(Array.from({ length: keys }, (_, key) => [`k${String(key).padStart(3, '0')}`, `${index}${MIXED.repeat(58)}\u2028"\\`])));
    const calls = Array.from({ length: 48 }, (_, index) => (index % 2 ? long[index % long.length]! : wide[index % wide.length]!)).map((args, index) => ({ ...args, n: String(index) }));
    try {
      // First one at a time (each line a write of its own), then 16 in flight (a write holds several).
      const first = calls.slice(0, 16).map((args) => ({ ...args, n: `${args.n}-alone` }));
      for (const args of first) expect(JSON.parse(textOf(await harness.client.callTool({ name: 'fix__echo', arguments: args })))).toEqual(args);
      calls.unshift(...first);
      let next = first.length;
      const answers: unknown[] = [];
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < calls.length) {
            const index = next++;
            answers[index] = JSON.parse(textOf(await harness.client.callTool({ name: 'fix__echo', arguments: calls[index]! })));
          }
        }),
      );
      expect(answers.slice(first.length)).toEqual(calls.slice(first.length));
    } finally {
      await harness.close();
    }
    const received = fixtureCalls(log).filter((entry) => entry.tool === 'echo');
    expect(received.map((entry) => entry.args).sort(byN)).toEqual([...calls].sort(byN));
    // Recorded whole (every value short): the server found the record when the call arrived.
    expect(received.filter((entry) => !('text' in (entry.args as object))).map((entry) => entry.audited)).toEqual(Array(32).fill(true));
    const records = readAudit(join(dir, AUDIT), 1000).filter((record) => record.decision === 'allow' && record.tool === 'echo');
    expect(records.map((record) => record.argsDigest).sort()).toEqual(calls.map((args) => argsDigest('fix', 'echo', args)).sort());
  }, 60_000);
});

const byN = (a: unknown, b: unknown) => ((a as { n: string }).n < (b as { n: string }).n ? -1 : 1);
