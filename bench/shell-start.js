// The first shell command after a fresh start, measured one way for both benches that report it
// (bench/run.js part 3 and bench/first-shell.js; docs/performance.md, "Round 15: the first shell
// command"): mcp-server-commands started afresh, directly or behind a fresh gateway, `echo call N`
// (with `workdir`) sent as soon as the first list is answered (or after `pauseMs`), and around each
// command its wall time and the CPU of the gateway (all threads, and its main thread) and of the
// server, from the scheduler's own accounting. A warm command is the median of commands 41 and on,
// for the wall time and the CPU alike.
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { cpuNs, median } from './measure.js';

/** The first command counted as warm (the 41st). */
export const WARM_FROM = 40;

/** The child processes of `pid`. */
export function childrenOf(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

export function rssMb(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  } catch {
    return NaN;
  }
}

/** The server's preload that notes when each call reaches it and when it answers (server-stamps.cjs). */
const STAMPS = join(dirname(fileURLToPath(import.meta.url)), 'server-stamps.cjs');

/** The server's own span of each call, in order (ms): from its stdin's data to its answer's write. */
function serverSpans(file) {
  const ins = [];
  const outs = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('in ')) ins.push(BigInt(line.slice(3)));
    else if (line.startsWith('out ')) outs.push(BigInt(line.slice(4)));
  }
  return outs.map((out, i) => Number(out - ins[i]) / 1e6);
}

const mainThreadNs = (pid) => Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);

/**
 * One fresh start and its `calls` commands. `bin`: a build's bin/mcp-latch.js, null for the server
 * alone. `cacheHome`: the XDG_CACHE_HOME of the gateway's code caches, the run's own, written by one
 * unmeasured start of each build first. The processes get only the SDK's default environment (as
 * MCP clients give it) besides it: this machine's NODE_EXTRA_CA_CERTS would have node load 144
 * certificates in every start (docs/performance.md, "Round 14: start"). `quietMs`: a wait after
 * the commands, then the RSS is read again.
 */
export async function shellStart({ server, bin, dir, cacheHome, calls = 60, pauseMs = 0, quietMs = 0 }) {
  // The server, directly or behind the gateway, with the same preload (server-stamps.cjs).
  const stamps = join(dir, 'server-stamps');
  rmSync(stamps, { force: true });
  const serverArgs = ['--require', STAMPS, server];
  let args = serverArgs;
  let tool = 'run_command';
  const env = { MCP_LATCH_LOG_LEVEL: 'warn', XDG_CACHE_HOME: cacheHome };
  if (bin) {
    const config = join(dir, 'shell.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { shell: { command: process.execPath, args: serverArgs, env: { MCP_LATCH_BENCH_STAMPS: stamps } } }, workspace: [dir], permissions: { allow: ['Bash(echo *)'] } }));
    args = [bin, 'serve', '--config', config];
    tool = 'shell__run_command';
  } else {
    env.MCP_LATCH_BENCH_STAMPS = stamps;
  }
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: dir, stderr: 'ignore', env });
  const client = new Client({ name: 'mcp-latch-bench', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport, { timeout: 60_000 });
  await client.listTools();
  const pid = transport.pid;
  const serverPid = bin ? childrenOf(pid)[0] : pid;
  if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  const rssIdleMb = rssMb(pid);
  const rows = [];
  for (let i = 0; i < calls; i++) {
    const gateway = bin ? cpuNs(pid) : NaN;
    const main = bin ? mainThreadNs(pid) : NaN;
    const serverCpu = cpuNs(serverPid);
    const clientCpu = process.cpuUsage();
    const t = performance.now();
    const result = await client.request({ method: 'tools/call', params: { name: tool, arguments: { command: `echo call ${i}`, workdir: dir } } }, CallToolResultSchema);
    const wallMs = performance.now() - t;
    const clientUsed = process.cpuUsage(clientCpu);
    rows.push({ wallMs, gatewayMs: (cpuNs(pid) - gateway) / 1e6, mainMs: bin ? (mainThreadNs(pid) - main) / 1e6 : NaN, serverMs: (cpuNs(serverPid) - serverCpu) / 1e6, clientMs: (clientUsed.user + clientUsed.system) / 1e3 });
    if (!JSON.stringify(result).includes(`call ${i}`)) throw new Error(`shell command ${i} did not run: ${JSON.stringify(result).slice(0, 300)}`);
  }
  let rssQuietMb = NaN;
  if (quietMs > 0) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    rssQuietMb = rssMb(pid);
  }
  await client.close();
  const spans = serverSpans(stamps);
  if (spans.length !== calls) throw new Error(`the server's stamps name ${spans.length} calls, not ${calls}`);
  rows.forEach((row, i) => {
    row.serverOwnMs = spans[i];
    row.outsideMs = row.wallMs - spans[i];
  });
  const warm = rows.slice(Math.min(WARM_FROM, calls - 1));
  const warmOf = (key) => median(warm.map((row) => row[key]));
  const sum = (key) => rows.reduce((total, row) => total + row[key], 0);
  return {
    firstMs: rows[0].wallMs,
    warmMs: warmOf('wallMs'),
    firstGatewayCpuMs: rows[0].gatewayMs,
    warmGatewayCpuMs: warmOf('gatewayMs'),
    firstMainCpuMs: rows[0].mainMs,
    warmMainCpuMs: warmOf('mainMs'),
    firstServerCpuMs: rows[0].serverMs,
    warmServerCpuMs: warmOf('serverMs'),
    /** The server's own span (its stdin's data to its answer's write), and the wall time outside it. */
    firstServerOwnMs: rows[0].serverOwnMs,
    warmServerOwnMs: warmOf('serverOwnMs'),
    firstOutsideMs: rows[0].outsideMs,
    warmOutsideMs: warmOf('outsideMs'),
    /** The bench client's own CPU (this process) around the command. */
    firstClientCpuMs: rows[0].clientMs,
    warmClientCpuMs: warmOf('clientMs'),
    /** The gateway's CPU for all the commands (the "first 60"). */
    cpuAllMs: bin ? sum('gatewayMs') : NaN,
    serverCpuAllMs: sum('serverMs'),
    rssIdleMb,
    rssQuietMb,
  };
}

/**
 * The goal as docs/performance.md restates it ("Round 14: start"): the time the gateway adds to the
 * first command against the time it adds to a warm one, ratios of the medians over the rounds (a
 * round's warm difference is a fraction of a millisecond and may come out at or below zero).
 * Measured outside the server (`added*`: the wall time minus the server's own span, through the
 * gateway − direct, paired by round), since "Round 20: first shell command": the whole call's
 * difference (`wholeAdded*`, through it − direct) holds the difference between two fresh servers'
 * own first commands, which moved it by −1 to +1 ms a round against ~1 ms to measure. That
 * difference is printed beside it (`serverOwnAdded*`), so a server slowed behind the gateway still
 * shows. Beside them the gateway's own CPU, first against warm, a ratio of the medians too, and the
 * median of the rounds' first − warm. `runs`: one build's starts; `direct`: the server's alone, in
 * the same rounds (or null).
 */
export function shellAdded(runs, direct) {
  const gatewayCpuFirstMs = median(runs.map((run) => run.firstGatewayCpuMs));
  const gatewayCpuWarmMs = median(runs.map((run) => run.warmGatewayCpuMs));
  const cpu = { gatewayCpuFirstMs, gatewayCpuWarmMs, gatewayCpuRatio: gatewayCpuFirstMs / gatewayCpuWarmMs, gatewayCpuFirstMinusWarmMs: median(runs.map((run) => run.firstGatewayCpuMs - run.warmGatewayCpuMs)) };
  if (!direct) return { addedFirstMs: NaN, addedWarmMs: NaN, addedRatio: NaN, wholeAddedFirstMs: NaN, wholeAddedWarmMs: NaN, wholeAddedRatio: NaN, serverOwnAddedFirstMs: NaN, serverOwnAddedWarmMs: NaN, ...cpu };
  const paired = (pick) => median(runs.map((run, i) => pick(run) - pick(direct[i])));
  const addedFirstMs = paired((run) => run.firstOutsideMs);
  const addedWarmMs = paired((run) => run.warmOutsideMs);
  const wholeAddedFirstMs = paired((run) => run.firstMs);
  const wholeAddedWarmMs = paired((run) => run.warmMs);
  return {
    addedFirstMs,
    addedWarmMs,
    addedRatio: addedFirstMs / addedWarmMs,
    wholeAddedFirstMs,
    wholeAddedWarmMs,
    wholeAddedRatio: wholeAddedFirstMs / wholeAddedWarmMs,
    serverOwnAddedFirstMs: paired((run) => run.firstServerOwnMs),
    serverOwnAddedWarmMs: paired((run) => run.warmServerOwnMs),
    ...cpu,
  };
}
