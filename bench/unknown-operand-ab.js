// Decision time of an unknown program given a directory (`mytool src`, `mytool .`), two builds in
// one process, blocks alternating, CPU time (process.cpuUsage) per decision:
//   node bench/unknown-operand-ab.js --against DIR [--rounds N]
// DIR is prepared as for bench/decisions-ab.js. The operand is walked for the Edit deny rules below
// it (docs/threat-model.md#deny-rules-for-every-program), bounded by MAX_TREE_ENTRIES per call.
import { resolve, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './measure.js';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.indexOf(name) >= 0 ? argv[argv.indexOf(name) + 1] : fallback);
const against = option('--against', null);
const rounds = Number(option('--rounds', '7'));
if (!against) {
  console.error('usage: node bench/unknown-operand-ab.js --against DIR [--rounds N] (DIR as for bench/decisions-ab.js)');
  process.exit(2);
}
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const load = async (dir) => {
  const api = await import(pathToFileURL(join(dir, 'dist', 'index.js')).href);
  const paths = await import(pathToFileURL(join(dir, 'dist', 'subjects', 'paths.js')).href);
  await api.initShellParser();
  const pathEnv = paths.defaultPathEnv();
  const env = { home: pathEnv.home, roots: [root], platform: pathEnv.platform };
  const rules = new api.RuleSet([['Read(**/.env)', 'deny'], ['Edit(/nonexistent/x)', 'deny']].map(([text, list]) => api.parseRule(text, list)), env);
  const policy = { mode: 'bypassPermissions', rules };
  const context = { workspace: [root], clientRoots: [], pathEnv };
  const identity = api.identifyServer({ command: 'npx', args: ['-y', 'mcp-server-commands'] }, root);
  const shellClass = api.classifyTool({ identity, tool: { name: 'run_command' } });
  let fresh = 0;
  return (command) => api.decide(api.inspectCall('shell', 'run_command', { command: `${command} # ${fresh++}`, workdir: root }, shellClass, context), policy);
};

const builds = [await load(resolve(against)), await load(root)];
for (const command of ['mytool src', 'mytool .']) {
  const times = [[], []];
  for (let round = 0; round < rounds; round++) {
    for (const b of [0, 1]) {
      const start = process.cpuUsage();
      for (let i = 0; i < 200; i++) builds[b](command);
      const used = process.cpuUsage(start);
      times[b].push((used.user + used.system) / 200);
    }
  }
  const [a, b] = times.map((t) => median(t));
  console.log(`${command}: ${against} ${a.toFixed(1)} µs, this build ${b.toFixed(1)} µs (${(b / a).toFixed(2)}x)`);
}
