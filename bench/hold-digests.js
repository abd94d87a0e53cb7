// node bench/hold-digests.js [runs] [relists]: what the added-tool hold costs a server's re-listing
// once the server has pins (docs/pins.md, "A tool added later"; docs/performance.md, "Round 20: pins").
// A fixture server lists N extra tools (1,000 and 10,000) that are never called, and re-lists them
// `relists` times (default 5) with the same definitions (new objects, as a re-listing gives: each
// unpinned entry's digest is made again, to compare with the one known). Reported per build and N:
// the gateway's CPU (user + system, /proc/<pid>/stat) per re-listing with a pin of the server (echo
// called: the hold digests) and without one (the hold returns before any digest); the two builds
// (round 19's at $A, default /work/wt/r19, and this one) and the two cases alternate in turns,
// medians at the end. Then, in this process, the digest alone: toolDefinition + definitionDigest of
// N such tools (median of 7).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = resolve(import.meta.dirname, '..');
const builds = { r19: resolve(process.env.A ?? '/work/wt/r19'), new: here };
const runs = Number(process.argv[2] ?? 3);
const relists = Number(process.argv[3] ?? 5);
const SERVER = join(here, 'test/fixtures/fixture-server.mjs');
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const tool = (i) => ({
  name: `tool_${i}`,
  description: `Tool ${i}: reads the record it is given and returns it with its fields checked.`,
  inputSchema: { type: 'object', properties: { id: { type: 'string', description: 'The record id' }, limit: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['id'] },
});

async function once(root, count, pinned) {
  const dir = mkdtempSync(join(tmpdir(), 'hold-'));
  const definitionFile = join(dir, 'definition.json');
  const extra = Array.from({ length: count }, (_, i) => tool(i));
  writeFileSync(definitionFile, JSON.stringify({ $extra: extra }));
  const config = join(dir, 'mcp-latch.json');
  const env = { FIXTURE_LOG: join(dir, 'calls.log'), FIXTURE_DEFINITION_FILE: definitionFile, FIXTURE_RELIST_ON_CHANGE: '1' };
  writeFileSync(config, JSON.stringify({ mcpServers: { fix: { command: process.execPath, args: [SERVER], env } }, permissions: { allow: ['mcp__fix__echo'] }, approval: { fallback: 'deny' }, timeouts: { firstListSeconds: 60 } }));
  const client = new Client({ name: 'hold-bench', version: '1' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(root, 'bin/mcp-latch.js'), 'serve', '--config', config], stderr: 'ignore', cwd: dir });
  await client.connect(transport, { timeout: 60_000 });
  await client.listTools(undefined, { timeout: 60_000 });
  if (pinned) {
    await client.callTool({ name: 'fix__echo', arguments: { text: 'pin' } });
    for (let i = 0; i < 100 && !readFileSync(join(dir, 'mcp-latch.lock.json'), { encoding: 'utf8', flag: 'a+' }).includes('"echo"'); i++) await sleep(50);
  }
  await sleep(1500);
  const pid = transport.pid;
  const before = cpuMs(pid);
  for (let n = 1; n <= relists; n++) {
    // The same definitions; `_n` lands on echo's object, outside its definition: only new objects.
    writeFileSync(definitionFile, JSON.stringify({ $extra: extra, _n: n }));
    // The gateway reads a server's lists at most once a second while it changes them (docs/config.md, "limits").
    await sleep(1500);
  }
  const used = cpuMs(pid) - before;
  await client.close();
  return used / relists;
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const results = {};
for (let run = 0; run < runs; run++) {
  for (const count of [1000, 10000]) {
    for (const pinned of [true, false]) {
      for (const [name, root] of run % 2 === 0 ? Object.entries(builds) : Object.entries(builds).reverse()) {
        const ms = await once(root, count, pinned);
        const key = `${count} tools, ${pinned ? 'pins   ' : 'no pins'}, ${name}`;
        (results[key] ??= []).push(ms);
        console.log(`run ${run + 1}: ${key}: ${ms.toFixed(1)} ms per re-listing`);
      }
    }
  }
}
console.log('\nmedians (gateway CPU per re-listing):');
for (const [key, values] of Object.entries(results)) console.log(`${key}: ${median(values).toFixed(1)} ms  (${values.map((value) => value.toFixed(0)).join(', ')})`);

const { definitionDigest, toolDefinition } = await import('../dist/pins/definition.js');
for (const count of [1000, 10000]) {
  const times = [];
  for (let i = 0; i < 7; i++) {
    const listing = Array.from({ length: count }, (_, index) => tool(index));
    const start = process.cpuUsage();
    for (const entry of listing) definitionDigest(toolDefinition(entry));
    const spent = process.cpuUsage(start);
    times.push((spent.user + spent.system) / 1000);
  }
  console.log(`digests of ${count} tools in-process: ${median(times).toFixed(1)} ms (median of 7)`);
}
