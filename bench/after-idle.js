#!/usr/bin/env node
// node bench/after-idle.js [--bin PATH]... [--idle S] [--cycles N] [--burst N]
//
// What a person sees after a pause: the byte relay and each `--bin` gateway, all connected at once
// in front of their own server-everything, get a burst of `--burst` calls (3,000), then `--idle`
// seconds of quiet (30), in which a gateway's idle collector collects (which drops the call path's
// optimised code: docs/performance.md, "Round 30: the counted calls"); then, in turns, 500 calls
// timed one by one and 500 more right after (warm). `--cycles` times (3). Prints the first call's
// latency after the quiet, the median of calls 2-10, the warm p50, and each target's CPU for the
// 500 calls after the quiet against the 500 warm ones (docs/performance.md, "Round 31: the call path").
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { cpuNs, median } from './measure.js';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const idleS = option('--idle', 30);
const cycles = option('--cycles', 3);
const burst = option('--burst', 3000);
const bins = argv.flatMap((arg, index) => (arg === '--bin' ? [resolve(argv[index + 1])] : []));
if (bins.length === 0) bins.push(join(root, 'bin/mcp-latch.js'));
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-after-idle-')));
const config = join(dir, 'mcp-latch.json');
writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } }, permissions: { allow: ['mcp__everything__echo'] } }));
const targets = [
  { label: 'relay', command: [join(root, 'bench/floor-relay.js'), process.execPath, everything, 'stdio'], tool: 'echo' },
  ...bins.map((bin, index) => ({ label: `${String.fromCharCode(65 + index)}`, command: [bin, 'serve', '--config', config], tool: 'everything__echo' })),
];
async function connect(target) {
  const transport = new StdioClientTransport({ command: process.execPath, args: target.command, cwd: dir, stderr: 'ignore', env: { ...process.env, MCP_LATCH_LOG_LEVEL: 'warn' } });
  const client = new Client({ name: 'after-idle', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport, { timeout: 60_000 });
  await client.listTools();
  let n = 0;
  const call = () => client.request({ method: 'tools/call', params: { name: target.tool, arguments: { message: `ping ${n++}` } } }, CallToolResultSchema);
  for (let i = 0; i < 1500; i++) await call();
  return { client, call, pid: transport.pid };
}
const sessions = [];
for (const target of targets) sessions.push(await connect(target));
const rows = targets.map(() => []);
async function timed(session, count) {
  const lat = [];
  const before = cpuNs(session.pid);
  for (let i = 0; i < count; i++) { const t = performance.now(); await session.call(); lat.push((performance.now() - t) * 1000); }
  return { lat, cpuUs: (cpuNs(session.pid) - before) / 1000 };
}
for (let cycle = 0; cycle < cycles; cycle++) {
  // A burst, as an agent's, then quiet.
  for (const s of sessions) for (let i = 0; i < burst; i++) await s.call();
  await new Promise((done) => setTimeout(done, idleS * 1000));
  for (let k = 0; k < sessions.length; k++) {
    const index = (cycle + k) % sessions.length;
    const first = await timed(sessions[index], 500);
    const warm = await timed(sessions[index], 500);
    const row = { first1: first.lat[0], first2to10: median(first.lat.slice(1, 10)), firstCpu: first.cpuUs, warmP50: median(warm.lat), warmFirst: warm.lat[0], warmCpu: warm.cpuUs };
    rows[index].push(row);
    console.log(`cycle ${cycle + 1} ${targets[index].label}: first call ${row.first1.toFixed(0)} µs, calls 2-10 median ${row.first2to10.toFixed(0)} µs, 500 calls' CPU ${(row.firstCpu / 1000).toFixed(2)} ms; warm: first ${row.warmFirst.toFixed(0)} µs, p50 ${row.warmP50.toFixed(0)} µs, 500 calls' CPU ${(row.warmCpu / 1000).toFixed(2)} ms`);
  }
}
for (const s of sessions) await s.client.close();
targets.forEach((t, i) => console.log(`${t.label}${i > 0 ? ` ${bins[i - 1]}` : ''}: after ${idleS} s idle, first call median ${median(rows[i].map((r) => r.first1)).toFixed(0)} µs (warm p50 ${median(rows[i].map((r) => r.warmP50)).toFixed(0)}), the 500 calls' CPU ${(median(rows[i].map((r) => r.firstCpu)) / 1000).toFixed(2)} ms against ${(median(rows[i].map((r) => r.warmCpu)) / 1000).toFixed(2)} warm`));
