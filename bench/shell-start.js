// The first shell command after a fresh start, measured one way for both benches that report it
// (bench/run.js part 3 and bench/first-shell.js; docs/performance.md, "Round 15: the first shell
// command"): mcp-server-commands started afresh, directly or behind a fresh gateway, `echo call N`
// (with `workdir`) sent as soon as the first list is answered (or after `pauseMs`), and around each
// command its wall time and the CPU of the gateway (all threads, and its main thread) and of the
// server, from the scheduler's own accounting. A warm command is the median of commands 41 and on,
// for the wall time and the CPU alike.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
  let args = [server];
  let tool = 'run_command';
  if (bin) {
    const config = join(dir, 'shell.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { shell: { command: process.execPath, args: [server] } }, workspace: [dir], permissions: { allow: ['Bash(echo *)'] } }));
    args = [bin, 'serve', '--config', config];
    tool = 'shell__run_command';
  }
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: dir, stderr: 'ignore', env: { MCP_LATCH_LOG_LEVEL: 'warn', XDG_CACHE_HOME: cacheHome } });
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
    const t = performance.now();
    const result = await client.request({ method: 'tools/call', params: { name: tool, arguments: { command: `echo call ${i}`, workdir: dir } } }, CallToolResultSchema);
    const wallMs = performance.now() - t;
    rows.push({ wallMs, gatewayMs: (cpuNs(pid) - gateway) / 1e6, mainMs: bin ? (mainThreadNs(pid) - main) / 1e6 : NaN, serverMs: (cpuNs(serverPid) - serverCpu) / 1e6 });
    if (!JSON.stringify(result).includes(`call ${i}`)) throw new Error(`shell command ${i} did not run: ${JSON.stringify(result).slice(0, 300)}`);
  }
  let rssQuietMb = NaN;
  if (quietMs > 0) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    rssQuietMb = rssMb(pid);
  }
  await client.close();
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
    /** The gateway's CPU for all the commands (the "first 60"). */
    cpuAllMs: bin ? sum('gatewayMs') : NaN,
    serverCpuAllMs: sum('serverMs'),
    rssIdleMb,
    rssQuietMb,
  };
}

/**
 * The goal as docs/performance.md restates it ("Round 14: start"): the time the gateway adds to the
 * first command (through it − the server started directly, paired by round) against the time it
 * adds to a warm one, a ratio of the medians over the rounds (a round's warm difference is a
 * fraction of a millisecond and may come out at or below zero); beside it the gateway's own CPU,
 * first against warm, a ratio of the medians too, and the median of the rounds' first − warm.
 * `runs`: one build's starts; `direct`: the server's alone, in the same rounds (or null).
 */
export function shellAdded(runs, direct) {
  const gatewayCpuFirstMs = median(runs.map((run) => run.firstGatewayCpuMs));
  const gatewayCpuWarmMs = median(runs.map((run) => run.warmGatewayCpuMs));
  const cpu = { gatewayCpuFirstMs, gatewayCpuWarmMs, gatewayCpuRatio: gatewayCpuFirstMs / gatewayCpuWarmMs, gatewayCpuFirstMinusWarmMs: median(runs.map((run) => run.firstGatewayCpuMs - run.warmGatewayCpuMs)) };
  if (!direct) return { addedFirstMs: NaN, addedWarmMs: NaN, addedRatio: NaN, ...cpu };
  const addedFirstMs = median(runs.map((run, i) => run.firstMs - direct[i].firstMs));
  const addedWarmMs = median(runs.map((run, i) => run.warmMs - direct[i].warmMs));
  return { addedFirstMs, addedWarmMs, addedRatio: addedFirstMs / addedWarmMs, ...cpu };
}
