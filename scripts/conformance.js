#!/usr/bin/env node
// `npm run conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance, its
// server scenarios) against test/fixtures/conformance-server.mjs twice: natively over Streamable
// HTTP, and through `mcp-latch serve --http` wrapping the same fixture over stdio (with
// `prefix: false`, so the suite finds its tool and prompt names). The suite sends no credential, so
// it reaches the gateway through a relay here that adds the run's secret (docs/team.md#identity).
// Every scenario the fixture passes natively must pass through the gateway; the exit code says
// whether it did.
//
// The suite needs Node 22, run from the npm package `node@22` through npx (the registry must be
// reachable). It is a script, not a test: it downloads, and takes about a minute (docs/team.md).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../bench/measure.js';

const SUITE = '@modelcontextprotocol/conformance@0.1.16';
const NODE = 'node@22';
const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = join(root, 'test/fixtures/conformance-server.mjs');
const bin = join(root, 'bin/mcp-latch.js');
const work = mkdtempSync(join(tmpdir(), 'mcp-latch-conformance-'));
const children = [];

/** Starts a process and resolves with the first match of `pattern` in its stderr. */
function startUntil(command, args, pattern, options = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...options });
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start:\n${stderr.slice(-2000)}`)), 60_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk.toString();
      const match = pattern.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}):\n${stderr.slice(-2000)}`)));
  });
}

/**
 * Runs every server scenario against `url`; scenario name → { passed, failed }. Not spawnSync: the
 * relay (relayWithSecret) answers in this process while the suite runs.
 */
async function runSuite(url, label) {
  process.stderr.write(`\n--- ${label}: ${url}\n`);
  const result = await new Promise((resolve, reject) => {
    const child = spawn('npx', ['-y', '-p', NODE, '-p', SUITE, '--', 'conformance', 'server', '--url', url, '-o', join(work, label)], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', () => resolve({ stdout, stderr }));
  });
  const scores = new Map();
  for (const match of result.stdout.matchAll(/^[✓✗] ([\w-]+): (\d+) passed, (\d+) failed/gmu)) scores.set(match[1], { passed: Number(match[2]), failed: Number(match[3]) });
  if (scores.size === 0) throw new Error(`the suite printed no results:\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`);
  return scores;
}

/**
 * Listens on `port` and passes every request to `target` unchanged (its Host included, which the
 * gateway accepts through `http.allowedHosts`), adding `Authorization: Bearer <secret>`.
 */
function relayWithSecret(port, target, secret) {
  const relay = createServer((req, res) => {
    const upstream = request(new URL(req.url, target), { method: req.method, headers: { ...req.headers, authorization: `Bearer ${secret}` } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => relay.listen(port, '127.0.0.1', () => resolve(relay)));
}

function hasHttpServe() {
  const help = spawnSync(process.execPath, [bin, 'serve', '--help'], { encoding: 'utf8' });
  return `${help.stdout}${help.stderr}`.includes('--http');
}

let exitCode = 0;
try {
  const port = await freePort();
  await startUntil(process.execPath, [fixture, '--http', String(port)], /(conformance fixture on)/);
  const native = await runSuite(`http://127.0.0.1:${port}/mcp`, 'native');

  let gateway = null;
  if (hasHttpServe()) {
    const config = join(work, 'mcp-latch.json');
    const relayPort = await freePort();
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { conformance: { command: process.execPath, args: [fixture], prefix: false } },
        permissions: { allow: ['mcp__conformance'] },
        approval: { fallback: 'deny' },
        http: { allowedHosts: [`127.0.0.1:${relayPort}`, `localhost:${relayPort}`] },
      }),
    );
    const url = await startUntil(process.execPath, [bin, 'serve', '--http', '--port', '0', '--config', config], /serving MCP on (http:\/\/[^\s"]+)/, { cwd: work });
    const relay = await relayWithSecret(relayPort, url, readFileSync(join(work, '.mcp-latch-http-secret'), 'utf8').trim());
    try {
      gateway = await runSuite(`http://127.0.0.1:${relayPort}/mcp`, 'gateway');
    } finally {
      relay.close();
    }
  }

  const rows = [...native.keys()].map((name) => {
    const mine = native.get(name);
    const through = gateway?.get(name);
    const nativeOk = mine.failed === 0;
    const gatewayOk = through ? through.failed === 0 : null;
    if (nativeOk && gateway && !gatewayOk) exitCode = 1;
    return `${name.padEnd(32)} ${(nativeOk ? 'pass' : 'FAIL').padEnd(8)} ${gatewayOk === null ? (gateway ? 'missing' : '-') : gatewayOk ? 'pass' : 'FAIL'}`;
  });
  process.stdout.write(`\n${'scenario'.padEnd(32)} ${'native'.padEnd(8)} through serve --http\n${rows.join('\n')}\n`);
  if (!gateway) process.stdout.write('\nThis build has no `serve --http`: only the native run was made.\n');
  else process.stdout.write(exitCode === 0 ? '\nEvery scenario the fixture passes natively passes through the gateway.\n' : '\nSome scenarios pass natively but not through the gateway (FAIL above).\n');
} catch (error) {
  process.stderr.write(`${error.stack ?? error}\n`);
  exitCode = 1;
} finally {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
process.exit(exitCode);
