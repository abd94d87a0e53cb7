import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from '../helpers/gateway.js';

/**
 * The warm-up's last step empties the young generation so that a client's first call does not set
 * off a scavenge (warm-up.ts). It runs once per start: it must not be worth V8's optimising
 * compiler, which had compiled its loop on a worker thread while the client's first command arrived
 * (docs/performance.md, "Round 14: start"). Run in a fresh node, as the gateway's flags set it up
 * (bin/mcp-latch.js), with V8's own traces of its optimising compiles and of its collections.
 */
const EMPTY = `
  import { setFlagsFromString } from 'node:v8';
  setFlagsFromString('--semi-space-growth-factor=1');
  const { emptyYoungGeneration } = await import(${JSON.stringify(join(ROOT, 'dist/gateway/warm-up.js'))});
  const kept = [];
  for (let index = 0; index < 3000; index++) kept.push({ index });
  console.log('EMPTY-START');
  // Twice: the second finds the young generation just emptied, all of it to fill, as the gateway's
  // warm-up finds it when the start-up's last scavenge was recent.
  emptyYoungGeneration();
  emptyYoungGeneration();
  console.log('EMPTY-END');
  await new Promise((done) => setTimeout(done, 300)); // a concurrent compile would be done by now
  console.log('AFTER', kept.length);
`;

describe('the warm-up emptying the young generation', () => {
  test('sets off a collection and has no function compiled by TurboFan', () => {
    const run = spawnSync(process.execPath, ['--trace-opt', '--trace-gc', '--input-type=module', '-e', EMPTY], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    const lines = run.stdout.split('\n');
    const during = lines.slice(lines.indexOf('EMPTY-START'), lines.indexOf('EMPTY-END'));
    // A scavenge, or a full collection that V8's incremental marking finishes meanwhile (it empties the young generation too).
    expect(during.some((line) => /: (Scavenge|Mark-Compact) /.test(line))).toBe(true);
    const after = lines.slice(lines.indexOf('EMPTY-START'));
    // "marking ... for optimization to TURBOFAN", then "compiling method ... (target TURBOFAN)".
    expect(after.filter((line) => line.includes('emptyYoungGeneration') && line.includes('TURBOFAN'))).toEqual([]);
  });
});
