#!/usr/bin/env node
// node bench/memory.js [--calls N] [--rounds N] [--shell] [--idle] [--spaces] [--variant LABEL=BIN[,NODE_FLAG...]]...
//
// Where the gateway's resident memory goes, A/B in one run: each variant (default: this build's
// bin/mcp-latch.js) is started in front of server-everything (or, with --shell, mcp-server-commands),
// rounds interleaved, after one unmeasured start of each (which writes its code cache, as a
// client's first start does, into a cache directory of the run's own). For each start: the gateway's CPU until its first tools/list, its RSS idle
// (1.5 s after that list) split into the node binary's pages, malloc's heap, other anonymous memory
// (V8's heap, mostly) and other files; then the bench's warm-up (1,500 calls, 3,000 at 16 in
// flight), N calls one at a time and N at 16 in flight (CPU per call of each, schedstat), and the
// RSS when the 10,000th call is answered (the "after 10k calls"; the calls go on one at a
// time up to 10,000 if the phases make fewer), after all of them (4,500 + 2N calls), and once the
// client has been quiet for 3 s (with the CPU the gateway spent in those 3 s). RSS and CPU
// time move little with other load on the machine; wall time is not reported. --spaces also prints
// V8's heap spaces (used / committed) at idle, after all the calls and 3 s later, from Node's
// diagnostic report (the gateway is started with --report-on-signal and sent SIGUSR2). --idle stops after the idle RSS (with --shell, each call
// runs a process, so the bench's 4,500 warm-up calls take long). --as-run reads idle as bench/run.js
// does, where the goal is read: after the first list, 20 calls and 3 s without input (the
// idle collector has run), instead of 1.5 s after the first list; --before N makes those 20 calls N (with --shell,
// --before 60 is bench/run.js's shell part: RSS idle after the first 60 commands and 3 s quiet).
//   node bench/memory.js --variant now=bin/mcp-latch.js --variant old=/path/to/other/bin/mcp-latch.js
//   node bench/memory.js --variant small=bin/mcp-latch.js,--max-semi-space-size=1
import { readFileSync, readdirSync, mkdtempSync, writeFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { cpuNs, median } from './measure.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const calls = Number(option('--calls', 4000));
const rounds = Number(option('--rounds', 3));
const shell = argv.includes('--shell');
const idleOnly = argv.includes('--idle');
const spaces = argv.includes('--spaces');
const asRun = argv.includes('--as-run');
/** --as-run's calls before the quiet: 20 (bench/run.js's idle), or --before N (60: its shell part's idle after the commands). */
const callsBeforeIdle = Number(option('--before', 20));
/** The call whose answer the "RSS after 10k calls" is read at. */
const SAMPLE_AT = 10_000;
const variants = argv.flatMap((arg, i) => (argv[i - 1] === '--variant' ? [arg] : [])).map((text) => {
  const [label, rest] = [text.slice(0, text.indexOf('=')), text.slice(text.indexOf('=') + 1)];
  const [bin, ...flags] = rest.split(',');
  return { label, bin: resolve(bin), flags };
});
if (variants.length === 0) variants.push({ label: 'this build', bin: join(root, 'bin/mcp-latch.js'), flags: [] });

const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const commands = join(root, 'node_modules/mcp-server-commands/build/index.js');
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-memory-')));
const config = join(dir, 'mcp-latch.json');
writeFileSync(
  config,
  JSON.stringify(
    shell
      ? { mcpServers: { shell: { command: process.execPath, args: [commands] } }, workspace: [dir], permissions: { allow: ['Bash(echo *)'] } }
      : { mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } }, permissions: { allow: ['mcp__everything__echo'] } },
  ),
);
const tool = shell ? 'shell__run_command' : 'everything__echo';
const argsOf = (i) => (shell ? { command: `echo call ${i}`, workdir: dir } : { message: `ping ${i}` });

/** Resident memory (MiB) by where it lives, from /proc/<pid>/smaps. */
function residentMb(pid) {
  const parts = { total: 0, node: 0, malloc: 0, anonymous: 0, files: 0 };
  let part = 'anonymous';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) {
      const name = line.split(/\s+/)[5] ?? '';
      part = name === process.execPath || name.endsWith('/node') ? 'node' : name === '[heap]' ? 'malloc' : name === '' || name.startsWith('[') ? 'anonymous' : 'files';
    } else if (line.startsWith('Rss:')) {
      const mb = Number(line.split(/\s+/)[1]) / 1024;
      parts[part] += mb;
      parts.total += mb;
    }
  }
  return parts;
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/**
 * Where the gateways write their diagnostic reports: one directory for the run, so that every start
 * has the same command line. The code cache's file is named after Node's flags (src/cli/code-cache.ts):
 * a directory per start made each start one without a cache (~61 MiB idle instead of ~54).
 */
const reports = spaces ? mkdtempSync(join(dir, 'reports-')) : null;
/**
 * The gateways' code cache directory, this run's own: each variant's cache is the one its unmeasured
 * start writes, under the same config, not one a test or another config's start wrote first (an
 * idle gateway holds what its cache holds).
 */
const gatewayEnv = { MCP_LATCH_LOG_LEVEL: 'warn', XDG_CACHE_HOME: join(dir, 'cache') };
const reportFlags = spaces ? ['--report-on-signal', '--report-signal=SIGUSR2', `--report-directory=${reports}`, '--report-compact'] : [];

/** V8's heap spaces of `pid` (MiB used / committed), from a diagnostic report it writes on SIGUSR2 (its name holds the pid). */
async function heapSpaces(pid) {
  const before = new Set(readdirSync(reports));
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 200; i++) {
    await sleep(25);
    const name = readdirSync(reports).find((file) => !before.has(file) && file.includes(`.${pid}.`) && file.endsWith('.json'));
    if (!name) continue;
    let report;
    try {
      report = JSON.parse(readFileSync(join(reports, name), 'utf8'));
    } catch {
      continue; // still being written
    }
    const mb = (bytes) => bytes / 1048576;
    const result = Object.fromEntries(Object.entries(report.javascriptHeap.heapSpaces).filter(([, space]) => space.committedMemory > 0).map(([key, space]) => [key.replace(/_space$/, ''), { used: mb(space.used), committed: mb(space.committedMemory) }]));
    result.external = { used: mb(report.javascriptHeap.externalMemory ?? 0), committed: 0 };
    return result;
  }
  throw new Error(`no diagnostic report from ${pid}`);
}
const spacesText = (s) => Object.entries(s).map(([key, v]) => `${key} ${f(v.used)}/${f(v.committed)}`).join(', ');

async function start(variant) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...reportFlags, ...variant.flags, variant.bin, 'serve', '--config', config],
    cwd: dir,
    stderr: 'ignore',
    env: gatewayEnv,
  });
  const client = new Client({ name: 'mcp-latch-memory', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport, { timeout: 60_000 });
  await client.listTools();
  const pid = transport.pid;
  const startCpuMs = cpuNs(pid) / 1e6;
  if (asRun) for (let i = 0; i < callsBeforeIdle; i++) await client.request({ method: 'tools/call', params: { name: tool, arguments: argsOf(i) } }, CallToolResultSchema);
  await sleep(asRun ? 3000 : 1500);
  const idle = residentMb(pid);
  const idleSpaces = spaces ? await heapSpaces(pid) : null;
  if (idleOnly) {
    await client.close();
    return { startCpuMs, idle, after: idle, sequentialUs: NaN, inFlightUs: NaN, idleSpaces };
  }
  let answered = 0;
  let at10k = null;
  const call = async (i) => {
    const result = await client.request({ method: 'tools/call', params: { name: tool, arguments: argsOf(i) } }, CallToolResultSchema);
    if (++answered === SAMPLE_AT) at10k = residentMb(pid);
    return result;
  };
  const inFlight = async (count) => {
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => { while (next < count) await call(next++); }));
  };
  for (let i = 0; i < 1500; i++) await call(i);
  await inFlight(3000);
  let cpu = cpuNs(pid);
  for (let i = 0; i < calls; i++) await call(i);
  const sequentialUs = (cpuNs(pid) - cpu) / 1000 / calls;
  cpu = cpuNs(pid);
  await inFlight(calls);
  const inFlightUs = (cpuNs(pid) - cpu) / 1000 / calls;
  const after = residentMb(pid);
  const afterSpaces = spaces ? await heapSpaces(pid) : null;
  // Fewer than 10,000 calls in the phases (--calls under 2,750): the rest one at a time.
  for (let i = 0; answered < SAMPLE_AT; i++) await call(i);
  // The burst is over: what the gateway keeps once the client has been quiet for 3 s, and the CPU it spends meanwhile.
  cpu = cpuNs(pid);
  await sleep(3000);
  const quietCpuMs = (cpuNs(pid) - cpu) / 1e6;
  const quiet = residentMb(pid);
  const quietSpaces = spaces ? await heapSpaces(pid) : null;
  await client.close();
  return { startCpuMs, idle, at10k, after, quiet, quietCpuMs, sequentialUs, inFlightUs, idleSpaces, afterSpaces, quietSpaces };
}

/**
 * One start of `variant` that is not measured: it writes the code cache the measured starts then
 * load (src/cli/code-cache.ts; the first start of a build, or of new Node flags, has none, and is
 * ~61 MiB idle instead of ~54), as every start of a client's but its first does.
 */
async function writeCodeCache(variant) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [...reportFlags, ...variant.flags, variant.bin, 'serve', '--config', config], cwd: dir, stderr: 'ignore', env: gatewayEnv });
  const client = new Client({ name: 'mcp-latch-memory', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport, { timeout: 60_000 });
  await client.listTools();
  // The cache is written just after the first list is answered, and again after the first call (with the call path's code).
  await client.request({ method: 'tools/call', params: { name: tool, arguments: argsOf(0) } }, CallToolResultSchema);
  await sleep(1000);
  await client.close();
}

const f = (value, digits = 1) => value.toFixed(digits);
for (const variant of variants) await writeCodeCache(variant);
const results = new Map(variants.map((variant) => [variant.label, []]));
for (let round = 0; round < rounds; round++) {
  for (const variant of variants) {
    const run = await start(variant);
    results.get(variant.label).push(run);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    const idle = `RSS idle ${f(run.idle.total)} MiB (node ${f(run.idle.node)}, malloc ${f(run.idle.malloc)}, anonymous ${f(run.idle.anonymous)}, files ${f(run.idle.files)})`;
    const tail = idleOnly
      ? ''
      : `; after 10,000 calls ${f(run.at10k.total)} (+${f(run.at10k.total - run.idle.total)}; node ${f(run.at10k.node)}, malloc ${f(run.at10k.malloc)}, anonymous ${f(run.at10k.anonymous)}), after ${4500 + 2 * calls} calls ${f(run.after.total)} (anonymous ${f(run.after.anonymous)}), 3 s later ${f(run.quiet.total)} (anonymous ${f(run.quiet.anonymous)}; CPU meanwhile ${f(run.quietCpuMs)} ms); CPU per call ${f(run.sequentialUs)} µs one at a time, ${f(run.inFlightUs)} µs 16 in flight`;
    console.log(`round ${round + 1} ${variant.label}: start CPU ${f(run.startCpuMs, 0)} ms; ${idle}${tail}; load ${load}`);
    if (spaces) console.log(`  V8 heap spaces, MiB used/committed: idle ${spacesText(run.idleSpaces)}` + (idleOnly ? '' : `\n    after ${4500 + 2 * calls} calls ${spacesText(run.afterSpaces)}\n    3 s later ${spacesText(run.quietSpaces)}`));
  }
}
for (const [label, runs] of results) {
  const m = (pick) => median(runs.map(pick));
  const tail = idleOnly
    ? ''
    : `, after 10,000 calls ${f(m((r) => r.at10k.total))} MiB (+${f(m((r) => r.at10k.total - r.idle.total))}), after ${4500 + 2 * calls} ${f(m((r) => r.after.total))} MiB (+${f(m((r) => r.after.total - r.idle.total))}), 3 s later ${f(m((r) => r.quiet.total))} MiB (+${f(m((r) => r.quiet.total - r.idle.total))}); CPU per call ${f(m((r) => r.sequentialUs))} / ${f(m((r) => r.inFlightUs))} µs`;
  console.log(`median ${label}: start CPU ${f(m((r) => r.startCpuMs), 0)} ms; RSS idle ${f(m((r) => r.idle.total))} MiB${tail}`);
}
process.exit(0);
