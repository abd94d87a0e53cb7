#!/usr/bin/env node
// node bench/warm-turns.js [--bin PATH]... [--rounds N] [--block N] [--blocks N] [--direct]
//
// The warm p50 of one call at a time, for the byte relay (bench/floor-relay.js) and one or more
// builds of the gateway (`--bin`, default bin/mcp-latch.js; `--direct`: the server alone too), all
// connected at once, each in front of its own server-everything, warmed as bench/run.js warms
// (1,500 calls alone, 3,000 at 16 in flight; then 3 s of quiet, in which each gateway's idle
// collector collects, and `--block` calls each, five times, in the blocks' rotation, untimed),
// then timed in turns: `--block` calls (200) to each in
// a rotating order, `--blocks` times (25) a round, so every target sees the same load
// (docs/performance.md, "Round 26: per-call work"). Prints per round each target's p50 and its ratio
// to the relay's, with the gateway's CPU per call (all threads, the scheduler's accounting), then
// the medians over the rounds (fresh processes each round). `--peers`: also, per target, this
// process's CPU a call (the client's: its main thread, by schedstat), its read system calls a call
// (/proc/self/io), and the server's CPU a call (the middle's child, or the server when direct).
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync, readdirSync } from 'node:fs';
import { cpuNs, median, percentile } from './measure.js';

/** User and system CPU (ms, in clock ticks of 10 ms) of every thread of a process. */
function userSystemMs(pid) {
  let user = 0;
  let system = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const fields = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8').split(') ')[1].split(' ');
    user += Number(fields[11]) * 10;
    system += Number(fields[12]) * 10;
  }
  return { user, system };
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const rounds = option('--rounds', 3);
const block = option('--block', 200);
const blocks = option('--blocks', 25);
const peers = argv.includes('--peers');
/** This process's main thread's CPU (ns), and its read system calls so far. */
const clientCpuNs = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
const clientReads = () => Number(/^syscr: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))[1]);
/** The server of a session: the middle's first child, or the process itself when it is the server. */
function serverPid(pid, direct) {
  if (direct) return pid;
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean);
  return Number(children[0]);
}
const bins = argv.flatMap((arg, index) => (arg === '--bin' ? [argv[index + 1].endsWith('#no-audit') ? `${resolve(argv[index + 1].slice(0, -9))}#no-audit` : resolve(argv[index + 1])] : []));
if (bins.length === 0) bins.push(join(root, 'bin/mcp-latch.js'));
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-warm-turns-')));
const config = join(dir, 'mcp-latch.json');
writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } }, permissions: { allow: ['mcp__everything__echo'] } }));
// `--bin PATH#no-audit`: that build with the audit off (what the record costs a call).
const noAudit = join(dir, 'no-audit.json');
writeFileSync(noAudit, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } }, permissions: { allow: ['mcp__everything__echo'] }, audit: { enabled: false } }));

const targets = [
  ...(argv.includes('--direct') ? [{ label: 'direct', command: [everything, 'stdio'], tool: 'echo' }] : []),
  { label: 'relay', command: [join(root, 'bench/floor-relay.js'), process.execPath, everything, 'stdio'], tool: 'echo' },
  ...bins.map((bin, index) => ({ label: bins.length > 1 ? `${String.fromCharCode(65 + index)} ${bin}` : bin, command: [bin.replace(/#no-audit$/, ''), 'serve', '--config', bin.endsWith('#no-audit') ? noAudit : config], tool: 'everything__echo', gateway: true })),
];

async function connect(target) {
  const transport = new StdioClientTransport({ command: process.execPath, args: target.command, cwd: dir, stderr: 'ignore', env: { ...process.env, MCP_LATCH_LOG_LEVEL: 'warn' } });
  const client = new Client({ name: 'mcp-latch-warm-turns', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport, { timeout: 60_000 });
  await client.listTools();
  let n = 0;
  const call = () => client.request({ method: 'tools/call', params: { name: target.tool, arguments: { message: `ping ${n++}` } } }, CallToolResultSchema);
  for (let i = 0; i < 1500; i++) await call();
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next++ < 3000) await call();
  }));
  return { client, call, pid: transport.pid };
}

/** Longer than a gateway's idle collector takes to collect once its client is quiet (two of its 1 s periods). */
const IDLE_WAIT_MS = 3000;

const perRound = targets.map(() => []);
for (let round = 0; round < rounds; round++) {
  const sessions = [];
  for (const target of targets) sessions.push(await connect(target));
  // Every gateway's idle collector makes its first collection now, and the call path is warmed
  // again in the blocks' rotation, untimed. A gateway connected before another sat idle while that
  // one warmed (1–3 s): its collector's full collections dropped the call path's optimised code (V8
  // deoptimises code whose embedded maps died), and its first ~200–800 timed calls ran in V8's lower
  // tiers; the last one connected made its first collection at the first quiet second of the timed
  // blocks instead (docs/performance.md, "Round 30: the counted calls"). After this, a collector
  // finds too little growth to collect again.
  await new Promise((done) => setTimeout(done, IDLE_WAIT_MS));
  for (let b = 0; b < 5; b++) for (const { call } of sessions) for (let i = 0; i < block; i++) await call();
  const latencies = targets.map(() => []);
  const cpu = targets.map(() => 0);
  const peerCpu = targets.map(() => ({ client: 0, reads: 0, server: 0 }));
  const servers = sessions.map((session, index) => (peers ? serverPid(session.pid, targets[index].label === 'direct') : 0));
  const split = sessions.map((session) => userSystemMs(session.pid));
  for (let b = 0; b < blocks; b++) {
    for (let k = 0; k < targets.length; k++) {
      const index = (b + k) % targets.length;
      const { call, pid } = sessions[index];
      const before = cpuNs(pid);
      // The client's own counters read last before the calls and first after them.
      const serverBefore = peers ? cpuNs(servers[index]) : 0;
      const clientBefore = peers ? clientCpuNs() : 0;
      const readsBefore = peers ? clientReads() : 0;
      for (let i = 0; i < block; i++) {
        const t = performance.now();
        await call();
        latencies[index].push(performance.now() - t);
      }
      if (peers) {
        peerCpu[index].reads += clientReads() - readsBefore;
        peerCpu[index].client += clientCpuNs() - clientBefore;
        peerCpu[index].server += cpuNs(servers[index]) - serverBefore;
      }
      cpu[index] += cpuNs(pid) - before;
    }
  }
  const splitUs = sessions.map((session, index) => {
    const now = userSystemMs(session.pid);
    return { user: ((now.user - split[index].user) * 1000) / (block * blocks), system: ((now.system - split[index].system) * 1000) / (block * blocks) };
  });
  const relayIndex = targets.findIndex((target) => target.label === 'relay');
  const p50s = latencies.map((list) => percentile(list.sort((a, b) => a - b), 50));
  targets.forEach((target, index) => perRound[index].push({ p50: p50s[index], ratio: p50s[index] / p50s[relayIndex], cpuUs: cpu[index] / 1000 / (block * blocks) }));
  console.log(`round ${round + 1}: ` + targets.map((target, index) => `${target.label.split(' ')[0]}${target.label.endsWith('#no-audit') ? '(no audit)' : ''} ${(p50s[index] * 1000).toFixed(1)} µs (${(p50s[index] / p50s[relayIndex]).toFixed(3)}x, ${(cpu[index] / 1000 / (block * blocks)).toFixed(1)} µs CPU, user/sys ${splitUs[index].user.toFixed(1)}/${splitUs[index].system.toFixed(1)}${peers ? `; client ${(peerCpu[index].client / 1000 / (block * blocks)).toFixed(1)} µs, ${(peerCpu[index].reads / (block * blocks)).toFixed(2)} reads, server ${(peerCpu[index].server / 1000 / (block * blocks)).toFixed(1)} µs a call` : ''})`).join('; '));
  for (const session of sessions) await session.client.close();
}
console.log('medians:');
targets.forEach((target, index) => {
  const rows = perRound[index];
  console.log(`  ${target.label}: p50 ${(median(rows.map((row) => row.p50)) * 1000).toFixed(1)} µs, ${median(rows.map((row) => row.ratio)).toFixed(3)}x the relay (rounds ${rows.map((row) => row.ratio.toFixed(3)).join(' ')}), CPU ${median(rows.map((row) => row.cpuUs)).toFixed(1)} µs a call`);
});
