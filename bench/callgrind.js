#!/usr/bin/env node
// node bench/callgrind.js --bin A [--bin B]... [--runs N] [--warm N] [--calls N] [--names N] [--in-flight N]
//
// Instructions per warm call, counted by valgrind's callgrind: what moves least when the machine
// is shared (docs/performance.md, "Measuring"). Each build's gateway runs under callgrind in front
// of server-everything (not instrumented), gets `--warm` calls one at a time (3,000), then its
// counters are zeroed, `--calls` more are made (1,000) and counted, per thread. The builds take
// turns, `--runs` times each (2); a run now and then counts ~10% more for the same build (V8's
// tiers compile at other moments under valgrind), so compare the runs in pairs. Prints, per run,
// the instructions per call on the main thread and on all threads. `--names N`: also the N functions
// of the main thread with the most instructions per call, their callees included, JavaScript named
// through V8's perf map (`--perf-basic-prof`; callgrind sees JIT code as bare addresses).
// `--in-flight N`: the counted calls (and as many warm ones again) go N at a time, each in its own
// write as the SDK client sends them: the 16-in-flight path, where a read holds several calls.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(option('--runs', 2));
const warm = Number(option('--warm', 3000));
const calls = Number(option('--calls', 1000));
const names = Number(option('--names', 0));
const inFlight = Number(option('--in-flight', 1));
const bins = argv.flatMap((arg, index) => (arg === '--bin' ? [resolve(argv[index + 1])] : []));
if (bins.length === 0) bins.push(join(root, 'bin/mcp-latch.js'));

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-callgrind-')));
const config = join(dir, 'mcp-latch.json');
const server = [join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'];
writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: server } }, permissions: { allow: ['mcp__everything__echo'] } }));

async function measure(bin, run) {
  const out = join(dir, `run${run}-${bins.indexOf(bin)}`);
  const child = spawn('valgrind', ['--tool=callgrind', '--separate-threads=yes', '--smc-check=all-non-file', `--callgrind-out-file=${out}.%p`, process.execPath, ...(names > 0 ? ['--perf-basic-prof'] : []), bin, 'serve', '--config', config], {
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
  const call = async (count, width = inFlight) => {
    let i = 0;
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (i < count) {
          const n = i++;
          const answer = await request('tools/call', { name: 'everything__echo', arguments: { message: `ping ${n}` } });
          if (answer.result?.content?.[0]?.text !== `Echo: ping ${n}`) throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
        }
      }),
    );
  };
  await call(warm, 1);
  if (inFlight > 1) await call(warm);
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
  if (names > 0) printNames(join(dir, `${prefix}${last}-01`), child.pid);
  return { main: main / calls, all: all / calls };
}

/** The main thread's functions by inclusive instructions per call; JIT code named from /tmp/perf-PID.map. */
function printNames(dump, pid) {
  const mapFile = `/tmp/perf-${pid}.map`;
  const code = readFileSync(mapFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [start, size, ...name] = line.split(' ');
      return { start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name: name.join(' ') };
    });
  rmSync(mapFile, { force: true });
  const nameOf = (address) => code.findLast((entry) => entry.start <= address && address < entry.end)?.name;
  const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', dump], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const rows = new Map();
  for (const line of annotated.split('\n')) {
    const match = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$/.exec(line);
    if (!match) continue;
    const address = /\?\?\?:0x([0-9a-f]+) \[\?\?\?\]/.exec(match[2]);
    const name = (address ? nameOf(parseInt(address[1], 16)) : null) ?? match[2].replace(/ \[.*\]$/, '');
    // A function in two tiers (V8's `^` baseline, `*` optimised) is two rows: one may run inside the other.
    rows.set(name, Math.max(rows.get(name) ?? 0, Number(match[1].replaceAll(',', ''))));
  }
  for (const [name, count] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, names)) console.log(`${(count / calls / 1000).toFixed(2).padStart(9)}k  ${name.slice(0, 160)}`);
}

for (let run = 0; run < runs; run++) {
  for (const bin of run % 2 ? [...bins].reverse() : bins) {
    const { main, all } = await measure(bin, run);
    console.log(`run ${run + 1}: ${bin}: ${(main / 1000).toFixed(1)}k instructions per call on the main thread, ${(all / 1000).toFixed(1)}k on all threads`);
  }
}
