#!/usr/bin/env node
// node bench/start.js [--bin A] [--bin "B --node-flag"]... [--servers N] [--rounds N] [--prof DIR]
//
// Start-up only, as an A/B that holds on a shared machine: each round starts, one after the other
// in an order that alternates, a client connecting to N server-everything itself (N connections at
// once) and one gateway per build (`--bin`, default this build's bin/mcp-latch.js) in front of the
// same N, to the first complete tools/list. Printed per build: the gateway's CPU by its first list
// (the scheduler's accounting, all threads: what moves least with the load), the servers' CPU by
// then, and the wall time to the first list with its ratio to the direct client's of the same
// round. Medians over the rounds, then each round. Every build is started once before the rounds so
// that its code cache exists (src/cli/code-cache.ts), as at every start of a user's but the first.
// Each build's gateways get a code-cache directory of their own (XDG_CACHE_HOME under the bench's
// temporary directory), made by that warm-up start: the user's one is shared with every other start
// of the same bundle (a test's, another worktree's), whose cache holds what that start compiled
// (docs/performance.md, "End of round 28"). `--shared-cache`: the user's directory, as before.
// `--warm-servers N`: the warm-up start (the one that makes the cache) has N servers, not
// `--servers`: a cache made by another start of the same build (docs/performance.md, "Round 29:
// the ten-server start").
// `--prof DIR` runs the gateways with --cpu-prof into DIR (their cache is then that flag's own).
// `--at-write`: also the gateway's CPU when it writes the first list (a --require probe in the
// gateway; its flag gives it a code cache of its own): work the gateway leaves until just after
// the list (docs/performance.md, "Round 18: start") is counted by the client's reading, which comes
// once the client has parsed the list, but not by this one.
// The probe looks for the list in the bytes written only: the gateway writes from one shared 64 KB
// buffer (text-bytes.ts, `fs.writeSync(fd, buffer, 0, n)`), and decoding all of it at each write
// (String(data)) made ~4 MB of two-byte strings before the list, ~9% of the instructions counted
// to it, and read differently by build (docs/performance.md, "Round 23: start").
// It loads none of Node's modules itself (it patches net's Socket when the gateway loads net): loaded
// by the probe before bin/ set a V8 flag, they took Node's code cache, which the gateway's own
// loads did not (docs/performance.md, "Round 24: start").
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cpuNs, median } from './measure.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const servers = Number(option('--servers', 1));
const rounds = Number(option('--rounds', 5));
const prof = option('--prof', null);
const atWrite = argv.includes('--at-write');
const sharedCache = argv.includes('--shared-cache');
const warmServers = Number(option('--warm-servers', servers));
// `--seed-cache I=DIR`: the I-th build's (from 0) cache directory starts as a copy of DIR/mcp-latch.
const seeds = argv.flatMap((arg, index) => (arg === '--seed-cache' ? [argv[index + 1].split(/=(.*)/s)] : []));
const builds = argv.flatMap((arg, index) => (arg === '--bin' ? [argv[index + 1]] : []));
if (builds.length === 0) builds.push(join(root, 'bin/mcp-latch.js'));

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-start-')));
const configOf = (count) => {
  const file = join(dir, `config-${count}.json`);
  const mcpServers = Object.fromEntries(Array.from({ length: count }, (_, i) => [`s${i}`, { command: process.execPath, args: [everything, 'stdio'] }]));
  writeFileSync(file, JSON.stringify({ mcpServers, permissions: { allow: ['mcp__s0__echo'] } }));
  return file;
};
const config = configOf(servers);
const warmConfig = warmServers === servers ? config : configOf(warmServers);
if (prof) mkdirSync(prof, { recursive: true });
const probe = join(dir, 'at-write.cjs');
writeFileSync(
  probe,
  `const fs = require('node:fs'); let done = false;
  function has(data, offset, length) {
    if (typeof data === 'string') return data.includes('"tools":[');
    if (!(data instanceof Uint8Array)) return false;
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const from = typeof offset === 'number' ? offset : 0;
    return bytes.subarray(from, typeof length === 'number' ? from + length : bytes.length).indexOf('"tools":[') >= 0;
  }
  function seen(data, offset, length) { if (!done && has(data, offset, length)) { done = true; const u = process.cpuUsage(); fs.writeFileSync(process.env.AT_WRITE_OUT, String((u.user + u.system) / 1000)); } }
  const load = module.constructor._load; let patched = false;
  module.constructor._load = function (request, ...rest) {
    const loaded = load.call(this, request, ...rest);
    if (!patched && (request === 'net' || request === 'node:net')) { patched = true; const write = loaded.Socket.prototype.write; loaded.Socket.prototype.write = function (data, ...more) { seen(data); return write.call(this, data, ...more); }; }
    return loaded;
  };
  const writeSync = fs.writeSync; fs.writeSync = function (fd, data, ...rest) { seen(data, rest[0], rest[1]); return writeSync.call(this, fd, data, ...rest); };`,
);
let starts = 0;

async function connect(command, args, env = {}) {
  const started = performance.now();
  const transport = new StdioClientTransport({ command, args, cwd: dir, stderr: 'ignore', env: { MCP_LATCH_LOG_LEVEL: 'warn', ...env } });
  const client = new Client({ name: 'mcp-latch-bench-start', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport, { timeout: 120_000 });
  const listed = await client.listTools(undefined, { timeout: 120_000 });
  return { client, transport, ms: performance.now() - started, tools: listed.tools.length };
}

function childrenOf(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

async function direct() {
  const started = performance.now();
  const connections = await Promise.all(Array.from({ length: servers }, () => connect(process.execPath, [everything, 'stdio'])));
  const ms = performance.now() - started;
  const serversCpuMs = connections.reduce((sum, c) => sum + cpuNs(c.transport.pid), 0) / 1e6;
  await Promise.all(connections.map((c) => c.client.close()));
  return { ms, serversCpuMs };
}

async function gateway(build, configFile = config, count = servers) {
  const [path, ...flags] = build.split(' ').filter(Boolean);
  const cacheEnv = sharedCache ? {} : { XDG_CACHE_HOME: join(dir, `cache-${builds.indexOf(build)}`) };
  const nodeFlags = [...flags, ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []), ...(atWrite ? ['--require', probe] : [])];
  const out = join(dir, `at-write-${starts++}`);
  const connection = await connect(process.execPath, [...nodeFlags, resolve(path), 'serve', '--config', configFile], { AT_WRITE_OUT: out, ...cacheEnv });
  const pid = connection.transport.pid;
  const cpuMs = cpuNs(pid) / 1e6;
  const atWriteMs = atWrite ? Number(readFileSync(out, 'utf8')) : NaN;
  const serversCpuMs = childrenOf(pid).reduce((sum, child) => sum + cpuNs(child), 0) / 1e6;
  await connection.client.close();
  const perServer = connection.tools / count;
  if (!Number.isInteger(perServer)) throw new Error(`${build}: the first list had ${connection.tools} tools for ${count} servers`);
  return { ms: connection.ms, cpuMs, atWriteMs, serversCpuMs };
}

for (const [index, from] of seeds) cpSync(join(from, 'mcp-latch'), join(dir, `cache-${index}`, 'mcp-latch'), { recursive: true });
for (const build of builds) {
  await gateway(build, warmConfig, warmServers);
  await new Promise((done) => setTimeout(done, 1000)); // the cache is written just after the first list
}

const runs = [];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? [...builds].reverse() : builds;
  const run = { direct: await direct() };
  for (const build of order) run[build] = await gateway(build);
  runs.push(run);
}

const f = (value, digits = 0) => value.toFixed(digits);
console.log(`start to the first tools/list, ${servers} server-everything, ${rounds} rounds (medians; per round below); code caches: ${sharedCache ? "the user's" : `each build's own`}, made by a start with ${warmServers} servers`);
console.log(`  direct: ${f(median(runs.map((r) => r.direct.ms)))} ms, servers' CPU ${f(median(runs.map((r) => r.direct.serversCpuMs)))} ms`);
for (const build of builds) {
  console.log(
    `  ${build}: gateway CPU ${f(median(runs.map((r) => r[build].cpuMs)))} ms${atWrite ? ` (${f(median(runs.map((r) => r[build].atWriteMs)), 1)} ms when it writes the list)` : ''}, servers' CPU ${f(median(runs.map((r) => r[build].serversCpuMs)))} ms, ` +
      `first list ${f(median(runs.map((r) => r[build].ms)))} ms (${f(median(runs.map((r) => r[build].ms / r.direct.ms)), 2)}x direct)`,
  );
}
runs.forEach((run, index) => {
  console.log(`  round ${index + 1}: direct ${f(run.direct.ms)} ms; ` + builds.map((build) => `${f(run[build].cpuMs)} ms CPU${atWrite ? ` (${f(run[build].atWriteMs, 1)} at the write)` : ''}, ${f(run[build].ms)} ms (${f(run[build].ms / run.direct.ms, 2)}x)`).join('; '));
});
