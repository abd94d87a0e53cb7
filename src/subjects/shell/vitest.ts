import { GIT_REVISION, pathOf, pushPath, type Word } from './options.js';
import { treeWrite } from './runners.js';
import type { FileFacts } from './files.js';

/**
 * vitest 4 as `Bash(vitest run:*)` approved it: the project's tests. Its options are read as its
 * parser (cac over mri) reads them: `--name=V`, `--name V` (any option takes the next word that
 * does not start with `-`), `--no-name`, short letters bundled (`-wc FILE`), kebab-case taken as
 * camelCase (`--output-file` is `--outputFile`), and any dotted sub-option of a known option
 * (`--coverage.customProviderModule=M`) passed into the config. Round 14 review C2, vitest 4.1.12
 * through the built gateway: `--output-file=F` replaced F, `--diff ./d.mjs` imported d.mjs,
 * `--typecheck.checker=./e.sh` ran e.sh, each under `Bash(vitest run:*)`.
 *
 * Every option `vitest --help --expand-help` lists (and `list`'s and `bench`'s own) is classified
 * below; one it does not list may name a module, a program or a file, so it is `interpreter`
 * (docs/threat-model.md#runners-write-and-load-what-their-options-name).
 *
 *   vitest run --reporter=verbose src       → reads src
 *   vitest run --output-file=~/.bashrc      → write ~/.bashrc
 *   vitest run --typecheck.checker=./e.sh   → interpreter
 */

type Kind = 'flag' | 'value' | 'ref' | 'code' | 'read' | 'write' | 'tree';

const REPORTERS = /^(default|agent|minimal|basic|blob|verbose|dot|json|tap|tap-flat|junit|tree|hanging-process|github-actions|html)$/;
/** istanbul-reports' own reporters: any other name is `require`d as a module. */
const COVERAGE_REPORTERS = /^(clover|cobertura|html|html-spa|json|json-summary|lcov|lcovonly|none|teamcity|text|text-lcov|text-summary)$/;

/** Names as `normal` spells them: lower case, no `-`, dotted sub-options kept. */
const OPTIONS: Record<string, Kind> = {
  ...Object.fromEntries([
    'version', 'help', 'watch', 'open', 'hideskippedtests', 'coverage', 'coverage.enabled', 'coverage.clean', 'coverage.cleanonrerun',
    'coverage.reportonfailure', 'coverage.allowexternal', 'coverage.skipfull', 'coverage.thresholds.100', 'coverage.thresholds.perfile',
    'coverage.excludeafterremap', 'isolate', 'globals', 'dom', 'fileparallelism', 'passwithnotests', 'logheapusage', 'detectasyncleaks',
    'allowonly', 'dangerouslyignoreunhandlederrors', 'sequence', 'sequence.shuffle', 'sequence.shuffle.files', 'sequence.shuffle.tests',
    'sequence.concurrent', 'expandsnapshotdiff', 'disableconsoleintercept', 'typecheck', 'typecheck.enabled', 'typecheck.only',
    'typecheck.allowjs', 'typecheck.ignoresourceerrors', 'cache', 'expect', 'expect.requireassertions', 'expect.poll', 'printconsoletrace',
    'includetasklocation', 'run', 'color', 'clearscreen', 'standalone', 'clearcache', 'stricttags', 'experimental',
    'experimental.fsmodulecache', 'experimental.importdurations', 'experimental.importdurations.failondanger',
    'experimental.importdurations.thresholds', 'experimental.vitemodulerunner', 'experimental.nodeloader', 'experimental.preparse',
    'diff.expand', 'diff.includechangecounts', 'diff.omitannotationlines', 'diff.printbasicprototype',
    // `vitest list`
    'filesonly', 'staticparse',
  ].map((name) => [name, 'flag' as const])),
  ...Object.fromEntries([
    'update', 'testnamepattern', 'silent', 'mode', 'vmmemorylimit', 'maxworkers', 'shard', 'sequence.seed', 'sequence.hooks',
    'sequence.setupfiles', 'testtimeout', 'hooktimeout', 'bail', 'retry', 'retry.count', 'retry.delay', 'retry.condition', 'exclude', 'project',
    'slowtestthreshold', 'teardowntimeout', 'maxconcurrency', 'listtags', 'tagsfilter', 'coverage.include', 'coverage.exclude',
    'coverage.thresholds.lines', 'coverage.thresholds.functions', 'coverage.thresholds.branches', 'coverage.thresholds.statements',
    'coverage.ignoreclassmethods', 'coverage.processingconcurrency', 'coverage.watermarks.statements', 'coverage.watermarks.lines',
    'coverage.watermarks.branches', 'coverage.watermarks.functions', 'diff.aannotation', 'diff.aindicator',
    'diff.bannotation', 'diff.bindicator', 'diff.commonindicator', 'diff.contextlines', 'diff.emptyfirstorlastlineplaceholder',
    'diff.maxdepth', 'diff.truncatethreshold', 'diff.truncateannotation', 'typecheck.spawntimeout', 'expect.poll.interval',
    'expect.poll.timeout', 'experimental.importdurations.print', 'experimental.importdurations.limit',
    'experimental.importdurations.thresholds.warn', 'experimental.importdurations.thresholds.danger', 'staticparseconcurrency',
  ].map((name) => [name, 'value' as const])),
  /*
   * A revision vitest hands to git (`git diff --name-only REF...HEAD`, vitest 4's VitestGit): one
   * starting with `-` is an option to git, so `--changed=--output=F` wrote `F...HEAD` (round 26 review S9).
   */
  changed: 'ref', 'coverage.changed': 'ref',
  // A module, a program, a config file, another root, node's own arguments, a server or debugger that takes code.
  ...Object.fromEntries([
    'root', 'config', 'dir', 'ui', 'api', 'api.port', 'api.host', 'api.strictport', 'api.allowexec', 'api.allowwrite', 'reporter', 'browser',
    'pool', 'execargv', 'environment', 'inspect', 'inspectbrk', 'diff', 'typecheck.checker', 'typecheck.tsconfig', 'configloader',
    'coverage.provider', 'coverage.customprovidermodule', 'coverage.reporter', 'coverage.thresholds.autoupdate', 'experimental.vcsprovider',
  ].map((name) => [name, 'code' as const])),
  // Blob reports to merge, `bench`'s results to compare against.
  mergereports: 'read', compare: 'read',
  outputfile: 'write', outputjson: 'write', json: 'write',
  'coverage.reportsdirectory': 'tree', 'coverage.htmldir': 'tree', attachmentsdir: 'tree',
};

/** Values of a `code` option that name something built in. */
const PLAIN: Record<string, RegExp> = {
  reporter: REPORTERS,
  'coverage.reporter': COVERAGE_REPORTERS,
  'coverage.provider': /^(v8|istanbul)$/,
  environment: /^(node|jsdom|happy-dom|edge-runtime)$/,
  pool: /^(forks|threads|vmThreads|vmForks)$/,
  browser: /^false$/,
  'typecheck.checker': /^(tsc|vue-tsc)$/,
  configloader: /^(bundle|runner)$/,
  'experimental.vcsprovider': /^git$/,
  'coverage.thresholds.autoupdate': /^false$/,
};

/** cac's aliases of vitest's letters. */
const LETTERS: Record<string, string> = { r: 'root', c: 'config', u: 'update', w: 'watch', t: 'testnamepattern', v: 'version', h: 'help' };
const COMMANDS: ReadonlySet<string> = new Set(['run', 'related', 'watch', 'dev', 'bench', 'init', 'list', 'complete']);

/** cac's camelCase (`output-file` → `outputFile`) compared without case: lower case, no `-`; `--outputFile.json` is `--outputFile`. */
const normal = (name: string): string => name.split('.').map((part) => part.toLowerCase().replace(/-/g, '')).join('.').replace(/^outputfile\..*/, 'outputfile');

export function vitest(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  const operands: Word[] = [];
  const slice = (word: Word, from: number): Word => ({ ...word, value: word.value.slice(from), raw: word.value.slice(from) });
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      out.reasons.push('interpreter'); // an option known only at run time may be any of these
      continue;
    }
    const v = word.value;
    if (v === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    const dashes = /^-*/.exec(v)![0].length;
    if (dashes === 0) {
      operands.push(word);
      continue;
    }
    // mri: `--no-NAME` sets NAME false, one dash or two.
    if (v.slice(dashes, dashes + 3) === 'no-') {
      if (OPTIONS[normal(v.slice(dashes + 3))] === undefined) out.reasons.push('interpreter');
      continue;
    }
    const eq = v.indexOf('=');
    const given = v.slice(dashes, eq === -1 ? undefined : eq);
    // mri takes the next word as the value when the word has none (`--x=` counts as none) and the next does not start with `-`.
    let value: Word | null = eq !== -1 && eq + 1 < v.length ? slice(word, eq + 1) : null;
    if (value === null && i + 1 < args.length && !(args[i + 1]!.isStatic && args[i + 1]!.value.startsWith('-'))) value = args[++i]!;
    // One dash (or three and more): each character is an option, the last one takes the value.
    const names = dashes === 2 ? [normal(given)] : [...given].map((ch) => LETTERS[ch] ?? `-${ch}`);
    names.forEach((name, n) => option(name, n === names.length - 1 ? value : null, cwd, out, operands));
  }
  const command = operands[0]?.isStatic && COMMANDS.has(operands[0].value) ? operands.shift()!.value : null;
  // `vitest init browser` installs packages and writes a config.
  if (command === 'init') out.reasons.push('interpreter');
  // Filters and `related` files: reads of what they name.
  for (const word of operands) {
    const path = pathOf(word, 'read', cwd);
    if (path) path.tree = { content: true, follows: false };
    pushPath(out.paths, path);
  }
}

function option(name: string, value: Word | null, cwd: string | null, out: FileFacts, operands: Word[]): void {
  const kind = OPTIONS[name];
  if (kind === undefined) return void out.reasons.push('interpreter');
  if (kind === 'flag') {
    // A boolean option hands a value other than true/false back as a filter.
    if (value && !(value.isStatic && /^(true|false)$/.test(value.value))) operands.push(value);
  } else if (kind === 'ref') {
    if (value && !(value.isStatic && GIT_REVISION.test(value.value))) out.reasons.push('interpreter');
  } else if (kind === 'code') {
    const plain = PLAIN[name];
    if (!(plain && value?.isStatic && plain.test(value.value))) out.reasons.push('interpreter');
  } else if (kind === 'write' && value && !(name === 'json' && value.isStatic && /^(true|false)$/.test(value.value))) {
    pushPath(out.paths, pathOf(value, 'write', cwd));
  } else if (kind === 'read' && value) {
    const path = pathOf(value, 'read', cwd);
    if (path) path.tree = { content: true, follows: false };
    pushPath(out.paths, path);
  } else if (kind === 'tree' && value) {
    pushPath(out.paths, treeWrite(value, cwd));
  }
}
