#!/usr/bin/env node
// npm run bench — measures mcp-latch against a direct connection to the same server, in one run.
//
//   1. cold start: a fresh process to its first complete tools/list, with 1 server (direct, the
//      floors, the gateway) and with 10 (a client starting all ten itself, against the gateway);
//      then its first 20 calls;
//   2. tools/call latency (p50, p99) and throughput (sequential, 16 in flight) for
//      server-everything's `echo`: direct, through the built gateway, and through two floors; CPU
//      per call and resident memory (after the first list and 20 calls, idle 3 s later, when the 10,000th
//      call is answered, after every call, and 3 s later) of the process in the middle;
//   3. the shell: mcp-server-commands started afresh, directly and behind a fresh gateway; the first
//      command after start against a warm one (so the gateway's own share of the first command is
//      the difference with direct in the same round, set against the same difference for a warm
//      one: the goal as docs/performance.md restates it; read outside the server's own span, which
//      a preload in the server notes, bench/server-stamps.cjs), and the CPU of each process for the
//      first command, a warm one and the first 60 commands; three such starts of each a round
//      (SHELL_PAIRS), the goal's figure the median over every start's pair;
//   4. the decision time per call (inspect + decide) with 1,000 rules loaded: a typical shell
//      command (repeated, and with a new word each time so its analysis is not one kept from
//      before) and a path-only call, after warm-up (parser start-up excluded).
//
// Options: --calls N (default 5000), --rounds N (default 5), --quick (2 rounds of 1000 calls),
// --json (print one JSON object at the end), --decisions (only part 4), --cold (only the ten
// servers and the shell), --against BIN (another build's bin/mcp-latch.js in the ten-server part,
// same rounds), --shell-pause MS (wait between the first list and the first shell command).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, realpathSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { decisionCalls } from './decisions.js';
import { cpuNs, median, percentile } from './measure.js';
import { childrenOf, rssMb, shellAdded, shellStart } from './shell-start.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const bin = join(root, 'bin/mcp-latch.js');
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const option = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) || fallback : fallback);
const calls = option('--calls', quick ? 1000 : 5000);
const asJson = argv.includes('--json');
const rounds = option('--rounds', quick ? 2 : 5);
// --shell-pause MS: a pause between the first list and the first shell command (default none: the command follows the list at once).
const shellPauseMs = option('--shell-pause', 0);
// --against BIN: another build's bin/mcp-latch.js, measured in the cold parts in the same rounds (A/B).
const against = argv.includes('--against') ? resolve(argv[argv.indexOf('--against') + 1]) : null;
const commandsServer = join(root, 'node_modules/mcp-server-commands/build/index.js');
/** The call whose answer "RSS after 10k calls" is read at. */
const SAMPLE_AT = 10_000;

async function connect(command, args, cwd) {
  const started = performance.now();
  // The gateways' code caches are the run's own (`cwd` is its directory), written by primeCodeCache:
  // the user's directory is shared by every start of the same bundle (a test's, another checkout's),
  // and its cache was that start's (docs/performance.md, "End of round 28" and "Round 29: the
  // ten-server start").
  const transport = new StdioClientTransport({ command, args, cwd, stderr: 'ignore', env: { MCP_LATCH_LOG_LEVEL: 'warn', XDG_CACHE_HOME: join(cwd, 'code-cache') } });
  const client = new Client({ name: 'mcp-latch-bench', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport, { timeout: 60_000 });
  const listed = await client.listTools();
  const firstListMs = performance.now() - started;
  return { client, transport, firstListMs, tools: listed.tools.map((tool) => tool.name) };
}

/**
 * The first start after a build compiles the serve bundle and writes V8's code cache for the next
 * ones (src/cli/code-cache.ts): one start of each build measured, before the rounds, so every start
 * measured is like all of a user's but the first.
 */
async function primeCodeCache(dir) {
  const config = join(dir, 'prime.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } }, permissions: { allow: ['mcp__everything__echo'] } }));
  for (const gatewayBin of [bin, ...(against ? [against] : [])]) {
    const connection = await connect(process.execPath, [gatewayBin, 'serve', '--config', config], dir);
    // The cache is written just after the first list is answered, and again after the first call
    // (with the call path's code, src/cli/code-cache.ts): every measured start then loads that one.
    await connection.client.request({ method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'prime' } } }, CallToolResultSchema);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await connection.client.close();
    // The shell part's starts have a cache directory of their own, written by a start whose first
    // call is a shell command, as bench/first-shell.js does (docs/performance.md, "Round 15: the
    // first shell command"); without it, the first round's shell start compiled the shell model
    // without a cache and wrote it as its first command arrived ("Round 13: start and memory").
    await shellRun(dir, gatewayBin, 0);
  }
}

/** How long "idle" waits: the client quiet for 3 s (the gateway collects after a whole second without input). */
const QUIET_MS = 3000;
const quiet = () => new Promise((resolve) => setTimeout(resolve, QUIET_MS));

/**
 * A fresh connection: its first list, its first 20 calls, and the RSS of the process the client
 * talks to right after them and idle (the client then quiet for 3 s).
 */
async function coldStart(command, args, cwd, tool) {
  const connection = await connect(command, args, cwd);
  const started = performance.now();
  for (let i = 0; i < 20; i++) await connection.client.request({ method: 'tools/call', params: { name: tool, arguments: { message: `first ${i}` } } }, CallToolResultSchema);
  const first20Ms = performance.now() - started;
  const rssFirst20Mb = rssMb(connection.transport.pid);
  await quiet();
  return { ...connection, cold: { firstListMs: connection.firstListMs, first20Ms, rssFirst20Mb, rssIdleMb: rssMb(connection.transport.pid) } };
}

/**
 * Ten servers: a client starting all ten itself (ten connections at once), against one gateway in
 * front of them (`gateways`: the built one, and with --against, another build in the same round).
 * Besides the wall time to the first complete list, the CPU spent by then: the ten servers', and
 * the gateway's own, which competes with the servers' boot for the cores.
 *
 * TEN_PAIRS such starts of each, interleaved, per round, the direct client first in every other
 * pair: a round's figures are the medians over its pairs, and its ratio the median of the pairs'
 * ratios (each gateway start against the direct start next to it). One pair a round, direct always
 * first, spread the rounds of one run over 0.96-1.17x at load ~4 for the same build
 * (docs/performance.md, "Round 22: start"); what is measured, a start to its first complete list,
 * is the same.
 */
const TEN_PAIRS = 3;

async function tenServers(dir, gateways = [bin], round = 0) {
  const config = join(dir, 'ten.json');
  const mcpServers = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`s${i}`, { command: process.execPath, args: [everything, 'stdio'] }]));
  writeFileSync(config, JSON.stringify({ mcpServers, permissions: { allow: ['mcp__s0__echo'] } }));
  const pairs = [];
  for (let pair = 0; pair < TEN_PAIRS; pair++) {
    const directFirst = (pair + round) % 2 === 0;
    const result = {};
    if (directFirst) Object.assign(result, await tenDirect(dir));
    for (const gatewayBin of gateways) Object.assign(result, await tenGateway(dir, config, gatewayBin));
    if (!directFirst) Object.assign(result, await tenDirect(dir));
    result.ratio = result.gatewayMs / result.directMs;
    if (result.gatewayMsB !== undefined) result.ratioB = result.gatewayMsB / result.directMs;
    pairs.push(result);
  }
  return Object.fromEntries(Object.keys(pairs[0]).map((key) => [key, median(pairs.map((pair) => pair[key]))]));
}

async function tenDirect(dir) {
  const started = performance.now();
  const direct = await Promise.all(Array.from({ length: 10 }, () => connect(process.execPath, [everything, 'stdio'], dir)));
  const directMs = performance.now() - started;
  const directServersCpuMs = direct.reduce((sum, connection) => sum + cpuNs(connection.transport.pid), 0) / 1e6;
  await Promise.all(direct.map((connection) => connection.client.close()));
  return { directMs, directServersCpuMs };
}

async function tenGateway(dir, config, gatewayBin) {
  const gateway = await connect(process.execPath, [gatewayBin, 'serve', '--config', config], dir);
  const pid = gateway.transport.pid;
  const gatewayCpuMs = cpuNs(pid) / 1e6;
  const serversCpuMs = childrenOf(pid).reduce((sum, child) => sum + cpuNs(child), 0) / 1e6;
  const listed = new Set(gateway.tools.map((name) => name.split('__')[0]));
  await gateway.client.close();
  if (listed.size < 10) throw new Error(`the gateway's first list had the tools of ${listed.size} servers of ten`);
  const suffix = gatewayBin === bin ? '' : 'B';
  return { [`gatewayMs${suffix}`]: gateway.firstListMs, [`gatewayCpuMs${suffix}`]: gatewayCpuMs, [`gatewayServersCpuMs${suffix}`]: serversCpuMs };
}


/**
 * mcp-server-commands started afresh, directly (`gatewayBin` null) or behind a fresh gateway
 * (bench/shell-start.js): its first 60 commands, and its RSS after the first list and 3 s after the
 * commands. The shell starts' code caches are in a directory of the run's own (primeCodeCache).
 */
function shellRun(dir, gatewayBin, pauseMs = shellPauseMs, quietMs = QUIET_MS) {
  const cacheHome = join(dir, 'shell-cache');
  mkdirSync(cacheHome, { recursive: true, mode: 0o700 });
  return shellStart({ server: commandsServer, bin: gatewayBin, dir, cacheHome, calls: 60, pauseMs, quietMs });
}

/**
 * Fresh shell starts of each build (and of the server alone) a round. A start gives one first
 * command, and one first command's part outside the server moved by about as much as the goal's
 * margin from one start to the next: the ratio of a run's medians of three (one start a round) read
 * 1.41x-2.98x over round 22's six runs (docs/performance.md, "Round 23: first shell command"). The
 * goal's figure is now the median over every start's pair (rounds x SHELL_PAIRS), paired by start.
 * Only a round's first start of each waits the 3 s quiet for its RSS reading.
 */
const SHELL_PAIRS = 3;

/** One figure per key for a round's starts of one build: the median of those that have it (NaN when none). */
function mergeStarts(starts) {
  return Object.fromEntries(Object.keys(starts[0]).map((key) => {
    const values = starts.map((start) => start[key]).filter(Number.isFinite);
    return [key, values.length > 0 ? median(values) : NaN];
  }));
}

/**
 * The client's (this process's) garbage collection pauses so far, µs, and its read system calls: the
 * client is this one process for every setup in turn, so its CPU per call carries what the setups
 * before left on its heap (docs/performance.md, "Round 27: calls in flight").
 */
let clientGcUs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) clientGcUs += entry.duration * 1000;
}).observe({ entryTypes: ['gc'] });
const clientReads = () => Number(/syscr: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))[1]);

/** `pid`: the process the client talks to (the server itself when direct, else the process in the middle). */
async function measure(client, tool, pid) {
  // The issue's "RSS after 10k calls": read when the 10,000th call of this connection is answered
  // (the 20 cold-start calls not counted), whichever phase that falls in.
  let answered = 0;
  let rss10kMb = NaN;
  const call = async (i) => {
    const result = await client.request({ method: 'tools/call', params: { name: tool, arguments: { message: `ping ${i}` } } }, CallToolResultSchema);
    if (++answered === SAMPLE_AT) rss10kMb = rssMb(pid);
    return result;
  };
  const inFlight = async (count) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < count) await call(next++);
      }),
    );
  };
  // Warm-up, both patterns: a call alone and calls arriving together take different paths through
  // the gateway (the latch batches the latter), and each must be JIT-compiled before it is timed.
  for (let i = 0; i < 1500; i++) await call(i);
  await inFlight(3000);
  const latencies = [];
  const cpuStart = cpuNs(pid);
  const sequentialStart = performance.now();
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await call(i);
    latencies.push(performance.now() - t);
  }
  const sequentialMs = performance.now() - sequentialStart;
  latencies.sort((a, b) => a - b);

  // 16 in flight, the CPU of each process of the chain: on two cores the chain is CPU-bound when
  // the machine is quiet, so a process in the middle costs throughput by its own CPU per call and
  // by what it adds to the server's (docs/performance.md, "Round 16: 16 in flight").
  const server = serverOf(pid);
  const chainStart = { client: process.cpuUsage(), clientGcUs, clientReads: clientReads(), middle: server === pid ? 0 : cpuNs(pid), server: cpuNs(server) };
  const parallelStart = performance.now();
  await inFlight(calls);
  const parallelMs = performance.now() - parallelStart;
  const clientCpu = process.cpuUsage(chainStart.client);
  const flightCpu = {
    client: (clientCpu.user + clientCpu.system) / calls,
    clientGc: (clientGcUs - chainStart.clientGcUs) / calls,
    clientReads: (clientReads() - chainStart.clientReads) / calls,
    middle: server === pid ? 0 : (cpuNs(pid) - chainStart.middle) / 1000 / calls,
    server: (cpuNs(server) - chainStart.server) / 1000 / calls,
  };
  const cpuUsPerCall = (cpuNs(pid) - cpuStart) / 1000 / (2 * calls);
  // After the warm-up (4,500 calls) and both timed patterns.
  const rssAfterMb = rssMb(pid);
  // Fewer than 10,000 calls so far (--calls under 2,750): the rest one at a time, untimed.
  for (let i = 0; answered < SAMPLE_AT; i++) await call(i);
  // What the process keeps once the client has been quiet for 3 s (the gateway gives back what its burst promoted).
  await new Promise((resolve) => setTimeout(resolve, 3000));
  return {
    cpuUsPerCall,
    rss10kMb,
    rssAfterMb,
    rssQuietMb: rssMb(pid),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    sequentialPerSec: (calls / sequentialMs) * 1000,
    inFlight16PerSec: (calls / parallelMs) * 1000,
    inFlightClientCpuUs: flightCpu.client,
    inFlightClientGcUs: flightCpu.clientGc,
    inFlightClientReads: flightCpu.clientReads,
    inFlightMiddleCpuUs: flightCpu.middle,
    inFlightServerCpuUs: flightCpu.server,
    // Cores the chain kept busy: its CPU over the wall time, per call.
    inFlightCores: (flightCpu.client + flightCpu.middle + flightCpu.server) / ((parallelMs * 1000) / calls),
    // What the chain reached of the most its CPU a call allows on this machine's cores (each process
    // on one core at a time): direct ~0.95, a chain of three ~0.7 (docs/performance.md, "Round 29:
    // sixteen in flight").
    inFlightBoundShare: ((calls / parallelMs) * 1000 * Math.max((flightCpu.client + flightCpu.middle + flightCpu.server) / availableParallelism(), flightCpu.client, flightCpu.middle, flightCpu.server)) / 1e6,
  };
}

/** The server a connection reaches: the process itself when direct, else the child of the process in the middle. */
function serverOf(pid) {
  const children = childrenOf(pid);
  return children.length === 1 ? children[0] : pid;
}


async function decisionBench() {
  // The grammar's WASM is compiled as serve compiles it (baseline tier only, src/cli/serve.ts), so
  // the decision time is the gateway's; set before anything in this process compiles WASM.
  setFlagsFromString('--liftoff-only');
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-bench-')));
  const calls = await decisionCalls(await import('../dist/index.js'), await import('../dist/subjects/paths.js'), work);
  const time = (fn, n) => {
    // Warm-up until V8 has optimised what the samples run: after 2,000 new texts 36 functions were
    // still optimised inside the timed samples, their first quarter ~2.5 µs slower than the rest
    // (docs/performance.md, "Round 19: decision time").
    for (let i = 0; i < 10_000; i++) fn();
    const samples = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const t = process.hrtime.bigint();
      fn();
      samples[i] = Number(process.hrtime.bigint() - t) / 1000;
    }
    samples.sort();
    return { medianUs: percentile(samples, 50), p99Us: percentile(samples, 99) };
  };
  const command = time(calls.command, 20_000);
  // The same command with a new word each time: never seen before, so analysed in full.
  const freshCommand = time(calls.fresh, 20_000);
  const path = time(calls.path, 20_000);
  return { rules: calls.rules, command: { ...command, decision: calls.command().verdict }, freshCommand, path: { ...path, decision: calls.path().verdict } };
}

/**
 * The parts of a round that start servers afresh without a warm phase: ten servers, and the shell
 * directly and behind a fresh gateway. Which of a pair goes first alternates with the round.
 */
async function coldParts(dir, round) {
  const ten = await tenServers(dir, against ? (round % 2 ? [against, bin] : [bin, against]) : [bin], round);
  // Which goes first rotates with the round: the first start of a round finds fewer files cached.
  const order = [null, bin, ...(against ? [against] : [])];
  const shellPasses = [];
  for (let pass = 0; pass < SHELL_PAIRS; pass++) {
    const shells = new Map();
    for (let i = 0; i < order.length; i++) {
      const gatewayBin = order[(i + round * SHELL_PAIRS + pass) % order.length];
      shells.set(gatewayBin, await shellRun(dir, gatewayBin, shellPauseMs, pass === 0 ? QUIET_MS : 0));
    }
    shellPasses.push({ shellDirect: shells.get(null), shell: shells.get(bin), ...(against ? { shellB: shells.get(against) } : {}) });
  }
  // `shell`, `shellDirect`, `shellB`: the round's medians of its starts; `shellPasses`: each start, for the goal's pairs (shellPairs).
  const merged = (key) => mergeStarts(shellPasses.map((pass) => pass[key]));
  return { ten, shellPasses, shellDirect: merged('shellDirect'), shell: merged('shell'), ...(against ? { shellB: merged('shellB') } : {}) };
}

/** Every start of `key` ('shell' or 'shellB') beside the server's alone of the same pass, over the rounds: what shellAdded pairs. */
function shellPairs(runs, key) {
  return [runs.flatMap((run) => run.shellPasses.map((pass) => pass[key])), runs.flatMap((run) => run.shellPasses.map((pass) => pass.shellDirect))];
}

const f = (n, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

/** The first shell command and the first list of ten servers, per round and the medians. */
function printCold(runs) {
  const ten = (key) => median(runs.map((run) => run.ten[key]));
  const shellOf = (pick, key) => median(runs.map((run) => run[pick][key]));
  const added = shellAdded(...shellPairs(runs, 'shell'));
  console.log(
    'first list, 10 servers (ms)'.padEnd(28) + `a client starting all ten ${f(ten('directMs'), 0)}, mcp-latch ${f(ten('gatewayMs'), 0)} (${f(median(runs.map((run) => run.ten.ratio)))}x)` +
      (against ? `, --against ${f(ten('gatewayMsB'), 0)} (${f(median(runs.map((run) => run.ten.ratioB)))}x)` : ''),
  );
  console.log(
    '  CPU by then (ms)'.padEnd(28) + `the ten servers direct ${f(ten('directServersCpuMs'), 0)}; behind mcp-latch ${f(ten('gatewayServersCpuMs'), 0)}, the gateway ${f(ten('gatewayCpuMs'), 0)}` +
      (against ? `; --against: servers ${f(ten('gatewayServersCpuMsB'), 0)}, gateway ${f(ten('gatewayCpuMsB'), 0)}` : ''),
  );
  console.log(
    `shell, mcp-server-commands started afresh (\`echo call N\`):  first command / warm (ms): direct ${f(shellOf('shellDirect', 'firstMs'), 1)} / ${f(shellOf('shellDirect', 'warmMs'), 1)}, ` +
      `via mcp-latch ${f(shellOf('shell', 'firstMs'), 1)} / ${f(shellOf('shell', 'warmMs'), 1)} (${f(median(runs.map((run) => run.shell.firstMs / run.shell.warmMs)))}x)`,
  );
  console.log(
    `  added by mcp-latch outside the server (via - direct, paired by start, ${SHELL_PAIRS} starts a round): first command ${f(added.addedFirstMs, 2)} ms, warm ${f(added.addedWarmMs, 2)} ms: ${f(added.addedRatio)}x (goal 2x, restated); ` +
      `the gateway's CPU first / warm ${f(added.gatewayCpuFirstMs)} / ${f(added.gatewayCpuWarmMs)} ms (${f(added.gatewayCpuRatio)}x)`,
  );
  // The whole call's difference holds the two fresh servers' own first commands (docs/performance.md, "Round 20: first shell command").
  console.log(
    `  the whole call, via - direct: first ${f(added.wholeAddedFirstMs, 2)} ms, warm ${f(added.wholeAddedWarmMs, 2)} ms (${f(added.wholeAddedRatio)}x); of it the server's own span, via - direct: first ${f(added.serverOwnAddedFirstMs, 2)}, warm ${f(added.serverOwnAddedWarmMs, 2)} ms ` +
      `(the server's own span first / warm: direct ${f(shellOf('shellDirect', 'firstServerOwnMs'), 2)} / ${f(shellOf('shellDirect', 'warmServerOwnMs'), 2)}, via ${f(shellOf('shell', 'firstServerOwnMs'), 2)} / ${f(shellOf('shell', 'warmServerOwnMs'), 2)})`,
  );
  console.log(
    `  the server's CPU, first / warm command: ${f(shellOf('shellDirect', 'firstServerCpuMs'), 1)} / ${f(shellOf('shellDirect', 'warmServerCpuMs'), 1)} ms direct, ` +
      `${f(shellOf('shell', 'firstServerCpuMs'), 1)} / ${f(shellOf('shell', 'warmServerCpuMs'), 1)} behind mcp-latch`,
  );
  console.log(`  gateway CPU for the first 60 commands ${f(shellOf('shell', 'cpuAllMs'), 0)} ms; gateway RSS with a shell tool after the first list ${f(shellOf('shell', 'rssIdleMb'), 1)} MiB, idle after the 60 commands (3 s quiet) ${f(shellOf('shell', 'rssQuietMb'), 1)} MiB`);
  if (against) {
    const addedB = shellAdded(...shellPairs(runs, 'shellB'));
    console.log(
      `  --against: added outside the server, first ${f(addedB.addedFirstMs, 2)} ms, warm ${f(addedB.addedWarmMs, 2)} ms: ${f(addedB.addedRatio)}x; the whole call's ${f(addedB.wholeAddedFirstMs, 2)} / ${f(addedB.wholeAddedWarmMs, 2)} ms (${f(addedB.wholeAddedRatio)}x)`,
    );
    console.log(
      `  --against: first / warm ${f(shellOf('shellB', 'firstMs'), 1)} / ${f(shellOf('shellB', 'warmMs'), 1)} ms, added to direct ${f(median(runs.map((run) => run.shellB.firstMs - run.shellDirect.firstMs)), 1)} ms, ` +
        `gateway CPU first / warm command ${f(shellOf('shellB', 'firstGatewayCpuMs'))} / ${f(shellOf('shellB', 'warmGatewayCpuMs'))}, 60 commands ${f(shellOf('shellB', 'cpuAllMs'), 0)} ms, RSS idle ${f(shellOf('shellB', 'rssIdleMb'), 1)} MiB`,
    );
  }
  console.log(`  per round (10 servers: medians of ${TEN_PAIRS} interleaved pairs): 10 servers direct / latch` + (against ? ' / against' : '') + ` ms (gateway CPU ms; ratio); shell (medians of ${SHELL_PAIRS} starts of each) first / warm direct, via latch ms (gateway CPU first / warm, 60 commands); outside the server first / warm direct, via latch ms`);
  runs.forEach((run, index) =>
    console.log(
      `  round ${index + 1}: ${f(run.ten.directMs, 0)} / ${f(run.ten.gatewayMs, 0)}${against ? ` / ${f(run.ten.gatewayMsB, 0)}` : ''} (${f(run.ten.gatewayCpuMs, 0)}${against ? ` / ${f(run.ten.gatewayCpuMsB, 0)}` : ''}; ${f(run.ten.ratio)}x${against ? ` / ${f(run.ten.ratioB)}x` : ''});  ` +
        `${f(run.shellDirect.firstMs, 1)} / ${f(run.shellDirect.warmMs, 1)}, ${f(run.shell.firstMs, 1)} / ${f(run.shell.warmMs, 1)} (${f(run.shell.firstGatewayCpuMs, 1)} / ${f(run.shell.warmGatewayCpuMs, 2)}, ${f(run.shell.cpuAllMs, 0)}); ` +
        `${f(run.shellDirect.firstOutsideMs, 2)} / ${f(run.shellDirect.warmOutsideMs, 2)}, ${f(run.shell.firstOutsideMs, 2)} / ${f(run.shell.warmOutsideMs, 2)}` +
        (against ? `, against ${f(run.shellB.firstMs, 1)} / ${f(run.shellB.warmMs, 1)} (${f(run.shellB.firstGatewayCpuMs, 1)} / ${f(run.shellB.warmGatewayCpuMs, 2)}, ${f(run.shellB.cpuAllMs, 0)})` : ''),
    ),
  );
}

async function main() {
  if (argv.includes('--decisions')) {
    // Only the decision-time part: no servers are started.
    console.log(JSON.stringify(await decisionBench(), null, 2));
    return;
  }
  if (argv.includes('--cold')) {
    // Only the cold parts: ten servers and the first shell command.
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-bench-')));
    await primeCodeCache(dir);
    const runs = [];
    for (let round = 0; round < rounds; round++) {
      runs.push(await coldParts(dir, round));
      if (!asJson) console.error(`round ${round + 1} of ${rounds} done`);
    }
    if (asJson) console.log(JSON.stringify(runs, null, 2));
    else printCold(runs);
    return;
  }
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-bench-')));
  const config = join(dir, 'mcp-latch.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
      permissions: { allow: ['mcp__everything__echo'] },
      audit: { enabled: process.env.BENCH_AUDIT !== "0" },
    }),
  );

  await primeCodeCache(dir);
  // Each round starts every connection afresh. The kernel places the processes on the two cores
  // differently each time, and that alone moves the direct p50 between about 35 and 75 µs here;
  // the summary takes the median of the rounds, and every round is printed.
  const runs = [];
  for (let round = 0; round < rounds; round++) {
    const direct = await coldStart(process.execPath, [everything, 'stdio'], dir, 'echo');
    const directStats = { ...direct.cold, ...(await measure(direct.client, 'echo', direct.transport.pid)) };
    await direct.client.close();

    const gateway = await coldStart(process.execPath, [bin, 'serve', '--config', config], dir, 'everything__echo');
    const gatewayStats = { ...gateway.cold, ...(await measure(gateway.client, 'everything__echo', gateway.transport.pid)) };
    await gateway.client.close();

    // Floors, same server, same round: a relay that only copies bytes, and a proxy that only uses the SDK.
    const relay = await coldStart(process.execPath, [join(root, 'bench/floor-relay.js'), process.execPath, everything, 'stdio'], dir, 'echo');
    const relayStats = { ...relay.cold, ...(await measure(relay.client, 'echo', relay.transport.pid)) };
    await relay.client.close();
    const sdkProxy = await coldStart(process.execPath, [join(root, 'bench/floor-sdk-proxy.js'), process.execPath, everything, 'stdio'], dir, 'echo');
    const sdkProxyStats = { ...sdkProxy.cold, ...(await measure(sdkProxy.client, 'echo', sdkProxy.transport.pid)) };
    await sdkProxy.client.close();
    runs.push({ direct: directStats, gateway: gatewayStats, relay: relayStats, sdkProxy: sdkProxyStats, ...(await coldParts(dir, round)) });
    if (!asJson) console.error(`round ${round + 1} of ${rounds} done`);
  }
  const summarise = (pick) => Object.fromEntries(Object.keys(runs[0][pick]).map((key) => [key, median(runs.map((run) => run[pick][key]))]));
  const directStats = summarise('direct');
  const gatewayStats = summarise('gateway');
  const relayStats = summarise('relay');
  const sdkProxyStats = summarise('sdkProxy');
  const ratioOf = (key, invert = false) => median(runs.map((run) => (invert ? run.direct[key] / run.gateway[key] : run.gateway[key] / run.direct[key])));
  const decisions = await decisionBench();
  // The issue's goal: growth over idle (after the first 20 calls) when the 10,000th call is answered; median of the per-round growths.
  const growth = (pick) => median(runs.map((run) => run[pick].rss10kMb - run[pick].rssIdleMb));

  const result = {
    machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
    calls,
    rounds,
    direct: directStats,
    floors: { byteRelay: relayStats, sdkProxy: sdkProxyStats },
    gateway: gatewayStats,
    // Median of the per-round ratios: each round compares connections measured minutes apart at most.
    ratio: {
      p50: ratioOf('p50Ms'),
      p99: ratioOf('p99Ms'),
      sequentialThroughput: ratioOf('sequentialPerSec'),
      inFlight16Throughput: ratioOf('inFlight16PerSec'),
      firstList: ratioOf('firstListMs'),
      first20: ratioOf('first20Ms'),
      firstListTenServers: median(runs.map((run) => run.ten.ratio)),
      firstShellToWarm: median(runs.map((run) => run.shell.firstMs / run.shell.warmMs)),
      firstShellAddedMs: median(runs.map((run) => run.shell.firstMs - run.shellDirect.firstMs)),
      // The goal as restated (docs/performance.md, "Round 14: start"): the gateway's added time, first command against a warm one;
      // outside the server since "Round 20: first shell command".
      firstShellAdded: shellAdded(...shellPairs(runs, 'shell')),
    },
    rssGrowth10kMb: { gateway: growth('gateway'), byteRelay: growth('relay'), sdkProxy: growth('sdkProxy') },
    tenServers: summarise('ten'),
    shell: summarise('shell'),
    shellDirect: summarise('shellDirect'),
    runs,
    decisions,
  };

  console.log(`mcp-latch bench: ${calls} calls of server-everything echo, ${rounds} rounds, ${result.machine.cpus} cores, node ${result.machine.node}`);
  console.log('');
  console.log('per round            p50 (ms): direct  gateway  ratio  relay  SDK proxy   16 in flight (calls/s): direct  gateway  ratio  relay  SDK proxy');
  runs.forEach((run, index) => {
    const p50 = [run.direct, run.gateway].map((s) => f(s.p50Ms, 3).padStart(7)).join('  ');
    const p50Floors = [run.relay, run.sdkProxy].map((s) => f(s.p50Ms, 3).padStart(6)).join('  ');
    const tput = [run.direct, run.gateway].map((s) => f(s.inFlight16PerSec, 0).padStart(7)).join('  ');
    const tputFloors = [run.relay, run.sdkProxy].map((s) => f(s.inFlight16PerSec, 0).padStart(6)).join('  ');
    console.log(
      `round ${index + 1}`.padEnd(30) + `${p50}  ${(f(run.gateway.p50Ms / run.direct.p50Ms) + 'x').padStart(5)}  ${p50Floors}` +
        ''.padEnd(30) + `${tput}  ${(f(run.gateway.inFlight16PerSec / run.direct.inFlight16PerSec) + 'x').padStart(5)}  ${tputFloors}`,
    );
  });
  console.log('');
  console.log('median of the rounds (ratios: median of the per-round ratios)');
  const relayRatio = (key) => median(runs.map((run) => run.gateway[key] / run.relay[key]));
  const cells = (values) => values.map((value) => value.padEnd(13)).join('');
  const row = (label, key, digits, ratio = ratioOf(key)) =>
    console.log(
      label.padEnd(28) +
        cells([f(directStats[key], digits), f(relayStats[key], digits), f(gatewayStats[key], digits), Number.isNaN(ratio) ? '' : `${f(ratio)}x`, `${f(relayRatio(key))}x`, f(sdkProxyStats[key], digits)]),
    );
  console.log(''.padEnd(28) + cells(['direct', 'relay floor', 'mcp-latch', 'latch/direct', 'latch/relay', 'SDK proxy']));
  row('first tools/list (ms)', 'firstListMs', 0);
  row('first 20 calls (ms)', 'first20Ms', 1);
  row('p50 latency (ms)', 'p50Ms', 3);
  row('p99 latency (ms)', 'p99Ms', 3);
  row('sequential (calls/s)', 'sequentialPerSec', 0);
  row('16 in flight (calls/s)', 'inFlight16PerSec', 0);
  row('  CPU/call: client (µs)', 'inFlightClientCpuUs', 1, NaN);
  row('    client GC pause (µs)', 'inFlightClientGcUs', 1, NaN);
  row('    client reads/call', 'inFlightClientReads', 2, NaN);
  row('  CPU/call: server (µs)', 'inFlightServerCpuUs', 1, NaN);
  row('  CPU/call: middle (µs)', 'inFlightMiddleCpuUs', 1, NaN);
  row('  cores busy', 'inFlightCores', 2, NaN);
  row('  share of the CPU bound', 'inFlightBoundShare', 2, NaN);
  // The server's own CPU when direct; otherwise the CPU of the process in the middle alone.
  row('CPU per call (µs)', 'cpuUsPerCall', 1, NaN);
  row('RSS after 20 calls (MiB)', 'rssFirst20Mb', 1, NaN);
  row('RSS idle, 3 s quiet (MiB)', 'rssIdleMb', 1, NaN);
  row('RSS, 10,000 calls (MiB)', 'rss10kMb', 1, NaN);
  row(`RSS, ${4500 + 2 * calls} calls (MiB)`, 'rssAfterMb', 1, NaN);
  row('RSS, 3 s quiet after (MiB)', 'rssQuietMb', 1, NaN);
  console.log('RSS growth, 10,000 calls'.padEnd(28) + cells(['', `+${f(growth('relay'), 1)}`, `+${f(growth('gateway'), 1)}`, '', '', `+${f(growth('sdkProxy'), 1)}`]) + '(median of the rounds, MiB over idle)');
  console.log('');
  printCold(runs);
  console.log(`per round: first list 1 server (direct / relay / latch); RSS of the gateway idle -> 10,000 calls -> ${4500 + 2 * calls} calls (relay, SDK proxy)`);
  runs.forEach((run, index) =>
    console.log(
      `  round ${index + 1}: ${f(run.direct.firstListMs, 0)} / ${f(run.relay.firstListMs, 0)} / ${f(run.gateway.firstListMs, 0)} ms;  ` +
        `RSS ${f(run.gateway.rssIdleMb, 1)} -> ${f(run.gateway.rss10kMb, 1)} -> ${f(run.gateway.rssAfterMb, 1)} MiB ` +
        `(relay ${f(run.relay.rssIdleMb, 1)} -> ${f(run.relay.rss10kMb, 1)} -> ${f(run.relay.rssAfterMb, 1)}, SDK proxy ${f(run.sdkProxy.rssIdleMb, 1)} -> ${f(run.sdkProxy.rss10kMb, 1)} -> ${f(run.sdkProxy.rssAfterMb, 1)})`,
    ),
  );
  console.log('');
  console.log(`decision time, ${decisions.rules} rules loaded (inspect + decide, warm):`);
  console.log(`  shell command  median ${f(decisions.command.medianUs, 1)} µs   p99 ${f(decisions.command.p99Us, 1)} µs   (${decisions.command.decision})`);
  console.log(`  ... new text   median ${f(decisions.freshCommand.medianUs, 1)} µs   p99 ${f(decisions.freshCommand.p99Us, 1)} µs   (a word changed each time: analysed in full)`);
  console.log(`  path-only      median ${f(decisions.path.medianUs, 1)} µs   p99 ${f(decisions.path.p99Us, 1)} µs   (${decisions.path.decision})`);
  if (asJson) console.log(JSON.stringify(result, null, 2));
}

await main();
process.exit(0);
