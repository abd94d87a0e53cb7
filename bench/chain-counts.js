#!/usr/bin/env node
// node bench/chain-counts.js [--calls N] [--rounds N] [--bin PATH]... [--no-direct] [--no-relay] [--perf]
//   [--boost] [--fresh-client] [--fds] [--pin client=0,middle=0,server=1]
//
// 16 calls in flight (as bench/in-flight.js and `npm run bench` make them), counted for each of the
// three processes of the chain — the client (this process), the process in the middle, the server —
// by what moves least with other load on the machine: context switches (voluntary: the process
// slept, waiting for input; involuntary: preempted), read and write system calls (/proc/<pid>/io),
// CPU (schedstat), each per call, all threads. Measured: direct (client and server only), the byte
// relay (bench/floor-relay.js) and each `--bin` (default bin/mcp-latch.js), in turns each round.
// `--perf` adds the kernel's count of epoll waits and of read/write/writev by kind (`perf stat` on the
// syscall tracepoints, one counter per process). A build is any bin/mcp-latch.js; a file whose name
// ends in relay….js is measured as the byte relay is (bench/floor-relay-detached.js: the relay with its
// server spawned as mcp-latch spawns its servers, detached). The medians end with each setup's
// calls/s over direct's and over the relay's (the median of the per-round ratios), and a round whose
// middle read about one message a read (2 reads a call or near it: one request, one answer) is
// marked "lock-step"; each line ends with the chain's CPU a call (the three processes' summed).
// `--boost` (root, Linux autogroups): the chain's scheduling groups (this process's session and a
// detached server's own) run at autogroup nice -20 from the warm-up's end to the measured calls' end,
// which sets the rest of a shared machine's load aside without changing how the chain's processes
// share the cores among themselves (branch perf-par25-hold). The client's line adds its garbage
// collections' pauses (`gc`, µs a call): by default the client is this one process for every setup
// in turn, and what one setup left on its heap is collected in whichever runs then; its CPU a call
// moved from ~11 to ~21 µs with its heap's state alone (a full collection just before).
// `--fresh-client` runs each measurement's client in a fresh process (this script with `--child
// SETUP`), so every setup's client starts from the same heap. `--fds` (root, `perf` and `ss`) records
// every read and write of the three processes during the measured calls (`perf record` on the
// syscall tracepoints) and prints, for each descriptor with its peer (a socket pair's other end, by
// `ss -x`; the audit file by name), reads and writes a call and the calls a read or a write carried
// (calls ÷ reads that returned bytes, calls ÷ writes): how many messages each side sees together.
// `--pin` sets each process's CPUs (`taskset -a -p`, every thread) from the warm-up's end to the
// measured calls' end: where the scheduler puts the three processes on two cores, set aside.
// docs/performance.md, "Round 25: 16 in flight", "Round 26: calls in flight", "Round 27: calls in
// flight" and "Round 29: sixteen in flight".
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, mkdtempSync, writeFileSync, realpathSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { PerformanceObserver } from 'node:perf_hooks';
import { cpuNs, median } from './measure.js';
import { childrenOf } from './shell-start.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const calls = Number(option('--calls', 8000));
const rounds = Number(option('--rounds', 3));
const withPerf = argv.includes('--perf');
const boost = argv.includes('--boost');
const withFds = argv.includes('--fds');
/** `--pin client=0,middle=0,server=1`: each role's CPU list for taskset. */
const pins = Object.fromEntries((option('--pin', '') || '').split(',').filter(Boolean).map((pair) => pair.split('=')));
/** Sets the CPUs of every thread of `pid` (taskset); answers the list it had, to set back. */
function pinTo(pid, cpus) {
  const was = /: (\S+)\s*$/.exec(spawnSync('taskset', ['-a', '-c', '-p', String(pid)], { encoding: 'utf8' }).stdout.split('\n')[0])?.[1] ?? '0-1';
  spawnSync('taskset', ['-a', '-c', '-p', cpus, String(pid)], { stdio: 'ignore' });
  return was;
}
/** Each setup's client a fresh process (this script with `--child SETUP`): its CPU then carries no other setup's garbage. */
const fresh = argv.includes('--fresh-client');
const childSetup = option('--child', null);
/** Sets the autogroup nice of `pid`'s scheduling group (Linux, root); answers what it was, to set back. */
function autogroupNice(pid, nice) {
  const path = `/proc/${pid}/autogroup`;
  const was = Number(/nice (-?\d+)/.exec(readFileSync(path, 'utf8'))[1]);
  writeFileSync(path, String(nice));
  return was;
}
const SYSCALLS = ['read', 'write', 'writev', 'epoll_wait', 'epoll_pwait', 'futex'];
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const relayBin = join(root, 'bench/floor-relay.js');
const bins = argv.flatMap((arg, index) => (arg === '--bin' ? [resolve(argv[index + 1])] : []));
if (bins.length === 0) bins.push(join(root, 'bin/mcp-latch.js'));
const setups = [...(argv.includes('--no-direct') ? [] : ['direct']), ...(argv.includes('--no-relay') ? [] : [relayBin]), ...bins];

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-chain-')));
const config = join(dir, 'mcp-latch.json');
writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } }, permissions: { allow: ['mcp__everything__echo'] } }));

/**
 * The client's garbage collections (this process's), in µs of pause summed: the client is this
 * process for every setup in turn, so a collection of what an earlier setup left falls in whichever
 * setup runs then, and its CPU (V8's helper threads' too) counts there.
 */
let clientGcUs = 0;

new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) clientGcUs += entry.duration * 1000;
}).observe({ entryTypes: ['gc'] });

/** A process's counts so far, summed over its threads. */
function counts(pid) {
  let voluntary = 0;
  let involuntary = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
    voluntary += Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)[1]);
    involuntary += Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)[1]);
  }
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const gc = pid === process.pid ? { gcUs: clientGcUs } : {};
  return { ...gc, voluntary, involuntary, reads: Number(/syscr: (\d+)/.exec(io)[1]), writes: Number(/syscw: (\d+)/.exec(io)[1]), cpuUs: cpuNs(pid) / 1000 };
}

function perfStat(pid) {
  const counter = spawn('perf', ['stat', '-x', ',', '-e', SYSCALLS.map((name) => `syscalls:sys_enter_${name}`).join(','), '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  counter.stderr.on('data', (chunk) => (text += chunk));
  return async () => {
    counter.kill('SIGINT');
    await new Promise((done) => counter.once('close', done));
    return Object.fromEntries(text.split('\n').map((line) => line.split(',')).filter((f) => f.length > 2 && /^\d+$/.test(f[0])).map((f) => [f[2].replace('syscalls:sys_enter_', ''), Number(f[0])]));
  };
}

async function measure(setup) {
  const direct = setup === 'direct';
  const relay = /relay[^/]*\.js$/.test(setup);
  const args = direct ? [everything, 'stdio'] : relay ? [setup, process.execPath, everything, 'stdio'] : [setup, 'serve', '--config', config];
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: dir, stderr: 'ignore', env: { MCP_LATCH_LOG_LEVEL: 'warn' } });
  const client = new Client({ name: 'mcp-latch-chain', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport, { timeout: 60_000 });
  await client.listTools();
  const tool = direct || relay ? 'echo' : 'everything__echo';
  const call = (i) => client.request({ method: 'tools/call', params: { name: tool, arguments: { message: `ping ${i}` } } }, CallToolResultSchema);
  const inFlight = async (count) => {
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => { while (next < count) await call(next++); }));
  };
  for (let i = 0; i < 1500; i++) await call(i);
  await inFlight(3000);
  const middle = transport.pid;
  const server = direct ? middle : childrenOf(middle)[0];
  const pids = { client: process.pid, ...(direct ? {} : { middle }), server };
  const restore = boost ? Object.values(pids).map((pid) => [pid, autogroupNice(pid, -20)]) : [];
  const unpin = Object.entries(pids).filter(([role]) => pins[role] !== undefined).map(([role, pid]) => [pid, pinTo(pid, pins[role])]);
  // Under the boost, calls enough for the chain to settle in its regime before the measured ones.
  if (boost || unpin.length > 0) await inFlight(2000);
  const fds = withFds ? fdRecorder(pids) : null;
  const stops = withPerf ? Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, perfStat(pid)])) : null;
  if (stops || fds) await new Promise((done) => setTimeout(done, 500));
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, counts(pid)]));
  const started = performance.now();
  await inFlight(calls);
  const ms = performance.now() - started;
  const after = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, counts(pid)]));
  for (const [pid, nice] of restore.reverse()) autogroupNice(pid, nice);
  for (const [pid, cpus] of unpin) pinTo(pid, cpus);
  const byFd = fds ? await fds() : null;
  const kinds = stops ? Object.fromEntries(await Promise.all(Object.entries(stops).map(async ([name, stop]) => [name, await stop()]))) : {};
  await client.close();
  const per = {};
  for (const name of Object.keys(pids)) {
    per[name] = Object.fromEntries(Object.keys(after[name]).map((key) => [key, (after[name][key] - before[name][key]) / calls]));
    for (const [kind, count] of Object.entries(kinds[name] ?? {})) per[name][kind] = count / calls;
  }
  if (byFd) for (const [name, pid] of Object.entries(pids)) per[name].fds = Object.fromEntries(Object.entries(byFd[pid] ?? {}).map(([label, c]) => [label, { reads: c.reads / calls, callsPerRead: c.full > 0 ? calls / c.full : NaN, readBytes: c.readBytes / calls, writes: c.writes / calls, callsPerWrite: c.writes > 0 ? calls / c.writes : NaN, writeBytes: c.writeBytes / calls }]));
  return { rate: (calls / ms) * 1000, per };
}

/**
 * What each of `pids`' descriptors is (`--fds`): `peer-role:fd` for a socket whose other end one of
 * them holds (ss -x gives each unix socket's peer inode), the file's name for a file, else its link.
 */
function fdLabels(pids) {
  const roles = Object.fromEntries(Object.entries(pids).map(([role, pid]) => [pid, role]));
  const owner = new Map();
  const peerOf = new Map();
  const ss = spawnSync('ss', ['-xpn'], { encoding: 'utf8' }).stdout ?? '';
  for (const row of ss.split('\n')) {
    const fields = row.trim().split(/\s+/);
    if (fields[0] !== 'u_str') continue;
    const inode = fields[5];
    peerOf.set(inode, fields[7]);
    // The client's descriptors change from round to round; the others' stay (a stable label for the medians).
    for (const [, pid, fd] of row.matchAll(/pid=(\d+),fd=(\d+)/g)) if (roles[pid]) owner.set(inode, roles[pid] === 'client' ? 'client' : `${roles[pid]}:${fd}`);
  }
  const labels = {};
  for (const pid of Object.values(pids)) {
    labels[pid] = {};
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      let link;
      try {
        link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      const peer = inode ? owner.get(peerOf.get(inode)) : undefined;
      const own = roles[pid] === 'client' ? '' : `fd ${fd} `;
      labels[pid][fd] = peer ? `${own}↔ ${peer}` : link.startsWith('/') ? `${own}→ ${link.split('/').pop()}` : `${own}${link.replace(/:\[\d+\]$/, '')}`;
    }
  }
  return labels;
}

/** `--fds`: records the reads and writes of `pids` until the returned function is called; it answers the counts by pid and descriptor. */
function fdRecorder(pids) {
  const labels = fdLabels(pids);
  const file = join(dir, `fds-${process.pid}-${Date.now()}.data`);
  const events = ['sys_enter_read', 'sys_exit_read', 'sys_enter_write', 'sys_enter_writev'].map((name) => `syscalls:${name}`);
  const recorder = spawn('perf', ['record', '-q', '-e', events.join(','), '-p', Object.values(pids).join(','), '-o', file], { stdio: 'ignore' });
  return async () => {
    recorder.kill('SIGINT');
    await new Promise((done) => recorder.once('close', done));
    const text = spawnSync('perf', ['script', '-i', file, '-F', 'pid,tid,event,trace'], { encoding: 'utf8', maxBuffer: 1 << 30 }).stdout;
    rmSync(file, { force: true });
    const counts = {};
    const readingFd = new Map();
    const count = (pid, fd) => {
      const label = labels[pid]?.[fd] ?? `fd ${fd}`;
      counts[pid] ??= {};
      return (counts[pid][label] ??= { reads: 0, full: 0, readBytes: 0, writes: 0, writeBytes: 0 });
    };
    for (const row of text.split('\n')) {
      const match = /^\s*(\d+)\/(\d+)\s+syscalls:(\w+):\s*(.*)$/.exec(row);
      if (!match) continue;
      const [, pid, tid, event, trace] = match;
      const fd = /fd: (0x[0-9a-f]+)/.exec(trace)?.[1];
      if (event === 'sys_enter_read') {
        readingFd.set(tid, Number(fd));
        count(pid, Number(fd)).reads += 1;
      } else if (event === 'sys_exit_read') {
        const bytes = Number(/0x[0-9a-f]+|-?\d+/.exec(trace.replace(/^.*?ret: ?/, ''))?.[0]);
        const readFd = readingFd.get(tid);
        if (readFd === undefined) continue;
        readingFd.delete(tid);
        if (bytes > 0 && bytes < 2 ** 31) {
          const c = count(pid, readFd);
          c.full += 1;
          c.readBytes += bytes;
        }
      } else {
        const c = count(pid, Number(fd));
        c.writes += 1;
        c.writeBytes += Number(/count: (0x[0-9a-f]+)/.exec(trace)?.[1] ?? 0);
      }
    }
    return counts;
  };
}

/** One measurement in a fresh client process: this script with `--child`, printing its result as JSON. */
async function measureFresh(setup) {
  const passed = argv.filter((arg, index) => arg !== '--fresh-client' && arg !== '--bin' && argv[index - 1] !== '--bin' && arg !== '--rounds' && argv[index - 1] !== '--rounds');
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...passed, '--child', setup], { stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  child.stdout.on('data', (chunk) => (text += chunk));
  const code = await new Promise((done) => child.once('close', done));
  if (code !== 0) throw new Error(`the client for ${setup} exited with ${code}`);
  return JSON.parse(text.trim().split('\n').pop());
}

if (childSetup !== null) {
  console.log(JSON.stringify(await measure(childSetup)));
  process.exit(0);
}

const name = (setup) => (setup === 'direct' ? 'direct' : setup === relayBin ? 'relay' : setup.replace(`${root}/`, ''));
const line = (r) => Object.entries(r.per).map(([who, c]) => `${who}: vcs ${c.voluntary.toFixed(2)} ics ${c.involuntary.toFixed(2)} rd ${c.reads.toFixed(2)} wr ${c.writes.toFixed(2)} cpu ${c.cpuUs.toFixed(1)}µs${c.gcUs !== undefined ? ` gc ${c.gcUs.toFixed(1)}µs` : ''}${withPerf ? ` epoll ${((c.epoll_wait ?? 0) + (c.epoll_pwait ?? 0)).toFixed(2)} writev ${(c.writev ?? 0).toFixed(2)} futex ${(c.futex ?? 0).toFixed(2)}` : ''}`).join(' | ') +
  ` | chain cpu ${chainCpu(r).toFixed(1)}µs${r.rate !== undefined ? ` (${((chainCpu(r) * r.rate) / 1e6).toFixed(2)} cores busy)` : ''}`;
/** The three processes' CPU a call, summed (µs). */
const chainCpu = (r) => Object.values(r.per).reduce((sum, c) => sum + c.cpuUs, 0);
/** `--fds`: each process's descriptors that were read or written, a call: reads (calls a read that returned bytes), writes (calls a write). */
const fdLines = (r) => Object.entries(r.per).filter(([, c]) => c.fds).map(([who, c]) => `${who}: ${Object.entries(c.fds).filter(([, f]) => f.reads >= 0.005 || f.writes >= 0.005).map(([label, f]) => `${label} rd ${f.reads.toFixed(2)} (${(f.callsPerRead ?? NaN).toFixed(1)}) wr ${f.writes.toFixed(2)} (${(f.callsPerWrite ?? NaN).toFixed(1)})`).join(', ')}`).join('\n  ');
const results = setups.map(() => []);
/**
 * The middle read about one message a read: at 16 in flight a relay that reads in bursts reads
 * 0.5-0.8 times a call, one that wakes for every message 2 (one request and one answer a call).
 */
const lockStep = (r) => r.per.middle !== undefined && r.per.middle.reads >= 1.5;
for (let round = 0; round < rounds; round++) {
  for (let turn = 0; turn < setups.length; turn++) {
    const index = (round + turn) % setups.length;
    const r = fresh ? await measureFresh(setups[index]) : await measure(setups[index]);
    results[index].push(r);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    console.log(`round ${round + 1} ${name(setups[index])}: ${r.rate.toFixed(0)} calls/s, load ${load}${lockStep(r) ? ', lock-step' : ''}\n  ${line(r)}${withFds ? `\n  ${fdLines(r)}` : ''}`);
  }
}
console.log('medians per call:');
/** Median over the rounds of a setup's calls/s over another's in the same round. */
const ratioTo = (index, other) => (other < 0 ? NaN : median(results[index].map((r, round) => r.rate / results[other][round].rate)));
const directIndex = setups.indexOf('direct');
const relayIndex = setups.indexOf(relayBin);
for (const [index, setup] of setups.entries()) {
  const rs = results[index];
  const per = Object.fromEntries(Object.keys(rs[0].per).map((who) => [who, Object.fromEntries(Object.keys(rs[0].per[who]).filter((key) => key !== 'fds').map((key) => [key, median(rs.map((r) => r.per[who][key]))]))]));
  if (withFds) {
    for (const who of Object.keys(per)) {
      const labels = [...new Set(rs.flatMap((r) => Object.keys(r.per[who].fds ?? {})))];
      per[who].fds = Object.fromEntries(labels.map((label) => [label, Object.fromEntries(['reads', 'callsPerRead', 'readBytes', 'writes', 'callsPerWrite', 'writeBytes'].map((key) => [key, median(rs.map((r) => r.per[who].fds?.[label]?.[key] ?? NaN))]))]));
    }
  }
  const ratios = [['direct', directIndex], ['relay', relayIndex]].filter(([, other]) => other >= 0 && other !== index).map(([label, other]) => `${ratioTo(index, other).toFixed(2)}x ${label}`);
  const lockSteps = rs.filter(lockStep).length;
  console.log(`${name(setup)}: ${median(rs.map((r) => r.rate)).toFixed(0)} calls/s${ratios.length > 0 ? ` (${ratios.join(', ')})` : ''}${'middle' in rs[0].per ? `, lock-step in ${lockSteps} of ${rs.length} rounds` : ''}\n  ${line({ per, rate: median(rs.map((r) => r.rate)) })}${withFds ? `\n  ${fdLines({ per })}` : ''}`);
}
process.exit(0);
