#!/usr/bin/env node
// node bench/spans.js --bin A [--bin B]... [--relay] [--direct] [--warm N] [--turns N] [--turn N]
//
// Where a warm call waits in the gateway, in wall time (docs/performance.md, "Round 18: the warm
// path"). Instruction counts (callgrind.js) say what the gateway spends, not what the client waits
// for: one call at a time, the client waits for the gateway's work between reading the call and
// writing it to the server, and between reading the answer and writing it to the client.
//
// Each build (a bin/mcp-latch.js; give the same build twice to see the spread between two processes
// of one build) is copied to a temporary directory and `performance.now()` marks are patched into its
// bundles: the start of the client's and the server's read callbacks, the writes to the server and
// to the client, and in the audit's writeQueued around the digest, the redaction, the record's text
// and its write. A pattern that no longer matches the bundle is reported and its mark left out
// (the spans that need it read NaN). Every gateway gets the SDK Client calling server-everything's
// `echo` one call at a time, `--warm` calls (4,000), then turns of `--turn` calls (250), the
// builds taking turns `--turns` times (20); `--relay` and `--direct` add bench/floor-relay.js and a
// direct connection to the turns (their round trips only). Prints, per process, the medians of the
// client's round trip and of each span, then, per build, the medians over turns of its processes'
// per-turn medians and the paired differences with the first build.
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { median } from './measure.js';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const warm = option('--warm', 4000);
const turns = option('--turns', 20);
const turn = option('--turn', 250);
const work = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-spans-')));

/** The marks: [bundle, text found, text put in its place] with M(k) a mark. */
const M = (k) => `globalThis.__mark(${k})`;
const MARKS = [
  ['serve.cjs', '&&this.stdin.write(text)}', `&&(${M(1)},this.stdin.write(text))}`],
  ['serve.cjs', 'try{this.reader.push(chunk,this.receive', `try{${M(2)},this.reader.push(chunk,this.receive`],
  ['gateway.cjs', 'this.reader.push(chunk,this.onLine', `${M(0)},this.reader.push(chunk,this.onLine`],
  ['gateway.cjs', 'try{this.out.write(text)}', `try{${M(3)},this.out.write(text)}`],
  ['gateway.cjs', 'typeof entry.argsDigest=="function"&&(entry.argsDigest=entry.argsDigest()),redactRecord(entry,lastTexts),', `${M(4)},typeof entry.argsDigest=="function"&&(entry.argsDigest=entry.argsDigest()),${M(5)},redactRecord(entry,lastTexts),${M(6)},`],
  ['gateway.cjs', 'count=0,sink.flushSync()}', `count=0,${M(8)},sink.flushSync(),${M(9)}}`],
];
/** The spans printed: [name, from mark, to mark]. */
const SPANS = [
  ['read→server write', 0, 1],
  ['server read→client write', 2, 3],
  ['read→digest', 0, 4],
  ['digest', 4, 5],
  ['redaction', 5, 6],
  ['record text', 6, 8],
  ['audit write', 8, 9],
  ['written→server write', 9, 1],
];
// Marks as raw performance.now() (added to timeOrigin they would be rounded to 0.24 µs), the
// process's timeOrigin first, written at exit to $SPANS_OUT.
const HEAD = `"use strict";{const L=new Float64Array(2*400000);let n=2;L[0]=-1;L[1]=performance.timeOrigin;globalThis.__mark=(k)=>{if(n<L.length){L[n++]=k;L[n++]=performance.now();}};process.on('exit',()=>{if(process.env.SPANS_OUT)require('node:fs').writeFileSync(process.env.SPANS_OUT,Buffer.from(L.buffer,0,n*8));});}\n`;

/** A copy of the build of `bin` with the marks in; its bin/mcp-latch.js. */
function patchedCopy(bin, index) {
  const from = resolve(dirname(bin), '..');
  const to = join(work, `build${index}`);
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(from, part), join(to, part), { recursive: true });
  symlinkSync(join(from, 'node_modules'), join(to, 'node_modules'));
  const texts = new Map();
  const read = (file) => texts.get(file) ?? readFileSync(join(to, 'dist/serve', file), 'utf8');
  for (const [file, found, put] of MARKS) {
    const text = read(file);
    const count = text.split(found).length - 1;
    if (count !== 1) console.error(`${bin}: ${count} matches in ${file} for ${found.slice(0, 60)}: that mark is left out`);
    texts.set(file, count === 1 ? text.replace(found, put) : text);
  }
  texts.set('serve.cjs', HEAD + read('serve.cjs'));
  for (const [file, text] of texts) writeFileSync(join(to, 'dist/serve', file), text);
  return join(to, 'bin/mcp-latch.js');
}

async function start(entry, index) {
  const config = join(work, `config${index}.json`);
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } }, permissions: { allow: ['mcp__everything__echo'] } }));
  const out = join(work, `spans${index}.bin`);
  const args =
    entry.kind === 'direct' ? [everything, 'stdio'] : entry.kind === 'relay' ? [join(root, 'bench/floor-relay.js'), process.execPath, everything, 'stdio'] : [entry.patched, 'serve', '--config', config];
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: work, stderr: 'ignore', env: { ...process.env, MCP_LATCH_LOG_LEVEL: 'warn', SPANS_OUT: out } });
  const client = new Client({ name: 'mcp-latch-spans', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  await client.listTools();
  const tool = entry.kind === 'gateway' ? 'everything__echo' : 'echo';
  const process_ = { ...entry, client, transport, out, rtts: [], windows: [] };
  process_.call = async (count, keep) => {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const result = await client.request({ method: 'tools/call', params: { name: tool, arguments: { message: `ping ${i}` } } }, CallToolResultSchema);
      if (keep) process_.rtts.push((performance.now() - started) * 1000);
      if (result.content?.[0]?.text !== `Echo: ping ${i}`) throw new Error(`unexpected answer: ${JSON.stringify(result)}`);
    }
  };
  return process_;
}

/** Each call's marks (by number), from the file a gateway wrote at exit; the windows of the turns in its own clock. */
function callsOf(p) {
  const bytes = readFileSync(p.out);
  const log = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8);
  const origin = log[1];
  const windows = p.windows.map(([from, to]) => [from - origin, to - origin]);
  const calls = [];
  let current = null;
  for (let index = 2; index < log.length; index += 2) {
    const [mark, at] = [log[index], log[index + 1]];
    if (mark === 0) calls.push((current = { 0: at }));
    else if (current && current[mark] === undefined) current[mark] = at;
  }
  return windows.map(([from, to]) => calls.filter((call) => call[0] >= from && call[0] <= to));
}

const spanOf = (calls, from, to) => median(calls.filter((call) => call[from] !== undefined && call[to] !== undefined).map((call) => (call[to] - call[from]) * 1000));
const fixed = (value) => (Number.isFinite(value) ? value.toFixed(2) : 'NaN');

const entries = [];
argv.forEach((arg, index) => {
  if (arg === '--bin') {
    const bin = resolve(argv[index + 1]);
    entries.push({ kind: 'gateway', name: bin, patched: patchedCopy(bin, entries.length) });
  }
});
if (argv.includes('--relay')) entries.push({ kind: 'relay', name: 'byte relay' });
if (argv.includes('--direct')) entries.push({ kind: 'direct', name: 'direct' });
try {
  const processes = [];
  for (const [index, entry] of entries.entries()) processes.push(await start(entry, index));
  for (const p of processes) await p.call(warm, false);
  const clock = () => performance.timeOrigin + performance.now();
  for (let t = 0; t < turns; t++) {
    for (const p of t % 2 ? [...processes].reverse() : processes) {
      const from = clock();
      await p.call(turn, true);
      p.windows.push([from, clock()]);
    }
  }
  for (const p of processes) {
    await p.client.close();
    const pid = p.transport.pid;
    // The gateway writes its marks as it exits.
    for (let waited = 0; waited < 10_000; waited += 20) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      await new Promise((done) => setTimeout(done, 20));
    }
  }
  const perBuild = new Map();
  for (const p of processes) {
    const rtt = `round trip p50 ${median(p.rtts).toFixed(1)} µs`;
    if (p.kind !== 'gateway') {
      console.log(`${p.name}: ${rtt}`);
      continue;
    }
    const byTurn = callsOf(p);
    const all = byTurn.flat();
    console.log(`${p.name}: ${all.length} calls, ${rtt}; ${SPANS.map(([name, from, to]) => `${name} ${fixed(spanOf(all, from, to))}`).join('; ')} µs`);
    const turnsOf = byTurn.map((calls, t) => ({ rtt: median(p.rtts.slice(t * turn, (t + 1) * turn)), ...Object.fromEntries(SPANS.map(([name, from, to]) => [name, spanOf(calls, from, to)])) }));
    perBuild.set(p.name, [...(perBuild.get(p.name) ?? []), turnsOf]);
  }
  // Per build: each turn's mean over its processes; then medians over turns, and paired with the first build.
  const names = [...perBuild.keys()];
  const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const atTurn = (name, key, t) => mean(perBuild.get(name).map((turnsOf) => turnsOf[t][key]));
  for (const key of ['rtt', 'read→server write', 'server read→client write', 'digest']) {
    const line = names.map((name) => `${name} ${fixed(median(Array.from({ length: turns }, (_, t) => atTurn(name, key, t))))}`);
    const paired = names.slice(1).map((name) => {
      const differences = Array.from({ length: turns }, (_, t) => atTurn(name, key, t) - atTurn(names[0], key, t));
      return `${name} − first: median ${fixed(median(differences))}, lower in ${differences.filter((value) => value < 0).length}/${turns} turns`;
    });
    console.log(`${key} (µs, medians over turns): ${line.join('; ')}${paired.length ? `; ${paired.join('; ')}` : ''}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
