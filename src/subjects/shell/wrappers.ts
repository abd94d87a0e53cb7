import type { CommandPath } from '../../policy/types.js';
import { WRAPPERS, type WrapperSpec } from '../../programs.js';
import { dashExecForm, shDialectReason, type Dialect } from './dialect.js';
import type { Nested } from './files.js';
import { baseName, display, hasOption, hasOptionAsSpelled, optionValues, pathOf, pushPath, resolveDirectory, scanOptions, staticWord, type Word } from './options.js';
import { ASSIGNMENT } from './variables.js';
import { wrapperMounts } from './sandbox-mounts.js';

/**
 * The wrappers in front of a command (`sudo -u root timeout 5 rm …` → `sudo -u root`, `timeout 5`;
 * the command is `rm`), each with its own options (programs.ts `WRAPPERS`): the files they read or
 * write, the directory and root they run the command in, the assignments they pass (`env FOO=1`).
 *
 * `xargs` with a command is a wrapper (its command is the segment, with the arguments xargs adds
 * unknown); `watch` is not: it runs its arguments through `sh -c`, so they are a nested script.
 */

export interface Stripped {
  /** Each wrapper's words as written. */
  wrappers: string[];
  /** `NAME=value` words given to a wrapper (`env FOO=1`, `sudo FOO=1`). */
  assignments: Word[];
  /** The command's working directory (null when unknown: `sudo -D "$d"`, `chroot`). */
  cwd: string | null;
  /** Index of the program word in `words` (`words.length` when there is none). */
  program: number;
  /**
   * Set when `xargs` runs the command: the arguments it adds are read from stdin. `replace` is the
   * `-I R` / `-i` / `--replace` string (the words holding it get the input), or null when xargs
   * appends the input to the words; undefined when the string is known only at run time.
   */
  xargs?: { replace: string | null | undefined };
}

/**
 * Strips the wrappers from `words`; their paths, reasons and nested scripts go to `out`. `shell`
 * is the shell that reads them (absent: bash); options are read as bash reads them.
 */
export function stripWrappers(words: readonly Word[], cwd: string | null, out: { paths: CommandPath[]; reasons: string[]; nested: Nested[] }, shell?: Dialect): Stripped {
  const { paths, reasons, nested } = out;
  const wrappers: string[] = [];
  const assignments: Word[] = [];
  let xargs: Stripped['xargs'];
  let i = 0;
  for (;;) {
    const word = words[i];
    if (!word || !word.isStatic || word.ansi) break;
    const name = baseName(word.value);
    const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
    if (!spec) break;
    // Security: a `sh` that may be dash runs `-a` from PATH where bash reads exec's option (dialect.ts).
    const dashExec = name === 'exec' && shell === 'sh' ? dashExecForm(words[i + 1]) : null;
    if (dashExec !== null) reasons.push(shDialectReason(dashExec));
    // A multi-call coreutils (Fedora's coreutils-single; uutils) runs the program an option names:
    // `coreutils --coreutils-prog=rm -rf x` is rm (review-bypass21 note). Not read as rm here: the
    // command is `interpreter`, and deny and ask rules meet it as that program (command-match.ts).
    if (name === 'coreutils' && words[i + 1] !== undefined && (!words[i + 1]!.isStatic || words[i + 1]!.value.startsWith('--coreutils-prog'))) {
      reasons.push('interpreter');
      break;
    }
    const stripped = stripWrapper(name, spec, words, i + 1);
    if (stripped === null) {
      if (spec.bareShell === true || (spec.bareShell && hasWrapperOption(words, i + 1, spec, spec.bareShell))) reasons.push('interpreter');
      break;
    }
    const { end, scan } = stripped;
    wrappers.push(words.slice(i, end).map(display).join(' '));
    if (name === 'xargs') {
      const replace = scan.options.findLast((option) => ['-I', '-i', '--replace'].includes(option.name));
      xargs = { replace: replace === undefined ? null : replace.value === null ? '{}' : replace.value.isStatic ? replace.value.value : undefined };
    }
    for (const value of optionValues(scan, ...(spec.reads ?? []))) pushPath(paths, pathOf(value, 'read', cwd));
    for (const value of optionValues(scan, ...(spec.writes ?? []))) {
      // strace(1) `-o '|CMD'` or `'!CMD'` pipes the trace to CMD (round 29 review R29-6).
      if (name === 'strace' && value.isStatic && /^[|!]/.test(value.value)) {
        reasons.push('interpreter');
        nested.push({ kind: 'script', text: value.value.slice(1), cwd });
      } else pushPath(paths, pathOf(value, 'write', cwd));
    }
    if (name === 'flock') pushPath(paths, pathOf(words[end - 1]!, 'write', cwd));
    // nohup(1): with stdout a terminal it appends to ./nohup.out, else ~/nohup.out (round 12 review,
    // S7); whether stdout is redirected is not looked at here: both are writes.
    if (name === 'nohup') for (const file of ['nohup.out', '~/nohup.out']) pushPath(paths, pathOf(staticWord(file), 'write', cwd));
    if (spec.code && hasOption(scan, ...spec.code)) reasons.push('executor');
    // A new root (`chroot DIR`, `unshare -R DIR`) or firejail's binds: every file below is the command's under other names (F33-1).
    if (spec.newRoot || name === 'firejail') {
      const roots = spec.newRoot === true ? words.slice(scan.end, end) : spec.newRoot ? optionValues(scan, ...spec.newRoot) : [];
      wrapperMounts(name, roots, words.slice(i + 1, end), cwd, paths);
    }
    const dir = optionValues(scan, ...(spec.chdir ?? []))[0];
    if (dir) cwd = dir.isStatic ? resolveDirectory(cwd, dir.value) : null;
    if (spec.newRoot === true || (spec.newRoot && hasOption(scan, ...spec.newRoot)) || (spec.elsewhere && hasOption(scan, ...spec.elsewhere))) cwd = null;
    const split = optionValues(scan, ...(spec.split ?? []))[0];
    if (split) {
      // `env -S 'rm -rf /'`: env splits the string itself; parsed here as a shell string (a superset).
      // env stays the program, so the string is never taken for a plain argument.
      reasons.push('interpreter');
      const rest = words.slice(end);
      if (split.isStatic && rest.every((w) => w.isStatic)) nested.push({ kind: 'script', text: [split.value, ...rest.map((w) => w.value)].join(' '), cwd });
      wrappers.pop();
      return { wrappers, assignments, cwd, program: i, ...(xargs ? { xargs } : {}) };
    }
    i = end;
    if (spec.assignments) {
      while (i < words.length && passesAssignment(words[i]!)) assignments.push(words[i++]!);
    }
  }
  return { wrappers, assignments, cwd, program: i, ...(xargs ? { xargs } : {}) };
}

/** True when the analyser strips `name` as a wrapper. */
export const isWrapper = (name: string): boolean => Object.hasOwn(WRAPPERS, name);

function hasWrapperOption(words: readonly Word[], from: number, spec: WrapperSpec, names: readonly string[]): boolean {
  return hasOption(scanOptions(words, from, { ...spec, stopAtOperand: true }), ...names);
}

/** The end of a wrapper's own words, or null when no command follows (the wrapper is the program). */
function stripWrapper(name: string, spec: WrapperSpec, words: readonly Word[], from: number): { end: number; scan: ReturnType<typeof scanOptions> } | null {
  let start = from;
  // `env -` is `env -i`; `sudo --` ends sudo's options.
  while (name === 'env' && words[start]?.isStatic && words[start]!.value === '-') start++;
  const scan = scanOptions(words, start, { ...spec, stopAtOperand: true });
  if (spec.query && hasOptionAsSpelled(scan, ...spec.query)) return null;
  if (name === 'jobs' && !hasOption(scan, '-x')) return null;
  if (spec.split && hasOption(scan, ...spec.split)) return { end: scan.end, scan };
  const end = scan.end + (spec.positionals ?? 0);
  if (name === 'flock') {
    const lock = words[scan.end];
    const next = words[scan.end + 1];
    // `flock 9` (a descriptor) and `flock FILE -c CMD` (a shell string) are not wrappers.
    if (!lock || (lock.isStatic && /^\d+$/.test(lock.value)) || (next?.isStatic && /^(-c|--command)$/.test(next.value))) return null;
  }
  let command = end;
  if (spec.assignments) while (command < words.length && passesAssignment(words[command]!)) command++;
  if (command >= words.length) return null;
  return { end, scan };
}

/**
 * env(1) and sudo(8) take any word with a `=` after its first character as NAME=VALUE, not only a
 * shell identifier (coreutils env.c, sudo parse_args.c): `env npm_config_script-shell=F npm test`
 * sets what npm reads as `script-shell` (docs/threat-model.md#package-managers-run-what-their-words-name).
 */
const passesAssignment = (word: Word): boolean => (word.isStatic ? /^[^=]+=/s.test(word.value) : ASSIGNMENT.test(word.raw));
