#!/usr/bin/env node
// node bench/remember-steps.js [--rules N] [--writes W] [--processes P] [--dist DIR]...
//
// The CPU time (user + system of this process, so what other load on the machine moves least) of
// each step of "Always allow" with N remembered rules, in a fresh process per build and turn, as a
// gateway meets them after its start (docs/performance.md, "Round 18: remembered rules at scale"):
//   write   RulesFile.add of one rule (read, edit, check, atomic write), as the writing gateway does it
//   parse   the reload's parseConfigText (JSON, schema, rules): every gateway on the file
//   policy  the reload's policyFor (built-in rules, the rule index): every gateway on the file
// W writes one after another, the first of each process cold. `--dist` is a build's dist/ (this
// checkout's by default; /work/wt/r17/dist for the round's start); given twice, the builds take
// turns, P processes each, and the medians of each step by write are printed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './measure.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const n = Number(option('--rules', 5000));
const writes = Number(option('--writes', 4));

if (argv[0] === '--child') {
  const dist = pathToFileURL(argv[1]).href;
  const { parseConfigText } = await import(`${dist}/config/load.js`);
  const policy = await import(`${dist}/policy/policy.js`);
  const { RulesFile } = await import(`${dist}/store/rules-file.js`);
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-remember-steps-')));
  const rules = [];
  for (let i = 0; i < n; i++) {
    const project = `/home/dev/projects/p${i % 50}`;
    rules.push([`Bash(npm run task${i}) in ${project}`, `Read(${project}/docs/file${i}.md)`, `Edit(${project}/src/module${i}/**)`, `mcp__server${i % 50}__tool${i}`][i % 4]);
  }
  const path = join(dir, 'mcp-latch.json');
  writeFileSync(path, `${JSON.stringify({ mcpServers: {}, workspace: [dir], permissions: { allow: rules } }, null, 2)}\n`);
  const env = { home: '/home/dev', roots: [dir], platform: process.platform };
  const cpu = () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
  // The start: the config loaded and its policy built, as a gateway's.
  let loaded = parseConfigText(readFileSync(path, 'utf8'), path, policy.ruleIssues);
  policy.policyFor(loaded.file.permissions, path, null, env);
  // What the gateway passes (core.ts); a build without it checks the whole config.
  const known = policy.addedRuleIssues ? { text: () => loaded.text, rules: policy.addedRuleIssues } : undefined;
  const file = new RulesFile(path, policy.configIssues, known);
  const steps = [];
  for (let w = 0; w < writes; w++) {
    const t0 = cpu();
    const written = await file.add('allow', [`Read(/tmp/new/file${w}.txt)`]);
    const t1 = cpu();
    loaded = parseConfigText(written.text, path, policy.ruleIssues);
    const t2 = cpu();
    policy.policyFor(loaded.file.permissions, path, null, env);
    const t3 = cpu();
    steps.push({ write: t1 - t0, parse: t2 - t1, policy: t3 - t2 });
  }
  process.stdout.write(JSON.stringify(steps));
  process.exit(0);
}

const dists = argv.flatMap((arg, index) => (arg === '--dist' ? [resolve(argv[index + 1])] : []));
if (dists.length === 0) dists.push(join(root, 'dist'));
const processes = Number(option('--processes', 5));
const results = new Map(dists.map((dist) => [dist, []]));
console.log(`${n} remembered rules, ${writes} writes per process, ${processes} processes per build; load ${loadavg()[0].toFixed(2)}`);
for (let p = 0; p < processes; p++) {
  for (const dist of dists) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dist, '--rules', String(n), '--writes', String(writes)], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`${dist}: ${child.stderr}`);
    results.get(dist).push(JSON.parse(child.stdout));
  }
}
console.log('build\twrite#\twrite\tparse\tpolicy\t(ms of CPU, medians)');
for (const [dist, runs] of results) {
  for (let w = 0; w < writes; w++) {
    const of = (step) => median(runs.map((run) => run[w][step])).toFixed(1);
    console.log(`${dist}\t${w + 1}\t${of('write')}\t${of('parse')}\t${of('policy')}`);
  }
}
console.log(`load ${loadavg()[0].toFixed(2)}`);
