#!/usr/bin/env node
// npm run bench:http — the team gateway (`serve --http`, docs/team.md) against the same server
// reached directly, both over Streamable HTTP, in one run:
//
//   1. allowed calls: 16 SDK clients, each with its own MCP session, make 1,000 `echo` calls each
//      (16 in flight), directly to test/fixtures/http-server.mjs and through one gateway replica
//      in front of that same server (an allow rule, a bearer token, the audit on): throughput,
//      per-call latency (p50, p99), and the CPU per call of the gateway and of the server;
//   2. asked calls answered through the interactions API: one client calls an `ask` tool, a script
//      polls `GET /api/pending` and answers "Allow once" with `POST /api/pending/ID`; the embedded
//      (memory) store against the Redis store (a real redis-server on a free port): wall time and
//      gateway CPU per asked call, and redis-server's CPU per asked call.
//
// Each round starts every process afresh; the summary is the median of the rounds, a ratio the
// median of the per-round ratios.
//
// Options: --calls N (per client, default 1000), --asked N (default 300), --rounds N (default 5),
// --quick (2 rounds, 200 calls per client, 100 asked calls), --json.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { cpuNs, freePort, median, percentile } from './measure.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin/mcp-latch.js');
const server = join(root, 'test/fixtures/http-server.mjs');
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const option = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) || fallback : fallback);
const CLIENTS = 16;
const calls = option('--calls', quick ? 200 : 1000);
const asked = option('--asked', quick ? 100 : 300);
const rounds = option('--rounds', quick ? 2 : 5);
const asJson = argv.includes('--json');
const TOKEN = 'bench-token-0123456789abcdef';

/** Starts a process and resolves once `ready` matches its stderr (or stdout). */
function start(command, args, ready, options = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let output = '';
  const exited = new Promise((done) => child.once('exit', done));
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`${args.join(' ')} did not start: ${output.slice(-1000)}`)), 60_000);
    const onData = (chunk) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        // Keep reading (and dropping) its output so a full pipe never blocks it.
        output = '';
        done({
          child,
          pid: child.pid,
          async stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            await exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${args.join(' ')} exited (${code}): ${output.slice(-1000)}`));
    });
  });
}

/** The downstream server: Streamable HTTP, one MCP session per client. */
async function startServer() {
  const port = await freePort();
  const started = await start(process.execPath, [server], /listening on/, { env: { ...process.env, PORT: String(port) } });
  return { ...started, url: `http://127.0.0.1:${port}/mcp` };
}

async function startGateway(dir, name, config) {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ ...config, http: { tokens: [{ user: 'bench', sha256: createHash('sha256').update(TOKEN).digest('hex') }] } }));
  const port = await freePort();
  // The default log level, as deployed: the line naming the URL says it listens.
  const started = await start(process.execPath, [bin, 'serve', '--http', '--port', String(port), '--config', path], /serving MCP on/, { cwd: dir, env: { ...process.env, MCP_LATCH_LOG_LEVEL: 'info' } });
  return { ...started, url: `http://127.0.0.1:${port}/mcp`, base: `http://127.0.0.1:${port}` };
}

async function startRedis(dir) {
  const port = await freePort();
  const started = await start('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], /Ready to accept connections/);
  return { ...started, url: `redis://127.0.0.1:${port}` };
}

async function connect(url, token) {
  const client = new Client({ name: 'mcp-latch-bench', version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {});
  await client.connect(transport, { timeout: 60_000 });
  return {
    client,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}

/** 16 clients, each with its own session, `count` calls each, all clients at once. */
async function allowedCalls(url, token, tool, count, pids) {
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => connect(url, token)));
  const run = async (perClient, latencies) =>
    Promise.all(
      clients.map(async ({ client }, c) => {
        for (let i = 0; i < perClient; i++) {
          const t = performance.now();
          const result = await client.request({ method: 'tools/call', params: { name: tool, arguments: { text: `client ${c} call ${i}` } } }, CallToolResultSchema);
          latencies?.push(performance.now() - t);
          if (result.isError) throw new Error(`call refused: ${JSON.stringify(result).slice(0, 300)}`);
        }
      }),
    );
  await run(Math.max(50, count / 5)); // warm-up: JIT, connection pools
  const latencies = [];
  const cpuStart = pids.map(cpuNs);
  const started = performance.now();
  await run(count, latencies);
  const wallMs = performance.now() - started;
  const cpu = pids.map((pid, i) => (cpuNs(pid) - cpuStart[i]) / 1000 / (CLIENTS * count));
  await Promise.all(clients.map((each) => each.close()));
  latencies.sort((a, b) => a - b);
  return { callsPerSec: ((CLIENTS * count) / wallMs) * 1000, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), cpuUsPerCall: cpu };
}

/** One client's asked calls, one at a time, each answered "Allow once" through the API by a poller. */
async function askedCalls(gateway, count, pids) {
  const { client, close } = await connect(gateway.url, TOKEN);
  const headers = { authorization: `Bearer ${TOKEN}` };
  let polls = 0;
  const answerOne = async () => {
    for (;;) {
      polls++;
      const { pending } = await (await fetch(`${gateway.base}/api/pending`, { headers })).json();
      if (pending.length > 0) {
        const response = await fetch(`${gateway.base}/api/pending/${pending[0].id}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'Allow once' }) });
        if (response.status !== 200) throw new Error(`the answer was refused: ${response.status} ${await response.text()}`);
        return;
      }
    }
  };
  const one = async (i) => {
    const [result] = await Promise.all([client.request({ method: 'tools/call', params: { name: 'fixture__echo', arguments: { text: `asked ${i}` } } }, CallToolResultSchema, { timeout: 60_000 }), answerOne()]);
    if (result.isError || !JSON.stringify(result).includes(`asked ${i}`)) throw new Error(`the asked call did not run: ${JSON.stringify(result).slice(0, 300)}`);
  };
  for (let i = 0; i < Math.max(20, count / 5); i++) await one(i); // warm-up
  polls = 0;
  const cpuStart = pids.map(cpuNs);
  const started = performance.now();
  for (let i = 0; i < count; i++) await one(i);
  const wallMs = performance.now() - started;
  const cpu = pids.map((pid, i) => (cpuNs(pid) - cpuStart[i]) / 1000 / count);
  await close();
  return { msPerCall: wallMs / count, gatewayCpuUs: cpu[0], redisCpuUs: cpu[1] ?? NaN, pollsPerCall: polls / count };
}

async function round(dir) {
  const downstream = await startServer();
  try {
    const direct = await allowedCalls(downstream.url, null, 'echo', calls, [downstream.pid]);
    const gateway = await startGateway(dir, 'allowed', { mcpServers: { fixture: { url: downstream.url } }, permissions: { allow: ['mcp__fixture__echo'] } });
    let through;
    try {
      through = await allowedCalls(gateway.url, TOKEN, 'fixture__echo', calls, [gateway.pid, downstream.pid]);
    } finally {
      await gateway.stop();
    }

    const askConfig = { mcpServers: { fixture: { url: downstream.url } }, permissions: { ask: ['mcp__fixture__echo'] }, approval: { fallback: 'browser-manual', timeoutSeconds: 60 } };
    const memoryGateway = await startGateway(dir, 'memory', askConfig);
    let memory;
    try {
      memory = await askedCalls(memoryGateway, asked, [memoryGateway.pid]);
    } finally {
      await memoryGateway.stop();
    }
    const redis = await startRedis(dir);
    let shared;
    try {
      const redisGateway = await startGateway(dir, 'redis', { ...askConfig, store: { url: redis.url } });
      try {
        shared = await askedCalls(redisGateway, asked, [redisGateway.pid, redis.pid]);
      } finally {
        await redisGateway.stop();
      }
    } finally {
      await redis.stop();
    }
    return {
      direct: { callsPerSec: direct.callsPerSec, p50Ms: direct.p50Ms, p99Ms: direct.p99Ms, serverCpuUs: direct.cpuUsPerCall[0] },
      gateway: { callsPerSec: through.callsPerSec, p50Ms: through.p50Ms, p99Ms: through.p99Ms, gatewayCpuUs: through.cpuUsPerCall[0], serverCpuUs: through.cpuUsPerCall[1] },
      asked: { memory, redis: shared },
    };
  } finally {
    await downstream.stop();
  }
}

async function main() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-bench-http-')));
  const runs = [];
  try {
    for (let r = 0; r < rounds; r++) {
      runs.push(await round(dir));
      if (!asJson) console.error(`round ${r + 1} of ${rounds} done`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const pick = (path) => runs.map((run) => path.split('.').reduce((value, key) => value[key], run));
  const med = (path) => median(pick(path));
  const ratio = (a, b) => median(runs.map((run) => a(run) / b(run)));
  const result = {
    machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
    clients: CLIENTS,
    callsPerClient: calls,
    askedCalls: asked,
    rounds,
    direct: { callsPerSec: med('direct.callsPerSec'), p50Ms: med('direct.p50Ms'), p99Ms: med('direct.p99Ms'), serverCpuUs: med('direct.serverCpuUs') },
    gateway: { callsPerSec: med('gateway.callsPerSec'), p50Ms: med('gateway.p50Ms'), p99Ms: med('gateway.p99Ms'), gatewayCpuUs: med('gateway.gatewayCpuUs'), serverCpuUs: med('gateway.serverCpuUs') },
    ratio: {
      throughput: ratio((run) => run.gateway.callsPerSec, (run) => run.direct.callsPerSec),
      p50: ratio((run) => run.gateway.p50Ms, (run) => run.direct.p50Ms),
      p99: ratio((run) => run.gateway.p99Ms, (run) => run.direct.p99Ms),
    },
    asked: {
      memory: { msPerCall: med('asked.memory.msPerCall'), gatewayCpuUs: med('asked.memory.gatewayCpuUs'), pollsPerCall: med('asked.memory.pollsPerCall') },
      redis: { msPerCall: med('asked.redis.msPerCall'), gatewayCpuUs: med('asked.redis.gatewayCpuUs'), redisCpuUs: med('asked.redis.redisCpuUs'), pollsPerCall: med('asked.redis.pollsPerCall') },
      redisOverMemory: {
        wall: ratio((run) => run.asked.redis.msPerCall, (run) => run.asked.memory.msPerCall),
        gatewayCpu: ratio((run) => run.asked.redis.gatewayCpuUs, (run) => run.asked.memory.gatewayCpuUs),
      },
    },
    runs,
  };

  const f = (n, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
  console.log(`mcp-latch bench:http: ${CLIENTS} clients x ${calls} allowed calls, ${asked} asked calls, ${rounds} rounds, ${result.machine.cpus} cores, node ${result.machine.node}`);
  console.log('');
  console.log('per round       calls/s: direct  gateway  ratio    p50 (ms): direct  gateway    asked (ms/call): memory  redis');
  runs.forEach((run, i) =>
    console.log(
      `round ${i + 1}`.padEnd(24) +
        `${f(run.direct.callsPerSec, 0).padStart(7)}  ${f(run.gateway.callsPerSec, 0).padStart(7)}  ${(f(run.gateway.callsPerSec / run.direct.callsPerSec) + 'x').padStart(5)}` +
        `${f(run.direct.p50Ms, 3).padStart(18)}  ${f(run.gateway.p50Ms, 3).padStart(7)}` +
        `${f(run.asked.memory.msPerCall).padStart(24)}  ${f(run.asked.redis.msPerCall).padStart(5)}`,
    ),
  );
  console.log('');
  console.log('median of the rounds (ratios: median of the per-round ratios)');
  const cells = (values) => values.map((value) => String(value).padEnd(14)).join('');
  console.log(''.padEnd(30) + cells(['direct', 'gateway', 'gateway/direct']));
  console.log('calls/s, 16 clients'.padEnd(30) + cells([f(result.direct.callsPerSec, 0), f(result.gateway.callsPerSec, 0), `${f(result.ratio.throughput)}x`]));
  console.log('p50 latency (ms)'.padEnd(30) + cells([f(result.direct.p50Ms, 3), f(result.gateway.p50Ms, 3), `${f(result.ratio.p50)}x`]));
  console.log('p99 latency (ms)'.padEnd(30) + cells([f(result.direct.p99Ms, 3), f(result.gateway.p99Ms, 3), `${f(result.ratio.p99)}x`]));
  console.log('CPU per call, gateway (µs)'.padEnd(30) + cells(['', f(result.gateway.gatewayCpuUs, 1)]));
  console.log('CPU per call, server (µs)'.padEnd(30) + cells([f(result.direct.serverCpuUs, 1), f(result.gateway.serverCpuUs, 1)]));
  console.log('');
  console.log(`asked call answered through the API (one at a time; the answerer polls GET /api/pending):`);
  console.log(''.padEnd(30) + cells(['memory store', 'Redis store', 'Redis/memory']));
  console.log('wall per asked call (ms)'.padEnd(30) + cells([f(result.asked.memory.msPerCall), f(result.asked.redis.msPerCall), `${f(result.asked.redisOverMemory.wall)}x`]));
  console.log('gateway CPU per asked call (µs)'.padEnd(30) + cells([f(result.asked.memory.gatewayCpuUs, 0), f(result.asked.redis.gatewayCpuUs, 0), `${f(result.asked.redisOverMemory.gatewayCpu)}x`]));
  console.log('redis-server CPU (µs)'.padEnd(30) + cells(['', f(result.asked.redis.redisCpuUs, 0)]));
  console.log('polls per asked call'.padEnd(30) + cells([f(result.asked.memory.pollsPerCall, 1), f(result.asked.redis.pollsPerCall, 1)]));
  if (asJson) console.log(JSON.stringify(result, null, 2));
}

await main();
process.exit(0);
