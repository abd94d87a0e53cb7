#!/usr/bin/env node
// node bench/ping-flood.js --bin A [--bin B]... [--seconds N] [--runs N] [--kb N]
//
// What a server's flood of small requests the gateway answers itself (`ping`) costs the gateway's
// CPU (docs/performance.md, "Round 28: a server's ping flood"). Each build's gateway, over stdio,
// in front of test/fixtures/fault-server.mjs `ping-flood` (its `flood_pings` tool: stops reading its
// stdin and writes pings with ids of `--kb` KB, 0 by default, as fast as its stdout takes them); the
// gateway's CPU time (utime + stime of /proc/PID/stat) is read when the flood has run 2 s and again
// `--seconds` (10) later, with the requests it counted as dropped in its warnings meanwhile. The
// builds take turns, `--runs` (2) times each. Prints per run: the gateway's CPU ms per second of
// flood, the requests dropped per second, and the CPU per request dropped.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const seconds = Number(option('--seconds', 10));
const runs = Number(option('--runs', 2));
const kb = Number(option('--kb', 0));
const bins = argv.flatMap((arg, index) => (arg === '--bin' ? [resolve(argv[index + 1])] : []));
if (bins.length === 0) bins.push(join(root, 'bin/mcp-latch.js'));

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-ping-flood-')));
const config = join(dir, 'mcp-latch.json');
writeFileSync(config, JSON.stringify({ mcpServers: { p: { command: process.execPath, args: [join(root, 'test/fixtures/fault-server.mjs'), 'ping-flood'], env: { FAULT_STARTS: join(dir, 'starts') } } }, permissions: { allow: ['mcp__p'] } }));
const TICK = 100 / 1000; // clock ticks of /proc/PID/stat, in s (USER_HZ 100)

function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK;
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

async function one(bin) {
  const child = spawn(process.execPath, [bin, 'serve', '--config', config], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, MCP_LATCH_LOG_LEVEL: 'info' } });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  let out = '';
  const answers = new Map();
  child.stdout.on('data', (chunk) => {
    out += chunk;
    let newline;
    while ((newline = out.indexOf('\n')) >= 0) {
      const message = JSON.parse(out.slice(0, newline));
      out = out.slice(newline + 1);
      if (message.id !== undefined) answers.get(message.id)?.(message);
    }
  });
  const request = (id, method, params) =>
    new Promise((done) => {
      answers.set(id, done);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  await request(2, 'tools/list', {});
  void request(3, 'tools/call', { name: 'p__flood_pings', arguments: { kb } });
  await sleep(2000);
  const dropped = () => [...stderr.matchAll(/"dropped":(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
  const cpu0 = cpuSeconds(child.pid);
  const dropped0 = dropped();
  const started = performance.now();
  await sleep(seconds * 1000);
  // The window's warning comes as it ends: a second more for the last one.
  const cpu1 = cpuSeconds(child.pid);
  const wall = (performance.now() - started) / 1000;
  await sleep(1100);
  const dropped1 = dropped();
  child.kill('SIGTERM');
  await new Promise((done) => child.once('exit', done));
  const cpu = cpu1 - cpu0;
  const count = dropped1 - dropped0;
  return { cpuMsPerSecond: (cpu * 1000) / wall, droppedPerSecond: count / wall, usPerDropped: count > 0 ? (cpu * 1e6) / count : NaN };
}

for (let run = 1; run <= runs; run++) {
  for (const bin of bins) {
    const result = await one(bin);
    console.log(`run ${run}: ${bin}: gateway CPU ${result.cpuMsPerSecond.toFixed(0)} ms/s; ${Math.round(result.droppedPerSecond).toLocaleString('en-US')} requests dropped/s; ${result.usPerDropped.toFixed(2)} µs of CPU per request dropped`);
  }
}
