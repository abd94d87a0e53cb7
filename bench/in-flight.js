#!/usr/bin/env node
// node bench/in-flight.js [--calls N] [--rounds N] [--no-audit] [--bin PATH]
//
// Only the gateway's warm parallel path, measured by what moves least with other load on the
// machine: the gateway's CPU per call (schedstat, all threads) and its system calls per call
// (/proc/<pid>/io), for server-everything's `echo` with 16 calls in flight, after the same warm-up
// as `npm run bench`. `--bin` measures another build (e.g. a worktree of an older commit).
import { readFileSync, mkdtempSync, writeFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { cpuNs } from './measure.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const calls = Number(option('--calls', 8000));
const rounds = Number(option('--rounds', 3));
const bin = resolve(option('--bin', join(root, 'bin/mcp-latch.js')));
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const syscalls = (pid) => {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  return { reads: Number(/syscr: (\d+)/.exec(io)[1]), writes: Number(/syscw: (\d+)/.exec(io)[1]) };
};

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-in-flight-')));
const config = join(dir, 'mcp-latch.json');
writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } }, permissions: { allow: ['mcp__everything__echo'] }, audit: { enabled: !argv.includes('--no-audit') } }));

for (let round = 0; round < rounds; round++) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'serve', '--config', config], cwd: dir, stderr: 'ignore', env: { MCP_LATCH_LOG_LEVEL: 'warn' } });
  const client = new Client({ name: 'mcp-latch-in-flight', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport, { timeout: 60_000 });
  await client.listTools();
  const pid = transport.pid;
  const call = (i) => client.request({ method: 'tools/call', params: { name: 'everything__echo', arguments: { message: `ping ${i}` } } }, CallToolResultSchema);
  const inFlight = async (count) => {
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => { while (next < count) await call(next++); }));
  };
  for (let i = 0; i < 1500; i++) await call(i);
  await inFlight(3000);
  const cpu = cpuNs(pid);
  const io = syscalls(pid);
  const started = performance.now();
  await inFlight(calls);
  const ms = performance.now() - started;
  const after = syscalls(pid);
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(
    `round ${round + 1}: CPU ${((cpuNs(pid) - cpu) / 1000 / calls).toFixed(1)} µs/call, ${((calls / ms) * 1000).toFixed(0)} calls/s, ` +
      `${((after.writes - io.writes) / calls).toFixed(2)} writes and ${((after.reads - io.reads) / calls).toFixed(2)} reads per call; load ${load}`,
  );
  await client.close();
}
process.exit(0);
