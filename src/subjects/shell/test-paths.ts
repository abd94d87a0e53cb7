import type { CommandPath } from '../../policy/types.js';
import { interpreterSpec } from '../../programs.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';

/**
 * The test files a runtime's own test runner runs from the paths it is given (round 27, as `bun
 * test PATH` since round 25 review R12 and pytest's test paths): each is a read of the code there,
 * with what is below it, so one outside the workspace asks and deny rules meet it.
 *
 *   node --test [PATH|GLOB…] (node(1) "--test"; node 20.20 ran `node --test ../evil/x.test.js` and
 *     `node --test ../evil`, node 21+ also expands globs itself)
 *   deno test [PATH|GLOB…] (deno's docs, "deno test": files, directories, globs)
 *
 * A glob is read from the directory before its first pattern character; a word known only at run
 * time is a read not known here (it asks).
 */
export function testPaths(name: string, args: readonly Word[], cwd: string | null): CommandPath[] {
  const operands = name === 'node' || name === 'nodejs' ? nodeTestOperands(args) : name === 'deno' ? denoTestOperands(args) : [];
  const paths: CommandPath[] = [];
  for (const word of operands) {
    const path = pathOf(word.isStatic ? staticWord(globBase(word.value)) : word, 'read', cwd);
    if (path) path.tree = { content: true, follows: false };
    pushPath(paths, path);
  }
  return paths;
}

/** The directory a glob is matched below: up to the last `/` before its first pattern character (`.` for none). */
function globBase(value: string): string {
  const first = value.search(/[*?[{]/);
  if (first === -1) return value;
  const slash = value.lastIndexOf('/', first);
  return slash === -1 ? '.' : slash === 0 ? '/' : value.slice(0, slash);
}

/** node's operands when `--test` is among its options: node reads every one as a test file, a directory or a glob. */
function nodeTestOperands(args: readonly Word[]): Word[] {
  const spec = interpreterSpec('node')!;
  let test = false;
  const operands: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    // After `--` every word is a test file, directory or glob still (`node --test -- /tmp/evil/t.js`
    // ran it, node 20.20; round 28 review R28-8).
    if (word.isStatic && v === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (!word.isStatic || !v.startsWith('-') || v === '-') {
      operands.push(word);
      continue;
    }
    if (v === '--test') test = true;
    const long = v.startsWith('--') && !v.includes('=') && spec.valueLong?.includes(v);
    const short = !v.startsWith('--') && v.length === 2 && spec.value?.includes(v[1]!);
    if (long || short || NODE_TEST_VALUES.has(v)) i++;
  }
  return test ? operands : [];
}
/** node 20's test runner options that take the next word (`node --help`; the rest of its value options: programs.ts NODE). */
const NODE_TEST_VALUES: ReadonlySet<string> = new Set(['--test-concurrency', '--test-shard', '--test-timeout', '--test-skip-pattern', '--test-coverage-include', '--test-coverage-exclude', '--test-coverage-branches', '--test-coverage-functions', '--test-coverage-lines', '--test-isolation']);

/** deno's operands after `test` (its options before it and after it skipped, with the values the next word gives), up to `--`. */
function denoTestOperands(args: readonly Word[]): Word[] {
  let i = 0;
  // deno's global options before the subcommand (`deno -q test`, `deno --log-level debug test`).
  while (i < args.length && args[i]!.isStatic && args[i]!.value.startsWith('-')) i += DENO_VALUES.has(args[i]!.value) ? 2 : 1;
  if (!(args[i]?.isStatic && args[i]!.value === 'test')) return [];
  const operands: Word[] = [];
  for (i++; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (word.isStatic && v === '--') break;
    if (!word.isStatic || !v.startsWith('-') || v === '-') operands.push(word);
    else if (DENO_VALUES.has(v)) i++;
  }
  return operands;
}
/**
 * deno test's options that take the next word (`deno test --help`; those with an optional value,
 * `--lock[=F]`, `--env-file[=F]`, `--coverage[=D]`, take it only after `=`). One missing here only
 * makes its value read as a test path too.
 */
export const DENO_VALUES: ReadonlySet<string> = new Set(['-c', '--config', '--import-map', '--filter', '--reporter', '--junit-path', '--location', '--seed', '--cert', '-L', '--log-level', '--ext']);
