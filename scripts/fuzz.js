#!/usr/bin/env node
// npm run fuzz -- --seed N --count M: the differential fuzz against real bash (test/fuzz), longer.
import { spawnSync } from 'node:child_process';

const argv = process.argv.slice(2);
const value = (name, fallback) => {
  const at = argv.indexOf(name);
  return at === -1 ? fallback : argv[at + 1];
};
const env = { ...process.env, FUZZ_SEED: String(value('--seed', Date.now() % 1_000_000)), FUZZ_COUNT: String(value('--count', 2000)) };
console.log(`fuzz: seed ${env.FUZZ_SEED}, ${env.FUZZ_COUNT} commands`);
const run = spawnSync('npx', ['vitest', 'run', 'test/fuzz/differential.test.ts'], { stdio: 'inherit', env });
process.exit(run.status ?? 1);
