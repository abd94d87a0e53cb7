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
// through V8's perf map (`--perf-basic-prof`; callgrind sees JIT code as bare addresses). `--self`:
// with `--names`, by their own instructions instead (a scavenge counts in the inclusive count of
// whatever function allocated when it began, so an allocating function's inclusive count moves with
// where the scavenges fell).
// `--in-flight N`: the counted calls (and as many warm ones again) go N at a time, each in its own
// write as the SDK client sends them: the 16-in-flight path, where a read holds several calls.
// A gateway waits 5 s after the warm calls (its idle collector collects) and gets 3,000 more (as
// many again at N in flight) before the counted ones.
// `--bin bench/floor-relay.js`: the byte relay in the gateway's place (its server called `echo`).
// `--bin PATH#no-audit`: that build with the audit off (what the record costs).
// `--progress`: every call carries `_meta: {progressToken}` after its arguments, as a client asking
// for progress writes it (docs/performance.md, "Round 20: warm path").
// `--first-shell`: instead, the first shell command of a fresh gateway against a warm one
// (docs/performance.md, "Round 18: start"): each build's gateway in front of mcp-server-commands
// (not instrumented), its code cache written by a start outside valgrind under the same flags, the
// first list waited for whatever valgrind's slowness does to the grammar's load
// (`timeouts.firstListSeconds` 120); then `echo call N` commands one at a time, as bench/shell-start.js
// sends them, the counters zeroed before and dumped at the answer of commands 1, 2, 3 and 41.
// Each build runs from a copy whose idle collector waits 60 s, not 1 s: under valgrind the zeroing
// waits for the gateway's next timer, and its first idle collection (and the warm-up run again
// after it) then fell inside the first command's count (80 M instead of ~3 M). The bench's case is
// the command right after the list, before any collection.
// Prints each one's instructions (main thread, all threads); with `--names N`, the N functions of
// the main thread with the most instructions in the first command, each beside its count in the 41st.
// `--start [--servers N]`: instead, the instructions from exec to the first complete tools/list of a
// gateway in front of N server-everything (10; not instrumented), dumped when the client has the list.
// Each build runs from a copy whose work after the first list waits 60 s (the policy's build,
// serve.ts `prepare`; the digests, AFTER_LIST_MS), so that the dump, which comes a moment after the
// list under valgrind, holds the start only; its code cache (a directory of its own) is made by
// two starts of the same copy and config outside valgrind first (docs/performance.md, "Round 29:
// the ten-server start"). `--seed-cache I=DIR`: the I-th build's cache directory starts as a copy of
// DIR/mcp-latch (a cache made by another start of the same build, which those two starts keep).
import { spawn, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
const selfOnly = argv.includes('--self');
const inFlight = Number(option('--in-flight', 1));
const firstShell = argv.includes('--first-shell');
const progress = argv.includes('--progress');
const startOnly = argv.includes('--start');
const startServers = Number(option('--servers', 10));
// `--seed-cache I=DIR` (with --start): the I-th build's (from 0) code-cache directory starts as a copy of DIR/mcp-latch.
const seeds = new Map(argv.flatMap((arg, index) => (arg === '--seed-cache' ? [argv[index + 1].split(/=(.*)/s)] : [])).map(([i, from]) => [Number(i), from]));
const bins = argv.flatMap((arg, index) => (arg === '--bin' ? [argv[index + 1].endsWith('#no-audit') ? `${resolve(argv[index + 1].slice(0, -9))}#no-audit` : resolve(argv[index + 1])] : []));
if (bins.length === 0) bins.push(join(root, 'bin/mcp-latch.js'));

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-callgrind-')));
const config = join(dir, 'mcp-latch.json');
const server = [join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'];
writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: server } }, permissions: { allow: ['mcp__everything__echo'] } }));
const noAuditConfig = join(dir, 'no-audit.json');
writeFileSync(noAuditConfig, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: server } }, permissions: { allow: ['mcp__everything__echo'] }, audit: { enabled: false } }));

/**
 * A JSON-RPC client on a gateway's stdio: initialised, its tools listed; returns `request(method,
 * params)`, which resolves with the answer of that id.
 */
async function listedSession(child) {
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
  return request;
}

/** Longer than the gateway's idle collector takes to collect once its client is quiet (two of its 1 s periods), under valgrind. */
const IDLE_WAIT_MS = 5000;
/** Calls that warm the call path again after the idle collection (its last function re-optimised ~750 calls after it, outside valgrind). */
const REWARM = 3000;

async function measure(bin, run) {
  const out = join(dir, `run${run}-${bins.indexOf(bin)}`);
  // The byte relay (bench/floor-relay.js) in the gateway's place: the floor's own count.
  const relay = bin.endsWith('floor-relay.js');
  // `--bin PATH#no-audit`: that build with the audit off.
  const command = relay ? [bin, process.execPath, ...server] : bin.endsWith('#no-audit') ? [bin.slice(0, -9), 'serve', '--config', noAuditConfig] : [bin, 'serve', '--config', config];
  const child = spawn('valgrind', ['--tool=callgrind', '--separate-threads=yes', '--smc-check=all-non-file', `--callgrind-out-file=${out}.%p`, process.execPath, ...(names > 0 ? ['--perf-basic-prof'] : []), ...command], {
    cwd: dir,
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { ...process.env, MCP_LATCH_LOG_LEVEL: 'warn' },
  });
  const request = await listedSession(child);
  const call = async (count, width = inFlight) => {
    let i = 0;
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (i < count) {
          const n = i++;
          const answer = await request('tools/call', { name: relay ? 'echo' : 'everything__echo', arguments: { message: `ping ${n}` }, ...(progress ? { _meta: { progressToken: n } } : {}) });
          if (answer.result?.content?.[0]?.text !== `Echo: ping ${n}`) throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
        }
      }),
    );
  };
  await call(warm, 1);
  if (inFlight > 1) await call(warm);
  if (!relay) {
    // The zeroing waits for the process's next timer, and the gateway's was its idle collector's:
    // after the warm calls it collected (two full collections), which dropped the optimised code of
    // ~25 functions of the call path (V8 deoptimises code whose embedded maps died: "weak
    // objects"), and the counted calls began in V8's lower tiers (^receive and ^scanAnswer in ~190
    // of 1,000 calls, TurboFan compiling). So that collection is let happen here, and the path is
    // warmed again: the collector does not collect after the zeroing then (the heap grew under
    // its 1 MiB since), and no full collection of V8's own is due (docs/performance.md, "Round 30:
    // the counted calls").
    await new Promise((done) => setTimeout(done, IDLE_WAIT_MS));
    await call(REWARM, 1);
    if (inFlight > 1) await call(REWARM);
  }
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
  if (process.env.CALLGRIND_KEEP) console.log(`kept: ${dump} ${mapFile}`);
  else rmSync(mapFile, { force: true });
  const nameOf = (address) => code.findLast((entry) => entry.start <= address && address < entry.end)?.name;
  const annotated = execFileSync('callgrind_annotate', [`--inclusive=${selfOnly ? 'no' : 'yes'}`, '--threshold=100', dump], { encoding: 'utf8', maxBuffer: 1 << 28 });
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

/** The instructions of one dump, per thread file: main thread and all. */
function dumpTotals(prefix, dump) {
  let main = 0;
  let all = 0;
  for (const name of readdirSync(dir).filter((entry) => entry.startsWith(`${prefix}${dump}-`))) {
    const totals = Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, name), 'utf8'))?.[1] ?? 0);
    all += totals;
    if (name.endsWith('-01')) main = totals;
  }
  return { main, all };
}

/**
 * The main thread's functions by instructions, JIT code named as printNames does: name → count,
 * inclusive (`inclusive`) or their own (exclusive, the tiers and copies of one name added up).
 */
function namedCounts(dump, mapFile, inclusive) {
  const code = readFileSync(mapFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [start, size, ...name] = line.split(' ');
      return { start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name: name.join(' ') };
    });
  const nameOf = (address) => code.findLast((entry) => entry.start <= address && address < entry.end)?.name;
  const annotated = execFileSync('callgrind_annotate', [`--inclusive=${inclusive ? 'yes' : 'no'}`, '--threshold=100', dump], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const rows = new Map();
  for (const line of annotated.split('\n')) {
    const match = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$/.exec(line);
    if (!match) continue;
    const address = /\?\?\?:0x([0-9a-f]+) \[\?\?\?\]/.exec(match[2]);
    // A name called from itself shows a second row ('2): callgrind's count of the cycle, not of the function.
    if (/'\d+$/.test(match[2])) continue;
    const name = ((address ? nameOf(parseInt(address[1], 16)) : null) ?? match[2].replace(/ \[.*\]$/, '')).replace(/^JS:[~^*+]/, 'JS:');
    const count = Number(match[1].replaceAll(',', ''));
    rows.set(name, inclusive ? Math.max(rows.get(name) ?? 0, count) : (rows.get(name) ?? 0) + count);
  }
  return rows;
}

/** Commands whose instructions are counted (0-based): the first three and the 41st. */
const COUNTED = [0, 1, 2, 40];

/**
 * A copy of `bin`'s build (bin/, dist/, its node_modules linked) whose idle collector waits 60 s, and
 * whose work left for a second after the first list (list-answer.ts AFTER_LIST_MS: the lists'
 * digests, the lock file's record) waits 60 s too: under valgrind's slowness that second passed
 * inside the first command, ~1 M instructions of it, where at real pace it comes after the 60
 * commands (docs/performance.md, "Round 28: the start and the first calls"). A build without
 * AFTER_LIST_MS (before round 27) is left as it is.
 */
function withLongIdlePeriod(bin, index, startOnly = false) {
  const build = dirname(dirname(bin));
  const copy = join(dir, `build-${index}`);
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(build, part), join(copy, part), { recursive: true });
  symlinkSync(join(build, 'node_modules'), join(copy, 'node_modules'));
  if (startOnly) {
    // Only serve.cjs changes: the gateway's bundle (and so the name of its code cache) stays the build's.
    const serveBundle = join(copy, 'dist/serve/serve.cjs');
    const serveText = readFileSync(serveBundle, 'latin1');
    const prepare = 'setImmediate(()=>gateway.core.prepare())';
    if (!serveText.includes(prepare)) throw new Error(`${serveBundle}: no ${prepare} to put off`);
    writeFileSync(serveBundle, serveText.replace(prepare, 'setTimeout(()=>gateway.core.prepare(),6e4)'), 'latin1');
    return join(copy, 'bin/mcp-latch.js');
  }
  const bundle = join(copy, 'dist/serve/gateway.cjs');
  const text = readFileSync(bundle, 'latin1');
  if (!text.includes('IDLE_PERIOD_MS=1e3')) throw new Error(`${bundle}: no IDLE_PERIOD_MS=1e3 to lengthen`);
  writeFileSync(bundle, text.replace('IDLE_PERIOD_MS=1e3', 'IDLE_PERIOD_MS=6e4').replace('AFTER_LIST_MS=1e3', 'AFTER_LIST_MS=6e4'), 'latin1');
  return join(copy, 'bin/mcp-latch.js');
}
const copies = new Map();

async function measureFirstShell(bin, run) {
  if (!copies.has(bin)) copies.set(bin, withLongIdlePeriod(bin, copies.size));
  const copy = copies.get(bin);
  const commands = join(root, 'node_modules/mcp-server-commands/build/index.js');
  const shellConfig = join(dir, 'shell.json');
  writeFileSync(shellConfig, JSON.stringify({ mcpServers: { shell: { command: process.execPath, args: [commands] } }, workspace: [dir], permissions: { allow: ['Bash(echo *)'] }, timeouts: { firstListSeconds: 120 } }));
  const nodeArgs = [...(names > 0 ? ['--perf-basic-prof', '--interpreted-frames-native-stack'] : []), copy, 'serve', '--config', shellConfig];
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, XDG_CACHE_HOME: join(dir, 'cache'), MCP_LATCH_LOG_LEVEL: 'warn' };
  const out = join(dir, `shell${run}-${bins.indexOf(bin)}`);
  const start = (valgrind) =>
    valgrind
      ? spawn('valgrind', ['--tool=callgrind', '--separate-threads=yes', '--smc-check=all-non-file', `--callgrind-out-file=${out}.%p`, process.execPath, ...nodeArgs], { cwd: dir, stdio: ['pipe', 'pipe', 'ignore'], env })
      : spawn(process.execPath, nodeArgs, { cwd: dir, stdio: ['pipe', 'pipe', 'ignore'], env });
  const session = async (child, count, onCommand, pauseMs = 0) => {
    const request = await listedSession(child);
    for (let i = 0; i < count; i++) {
      onCommand(i, 'before');
      const answer = await request('tools/call', { name: 'shell__run_command', arguments: { command: `echo call ${i}`, workdir: dir } });
      if (!JSON.stringify(answer).includes(`call ${i}`)) throw new Error(`shell command ${i} did not run: ${JSON.stringify(answer).slice(0, 300)}`);
      onCommand(i, 'after');
    }
    await new Promise((done) => setTimeout(done, pauseMs));
    child.stdin.end();
    await new Promise((done) => child.once('exit', done));
  };
  // The code caches (the gateway's and the shell model's), written after the first call, outside valgrind;
  // and the tool pinned with the names its server listed: a start stopped right after its first call
  // pins the tool but leaves the names (recorded once the pin is written, while the server is
  // ready) to the next start, whose first command then wrote the lock file (~1.5 M instructions
  // that the bench's starts, primed by a whole run, never have).
  await session(start(false), 3, () => undefined, 1000);
  await new Promise((done) => setTimeout(done, 1500));
  const child = start(true);
  await session(child, COUNTED.at(-1) + 1, (i, when) => {
    if (COUNTED.includes(i)) execFileSync('callgrind_control', [when === 'before' ? '-z' : '-d', String(child.pid)], { stdio: 'ignore' });
  });
  const prefix = `${out.split('/').pop()}.${child.pid}.`;
  const dumps = [...new Set(readdirSync(dir).filter((name) => name.startsWith(prefix) && /\.\d+-\d+$/.test(name)).map((name) => Number(name.slice(prefix.length).split('-')[0])))].sort((a, b) => a - b);
  const counts = dumps.map((dump) => dumpTotals(prefix, dump));
  console.log(`run ${run + 1}: ${bin}: commands ${COUNTED.map((i) => i + 1).join(', ')}: ${counts.map((c) => `${(c.main / 1e6).toFixed(2)} M`).join(' / ')} on the main thread, ${counts.map((c) => `${(c.all / 1e6).toFixed(2)} M`).join(' / ')} on all threads`);
  if (names > 0) {
    const mapFile = `/tmp/perf-${child.pid}.map`;
    for (const inclusive of [false, true]) {
      const first = namedCounts(`${join(dir, prefix)}${dumps[0]}-01`, mapFile, inclusive);
      const warm = namedCounts(`${join(dir, prefix)}${dumps.at(-1)}-01`, mapFile, inclusive);
      // Inclusive: JavaScript functions only (the builtins' rows hold whole call trees).
      const rows = [...first].filter(([name]) => !inclusive || name.startsWith('JS:')).sort((a, b) => b[1] - a[1] - ((warm.get(b[0]) ?? 0) - (warm.get(a[0]) ?? 0)));
      console.log(`  first command / 41st, the main thread, ${inclusive ? "JavaScript functions with their callees" : 'own instructions'}, by the difference:`);
      for (const [name, count] of rows.slice(0, names)) console.log(`${(count / 1e3).toFixed(0).padStart(9)}k ${((warm.get(name) ?? 0) / 1e3).toFixed(0).padStart(8)}k  ${name.slice(0, 150)}`);
    }
    rmSync(mapFile, { force: true });
  }
}

async function measureStart(bin, run) {
  if (!copies.has(bin)) copies.set(bin, withLongIdlePeriod(bin, copies.size, true));
  const copy = copies.get(bin);
  const startConfig = join(dir, `start-${startServers}.json`);
  const mcpServers = Object.fromEntries(Array.from({ length: startServers }, (_, i) => [`s${i}`, { command: process.execPath, args: server }]));
  writeFileSync(startConfig, JSON.stringify({ mcpServers, permissions: { allow: ['mcp__s0__echo'] } }));
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, XDG_CACHE_HOME: join(dir, `cache-start-${bins.indexOf(bin)}`), MCP_LATCH_LOG_LEVEL: 'warn' };
  const out = join(dir, `start${run}-${bins.indexOf(bin)}`);
  const nodeArgs = [...(names > 0 ? ['--perf-basic-prof', '--interpreted-frames-native-stack'] : []), copy, 'serve', '--config', startConfig];
  const listed = async (child, onList) => {
    await listedSession(child);
    onList();
    child.stdin.end();
    await new Promise((done) => child.once('exit', done));
  };
  if (run === 0) {
    if (seeds.has(bins.indexOf(bin))) cpSync(join(seeds.get(bins.indexOf(bin)), 'mcp-latch'), join(env.XDG_CACHE_HOME, 'mcp-latch'), { recursive: true });
    // The cache made (after the first list) and, by the second start, loaded and kept.
    for (let i = 0; i < 2; i++) {
      await listed(spawn(process.execPath, nodeArgs, { cwd: dir, stdio: ['pipe', 'pipe', 'ignore'], env }), () => undefined);
      await new Promise((done) => setTimeout(done, 1500));
    }
  }
  const child = spawn('valgrind', ['--tool=callgrind', '--separate-threads=yes', '--smc-check=all-non-file', `--callgrind-out-file=${out}.%p`, process.execPath, ...nodeArgs], { cwd: dir, stdio: ['pipe', 'pipe', 'ignore'], env });
  await listed(child, () => execFileSync('callgrind_control', ['-d', String(child.pid)], { stdio: 'ignore' }));
  const prefix = `${out.split('/').pop()}.${child.pid}.`;
  const first = Math.min(...readdirSync(dir).filter((name) => name.startsWith(prefix) && /\.\d+-\d+$/.test(name)).map((name) => Number(name.slice(prefix.length).split('-')[0])));
  const { main, all } = dumpTotals(prefix, first);
  console.log(`run ${run + 1}: ${bin}: ${(main / 1e6).toFixed(1)} M instructions to the first list (${startServers} servers) on the main thread, ${(all / 1e6).toFixed(1)} M on all threads`);
  if (names > 0) {
    const mapFile = `/tmp/perf-${child.pid}.map`;
    for (const inclusive of [false, true]) {
      const counts = namedCounts(`${join(dir, prefix)}${first}-01`, mapFile, inclusive);
      const rows = [...counts].filter(([name]) => !inclusive || name.startsWith('JS:')).sort((a, b) => b[1] - a[1]);
      console.log(`  the main thread, ${inclusive ? 'JavaScript functions with their callees' : 'own instructions'}:`);
      for (const [name, count] of rows.slice(0, names)) console.log(`${(count / 1e6).toFixed(2).padStart(9)} M  ${name.slice(0, 150)}`);
    }
    rmSync(mapFile, { force: true });
  }
}

for (let run = 0; run < runs; run++) {
  for (const bin of run % 2 ? [...bins].reverse() : bins) {
    if (startOnly) {
      await measureStart(bin, run);
      continue;
    }
    if (firstShell) {
      await measureFirstShell(bin, run);
      continue;
    }
    const { main, all } = await measure(bin, run);
    console.log(`run ${run + 1}: ${bin}: ${(main / 1000).toFixed(1)}k instructions per call on the main thread, ${(all / 1000).toFixed(1)}k on all threads`);
  }
}
