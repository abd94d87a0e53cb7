#!/usr/bin/env node
// node bench/callgrind.js --bin A [--bin B]... [--runs N] [--warm N] [--calls N]
//
// Instructions per warm call, counted by valgrind's callgrind: what moves least when the machine
// is shared (docs/performance.md, "Measuring"). Each build's gateway runs under callgrind in front
// of server-everything (not instrumented), gets `--warm` calls one at a time (3,000), then its
// counters are zeroed, `--calls` more are made (1,000) and counted, per thread. The builds take
// turns, `--runs` times each (2); a run now and then counts ~10% more for the same build (V8's
// tiers compile at other moments under valgrind), so compare the runs in pairs. Prints, per run,
// the instructions per call on the main thread and on all threads.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(option('--runs', 2));
const warm = Number(option('--warm', 3000));
const calls = Number(option('--calls', 1000));
const bins = argv.flatMap((arg, index) => (arg === '--bin' ? [resolve(argv[index + 1])] : []));
if (bins.length === 0) bins.push(join(root, 'bin/mcp-latch.js'));

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-callgrind-')));
const config = join(dir, 'mcp-latch.json');
const server = [join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'];
writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: server } }, permissions: { allow: ['mcp__everything__echo'] } }));

async function measure(bin, run) {
  const out = join(dir, `run${run}-${bins.indexOf(bin)}`);
  const child = spawn('valgrind', ['--tool=callgrind', '--separate-threads=yes', '--smc-check=all-non-file', `--callgrind-out-file=${out}.%p`, process.execPath, bin, 'serve', '--config', config], {
    cwd: dir,
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { ...process.env, MCP_LATCH_LOG_LEVEL: 'warn' },
  });
  const waiting = new Map();
  let rest = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      const message = JSON.parse(line);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  let nextId = 1;
  const request = (method, params) => {
    const id = nextId++;
    const answered = new Promise((done) => waiting.set(id, done));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return answered;
  };
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'callgrind', version: '1.0.0' } });
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  await request('tools/list', {});
  const call = async (count) => {
    for (let i = 0; i < count; i++) {
      const answer = await request('tools/call', { name: 'everything__echo', arguments: { message: `ping ${i}` } });
      if (answer.result?.content?.[0]?.text !== `Echo: ping ${i}`) throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
    }
  };
  await call(warm);
  execFileSync('callgrind_control', ['-z', String(child.pid)], { stdio: 'ignore' });
  await call(calls);
  execFileSync('callgrind_control', ['-d', String(child.pid)], { stdio: 'ignore' });
  child.stdin.end();
  await new Promise((done) => child.once('exit', done));
  // The dump after the zeroing: one file per thread, `<out>.<pid>.<dump>-<thread>`.
  const prefix = `${out.split('/').pop()}.${child.pid}.`;
  const dumps = readdirSync(dir).filter((name) => name.startsWith(prefix));
  const last = Math.max(...dumps.map((name) => Number(name.slice(prefix.length).split('-')[0])));
  let main = 0;
  let all = 0;
  for (const name of dumps.filter((entry) => entry.startsWith(`${prefix}${last}-`))) {
    const totals = Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, name), 'utf8'))?.[1] ?? 0);
    all += totals;
    if (name.endsWith('-01')) main = totals;
  }
  return { main: main / calls, all: all / calls };
}

for (let run = 0; run < runs; run++) {
  for (const bin of run % 2 ? [...bins].reverse() : bins) {
    const { main, all } = await measure(bin, run);
    console.log(`run ${run + 1}: ${bin}: ${(main / 1000).toFixed(1)}k instructions per call on the main thread, ${(all / 1000).toFixed(1)}k on all threads`);
  }
}
