// CPU per decision of git commands in a normal repository, this build against another's dist/,
// alternated in blocks in one process (a shared machine's load moves both alike):
//   node bench/git-found.js --against DIR/dist [--repo DIR]
// Measures what finding the repository git finds from its working directory costs (git-dir.ts
// repositoryProblem, docs/threat-model.md#files-and-settings-git-runs-code-from).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './measure.js';

const argv = process.argv.slice(2);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const against = option('--against');
if (!against) {
  console.error('usage: node bench/git-found.js --against DIR/dist [--repo DIR]');
  process.exit(2);
}
let repo = option('--repo');
if (!repo) {
  repo = realpathSync(mkdtempSync(join(tmpdir(), 'git-found-')));
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'README'), 'hi\n');
  const git = (...args) => execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd: repo });
  git('init', '-q');
  git('add', 'README');
  git('commit', '-qm', 'i');
}
const home = join(repo, 'home');

async function decider(dist) {
  const { decide } = await import(join(dist, 'policy/decide.js'));
  const { RuleSet } = await import(join(dist, 'policy/match.js'));
  const { builtInRules, parseRules } = await import(join(dist, 'policy/policy.js'));
  const { inspectCall } = await import(join(dist, 'subjects/inspect.js'));
  const { classifyTool } = await import(join(dist, 'subjects/kind.js'));
  const { identifyServer } = await import(join(dist, 'subjects/server-identity.js'));
  const { initShellParser } = await import(join(dist, 'subjects/shell/parser.js'));
  await initShellParser();
  const { rules } = parseRules({ defaultMode: 'default', allow: ['Bash(git commit *)'], ask: [], deny: ['Read(**/.env)', 'Bash(rm *)'] });
  const set = new RuleSet([...builtInRules(join(repo, 'mcp-latch.json'), null), ...rules], { home, roots: [repo], platform: process.platform });
  const tool = classifyTool({ identity: identifyServer({ command: 'npx', args: ['-y', 'mcp-server-commands'] }, '/'), tool: { name: 'run_command' } });
  const context = { workspace: [repo], clientRoots: [], pathEnv: { home, platform: process.platform } };
  return (command) => decide(inspectCall('shell', 'run_command', { command, workdir: repo }, tool, context), { mode: 'default', rules: set });
}

const here = resolve(dirname(fileURLToPath(import.meta.url)), '../dist');
const [ours, theirs] = [await decider(here), await decider(resolve(against))];
for (const command of ['git status', 'git log --oneline -5', 'git commit -m x', 'cd src && git diff', 'echo x > src/new.ts']) {
  const a = [];
  const b = [];
  for (let round = 0; round < 15; round++) {
    for (const [decideOne, out] of round % 2 ? [[ours, a], [theirs, b]] : [[theirs, b], [ours, a]]) {
      const start = process.cpuUsage();
      for (let i = 0; i < 400; i++) decideOne(command);
      const used = process.cpuUsage(start);
      out.push((used.user + used.system) / 400);
    }
  }
  console.log(`${command.padEnd(24)} ${median(a).toFixed(1)} us  against ${median(b).toFixed(1)} us  (${(median(a) / median(b)).toFixed(2)}x)`);
}
