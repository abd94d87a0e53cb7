#!/usr/bin/env node
// node bench/read-json.js DIST_A DIST_B [--rules N] [--rounds R]
//
// What every gateway on a config pays to read it again at a reload, warm, in one process: readJson
// (the strict reader: duplicate keys, where a fault is) and parseConfigText (that, the schema and
// the rules' check) of a config of N remembered rules (bench/remember-steps.js's mix), each text new
// (one rule more), ms of CPU per call (user + system of the process: what other load moves least); the two builds' dist/ in turns, medians over the rounds, with the
// load (docs/performance.md "Round 19: reloading remembered rules").
import { loadavg } from 'node:os';
import { resolve } from 'node:path';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const n = option('--rules', 5000);
const rounds = option('--rounds', 7);
const dists = args.filter((arg, index) => !arg.startsWith('--') && !['--rules', '--rounds'].includes(args[index - 1]));
const builds = await Promise.all(dists.map(async (dist) => ({ json: await import(resolve(dist, 'config/json.js')), load: await import(resolve(dist, 'config/load.js')), policy: await import(resolve(dist, 'policy/policy.js')) })));
const rules = [];
for (let i = 0; i < n; i++) {
  const project = `/home/dev/projects/p${i % 50}`;
  rules.push([`Bash(npm run task${i}) in ${project}`, `Read(${project}/docs/file${i}.md)`, `Edit(${project}/src/module${i}/**)`, `mcp__server${i % 50}__tool${i}`][i % 4]);
}
const text = `${JSON.stringify({ mcpServers: {}, workspace: ['/tmp/bench'], permissions: { allow: rules } }, null, 2)}\n`;
let made = 0;
const fresh = () => text.replace('"allow": [', `"allow": [\n    "Read(/tmp/new/file${made++}.txt)",`);
const steps = {
  readJson: (build, t) => build.json.readJson(t),
  parseConfigText: (build, t) => build.load.parseConfigText(t, '/tmp/bench/mcp-latch.json', build.policy.ruleIssues),
};
const times = builds.map(() => Object.fromEntries(Object.keys(steps).map((name) => [name, []])));
for (let round = 0; round < rounds; round++) {
  builds.forEach((build, index) => {
    for (const [name, step] of Object.entries(steps)) {
      const texts = Array.from({ length: 45 }, fresh);
      for (const t of texts.slice(0, 5)) step(build, t);
      const start = process.cpuUsage();
      for (const t of texts.slice(5)) step(build, t);
      const used = process.cpuUsage(start);
      times[index][name].push((used.user + used.system) / 1000 / 40);
    }
  });
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
console.log(`load ${loadavg().map((x) => x.toFixed(1)).join(' ')}, ${n} rules, ${rounds} rounds`);
for (const name of Object.keys(steps)) console.log(`${name.padEnd(16)} ${times.map((build, index) => `${dists[index]}: ${median(build[name]).toFixed(2)} ms`).join('   ')}`);
