// Decision time of two builds in one process, for an A/B on a shared machine:
//   node bench/decisions-ab.js --against DIR [--rounds N] [--block N] [--text TEXT]...
// DIR holds another build's dist/ and package.json, and its own node_modules/web-tree-sitter (each
// build needs its own WASM module), inside this repository so the rest of its imports resolve, e.g.
//   mkdir -p .ab/node_modules && git worktree add /tmp/old main && (cd /tmp/old && npm ci && npm run build) \
//     && cp -r /tmp/old/dist /tmp/old/package.json .ab/ && cp -r node_modules/web-tree-sitter .ab/node_modules/
// Both builds decide the calls of `npm run bench` part 5 (bench/decisions.js) in blocks that
// alternate, and the CPU time per decision (process.cpuUsage) is compared: wall time on a loaded
// machine measures the load. Prints the medians of the blocks and their ratio (this build / DIR).
// Each `--text TEXT` adds a command text decided the same way, new each time: `{n}` in it is a counter.
// `decide alone` decides the facts of one new text, inspected once, again and again: decide's own share.
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decisionCalls } from './decisions.js';
import { median } from './measure.js';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
const against = option('--against', null);
const rounds = Number(option('--rounds', '15'));
const block = Number(option('--block', '2000'));
if (!against || !['dist/index.js', 'package.json', 'node_modules/web-tree-sitter'].every((part) => existsSync(join(against, part)))) {
  console.error('usage: node bench/decisions-ab.js --against DIR [--rounds N] [--block N]; DIR needs dist/, package.json and node_modules/web-tree-sitter (see the top of this file)');
  process.exit(2);
}

// The grammar's WASM compiled as serve compiles it (baseline tier only, src/cli/v8-flags.ts), as
// `npm run bench` part 5 does: set before either build compiles it.
setFlagsFromString('--liftoff-only');
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Each build decides in a directory of its own: the new text's new name (`tN`) is looked up by the
// first build of a round as the kernel has never seen it (~3 µs here) and, in a shared directory,
// by the second from the negative dentry the first left (~0.7 µs); with an odd number of rounds
// the median then favoured the build that went second more often, this one (docs/performance.md
// "Round 18: decision time").
const workFor = () => realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-bench-')));
const load = async (dir) => decisionCalls(await import(pathToFileURL(join(dir, 'dist', 'index.js')).href), await import(pathToFileURL(join(dir, 'dist', 'subjects', 'paths.js')).href), workFor());
const builds = [
  { name: against, calls: await load(resolve(against)) },
  { name: 'this build', calls: await load(root) },
];
const texts = argv.flatMap((arg, i) => (arg === '--text' && argv[i + 1] !== undefined ? [argv[i + 1]] : []));
for (const build of builds) texts.forEach((text, i) => (build.calls[`text${i}`] = build.calls.text(text)));
const kinds = ['fresh', 'command', 'path', 'decideOnly', ...texts.map((_, i) => `text${i}`)];
for (const build of builds) for (const kind of kinds) for (let i = 0; i < 3000; i++) build.calls[kind]();

const cpu = builds.map(() => Object.fromEntries(kinds.map((kind) => [kind, []])));
for (let round = 0; round < rounds; round++) {
  for (const kind of kinds) {
    // Which build goes first alternates with the round.
    for (const k of round % 2 ? [1, 0] : [0, 1]) {
      const fn = builds[k].calls[kind];
      const before = process.cpuUsage();
      for (let i = 0; i < block; i++) fn();
      const used = process.cpuUsage(before);
      cpu[k][kind].push((used.user + used.system) / block);
    }
  }
}
const labels = { fresh: 'new text', command: 'repeated command', path: 'path-only', decideOnly: 'decide alone', ...Object.fromEntries(texts.map((text, i) => [`text${i}`, text])) };
console.log(`CPU per decision (µs), ${builds[0].calls.rules} rules, medians of ${rounds} blocks of ${block}:`);
for (const kind of kinds) {
  const [a, b] = [median(cpu[0][kind]), median(cpu[1][kind])];
  console.log(`  ${labels[kind].padEnd(17)} ${against} ${a.toFixed(2)}   this build ${b.toFixed(2)}   (${(b / a).toFixed(3)}x)`);
}
