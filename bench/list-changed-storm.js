// node bench/list-changed-storm.js [rounds] [stormMs]: a server of 10,000 tools changes them all and
// sends notifications/tools/list_changed every 5 ms for stormMs (default 10,000) ms; the client
// (SDK) lists again at each list_changed it is sent, as clients do. Reports, per build, the
// gateway's CPU (user + system, /proc/<pid>/stat) from the storm's start until the client has listed
// its last change (+0.5 s), how many times the server was listed, how many list_changed the client
// got, and how long after the storm the client had the last change; the two builds
// alternate (round 17's at $A, default /work/wt/r17, and this one), medians at the end
// (docs/performance.md, "Round 18: list_changed storms").
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const here = resolve(import.meta.dirname, '..');
const builds = { r17: resolve(process.env.A ?? '/work/wt/r17'), new: here };
const rounds = Number(process.argv[2] ?? 3);
const stormMs = Number(process.argv[3] ?? 10_000);
const SERVER = join(here, 'test/fixtures/storm-server.mjs');

function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function once(root) {
  const dir = mkdtempSync(join(tmpdir(), 'storm-'));
  const lists = join(dir, 'lists');
  writeFileSync(lists, '');
  const config = join(dir, 'mcp-latch.json');
  // addedTools "ask" for this build (round 19 on: older ones hold only added names, or do not know the
  // setting): the storm changes tools never called on a server with pins (its storm tool is), which
  // "hold" keeps out of the list as changed before any use (docs/pins.md, "A tool added later").
  const policy = root === here ? { policy: { addedTools: 'ask' } } : {};
  writeFileSync(config, JSON.stringify({ mcpServers: { s: { command: process.execPath, args: [SERVER], env: { STORM_LISTS: lists } } }, permissions: { allow: ['mcp__s'] }, approval: { fallback: 'deny' }, timeouts: { firstListSeconds: 60 }, ...policy }));
  const client = new Client({ name: 'storm-bench', version: '1' });
  let notified = 0;
  let relisting = null;
  let again = false;
  // The client re-lists on each notification, one list at a time (a trailing one after), as the SDK's own listChanged handler does.
  const relist = async () => {
    if (relisting) return void (again = true);
    relisting = (async () => {
      do {
        again = false;
        await client.listTools().catch(() => undefined);
      } while (again);
      relisting = null;
    })();
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    notified += 1;
    void relist();
  });
  const transport = new StdioClientTransport({ command: process.execPath, args: [...(process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROF] : []), join(root, 'bin/mcp-latch.js'), 'serve', '--config', config], stderr: 'ignore', cwd: dir });
  await client.connect(transport, { timeout: 60_000 });
  await client.listTools();
  const pid = transport.pid;
  const listedBefore = readFileSync(lists, 'utf8').split('\n').filter(Boolean).length;
  const before = cpuMs(pid);
  const started = Date.now();
  await client.callTool({ name: 's__storm', arguments: { ms: stormMs, every: 5 } });
  // Answered once the storm is over: the generation its last change made.
  const last = (await client.callTool({ name: 's__generation', arguments: {} }, undefined, { timeout: stormMs + 60_000 })).content[0].text.replace('stormed ', '');
  // Until the client has the last change (the gateway read it and told the client, which listed), and the gateway is idle after it.
  for (;;) {
    await relisting;
    const tools = (await client.listTools()).tools;
    if (tools.find((tool) => tool.name === 's__tool_0')?.description === `Tool 0, generation ${last}.`) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  const seenAfterMs = Date.now() - started - stormMs;
  await new Promise((done) => setTimeout(done, 500));
  const used = cpuMs(pid) - before;
  const listed = readFileSync(lists, 'utf8').split('\n').filter(Boolean).length - listedBefore;
  await client.close();
  return { cpu: used, listed, notified, seenAfterMs };
}

const results = { r17: [], new: [] };
for (let round = 0; round < rounds; round++) {
  for (const name of (round % 2 === 0 ? ['r17', 'new'] : ['new', 'r17']).filter((name) => !process.env.ONLY || name === process.env.ONLY)) {
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    const result = await once(builds[name]);
    results[name].push(result);
    console.log(`round ${round + 1} ${name}: gateway CPU ${result.cpu} ms, server listed ${result.listed} times, client sent ${result.notified} list_changed, last change listed by the client ${result.seenAfterMs} ms after the storm (load ${load})`);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const name of ['r17', 'new']) console.log(`${name} median: CPU ${median(results[name].map((r) => r.cpu))} ms, listed ${median(results[name].map((r) => r.listed))}, list_changed ${median(results[name].map((r) => r.notified))}, last change after ${median(results[name].map((r) => r.seenAfterMs))} ms`);
