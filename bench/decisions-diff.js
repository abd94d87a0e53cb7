// Differential check of decisions between two builds, for changes that must not change any:
//   node bench/decisions-diff.js --against DIR [--limit N] [--show N] [--match RE] [--permissive]
// DIR is laid out as for bench/decisions-ab.js (another build's dist/ and package.json, and its own
// node_modules/web-tree-sitter, inside this repository). Every string literal under test/ is sent
// as an mcp-server-commands `run_command` command, with the workdir a git repository `proj`, its
// `src`, and none; each call is inspected by both builds and decided under several rule sets and
// modes (the bench's 1,005 rules; the built-in rules with six user rules of each kind; rules whose
// deny and ask commands name the programs most texts run; path rules only; a bare `Bash` ask),
// once from a fresh analysis and once from one the analysis cache kept (frozen). The directory
// holds files, a `.env`, a link to a directory outside, a link to a denied file and a hooks
// directory. Compared: each decision's verdict, rule and `by`, its subjects (type, access, path,
// real path, via, problem, the segment's words) with theirs, and separately the reasons' text.
// Exits 1 on any difference of a decision (docs/performance.md "Round 18: decision time").
// With `--permissive`, for changes of the rules that must only ask more: decisions may differ, and
// only a verdict more permissive than the other build's (deny < ask < allow) counts and is shown;
// the counts of stricter and of other differences are printed (docs/threat-model.md "Round 26: …").
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
const against = option('--against', null);
const limit = Number(option('--limit', 'Infinity'));
const show = Number(option('--show', '5'));
const permissive = argv.includes('--permissive');
const RANK = { deny: 0, ask: 1, allow: 2 };
if (!against || !['dist/index.js', 'package.json', 'node_modules/web-tree-sitter'].every((part) => existsSync(join(against, part)))) {
  console.error('usage: node bench/decisions-diff.js --against DIR [--limit N] [--show N]; DIR as for bench/decisions-ab.js');
  process.exit(2);
}
setFlagsFromString('--liftoff-only');
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// Every string literal (and template without substitutions) of the tests' sources.
function literals() {
  const out = new Set();
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mjs|js|cjs)$/.test(entry.name)) {
        const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false);
        const visit = (node) => {
          if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && node.text.trim() !== '') out.add(node.text);
          ts.forEachChild(node, visit);
        };
        visit(source);
      }
    }
  };
  walk(join(root, 'test'));
  return [...out].sort();
}

// The directory the commands run in.
const work = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-diff-')));
const proj = join(work, 'proj');
const outside = join(work, 'outside');
mkdirSync(join(proj, 'src', 'lib'), { recursive: true });
mkdirSync(join(outside, 'keys'), { recursive: true });
for (const [file, text] of [['notes.md', 'x'], ['.env', 'SECRET=1'], ['package.json', '{"scripts":{"test":"vitest"}}'], ['src/a.ts', 'a'], ['src/lib/b.ts', 'b'], ['src/.env', 'S=2'], ['data.txt', 'd']]) writeFileSync(join(proj, file), text);
writeFileSync(join(outside, 'keys', 'id_rsa'), 'k');
writeFileSync(join(outside, 'f'), 'f');
symlinkSync(outside, join(proj, 'out'));
symlinkSync(join(outside, 'keys', 'id_rsa'), join(proj, 'key'));
try {
  execFileSync('git', ['init', '-q', proj], { stdio: 'ignore' });
  mkdirSync(join(proj, '.git', 'hooks'), { recursive: true });
} catch {
  // no git here: the texts are decided outside a repository
}

async function load(dir) {
  const api = await import(pathToFileURL(join(dir, 'dist', 'index.js')).href);
  const paths = await import(pathToFileURL(join(dir, 'dist', 'subjects', 'paths.js')).href);
  const policyModule = await import(pathToFileURL(join(dir, 'dist', 'policy', 'policy.js')).href);
  await api.initShellParser();
  const pathEnv = paths.defaultPathEnv();
  const env = { home: pathEnv.home, roots: [proj], platform: pathEnv.platform };
  const identity = api.identifyServer({ command: 'npx', args: ['-y', 'mcp-server-commands'] }, proj);
  const toolClass = api.classifyTool({ identity, tool: { name: 'run_command' } });
  const context = { workspace: [proj], clientRoots: [], pathEnv };
  const set = (texts, builtIns = false) => new api.RuleSet([...(builtIns ? policyModule.builtInRules(join(work, 'mcp-latch.json'), join(work, 'audit.jsonl')) : []), ...texts.map(([text, list]) => api.parseRule(text, list))], env);
  const bench = [];
  for (let i = 0; i < 1000; i++) {
    const list = i % 10 === 0 ? 'deny' : i % 7 === 0 ? 'ask' : 'allow';
    bench.push([[`Bash(tool${i} run task${i} *)`, `Read(${proj}/area${i}/**)`, `Edit(src/module${i}/**/*.ts)`, `mcp__server${i}__tool_*`][i % 4], list]);
  }
  bench.push(['Bash(npm run test *)', 'allow'], ['Bash(git status)', 'allow'], ['Read(**/.env)', 'deny'], ['Bash(rm -rf *)', 'deny'], [`Read(${proj}/**)`, 'allow']);
  const six = [
    ...['Bash(rm -rf *)', 'Bash(curl *)', 'Bash(git push *)', 'Read(**/.env)', `Read(${outside}/keys/**)`, 'mcp__shell__danger'].map((t) => [t, 'deny']),
    ...['Bash(git *)', 'Bash(docker *)', 'Bash(python3 *)', 'Edit(src/**)', 'Read(/etc/**)', 'mcp__shell__run_*'].map((t) => [t, 'ask']),
    ...['Bash(npm run test *)', 'Bash(git status)', 'Bash(ls *)', 'Bash(cat *)', 'Read(./**)', 'Edit(./**)'].map((t) => [t, 'allow']),
  ];
  // Deny and ask rules on the programs most texts run, and on what runners and wrappers run.
  const heads = ['echo', 'cat', 'ls', 'grep', 'sed', 'find', 'npm', 'node', 'sh', 'bash', 'test', 'tail', 'head', 'xargs', 'env', 'sudo', 'tee', 'cp', 'mv', 'touch', 'mkdir', 'chmod', 'tar', 'make', 'npx', 'uv', 'awk', 'printf', 'python', 'mcp-latch'];
  const programs = [...heads.map((h, i) => [`Bash(${h}${i % 3 === 0 ? ' *' : i % 3 === 1 ? ' -r *' : ''})`, i % 2 ? 'deny' : 'ask']), ['Bash(git status)', 'allow'], ['Read(./**)', 'allow']];
  const pathsOnly = [['Read(**/.env)', 'deny'], ['Edit(**/*.ts)', 'ask'], [`Read(${outside}/**)`, 'deny'], ['Read(./**)', 'allow'], ['Edit(./**)', 'allow']];
  const bare = [['Bash', 'ask'], ['Read(**/.env)', 'deny'], ['Bash(ls *)', 'allow']];
  const sets = { bench: set(bench), builtIns: set(six, true), programs: set(programs), pathsOnly: set(pathsOnly), bare: set(bare) };
  const policies = [];
  for (const [name, rules] of Object.entries(sets)) for (const mode of name === 'bench' || name === 'bare' ? ['default'] : ['default', 'bypassPermissions', 'acceptEdits']) policies.push({ name: `${name}/${mode}`, policy: { mode, rules } });
  return { api, toolClass, context, policies };
}

const builds = [await load(resolve(against)), await load(root)];
const workdirs = [proj, join(proj, 'src'), null];
// `--match RE`: only the texts RE finds (a first look at what a change touches; the full run is the check).
const match = option('--match', null);
const texts = literals().filter((text) => match === null || new RegExp(match).test(text)).slice(0, limit);

/** A decision without its reasons, and the reasons apart. */
function shape(decision) {
  const subject = (s) => {
    if (s.type === 'command') return { type: 'command', words: [...s.segment.words], program: s.segment.program };
    if (s.type === 'path') return { type: 'path', access: s.access, input: s.input, path: s.path, realPath: s.realPath, via: s.via, problem: s.problem ?? null, inWorkspace: s.inWorkspace, gitDirectory: s.gitDirectory ?? null };
    return { type: s.type, kind: s.kind, refused: s.refused ? { verdict: s.refused.verdict, rule: s.refused.rule } : null };
  };
  return {
    verdict: decision.verdict,
    decision: JSON.stringify({ verdict: decision.verdict, rule: decision.rule, by: decision.by, subjects: decision.subjects.map((d) => ({ verdict: d.verdict, rule: d.rule, by: d.by, subject: subject(d.subject) })), paths: decision.paths }),
    reasons: JSON.stringify([decision.reason, ...decision.subjects.map((d) => d.reason)]),
  };
}

let decisions = 0;
let decisionDiffs = 0;
let reasonDiffs = 0;
let thrown = 0;
let looser = 0;
let stricter = 0;
const examples = [];
const started = Date.now();
for (const [index, text] of texts.entries()) {
  for (const workdir of workdirs) {
    const args = workdir === null ? { command: text } : { command: text, workdir };
    // The first inspection analyses afresh; the third gets the analysis the cache kept (frozen).
    const facts = builds.map((build) => {
      try {
        const call = () => build.api.inspectCall('shell', 'run_command', args, build.toolClass, build.context);
        const first = call();
        call();
        return [first, call()];
      } catch (error) {
        return [error, error];
      }
    });
    for (const reading of [0, 1]) {
      for (const [p, { name }] of builds[0].policies.entries()) {
        const outcome = builds.map((build, b) => {
          const got = facts[b][reading];
          if (got instanceof Error) return { decision: `threw ${got.message}`, reasons: '' };
          try {
            return shape(build.api.decide(got, build.policies[p].policy));
          } catch (error) {
            return { decision: `threw ${error.message}`, reasons: '' };
          }
        });
        decisions++;
        if (outcome.some((o) => o.decision.startsWith('threw'))) thrown++;
        if (outcome[0].decision !== outcome[1].decision) {
          decisionDiffs++;
          const [before, after] = outcome.map((o) => RANK[o.verdict] ?? -1);
          if (after > before) looser++;
          else if (after < before) stricter++;
          if (examples.length < show && (!permissive || after > before)) examples.push({ text, workdir, policy: name, reading: reading ? 'kept' : 'fresh', before: outcome[0].decision, after: outcome[1].decision });
        } else if (permissive) continue;
        else if (outcome[0].reasons !== outcome[1].reasons) {
          reasonDiffs++;
          if (examples.length < show) examples.push({ text, workdir, policy: name, reading: reading ? 'kept' : 'fresh', reasonsBefore: outcome[0].reasons, reasonsAfter: outcome[1].reasons });
        }
      }
    }
  }
  if (index % 2000 === 1999) console.error(`${index + 1} of ${texts.length} texts, ${decisions} decisions, ${decisionDiffs} differ`);
}
console.log(`${texts.length} texts × ${workdirs.length} workdirs × ${builds[0].policies.length} rule sets and modes × 2 (fresh, kept analysis): ${decisions} decisions in ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log(`  decisions that differ: ${decisionDiffs}; same decision, other reasons: ${reasonDiffs}; calls either build threw on: ${thrown}`);
if (permissive) console.log(`  more permissive than --against: ${looser}; stricter: ${stricter}; other differences (rule, subjects): ${decisionDiffs - looser - stricter}`);
for (const example of examples) console.log(JSON.stringify(example));
process.exit((permissive ? looser : decisionDiffs) > 0 ? 1 : 0);
