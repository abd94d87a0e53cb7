#!/usr/bin/env node
// node bench/remember.js [--rules N]... [--gateways G] [--writes W] [--rounds R] [--bin PATH]... [--prof DIR]
//
// "Always allow" with many remembered rules in the config (docs/performance.md, "Round 18:
// remembered rules at scale"). A config holding N remembered rules (a mix of the four shapes
// "Always allow" saves: `Bash(…) in DIR`, `Read(…)`, `Edit(…)`, `mcp__server__tool`) is served by
// G gateways (G ≥ 2). Gateway A's client reads W files outside the workspace with
// server-filesystem, each asked and answered "Always allow" (one new rule each); meanwhile every
// other gateway's client calls server-everything's `echo` back to back. Per write:
//   remember  the time from the answer (the client's elicitation reply) to the call's result in A:
//             the rule written to the file, applied in A, the read forwarded;
//   stall     the longest echo call of the other gateways' streams, from the answer until the other
//             gateways have reloaded (their own log line) plus 300 ms; `echo` is the median echo
//             call of the same streams (so stall − echo is what the reloads added).
// `--bin` given twice alternates two builds in each round (A/B); medians over the writes of all rounds.
// `--prof DIR` writes V8 CPU profiles of every gateway to DIR.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { median } from './measure.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const all = (name) => argv.flatMap((arg, index) => (arg === name ? [argv[index + 1]] : []));
const sizes = all('--rules').map(Number);
if (sizes.length === 0) sizes.push(1000, 5000);
const gateways = Math.max(2, Number(option('--gateways', 2)));
const writes = Number(option('--writes', 5));
const rounds = Number(option('--rounds', 1));
const prof = option('--prof', null);
const bins = all('--bin').map((bin) => resolve(bin));
if (bins.length === 0) bins.push(join(root, 'bin/mcp-latch.js'));
const FS = join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const EVERYTHING = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** N remembered rules, as "Always allow" writes them, over 50 projects. */
function rememberedRules(n) {
  const rules = [];
  for (let i = 0; i < n; i++) {
    const project = `/home/dev/projects/p${i % 50}`;
    switch (i % 4) {
      case 0: rules.push(`Bash(npm run task${i}) in ${project}`); break;
      case 1: rules.push(`Read(${project}/docs/file${i}.md)`); break;
      case 2: rules.push(`Edit(${project}/src/module${i}/**)`); break;
      default: rules.push(`mcp__server${i % 50}__tool${i}`);
    }
  }
  return rules;
}

function setUp(n) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-remember-')));
  const files = join(dir, 'files');
  const work = join(dir, 'work');
  mkdirSync(files);
  mkdirSync(work);
  for (let i = 0; i < writes * rounds + 1; i++) writeFileSync(join(files, `f${i}.txt`), `file ${i}\n`);
  const config = join(dir, 'mcp-latch.json');
  const text = JSON.stringify(
    {
      mcpServers: {
        fs: { command: process.execPath, args: [FS, files] },
        everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
      },
      workspace: [work],
      permissions: { allow: ['mcp__everything__echo', ...rememberedRules(n)] },
      approval: { fallback: 'deny' },
      audit: { enabled: false },
    },
    null,
    2,
  );
  writeFileSync(config, `${text}\n`);
  return { dir, files, config };
}

async function gateway(bin, setup, index, onElicit) {
  const profile = prof ? ['--cpu-prof', `--cpu-prof-dir=${resolve(prof)}`] : [];
  const transport = new StdioClientTransport({ command: process.execPath, args: [...profile, bin, 'serve', '--config', setup.config], cwd: setup.dir, stderr: 'pipe', env: { ...process.env, MCP_LATCH_LOG_LEVEL: 'info' } });
  let log = '';
  transport.stderr?.on('data', (chunk) => (log += chunk));
  const client = new Client({ name: `remember-bench-${index}`, version: '1.0.0' }, { capabilities: onElicit ? { elicitation: { form: {} } } : {} });
  if (onElicit) client.setRequestHandler(ElicitRequestSchema, onElicit);
  await client.connect(transport, { timeout: 60_000 });
  await client.listTools();
  return { client, transport, log: () => log };
}

const reloads = (log) => (log.match(/config reloaded/g) ?? []).length;

async function measure(bin, n) {
  const setup = setUp(n);
  let answeredAt = 0;
  const writer = await gateway(bin, setup, 0, (request) => {
    const choices = request.params.requestedSchema.properties.decision.enum;
    const always = choices.find((choice) => choice.startsWith('Always allow: '));
    if (!always) throw new Error(`no "Always allow" among ${choices.join(' | ')}`);
    answeredAt = performance.now();
    return { action: 'accept', content: { decision: always } };
  });
  const others = [];
  for (let i = 1; i < gateways; i++) others.push(await gateway(bin, setup, i));
  // Each other gateway: echo calls back to back, each call's start and end kept.
  let streaming = true;
  const samples = [];
  const streams = others.map(async (other) => {
    for (let i = 0; streaming; i++) {
      const start = performance.now();
      const answer = await other.client.request({ method: 'tools/call', params: { name: 'everything__echo', arguments: { message: `ping ${i}` } } }, CallToolResultSchema);
      samples.push({ start, end: performance.now() });
      if (!JSON.stringify(answer).includes(`ping ${i}`)) throw new Error(`echo ${i} was not answered: ${JSON.stringify(answer).slice(0, 300)}`);
    }
  });
  const read = (i) => writer.client.request({ method: 'tools/call', params: { name: 'fs__read_text_file', arguments: { path: join(setup.files, `f${i}.txt`) } } }, CallToolResultSchema);
  await new Promise((done) => setTimeout(done, 1000));
  const results = [];
  for (let w = 0; w < writes; w++) {
    const before = others.map((other) => reloads(other.log()));
    const result = await read(w);
    const doneAt = performance.now();
    if (!JSON.stringify(result).includes(`file ${w}`)) throw new Error(`read ${w} was not allowed: ${JSON.stringify(result).slice(0, 300)}`);
    const remember = doneAt - answeredAt;
    // Until every other gateway has reloaded, then 300 ms more.
    const deadline = performance.now() + 30_000;
    while (others.some((other, i) => reloads(other.log()) === before[i]) && performance.now() < deadline) await new Promise((done) => setTimeout(done, 20));
    await new Promise((done) => setTimeout(done, 300));
    const windowEnd = performance.now();
    const inWindow = samples.filter((sample) => sample.end >= answeredAt && sample.start <= windowEnd);
    const stall = Math.max(...inWindow.map((sample) => sample.end - sample.start));
    results.push({ remember, stall, echo: median(samples.slice(-200).map((sample) => sample.end - sample.start)) });
    if (process.env.DEBUG_BENCH) console.log(samples.length, samples.slice(-5).map((s) => s.end - s.start));
    await new Promise((done) => setTimeout(done, 300));
  }
  streaming = false;
  await Promise.all(streams);
  for (const each of [writer, ...others]) await each.client.close();
  return results;
}

const load = () => loadavg()[0].toFixed(2);
console.log(`${gateways} gateways, ${writes} "Always allow" per round, ${rounds} round(s); load ${load()}`);
const table = new Map();
for (let round = 0; round < rounds; round++) {
  for (const n of sizes) {
    for (const bin of bins) {
      const results = await measure(bin, n);
      const key = `${n}\t${bin}`;
      table.set(key, [...(table.get(key) ?? []), ...results]);
      console.log(`round ${round + 1} N=${n} ${bin}: remember ${results.map((r) => r.remember.toFixed(0)).join(' ')} ms; stall ${results.map((r) => r.stall.toFixed(0)).join(' ')} ms; load ${load()}`);
    }
  }
}
console.log('\nN\tbuild\tremember (median, max)\tstall (median, max)\techo median');
for (const [key, results] of table) {
  const [n, bin] = key.split('\t');
  const fmt = (values) => `${median(values).toFixed(0)}, ${Math.max(...values).toFixed(0)} ms`;
  console.log(`${n}\t${bin}\t${fmt(results.map((r) => r.remember))}\t${fmt(results.map((r) => r.stall))}\t${median(results.map((r) => r.echo)).toFixed(1)} ms`);
}
console.log(`load ${load()}`);
