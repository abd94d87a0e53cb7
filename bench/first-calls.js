#!/usr/bin/env node
// node bench/first-calls.js [--rounds N] [--calls N] [--servers N] [--per-round] [--no-observe] LABEL=BIN...
//
// The first calls of fresh gateways, builds side by side (docs/performance.md, "Round 33: the
// start"): each round starts, one build after the other in an order that alternates, a gateway
// (BIN: a build's bin/mcp-latch.js) in front of server-everything (`--servers N`: N of them, the
// calls to the first), waits for its first complete tools/list,
// then makes `--calls` echo calls one at a time (20, as bench/run.js's "first 20 calls"). Printed
// per build, medians over the rounds: the gateway's CPU by its first list and over the calls (the
// scheduler's accounting, all threads), the calls' wall time, and the garbage collections the
// gateway ran: how many starts had a full one (mark-compact) before the list, during the calls, or
// neither by the last call's answer. The first full collection of a start comes when its old
// generation and the external memory made since (buffers, external strings) reach V8's first
// limit, which a start's heap at load sets near the first calls (round 32's end: 10.75 ms of
// gateway CPU over 20 calls without it, 23-26 with it). Each build's code cache is written by one
// unmeasured start first, in a directory of its own.
// The collections are seen by a PerformanceObserver of `gc` entries loaded into each gateway with
// `--require` (NODE_OPTIONS; the same for every build, and its flag gives the caches a key of their
// own); it keeps a few numbers per collection and writes them at exit. `--no-observe`: without it.
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { cpuNs, median } from './measure.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const rounds = Number(option('--rounds', 8));
const calls = Number(option('--calls', 20));
const servers = Number(option('--servers', 1));
const perRound = argv.includes('--per-round');
const observe = !argv.includes('--no-observe');
const VALUED = new Set(['--rounds', '--calls', '--servers']);
const builds = argv.filter((arg, index) => arg.includes('=') && !VALUED.has(argv[index - 1])).map((arg) => [arg.slice(0, arg.indexOf('=')), resolve(arg.slice(arg.indexOf('=') + 1))]);
if (builds.length === 0) builds.push(['this', join(root, 'bin/mcp-latch.js')]);

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-first-calls-')));
const config = join(dir, 'config.json');
const mcpServers = Object.fromEntries(Array.from({ length: servers }, (_, i) => [i === 0 ? 'everything' : `everything${i}`, { command: process.execPath, args: [everything, 'stdio'] }]));
writeFileSync(config, JSON.stringify({ mcpServers, permissions: { allow: ['mcp__everything__echo'] } }));
// kind (perf_hooks constants: 1 scavenge, 2 minor mark-compact, 4 mark-compact, 8 incremental marking,
// 16 weak callbacks), the start as epoch ms (the client's clock is the same), its duration.
const probe = join(dir, 'gc-probe.cjs');
writeFileSync(
  probe,
  `const { PerformanceObserver, performance } = require('node:perf_hooks');
  const seen = [];
  new PerformanceObserver((list) => { for (const entry of list.getEntries()) seen.push([entry.detail.kind, performance.timeOrigin + entry.startTime, entry.duration]); }).observe({ entryTypes: ['gc'] });
  process.on('exit', () => require('node:fs').writeFileSync(process.env.FIRST_CALLS_GC, JSON.stringify(seen)));`,
);

let starts = 0;
async function start(label, bin) {
  const gcFile = join(dir, `gc-${starts++}.json`);
  const env = { ...process.env, MCP_LATCH_LOG_LEVEL: 'warn', XDG_CACHE_HOME: join(dir, `cache-${label}`) };
  if (observe) Object.assign(env, { NODE_OPTIONS: `--require ${probe}`, FIRST_CALLS_GC: gcFile });
  const began = Date.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'serve', '--config', config], cwd: dir, stderr: 'ignore', env });
  const client = new Client({ name: 'first-calls', version: '1' }, { capabilities: {} });
  await client.connect(transport, { timeout: 60_000 });
  await client.listTools();
  const listed = Date.now();
  const cpuAtList = cpuNs(transport.pid);
  for (let i = 0; i < calls; i++) await client.request({ method: 'tools/call', params: { name: 'everything__echo', arguments: { message: `first ${i}` } } }, CallToolResultSchema);
  const answered = Date.now();
  const cpuAtLast = cpuNs(transport.pid);
  await client.close();
  let gc = [];
  if (observe) {
    // The exit handler writes as the gateway exits; close() resolves once the process has.
    for (let tries = 0; tries < 50 && gc.length === 0; tries++) {
      try {
        gc = JSON.parse(readFileSync(gcFile, 'utf8'));
      } catch {
        await new Promise((done) => setTimeout(done, 20));
      }
    }
  }
  const full = gc.filter(([kind]) => kind === 4);
  return {
    listMs: listed - began,
    callsMs: answered - listed,
    cpuListMs: cpuAtList / 1e6,
    cpuCallsMs: (cpuAtLast - cpuAtList) / 1e6,
    fullBeforeList: full.filter(([, at]) => at < listed).length,
    fullInCalls: full.filter(([, at]) => at >= listed && at <= answered).length,
    gcInCallsMs: gc.filter(([, at]) => at >= listed && at <= answered).reduce((sum, [, , ms]) => sum + ms, 0),
  };
}

for (const [label, bin] of builds) await start(label, bin); // each build's code cache, unmeasured
const results = Object.fromEntries(builds.map(([label]) => [label, []]));
for (let round = 0; round < rounds; round++) {
  for (const [label, bin] of round % 2 ? [...builds].reverse() : builds) {
    const result = await start(label, bin);
    results[label].push(result);
    if (perRound) console.log(`round ${round + 1} ${label}: list ${result.listMs} ms (CPU ${result.cpuListMs.toFixed(1)}), ${calls} calls ${result.callsMs} ms (CPU ${result.cpuCallsMs.toFixed(2)}), full collections before the list ${result.fullBeforeList}, in the calls ${result.fullInCalls} (gc ${result.gcInCallsMs.toFixed(1)} ms)`);
  }
}
console.log(`${rounds} rounds, ${servers} server${servers === 1 ? '' : 's'}, ${calls} calls each${observe ? '' : ' (collections not observed)'}`);
for (const [label] of builds) {
  const all = results[label];
  const med = (key) => median(all.map((result) => result[key]));
  const count = (test) => all.filter(test).length;
  console.log(
    `${label}: first list ${med('listMs').toFixed(0)} ms, CPU ${med('cpuListMs').toFixed(1)} ms; ${calls} calls ${med('callsMs').toFixed(0)} ms, CPU ${med('cpuCallsMs').toFixed(2)} ms (${all.map((result) => result.cpuCallsMs.toFixed(1)).join(' ')})` +
      (observe ? `; a full collection before the list in ${count((result) => result.fullBeforeList > 0)}, in the calls in ${count((result) => result.fullInCalls > 0)}, neither in ${count((result) => result.fullBeforeList + result.fullInCalls === 0)} of ${all.length} starts` : ''),
  );
}
