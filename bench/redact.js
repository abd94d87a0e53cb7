#!/usr/bin/env node
// node bench/redact.js DIST_A DIST_B [--rounds R]
//
// redactSecrets on four argument shapes a call carries with nothing to redact (a written file, a
// shell command, an object with plain keys, a command naming docker and git config), µs per call,
// the two builds' dist/ in turns; medians over the rounds, with the load (docs/performance.md
// "Round 18: redaction of keys and more credential forms").
import { loadavg } from 'node:os';
import { resolve } from 'node:path';

const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf('--rounds') + 1]) || 5;
const dists = args.filter((arg, index) => !arg.startsWith('--') && args[index - 1] !== '--rounds');
const samples = {
  file: { path: '/work/project/src/index.ts', content: 'export const x = 1;\n'.repeat(10) },
  command: { command: 'npm run build && ls -la dist', workdir: '/work/project' },
  keys: { message: 'ping 7', user_id: 42, options: { dry_run: true, max_count: 10, 'content-type': 'json' } },
  'docker, config': { command: 'docker compose up -d db && git config user.name "Ada"' },
};
const builds = await Promise.all(dists.map((dist) => import(resolve(dist, 'redact.js'))));
const times = builds.map(() => Object.fromEntries(Object.keys(samples).map((name) => [name, []])));
for (let round = 0; round < rounds; round++) {
  builds.forEach((build, index) => {
    for (const [name, value] of Object.entries(samples)) {
      for (let i = 0; i < 100_000; i++) build.redactSecrets(value);
      const start = performance.now();
      for (let i = 0; i < 300_000; i++) build.redactSecrets(value);
      times[index][name].push(((performance.now() - start) * 1000) / 300_000);
    }
  });
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
console.log(`load ${loadavg().map((n) => n.toFixed(1)).join(' ')}, ${rounds} rounds`);
for (const name of Object.keys(samples)) console.log(`${name.padEnd(16)} ${times.map((build, index) => `${dists[index]}: ${median(build[name]).toFixed(2)} µs`).join('   ')}`);
