// What two host lookups that hang do to the process's other lookups, under libuv's thread pool as
// Node starts it (4 threads, 2 of them for getaddrinfo) and as bin/mcp-latch.js sets it (8, 4 for
// getaddrinfo) — docs/threat-model.md, "Round 25: the lookups' threads". A real hang needs a DNS
// server that never answers: the script runs itself again in a mount namespace of its own (root,
// `unshare -m`) where /etc/resolv.conf names 127.0.0.1, on whose port 53 a UDP socket reads and
// never answers (glibc then waits `timeout` seconds, here 4, per attempt). In each child, two
// lookups of names under .hang start (two servers' URL-mode questions to names whose DNS never
// answers), then `localhost` is looked up (answered from /etc/hosts, as a remote server's or
// Redis's name would be, but through the same pool): its time is what the rest of the process waits.
//   sudo node bench/dns-threads.js            (prints a line per pool size, 5 turns each, medians)
import { execFileSync, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CHILD = `
const dns = require('node:dns');
for (const name of ['one.hang', 'two.hang']) dns.lookup(name, () => undefined);
setTimeout(() => {
  const asked = performance.now();
  dns.lookup('localhost', () => { process.stdout.write(String(Math.round(performance.now() - asked))); process.exit(0); });
}, 100);
`;

if (process.argv[2] !== 'inside') {
  const dir = mkdtempSync(join(tmpdir(), 'dns-threads-'));
  writeFileSync(join(dir, 'resolv.conf'), 'nameserver 127.0.0.1\noptions timeout:4 attempts:1\n');
  execFileSync('unshare', ['-m', 'sh', '-c', `mount --bind ${dir}/resolv.conf /etc/resolv.conf && exec "${process.execPath}" "${process.argv[1]}" inside`], { stdio: 'inherit' });
} else {
  const silent = createSocket('udp4');
  silent.on('message', () => undefined);
  await new Promise((done) => silent.bind(53, '127.0.0.1', done));
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const runs = { 'UV_THREADPOOL_SIZE unset (Node: 4)': [], 'UV_THREADPOOL_SIZE=8 (bin/ since round 25)': [] };
  for (let turn = 0; turn < 5; turn++) {
    for (const [label, times] of Object.entries(runs)) {
      const env = { ...process.env };
      delete env.UV_THREADPOOL_SIZE;
      if (label.includes('=8')) env.UV_THREADPOOL_SIZE = '8';
      // The child's lookups run in its threads while this process's event loop reads the socket.
      const child = await new Promise((resolve) => {
        const out = [];
        const each = spawn(process.execPath, ['-e', CHILD], { env });
        each.stdout.on('data', (chunk) => out.push(chunk));
        each.on('exit', () => resolve(Buffer.concat(out).toString()));
      });
      times.push(Number(child));
    }
  }
  for (const [label, times] of Object.entries(runs)) console.log(`${label}: localhost looked up in ${median(times)} ms (median of ${times.length}; each: ${times.join(', ')})`);
  silent.close();
}
