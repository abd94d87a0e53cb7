#!/usr/bin/env node
// node bench/paired.js --bin A --bin B [--bin "C --node-flag"]... [--rounds N] [--calls N] [--in-flight N]
//   [--batch N] [--turn N] [--everything] [--gc] [--prof DIR]
//
// An A/B of builds that holds on a shared machine. bench/in-flight.js measures one build after the
// other, and on a machine shared with other jobs the CPU per call moves by 2× between two runs of
// the same build. Here every build's gateway runs at the same time, each in front of its own
// server, and they take turns every `--turn` × `--batch` calls (400 by default, a few ms each):
// the load on the machine is the same for all of them, so what differs is theirs.
//
// Each turn sends its calls 16 in flight, one per write, as the SDK client does (`--in-flight N`;
// `--in-flight 0`: `--batch` calls in one write, all answered before the next batch, so each batch
// costs the same system calls at any load). The server is this file with `--server` (an echo tool
// that answers every line of a read in one write, with server-everything's result shape), or
// server-everything itself (`--everything`). A build is `--bin PATH` (a bin/mcp-latch.js; a copy of
// an older commit's build works too), with node flags after a space, or `PATH#no-audit` for that
// build with the audit off. `--gc` adds V8's GC trace and reports per call the scavenges, their
// pause and the bytes promoted to the old generation: counts that move little with the load.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuNs, median } from './measure.js';

const argv = process.argv.slice(2);

if (argv.includes('--server')) {
  const tools = [{ name: 'echo', description: 'Echoes back the input', inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'Message to echo' } }, required: ['message'] } }];
  const answer = (message) => {
    if (message.id === undefined) return null;
    const reply = (result) => ({ result, jsonrpc: '2.0', id: message.id });
    if (message.method === 'initialize') return reply({ protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'paired-echo', version: '1.0.0' } });
    if (message.method === 'tools/list') return reply({ tools });
    if (message.method === 'tools/call') return reply({ content: [{ type: 'text', text: `Echo: ${message.params.arguments.message}` }] });
    if (message.method === 'ping') return reply({});
    return { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } };
  };
  let rest = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    const out = lines.filter(Boolean).map((line) => answer(JSON.parse(line))).filter(Boolean);
    if (out.length > 0) process.stdout.write(out.map((m) => `${JSON.stringify(m)}\n`).join(''));
  });
  process.stdin.on('end', () => process.exit(0));
} else {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
  const calls = Number(option('--calls', 8000));
  const rounds = Number(option('--rounds', 4));
  const inFlight = Number(option('--in-flight', 16));
  const batch = Number(option('--batch', 16));
  const turn = Number(option('--turn', 25));
  const prof = option('--prof', null);
  const gc = argv.includes('--gc');
  const builds = argv.flatMap((arg, index) => {
    if (arg !== '--bin') return [];
    const [path, ...flags] = argv[index + 1].split(' ').filter(Boolean);
    const audit = !path.endsWith('#no-audit');
    return [{ name: argv[index + 1], bin: resolve(audit ? path : path.slice(0, -'#no-audit'.length)), flags, audit }];
  });
  if (builds.length === 0) builds.push({ name: 'bin/mcp-latch.js', bin: join(root, 'bin/mcp-latch.js'), flags: [], audit: true });

  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-paired-')));
  const server = argv.includes('--everything') ? [join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] : [fileURLToPath(import.meta.url), '--server'];
  const configs = Object.fromEntries(
    [true, false].map((audit) => {
      const file = join(dir, audit ? 'mcp-latch.json' : 'no-audit.json');
      writeFileSync(file, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: server } }, permissions: { allow: ['mcp__everything__echo'] }, audit: { enabled: audit } }));
      return [audit, file];
    }),
  );

  const procStat = (pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10, faults: Number(fields[7]) };
  };
  const procIo = (pid) => {
    const text = readFileSync(`/proc/${pid}/io`, 'utf8');
    return Number(/syscr: (\d+)/.exec(text)[1]) + Number(/syscw: (\d+)/.exec(text)[1]);
  };
  const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

  /** One build's gateway and server, ready for calls. */
  async function start(build) {
    const nodeArgs = [...(prof ? ['--cpu-prof', `--cpu-prof-dir=${resolve(prof)}`] : []), ...(gc ? ['--trace-gc-nvp'] : []), ...build.flags];
    const child = spawn(process.execPath, [...nodeArgs, build.bin, 'serve', '--config', configs[build.audit]], { cwd: dir, stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, MCP_LATCH_LOG_LEVEL: 'warn' } });
    let closing = false;
    child.once('exit', (code, signal) => {
      if (closing) return;
      console.error(`${build.name}: the gateway exited (${signal ?? `code ${code}`}) before the measurement ended`);
      process.exit(1);
    });
    const waiting = new Map();
    const gcLines = { measuring: false, scavenges: 0, pause: 0, promoted: 0, allocated: 0 };
    let rest = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop();
      for (const line of lines) {
        if (!line.startsWith('{')) {
          // V8's GC trace goes to stdout, between the messages.
          if (gcLines.measuring && / gc=s /.test(line)) {
            gcLines.scavenges += 1;
            gcLines.pause += Number(/ pause=([\d.]+)/.exec(line)?.[1] ?? 0);
            gcLines.promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
            gcLines.allocated += Number(/ allocated=(\d+)/.exec(line)?.[1] ?? 0);
          }
          continue;
        }
        const message = JSON.parse(line);
        const done = waiting.get(message.id);
        if (done) {
          waiting.delete(message.id);
          done(message);
        }
      }
    });
    let nextId = 1;
    const send = (messages) => {
      const answers = messages.map((message) => (message.id === undefined ? null : new Promise((done) => waiting.set(message.id, done))));
      child.stdin.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
      return Promise.all(answers.filter(Boolean));
    };
    const request = (method, params) => ({ jsonrpc: '2.0', id: nextId++, method, params });
    await send([request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'paired', version: '1.0.0' } })]);
    await send([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
    const [list] = await send([request('tools/list', {})]);
    if (!list.result.tools.some((tool) => tool.name === 'everything__echo')) throw new Error(`${build.name}: no echo tool: ${JSON.stringify(list)}`);
    let n = 0;
    const check = (answer, i) => {
      if (answer.result?.content?.[0]?.text !== `Echo: ping ${i}`) throw new Error(`${build.name}: unexpected answer: ${JSON.stringify(answer)}`);
    };
    const run = async (count) => {
      if (inFlight > 0) {
        let sent = 0;
        const one = async () => {
          const i = n++;
          const [answer] = await send([request('tools/call', { name: 'everything__echo', arguments: { message: `ping ${i}` } })]);
          check(answer, i);
        };
        await Promise.all(Array.from({ length: inFlight }, async () => {
          while (sent++ < count) await one();
        }));
        return;
      }
      for (let done = 0; done < count; done += batch) {
        const first = n;
        const answers = await send(Array.from({ length: batch }, () => request('tools/call', { name: 'everything__echo', arguments: { message: `ping ${n++}` } })));
        check(answers[0], first);
      }
    };
    const sample = () => ({ cpu: cpuNs(child.pid), ...procStat(child.pid), syscalls: procIo(child.pid), rss: rssMiB(child.pid) });
    const close = async () => {
      closing = true;
      child.stdin.end();
      await new Promise((done) => child.once('exit', done));
    };
    return { run, sample, close, gc: gcLines };
  }

  async function round(order) {
    const gateways = [];
    for (const index of order) gateways[index] = await start(builds[index]);
    // The bench's warm-up: every build's code optimised before the measured calls.
    for (const index of order) await gateways[index].run(6000);
    const before = gateways.map((gateway) => gateway.sample());
    for (const gateway of gateways) gateway.gc.measuring = true;
    for (let done = 0; done < calls; done += batch * turn) for (const index of order) await gateways[index].run(batch * turn);
    const after = gateways.map((gateway) => gateway.sample());
    for (const gateway of gateways) await gateway.close();
    return builds.map((_, index) => {
      const [a, b] = [before[index], after[index]];
      const { gc: g } = gateways[index];
      return { cpu: (b.cpu - a.cpu) / 1000 / calls, user: ((b.user - a.user) * 1000) / calls, system: ((b.system - a.system) * 1000) / calls, faults: (b.faults - a.faults) / calls, syscalls: (b.syscalls - a.syscalls) / calls, rss: b.rss, scavenges: (g.scavenges * 1000) / calls, pause: (g.pause * 1000) / calls, promoted: g.promoted / 1024 / calls, allocated: g.allocated / 1024 / calls };
    });
  }

  const describe = (m) =>
    `CPU ${m.cpu.toFixed(1)} µs/call (user ${m.user.toFixed(1)}, system ${m.system.toFixed(1)}), ${m.syscalls.toFixed(2)} reads+writes and ${m.faults.toFixed(3)} page faults per call, RSS ${m.rss.toFixed(1)} MiB` +
    (gc ? `; GC: ${m.allocated.toFixed(2)} KB allocated, ${m.promoted.toFixed(2)} KB promoted and ${m.pause.toFixed(1)} µs of pause per call, ${m.scavenges.toFixed(1)} scavenges per 1,000 calls` : '');
  const results = builds.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const measured = await round(builds.map((_, index) => (r + index) % builds.length));
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    for (const [index, m] of measured.entries()) {
      results[index].push(m);
      console.log(`round ${r + 1}: ${builds[index].name}: ${describe(m)}; load ${load}`);
    }
  }
  for (const [index, build] of builds.entries()) {
    const of = (key) => median(results[index].map((r) => r[key]));
    console.log(`median: ${build.name}: ${describe(Object.fromEntries(Object.keys(results[index][0]).map((key) => [key, of(key)])))}`);
  }
  // Per-round differences to the first build: what the pairing is for.
  for (const [index, build] of builds.entries()) {
    if (index === 0) continue;
    const differences = results[index].map((r, round) => r.cpu - results[0][round].cpu);
    console.log(`${build.name} − ${builds[0].name}: CPU ${differences.map((d) => `${d >= 0 ? '+' : ''}${d.toFixed(1)}`).join(' / ')} µs/call (median ${median(differences).toFixed(1)})`);
  }
  process.exit(0);
}
