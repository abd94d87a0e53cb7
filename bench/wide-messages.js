#!/usr/bin/env node
// node bench/wide-messages.js [--bin "PATH [node flags]"]... [--keys N] [--rounds N] [--only LABEL]
//
// What one wide message costs the gateway, and what the other calls wait meanwhile (round 13
// review R12; docs/performance.md, "Round 14: wide messages"). Each build's gateway (`--bin`, a
// bin/mcp-latch.js, node flags such as --cpu-prof after a space; this checkout's by default) runs the fault server twice: `f` answers
// wide_structured with a structuredContent of `--keys` keys (300,000 by default), and `other` echoes.
// Per case it sends the wide call (to `f`), meanwhile calls other__echo in a loop, and prints the wide call's
// time, the gateway's CPU for the case, and the slowest echo. Cases: the server's wide
// structuredContent; a client's arguments object of `--keys` keys; arguments nested `--keys` levels.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuNs, median } from './measure.js';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : fallback;
};
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bins = argv.flatMap((value, index) => (argv[index - 1] === '--bin' ? [value] : []));
if (bins.length === 0) bins.push(join(root, 'bin/mcp-latch.js'));
const only = option('--only', '');
const keys = Number(option('--keys', '300000'));
const rounds = Number(option('--rounds', '3'));
const FAULT_SERVER = join(root, 'test/fixtures/fault-server.mjs');

const wideObject = (count) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, 1]));
// A deep object's JSON, built as text: JSON.stringify of one nested this deep overflows the stack.
const deepText = (depth) => `${'{"inner":'.repeat(depth)}{"leaf":true}${'}'.repeat(depth)}`;

const cases = [
  ['structuredContent', () => ({ name: 'f__wide_structured', arguments: { keys } })],
  ['arguments, keys', () => ({ name: 'f__echo', arguments: { text: 'wide', wide: wideObject(keys) } })],
  ['arguments, depth', null, () => `{"name":"f__echo","arguments":{"text":"deep","deep":${deepText(keys)}}}`],
];

function startGateway(binAndFlags) {
  const [bin, ...flags] = binAndFlags.split(' ');
  const dir = mkdtempSync(join(tmpdir(), 'wide-messages-'));
  const config = join(dir, 'mcp-latch.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { f: { command: process.execPath, args: [FAULT_SERVER, 'invalid-answers'] }, other: { command: process.execPath, args: [FAULT_SERVER, 'works'] } }, permissions: { allow: ['mcp__f', 'mcp__other'] }, limits: { messageMB: 64 } }));
  const child = spawn(process.execPath, [...flags, resolve(bin), 'serve', '--config', config], { cwd: dir, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const message = JSON.parse(line);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  let next = 0;
  const request = (method, paramsText) => {
    const id = ++next;
    return new Promise((done) => {
      waiting.set(id, done);
      child.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${paramsText}}\n`);
    });
  };
  // stdin's end stops it as a client leaving does (a --cpu-prof in NODE_OPTIONS is then written).
  return { child, request, stop: () => new Promise((done) => child.once('exit', done).stdin.end()) };
}

function firstText(answer) {
  const text = answer.error ? `error ${answer.error.code}: ${answer.error.message}` : answer.result?.content?.[0]?.text ?? '';
  return text.length > 140 ? `${text.slice(0, 140)}…` : text;
}

for (const bin of bins) {
  const gateway = startGateway(bin);
  await gateway.request('initialize', JSON.stringify({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'wide-messages', version: '1' } }));
  gateway.child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  await gateway.request('tools/list', '{}');
  for (let warm = 0; warm < 50; warm++) await gateway.request('tools/call', '{"name":"other__echo","arguments":{"text":"warm"}}');
  console.log(bin);
  for (const [label, params, paramsText] of cases) {
    if (!label.startsWith(only)) continue;
    const times = [];
    const cpus = [];
    const worsts = [];
    let said = '';
    for (let round = 0; round < rounds; round++) {
      const text = paramsText ? paramsText() : JSON.stringify(params());
      const cpuBefore = cpuNs(gateway.child.pid);
      const started = performance.now();
      let done = false;
      const wide = gateway.request('tools/call', text).then((answer) => {
        done = true;
        return answer;
      });
      let worst = 0;
      while (!done) {
        const sent = performance.now();
        await gateway.request('tools/call', '{"name":"other__echo","arguments":{"text":"meanwhile"}}');
        worst = Math.max(worst, performance.now() - sent);
        await new Promise((wait) => setTimeout(wait, 5));
      }
      const answer = await wide;
      times.push(performance.now() - started);
      cpus.push((cpuNs(gateway.child.pid) - cpuBefore) / 1e6);
      worsts.push(worst);
      said = firstText(answer);
    }
    console.log(`  ${label} (${keys.toLocaleString('en-US')}): call ${median(times).toFixed(0)} ms, gateway CPU ${median(cpus).toFixed(0)} ms, worst other call ${median(worsts).toFixed(0)} ms (medians of ${rounds}); answer: ${said}`);
  }
  await gateway.stop();
}
