#!/usr/bin/env node
// node bench/first-shell.js [--rounds N] [--calls N] [--pause MS] [--direct] [--per-round] [--json FILE] LABEL=BIN...
//
// The first shell command of fresh gateways, builds side by side (docs/performance.md, "Round 15:
// the first shell command"): each round starts mcp-server-commands behind a fresh gateway of each
// build (BIN: a build's bin/mcp-latch.js), and with --direct the server alone, in an order that
// rotates with the round, and sends `echo call N` as soon as the first list is answered (--pause
// MS: after a pause), measured as bench/run.js measures its shell part (bench/shell-start.js, one
// function for both). Prints, per build, the medians over the rounds: the first command and a
// warm one (the median of commands 41 and on), wall and CPU, their ratios (of the medians), what
// the gateway adds to direct (wall, paired by round; first against warm, the goal as
// docs/performance.md restates it), and its CPU for all the commands; then each build against the
// first one named, paired by round. Each build's code cache is written by one unmeasured start
// first, in a cache directory of the run's own.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './measure.js';
import { shellAdded, shellStart } from './shell-start.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const commandsServer = join(root, 'node_modules/mcp-server-commands/build/index.js');
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const rounds = Number(option('--rounds', 5));
const calls = Number(option('--calls', 60));
const pauseMs = Number(option('--pause', 0));
const json = option('--json', null);
const VALUED = new Set(['--rounds', '--calls', '--pause', '--json']);
const builds = argv.filter((arg, index) => arg.includes('=') && !VALUED.has(argv[index - 1])).map((arg) => [arg.slice(0, arg.indexOf('=')), resolve(arg.slice(arg.indexOf('=') + 1))]);
if (builds.length === 0) builds.push(['this', join(root, 'bin/mcp-latch.js')]);
const order = [...(argv.includes('--direct') ? [['direct', null]] : []), ...builds];

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-first-shell-')));
const cacheHome = join(dir, 'cache');
mkdirSync(cacheHome, { mode: 0o700 });
const start = (bin) => shellStart({ server: commandsServer, bin, dir, cacheHome, calls, pauseMs });

for (const [, bin] of builds) await start(bin); // each build's code cache, unmeasured
const results = Object.fromEntries(order.map(([label]) => [label, []]));
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < order.length; i++) {
    const [label, bin] = order[(i + round) % order.length];
    results[label].push(await start(bin));
  }
  console.error(`round ${round + 1} of ${rounds}, load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
}

const f = (n, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const of = (runs, pick) => median(runs.map(pick));
const direct = results.direct;
for (const [label] of order) {
  const runs = results[label];
  let line = `${label}: ${runs.length} starts; wall first / warm ${f(of(runs, (r) => r.firstMs))} / ${f(of(runs, (r) => r.warmMs))} ms (${f(of(runs, (r) => r.firstMs) / of(runs, (r) => r.warmMs))}x)`;
  line += `; server CPU first / warm ${f(of(runs, (r) => r.firstServerCpuMs))} / ${f(of(runs, (r) => r.warmServerCpuMs))} ms`;
  line += `; the server's own span first / warm ${f(of(runs, (r) => r.firstServerOwnMs))} / ${f(of(runs, (r) => r.warmServerOwnMs))} ms, outside it ${f(of(runs, (r) => r.firstOutsideMs))} / ${f(of(runs, (r) => r.warmOutsideMs))}`;
  line += `; client CPU first / warm ${f(of(runs, (r) => r.firstClientCpuMs))} / ${f(of(runs, (r) => r.warmClientCpuMs))} ms`;
  if (label !== 'direct') {
    // The same figures as bench/run.js prints, computed by the same function (shell-start.js).
    const added = shellAdded(runs, direct ?? null);
    line += `; gateway CPU first / warm ${f(added.gatewayCpuFirstMs)} / ${f(added.gatewayCpuWarmMs)} ms (${f(added.gatewayCpuRatio)}x, first - warm ${f(added.gatewayCpuFirstMinusWarmMs)}), main thread ${f(of(runs, (r) => r.firstMainCpuMs))} / ${f(of(runs, (r) => r.warmMainCpuMs))}`;
    line += `; gateway CPU for the ${calls} commands ${f(of(runs, (r) => r.cpuAllMs), 1)} ms`;
    if (direct) {
      line += `; added to direct outside the server, first / warm ${f(added.addedFirstMs)} / ${f(added.addedWarmMs)} ms (${f(added.addedRatio)}x)`;
      line += `; the whole call's ${f(added.wholeAddedFirstMs)} / ${f(added.wholeAddedWarmMs)} ms (${f(added.wholeAddedRatio)}x), the server's own span ${f(added.serverOwnAddedFirstMs)} / ${f(added.serverOwnAddedWarmMs)}`;
    }
  }
  console.log(line);
}
// Per round, first / warm (ms): wall, the server's own span, outside it; the gateway's CPU.
if (argv.includes('--per-round')) {
  for (const [label] of order) {
    results[label].forEach((r, i) =>
      console.log(`  ${label} round ${i + 1}: wall ${f(r.firstMs)} / ${f(r.warmMs)}, server own ${f(r.firstServerOwnMs)} / ${f(r.warmServerOwnMs)}, outside ${f(r.firstOutsideMs)} / ${f(r.warmOutsideMs)}, server CPU ${f(r.firstServerCpuMs)} / ${f(r.warmServerCpuMs)}, client CPU ${f(r.firstClientCpuMs)} / ${f(r.warmClientCpuMs)}${label === 'direct' ? '' : `, gateway CPU ${f(r.firstGatewayCpuMs)} / ${f(r.warmGatewayCpuMs)}`}`),
    );
  }
}
// Paired by round: each build against the first one named (the rounds' differences, their median).
for (const [label] of builds.slice(1)) {
  const [baseLabel] = builds[0];
  const paired = (pick) => results[label].map((run, i) => pick(run) - pick(results[baseLabel][i]));
  const first = paired((r) => r.firstGatewayCpuMs);
  const extra = paired((r) => r.firstGatewayCpuMs - r.warmGatewayCpuMs);
  console.log(`${label} - ${baseLabel}, paired by round: gateway CPU for the first command ${f(median(first))} ms (lower in ${first.filter((d) => d < 0).length} of ${first.length} rounds; per round ${first.map((d) => f(d)).join(' ')}); first - warm ${f(median(extra))} ms (lower in ${extra.filter((d) => d < 0).length} of ${extra.length})`);
}
if (json) writeFileSync(json, JSON.stringify(results, null, 2));
