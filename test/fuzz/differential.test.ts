import { rmSync } from 'node:fs';
import { beforeAll, expect, test } from 'vitest';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { tempDir } from '../helpers/gateway.js';
import { makeSandbox, runFuzz } from './differential.js';

/**
 * The differential fuzz (differential.ts) with a fixed seed, sized for `npm test` on a loaded
 * 2-core machine. `npm run fuzz -- --seed N --count M` runs it longer (FUZZ_SEED, FUZZ_COUNT).
 */
const seed = Number(process.env['FUZZ_SEED'] ?? 20261126);
const count = Number(process.env['FUZZ_COUNT'] ?? 120);

beforeAll(async () => {
  await initShellParser();
});

test(`bash and the analyser agree: seed ${seed}, ${count} commands`, () => {
  const dir = tempDir('fuzz-');
  let result: ReturnType<typeof runFuzz>;
  try {
    result = runFuzz({ seed, count, sandbox: makeSandbox(dir) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The check says something only about commands whose effect happened: make sure there are many.
  expect(result.effective).toBeGreaterThan(count / 4);
  expect(result.findings).toEqual([]);
}, 600_000);
