#!/usr/bin/env node
// node bench/first-shell.js [--rounds N] [--calls N] [--pause MS] [--direct] [--json FILE] LABEL=BIN...
//
// The first shell command of fresh gateways, builds side by side (docs/performance.md, "Round 12:
// the first shell command"): each round starts mcp-server-commands behind a fresh gateway of each
// build (BIN: a build's bin/mcp-latch.js), and with --direct the server alone, in an order that
// rotates with the round, and sends `echo call N` (with `workdir`) as soon as the first list is
// answered (--pause MS: after a pause). For each command it reads the gateway's CPU (all threads,
// and its main thread) and the server's, from the scheduler's own accounting, around the call: on a
// shared machine the wall times move with the load, the CPU much less. Prints, per build, the
// medians over the rounds: the first command and a warm one (the median of commands 41-60), wall
// and CPU, their ratios, what the gateway adds to direct (wall, paired by round; first against
// warm, the goal as docs/performance.md restates it), and its CPU for all the commands. Each
// build's code cache is written by one unmeasured start first, in a cache directory of the run's own.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { cpuNs, median } from './measure.js';

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
const config = join(dir, 'shell.json');
writeFileSync(config, JSON.stringify({ mcpServers: { shell: { command: process.execPath, args: [commandsServer] } }, workspace: [dir], permissions: { allow: ['Bash(echo *)'] } }));
const mainThreadNs = (pid) => Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);
const childOf = (pid) => readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number))[0];

/** One fresh start of `bin` (null: the server alone) and its `calls` commands. */
async function start(bin) {
  const args = bin ? [bin, 'serve', '--config', config] : [commandsServer];
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: dir, stderr: 'ignore', env: { ...process.env, MCP_LATCH_LOG_LEVEL: 'warn', XDG_CACHE_HOME: cacheHome } });
  const client = new Client({ name: 'mcp-latch-bench', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport, { timeout: 60_000 });
  await client.listTools();
  const pid = transport.pid;
  const server = bin ? childOf(pid) : pid;
  if (pauseMs > 0) await new Promise((done) => setTimeout(done, pauseMs));
  const rows = [];
  for (let i = 0; i < calls; i++) {
    const gateway = bin ? cpuNs(pid) : NaN;
    const main = bin ? mainThreadNs(pid) : NaN;
    const serverCpu = cpuNs(server);
    const t = performance.now();
    const result = await client.request({ method: 'tools/call', params: { name: bin ? 'shell__run_command' : 'run_command', arguments: { command: `echo call ${i}`, workdir: dir } } }, CallToolResultSchema);
    const wallMs = performance.now() - t;
    rows.push({ wallMs, gatewayMs: (cpuNs(pid) - gateway) / 1e6, mainMs: bin ? (mainThreadNs(pid) - main) / 1e6 : NaN, serverMs: (cpuNs(server) - serverCpu) / 1e6 });
    if (!JSON.stringify(result).includes(`call ${i}`)) throw new Error(`command ${i} did not run: ${JSON.stringify(result).slice(0, 300)}`);
  }
  await client.close();
  const warm = rows.slice(Math.min(40, calls - 1));
  const warmOf = (key) => median(warm.map((row) => row[key]));
  return {
    firstMs: rows[0].wallMs,
    warmMs: warmOf('wallMs'),
    gatewayFirstMs: rows[0].gatewayMs,
    gatewayWarmMs: warmOf('gatewayMs'),
    mainFirstMs: rows[0].mainMs,
    mainWarmMs: warmOf('mainMs'),
    serverFirstMs: rows[0].serverMs,
    serverWarmMs: warmOf('serverMs'),
    gatewayAllMs: rows.reduce((sum, row) => sum + row.gatewayMs, 0),
  };
}

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
  let line = `${label}: ${runs.length} starts; wall first / warm ${f(of(runs, (r) => r.firstMs))} / ${f(of(runs, (r) => r.warmMs))} ms (${f(of(runs, (r) => r.firstMs / r.warmMs))}x)`;
  line += `; server CPU first / warm ${f(of(runs, (r) => r.serverFirstMs))} / ${f(of(runs, (r) => r.serverWarmMs))} ms`;
  if (label !== 'direct') {
    line += `; gateway CPU first / warm ${f(of(runs, (r) => r.gatewayFirstMs))} / ${f(of(runs, (r) => r.gatewayWarmMs))} ms (${f(of(runs, (r) => r.gatewayFirstMs / r.gatewayWarmMs))}x, first - warm ${f(of(runs, (r) => r.gatewayFirstMs - r.gatewayWarmMs))}), main thread ${f(of(runs, (r) => r.mainFirstMs))} / ${f(of(runs, (r) => r.mainWarmMs))}`;
    line += `; gateway CPU for the ${calls} commands ${f(of(runs, (r) => r.gatewayAllMs), 1)} ms`;
    if (direct) {
      // The goal as docs/performance.md restates it ("Round 14: start"): what the gateway adds to the first command against what it adds to a warm one, medians.
      const addedFirst = median(runs.map((r, i) => r.firstMs - direct[i].firstMs));
      const addedWarm = median(runs.map((r, i) => r.warmMs - direct[i].warmMs));
      line += `; added to direct, first / warm ${f(addedFirst)} / ${f(addedWarm)} ms (${f(addedFirst / addedWarm)}x)`;
    }
  }
  console.log(line);
}
if (json) writeFileSync(json, JSON.stringify(results, null, 2));
