#!/usr/bin/env node
// node bench/in-flight.js [--calls N] [--rounds N] [--no-audit] [--bin PATH]... [--prof DIR] [--perf FILE]
//   [--node-args "FLAGS"]
//
// Only the gateway's warm parallel path, measured by what moves least with other load on the
// machine: the gateway's CPU per call (schedstat, all threads) and its system calls per call
// (/proc/<pid>/io), for server-everything's `echo` with 16 calls in flight, after the same warm-up
// as `npm run bench`. `--bin` measures another build (e.g. a copy of an older commit's bin/ and
// dist/), or the byte relay floor (`--bin bench/floor-relay.js`); given more than once, the builds take turns in each round (A/B in the same run) and the
// medians are compared at the end. `--prof DIR` writes a V8 CPU profile of each gateway to DIR (wall
// time: a write that wakes another process and is preempted counts); `--perf FILE` records the
// gateway's on-CPU samples during the measured calls with `perf record` (FILE.<build index>);
// `--syscalls` counts the gateway's system calls by kind and its context switches during the measured
// calls (`perf stat` on the kernel's tracepoints, all threads; far lighter than `strace -c`, which
// slows the gateway enough to change how many messages each read carries).
import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync, writeFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { cpuNs, median } from './measure.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const calls = Number(option('--calls', 8000));
const rounds = Number(option('--rounds', 3));
const prof = option('--prof', null);
const perf = option('--perf', null);
const countSyscalls = argv.includes('--syscalls');
const SYSCALLS = ['read', 'write', 'writev', 'epoll_pwait', 'epoll_wait', 'futex'];
const nodeArgs = option('--node-args', '').split(' ').filter(Boolean);
const bins = argv.flatMap((arg, index) => (arg === '--bin' ? [resolve(argv[index + 1])] : []));
if (bins.length === 0) bins.push(join(root, 'bin/mcp-latch.js'));
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

// User and system CPU (all threads) in ms, from /proc/<pid>/stat: the user part moves less with how
// often the other processes wake the gateway, which the load decides.
const times = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10, faults: Number(fields[7]) };
};
const syscalls = (pid) => {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  return { reads: Number(/syscr: (\d+)/.exec(io)[1]), writes: Number(/syscw: (\d+)/.exec(io)[1]) };
};

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-in-flight-')));
const config = join(dir, 'mcp-latch.json');
writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } }, permissions: { allow: ['mcp__everything__echo'] }, audit: { enabled: !argv.includes('--no-audit') } }));

async function measure(bin) {
  const profile = prof ? ['--cpu-prof', `--cpu-prof-dir=${resolve(prof)}`] : perf ? ['--perf-basic-prof'] : [];
  // The byte relay (bench/floor-relay.js) is measured in front of the same server, as the floor.
  const relay = bin.endsWith('floor-relay.js');
  const args = relay ? [bin, process.execPath, everything, 'stdio'] : [bin, 'serve', '--config', config];
  const transport = new StdioClientTransport({ command: process.execPath, args: [...nodeArgs, ...profile, ...args], cwd: dir, stderr: 'ignore', env: { MCP_LATCH_LOG_LEVEL: 'warn' } });
  const client = new Client({ name: 'mcp-latch-in-flight', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport, { timeout: 60_000 });
  await client.listTools();
  const pid = transport.pid;
  const call = (i) => client.request({ method: 'tools/call', params: { name: relay ? 'echo' : 'everything__echo', arguments: { message: `ping ${i}` } } }, CallToolResultSchema);
  const inFlight = async (count) => {
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => { while (next < count) await call(next++); }));
  };
  for (let i = 0; i < 1500; i++) await call(i);
  await inFlight(3000);
  const cpu = cpuNs(pid);
  const io = syscalls(pid);
  const before = times(pid);
  // `--perf FILE`: the kernel's on-CPU samples of the gateway (user and kernel) during the measured calls.
  const recorder = perf ? spawn('perf', ['record', '-e', 'cpu-clock', '-F', '4000', '-g', '-p', String(pid), '-o', `${perf}.${bins.indexOf(bin)}`], { stdio: 'ignore' }) : null;
  const counter = countSyscalls ? spawn('perf', ['stat', '-x', ',', '-e', [...SYSCALLS.map((name) => `syscalls:sys_enter_${name}`), 'context-switches'].join(','), '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] }) : null;
  let counted = '';
  counter?.stderr.on('data', (text) => (counted += text));
  if (recorder || counter) await new Promise((done) => setTimeout(done, 500));
  const started = performance.now();
  await inFlight(calls);
  const ms = performance.now() - started;
  if (recorder) {
    recorder.kill('SIGINT');
    await new Promise((done) => recorder.once('close', done));
  }
  if (counter) {
    counter.kill('SIGINT');
    await new Promise((done) => counter.once('close', done));
  }
  // perf stat -x, prints `count,,event,…` per event.
  const kinds = Object.fromEntries(counted.split('\n').map((line) => line.split(',')).filter((f) => f.length > 2 && /^\d+$/.test(f[0])).map((f) => [f[2].replace('syscalls:sys_enter_', ''), Number(f[0]) / calls]));
  const after = syscalls(pid);
  const spent = times(pid);
  const result = { cpu: (cpuNs(pid) - cpu) / 1000 / calls, user: ((spent.user - before.user) * 1000) / calls, system: ((spent.system - before.system) * 1000) / calls, faults: (spent.faults - before.faults) / calls, rate: (calls / ms) * 1000, writes: (after.writes - io.writes) / calls, reads: (after.reads - io.reads) / calls, kinds };
  await client.close();
  return result;
}

const results = bins.map(() => []);
for (let round = 0; round < rounds; round++) {
  // The builds take turns, starting with a different one each round.
  for (let turn = 0; turn < bins.length; turn++) {
    const index = (round + turn) % bins.length;
    const r = await measure(bins[index]);
    results[index].push(r);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const name = bins.length > 1 ? `${bins[index]} ` : '';
    console.log(`round ${round + 1}: ${name}CPU ${r.cpu.toFixed(1)} µs/call (user ${r.user.toFixed(1)}, system ${r.system.toFixed(1)}), ${r.rate.toFixed(0)} calls/s, ${r.writes.toFixed(2)} writes, ${r.reads.toFixed(2)} reads and ${r.faults.toFixed(2)} page faults per call; load ${load}`);
    if (countSyscalls) console.log(`  per call: ${Object.entries(r.kinds).map(([kind, count]) => `${kind} ${count.toFixed(2)}`).join(', ')}`);
  }
}
if (bins.length > 1 || rounds > 1) {
  for (const [index, bin] of bins.entries()) {
    const of = (key) => median(results[index].map((r) => r[key]));
    console.log(`median: ${bin}: CPU ${of('cpu').toFixed(1)} µs/call (user ${of('user').toFixed(1)}, system ${of('system').toFixed(1)}), ${of('rate').toFixed(0)} calls/s, ${of('writes').toFixed(2)} writes, ${of('reads').toFixed(2)} reads and ${of('faults').toFixed(2)} page faults per call`);
  }
}
process.exit(0);
