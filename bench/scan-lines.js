#!/usr/bin/env node
// node bench/scan-lines.js [--dist DIR] [--calls N]
//
// Instructions a line of the two scanners takes in process (docs/performance.md, "Round 20: warm
// path"): call-scan.ts's scanCall on a client's echo call (the TypeScript SDK's envelope, the
// Python SDK's, and the TypeScript one with a progress token) and answer-scan.ts's scanAnswer on
// server-everything's echo answer. Each runs under callgrind in a process of its own: 200,000 warm
// calls, then the main thread's counters zeroed (callgrind_control -z), `--calls` (50,000) counted
// and dumped. Only the main thread is read: the background compiler's threads moved a whole-process
// count by ~3k a call between runs. `--dist`: another build's dist/ (default this one's).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const dist = resolve(option('--dist', join(dirname(fileURLToPath(import.meta.url)), '../dist')));
const calls = Number(option('--calls', 50_000));

/** The lines, 64 of each kind, each a flat string as the line reader makes them (Buffer#toString). */
const KINDS = {
  sdk: (i) => `{"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"ping ${i}"}},"jsonrpc":"2.0","id":${1000 + i}}`,
  python: (i) => `{"jsonrpc":"2.0","id":${1000 + i},"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"ping ${i}"}}}`,
  progress: (i) => `{"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"ping ${i}"},"_meta":{"progressToken":${1000 + i}}},"jsonrpc":"2.0","id":${1000 + i}}`,
  answer: (i) => `{"result":{"content":[{"type":"text","text":"Echo: ping ${i}"}]},"jsonrpc":"2.0","id":${1000000000 + i}}`,
};

if (argv[0] === '--inner') {
  const kind = argv[1];
  const scan = kind === 'answer' ? (await import(pathToFileURL(join(dist, 'downstream/answer-scan.js')).href)).scanAnswer : (await import(pathToFileURL(join(dist, 'gateway/call-scan.js')).href)).scanCall;
  const lines = Array.from({ length: 64 }, (_, i) => Buffer.from(KINDS[kind](i)).toString('utf8'));
  let taken = 0;
  for (let i = 0; i < 200_000; i++) if (scan(lines[i & 63])) taken++;
  await new Promise((done) => setTimeout(done, 2000));
  for (let i = 0; i < 20_000; i++) if (scan(lines[i & 63])) taken++;
  execFileSync('callgrind_control', ['-z', String(process.pid)], { stdio: 'ignore' });
  for (let i = 0; i < calls; i++) if (scan(lines[i & 63])) taken++;
  execFileSync('callgrind_control', ['-d', String(process.pid)], { stdio: 'ignore' });
  // A build whose scanner refuses the kind counts its refusal (the line then takes the full path).
  if (taken !== 220_000 + calls) console.log(`refused ${220_000 + calls - taken} of ${220_000 + calls}`);
} else {
  for (const kind of Object.keys(KINDS)) {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-latch-scan-lines-'));
    const run = spawnSync('valgrind', ['--tool=callgrind', '--separate-threads=yes', `--callgrind-out-file=${dir}/out.%p`, process.execPath, fileURLToPath(import.meta.url), '--inner', kind, '--dist', dist, '--calls', String(calls)], { encoding: 'utf8' });
    const dump = readdirSync(dir).find((name) => /\.1-01$/.test(name));
    if (run.status !== 0 || !dump) throw new Error(`${kind}: ${run.stderr.slice(-2000)}`);
    const total = Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, dump), 'utf8'))?.[1] ?? NaN);
    console.log(`${kind}: ${(total / calls / 1000).toFixed(2)}k instructions a line (main thread)${run.stdout.includes('refused') ? `, ${run.stdout.trim()}` : ''}`);
    rmSync(dir, { recursive: true, force: true });
  }
}
