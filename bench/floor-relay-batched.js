#!/usr/bin/env node
// A byte relay that batches as much as it can (docs/performance.md, "Round 29: sixteen in flight"):
// after each read it sleeps RELAY_WAIT_US (30 by default; a futex wait, Atomics.wait, as the
// gateway's readRest does) and reads what else its input holds by then, without blocking, and
// writes it all in one write. Not a floor: a measure of what deeper batching by the process in the
// middle does to the client's and the server's CPU a call (`node bench/chain-counts.js --fds --bin
// bench/floor-relay-batched.js`).
import { spawn } from 'node:child_process';
import { readSync } from 'node:fs';

const waitUs = Number(process.env.RELAY_WAIT_US ?? 30);
const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const rest = Buffer.allocUnsafe(65536);

/** What `fd` holds after the wait, copied; null for nothing (EAGAIN) or the end. */
function more(fd) {
  if (waitUs > 0) Atomics.wait(sleeper, 0, 0, waitUs / 1000);
  try {
    const bytes = readSync(fd, rest, 0, rest.length, null);
    return bytes > 0 ? Buffer.from(rest.subarray(0, bytes)) : null;
  } catch {
    return null;
  }
}

const childOut = child.stdout._handle.fd;
process.stdin.on('data', (chunk) => {
  const extra = more(0);
  child.stdin.write(extra ? Buffer.concat([chunk, extra]) : chunk);
});
child.stdout.on('data', (chunk) => {
  const extra = more(childOut);
  process.stdout.write(extra ? Buffer.concat([chunk, extra]) : chunk);
});
process.stdin.on('end', () => child.kill());
