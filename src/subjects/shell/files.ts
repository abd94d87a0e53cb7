import type { Dialect } from './dialect.js';
import { posix } from 'node:path';
import { jqFilterReads, jqLibraryDirs, jqUnknownLibrary, jqProgramFileModules as unknownModules } from './jq-modules.js';
import { DENY_CANDIDATE, GIT_CONFIG_SETTING, GIT_OBJECTS, GIT_REWRITE, INTO_DIRECTORY, LINK_TARGET, RECURSIVE } from '../../policy/decide.js';
import type { Access, CommandPath, TreeRead } from '../../policy/types.js';
import { baseName, hasOption, hasOptionAsSpelled, optionValues, pathOf, pushPath, resolveDirectory, scanOptions, staticWord, type OptionSpec, type ParsedOption, type ScanResult, type Word } from './options.js';
import { gitSetting, gitSettingWord, localRepository, repositoryRead } from './git-config.js';
import { gitRuns } from './git-runs.js';
import { corepack } from './corepack.js';
import { ghSettings } from './gh-settings.js';
import { cargoInstall, globalInstall } from './global-installs.js';
import { rustup } from './rust-toolchains.js';
import { namesModule } from './openssl.js';
import { bunOptions, cargo, go, rustcRunsCode, managerConfig, npm, pnpmProgramOptions, yarnRunsFile } from './package-managers.js';
import { make } from './make.js';
import { vitest } from './vitest.js';
import { cargoPaths, cobraFlags, docker, movesPackage, pytest, pythonModule, TOOL_HANDLERS } from './runners.js';
import { prefixDirectory, treeRewrite, type TreeRewrite } from './git-worktree.js';
import { GIT_CONFIG_CODE, GIT_DIRECTORY_MADE, GIT_REPOSITORY_FOUND } from '../git-dir.js';
import { branchGuess, changesGitConfig, tracksBySettingOnly } from './git-config-writes.js';
import { objectIdOf } from '../git-objects.js';
import { pointedRevisions, revisionRoot } from './git-targets.js';
import { arrivals, COPIED, LINKED, MOVED, REMOVED } from '../tree.js';
import { grepFilters } from '../tree-filter.js';
import { scanSedScript } from './sed-script.js';
import { lessRunsCode } from './less-options.js';

/**
 * What files a known program reads or writes, from its argv (docs/design.md#paths-step-by-step), plus the code some
 * of them run: `find -exec`, `sed e`, `awk system()`, `rg --pre`. Best effort, and biased to
 * over-report: an option value taken for a path asks, a path taken for an option value could miss
 * a deny rule, so every option that takes a value is listed.
 *
 *   cp -t dst a b        → read a, read b, write dst
 *   sort -o out.txt in   → read in, write out.txt
 *   grep -e x -f pats f  → read pats, read f      (no positional pattern when -e/-f is given)
 *   sed -i 's/a/b/' f    → write f
 */

/** Code a command runs on behalf of its caller: a shell string, or an argv run directly. */
export type Nested =
  | { kind: 'script'; text: string; cwd: string | null; errexit?: boolean; /** The shell that reads it; absent: a `sh` that may be dash (dialect.ts). */ shell?: Dialect }
  | { kind: 'argv'; words: Word[]; cwd: string | null; found?: Found };

/** What `{}` stands for in a command `find -exec` runs: every file found below the starting points. */
export interface Found {
  starts: Word[];
  cwd: string | null;
  follows: boolean;
}

export interface FileFacts {
  paths: CommandPath[];
  nested: Nested[];
  /** Unanalyzable reasons (`interpreter` for `awk 'BEGIN{system(…)}'`, …). */
  reasons: string[];
  /** Word lists deny and ask rules are also tried on, as commands the program may run (Segment.alternatives; make's variables). */
  alternatives?: string[][];
}

type Handler = (args: readonly Word[], cwd: string | null, out: FileFacts) => void;

interface SimpleSpec extends OptionSpec {
  /** Access of the path operands. */
  access: Access;
  /** Leading operands that are not paths (a pattern, a mode), skipped unless an option in `unless` is present. */
  skip?: number;
  unless?: readonly string[];
  /** At most this many operands are paths (`cmp a b SKIP1 SKIP2`). */
  max?: number;
  /** Options whose value is a file read / written / a program run. */
  reads?: readonly string[];
  writes?: readonly string[];
  programs?: readonly string[];
  /** `[input [output]]`: the second operand is written (uniq, xxd). */
  secondWrite?: boolean;
  /** Sources … destination: the last operand is written, the others get `access` (cp, install). */
  lastWrite?: boolean;
  /** `-t DIR` / `--target-directory`: DIR is written and every operand gets `access`. */
  targetDir?: boolean;
  /** Sources … destination, moved: the sources leave their place with what is below them (`tree`), the destination is written (mv). */
  moves?: boolean;
  /** `--parents` puts each source's whole path below the destination (cp). */
  parents?: boolean;
  /** True when the sources are hard-linked, not copied (`cp -l`): the link aliases them, so they are written, as by `ln`. */
  aliases?: (scan: ScanResult) => boolean;
  /** Operands starting with `+` are not paths (`more +10 f`, `less +G f`). */
  plusCommands?: boolean;
  /** How the command walks directory operands it reads (`grep -r`, `du`, `ls -R`); null when it does not. */
  tree?: (scan: ScanResult) => TreeRead | null;
  /** With `tree` and no path operand, it walks the working directory (`grep -r x`, `du`). */
  searchesCwd?: boolean;
}

const READ: Access = 'read';
const WRITE: Access = 'write';
/**
 * `chmod -R`, `chown -R`, `chgrp -R` change every file below their operand: the Edit rules below it
 * count, and git's code-file rules too (`chmod -R u+x .` makes a planted hook runnable;
 * docs/threat-model.md#recursive-reads). `-r` is chmod's mode, not recursion.
 */
function changedTree(scan: ScanResult): TreeRead | null {
  if (!scan.options.some((o) => o.name === '-R' || (o.name.length > 2 && '--recursive'.startsWith(o.name)))) return null;
  return { content: true, follows: hasOption(scan, '-L'), plants: true };
}
const TARGET: Pick<SimpleSpec, 'targetDir'> = { targetDir: true };

const GREP_LONG = ['regexp', 'file', 'max-count', 'after-context', 'before-context', 'context', 'label', 'include', 'exclude', 'exclude-dir', 'exclude-from', 'binary-files', 'devices', 'directories', 'group-separator', 'files0-from'];
const RG_LONG = ['regexp', 'file', 'glob', 'iglob', 'type', 'type-not', 'type-add', 'type-clear', 'max-count', 'max-columns', 'replace', 'context', 'after-context', 'before-context', 'threads', 'encoding', 'max-depth', 'max-filesize', 'path-separator', 'pre', 'pre-glob', 'ignore-file', 'colors', 'context-separator', 'field-context-separator', 'field-match-separator', 'sort', 'sortr', 'dfa-size-limit', 'regex-size-limit', 'engine', 'generate', 'hostname-bin', 'hyperlink-format', 'color'];

const SIMPLE: Record<string, SimpleSpec> = {
  cat: { access: READ },
  head: { access: READ, short: 'nc', long: ['lines', 'bytes'] },
  tail: { access: READ, short: 'ncs', long: ['lines', 'bytes', 'sleep-interval', 'pid', 'max-unchanged-stats'] },
  more: { access: READ, short: 'n', plusCommands: true },
  grep: {
    access: READ,
    short: 'efmABCdD',
    long: GREP_LONG,
    skip: 1,
    unless: ['-e', '--regexp', '-f', '--file'],
    reads: ['-f', '--file', '--exclude-from', '--files0-from'],
    // `-r` follows only the links on its command line (canonicalisation resolves those); `-R` every link.
    tree: (scan) => {
      if (!hasOption(scan, '-r', '-R', '--recursive', '--dereference-recursive') && !optionValues(scan, '-d', '--directories').some((w) => w.value === 'recurse')) return null;
      const filters = grepFilters(scan.options);
      return { content: true, follows: hasOption(scan, '-R', '--dereference-recursive'), ...(filters ? { filters } : {}) };
    },
    searchesCwd: true,
  },
  // rg searches directories recursively, and the cwd when given none (`--files` only lists names).
  rg: {
    access: READ,
    short: 'ABCefgjmMrtTEd',
    long: RG_LONG,
    skip: 1,
    unless: ['-e', '--regexp', '-f', '--file', '--files', '--type-list'],
    reads: ['-f', '--file', '--ignore-file'],
    programs: ['--pre', '--hostname-bin'],
    tree: (scan) => (hasOptionAsSpelled(scan, '--type-list') ? null : { content: !hasOptionAsSpelled(scan, '--files'), follows: hasOption(scan, '-L', '--follow') }),
    searchesCwd: true,
  },
  wc: { access: READ, reads: ['--files0-from'], long: ['files0-from'] },
  sort: { access: READ, short: 'kotST', long: ['key', 'field-separator', 'output', 'buffer-size', 'temporary-directory', 'parallel', 'batch-size', 'compress-program', 'files0-from', 'random-source', 'sort'], writes: ['-o', '--output'], reads: ['--files0-from', '--random-source'], programs: ['--compress-program'] },
  uniq: { access: READ, short: 'fsw', long: ['skip-fields', 'skip-chars', 'check-chars'], secondWrite: true },
  // GNU diff follows links unless told not to. Without -r it still compares the files directly
  // inside two directories (with -N printing each one whole) and `diff DIR FILE` reads
  // DIR/basename(FILE): a directory operand is read with what is below it (round 12 review, S1;
  // docs/threat-model.md#deny-rules-for-every-program). --from-file/--to-file: the diff handler.
  diff: { access: READ, tree: (scan) => ({ content: true, follows: !hasOptionAsSpelled(scan, '--no-dereference'), ...(hasOption(scan, '-r', '--recursive') ? {} : { onlyDirectories: true as const }) }), short: 'CUFIxXLSWD', long: ['label', 'from-file', 'to-file', 'exclude', 'exclude-from', 'ignore-matching-lines', 'show-function-line', 'starting-file', 'width', 'tabsize', 'horizon-lines', 'ifdef', 'line-format', 'old-line-format', 'new-line-format', 'unchanged-line-format', 'old-group-format', 'new-group-format', 'unchanged-group-format', 'changed-group-format'], reads: ['-X', '--exclude-from'] },
  // GNU diffutils: `--diff-program=PROGRAM` is the program diff3 and sdiff run to compare (diff3 3.8 and
  // sdiff ran ./x.sh so given; round 29 review R29-8); `sdiff -o FILE` writes the merge.
  diff3: { access: READ, short: 'L', long: ['label', 'diff-program'], programs: ['--diff-program'] },
  sdiff: { access: READ, short: 'oIw', long: ['output', 'ignore-matching-lines', 'width', 'tabsize', 'diff-program'], writes: ['-o', '--output'], programs: ['--diff-program'] },
  cmp: { access: READ, short: 'in', long: ['ignore-initial', 'bytes'], max: 2 },
  comm: { access: READ, long: ['output-delimiter'] },
  stat: { access: READ, short: 'c', long: ['format', 'printf'] },
  file: { access: READ, short: 'mfFeP', long: ['magic-file', 'files-from', 'separator', 'exclude', 'exclude-quiet', 'parameter'], reads: ['-m', '--magic-file', '-f', '--files-from'] },
  du: { access: READ, tree: (scan) => ({ content: false, follows: hasOption(scan, '-L', '--dereference') }), searchesCwd: true, short: 'dBtX', long: ['max-depth', 'block-size', 'threshold', 'exclude', 'exclude-from', 'files0-from', 'time', 'time-style'], reads: ['-X', '--exclude-from', '--files0-from'] },
  ls: { access: READ, tree: (scan) => (hasOption(scan, '-R', '--recursive') ? { content: false, follows: hasOption(scan, '-L', '--dereference') } : null), searchesCwd: true, short: 'ITw', long: ['hide', 'ignore', 'block-size', 'format', 'sort', 'time', 'time-style', 'tabsize', 'width', 'indicator-style', 'quoting-style'] },
  // tree(1) 2.x: --hintro/--houtro copy FILE into the -H output, --gitfile and --infofile read FILE (round 12 review).
  tree: { access: READ, tree: (scan) => ({ content: false, follows: hasOption(scan, '-l') }), searchesCwd: true, short: 'LPIoHT', long: ['filelimit', 'timefmt', 'charset', 'sort', 'gitfile', 'hintro', 'houtro', 'infofile'], writes: ['-o'], reads: ['--hintro', '--houtro', '--gitfile', '--infofile'] },
  cut: { access: READ, short: 'bcdf', long: ['bytes', 'characters', 'delimiter', 'fields', 'output-delimiter'] },
  nl: { access: READ, short: 'bdfhilnsvw', long: ['body-numbering', 'section-delimiter', 'footer-numbering', 'header-numbering', 'line-increment', 'join-blank-lines', 'number-format', 'number-separator', 'starting-line-number', 'number-width'] },
  tac: { access: READ, short: 's', long: ['separator'] },
  // util-linux column(1): every operand is a file read (the review of round 11 found it on the read-only list with no entry).
  column: { access: READ, short: 'nONlEHRTWricos', long: ['table-name', 'table-order', 'table-columns', 'table-columns-limit', 'table-noextreme', 'table-hide', 'table-right', 'table-truncate', 'table-wrap', 'tree', 'tree-id', 'tree-parent', 'output-width', 'output-separator', 'separator'] },
  rev: { access: READ },
  strings: { access: READ, short: 'ntesT', long: ['bytes', 'radix', 'encoding', 'output-separator', 'target'] },
  xxd: { access: READ, short: 'cglosn', secondWrite: true },
  od: { access: READ, short: 'AjNSt', attached: 'w', long: ['address-radix', 'skip-bytes', 'read-bytes', 'format'] },
  hexdump: { access: READ, short: 'efns', reads: ['-f'] },
  // `date -f FILE` prints each line it cannot parse (the file's content); `-r FILE` its mtime. Operands are dates.
  date: { access: READ, short: 'dfrs', attached: 'I', long: ['date', 'file', 'reference', 'set', 'rfc-3339', 'resolution'], reads: ['-f', '--file', '-r', '--reference'], max: 0 },
  base64: { access: READ, short: 'wio', long: ['wrap', 'input', 'output'], reads: ['-i', '--input'], writes: ['-o', '--output'] },
  source: { access: READ, max: 1 },
  '.': { access: READ, max: 1 },
  // `rm -r DIR` removes every file below DIR: rules below it count, as for a recursive read.
  rm: { access: WRITE, tree: (scan) => (scan.options.some((o) => o.name === '-r' || o.name === '-R' || (o.name.length > 2 && '--recursive'.startsWith(o.name))) ? { content: true, follows: false } : null) },
  rmdir: { access: WRITE },
  // `link FILE1 FILE2` makes FILE2 a hard link to FILE1: a write of FILE2 writes FILE1.
  link: { access: WRITE, max: 2 },
  unlink: { access: WRITE },
  touch: { access: WRITE, short: 'dtr', long: ['date', 'reference', 'time'], reads: ['-r', '--reference'] },
  mkdir: { access: WRITE, short: 'm', long: ['mode', 'context'] },
  tee: { access: WRITE },
  truncate: { access: WRITE, short: 'sr', long: ['size', 'reference'], reads: ['-r', '--reference'] },
  // `chown -R`/`chgrp -R` change every file below (-L: through the links met there too).
  chown: { access: WRITE, skip: 1, unless: ['--reference'], long: ['reference', 'from'], reads: ['--reference'], tree: changedTree },
  chgrp: { access: WRITE, skip: 1, unless: ['--reference'], long: ['reference'], reads: ['--reference'], tree: changedTree },
  // setfacl(1) (acl 2.3.1): `-R` changes the ACLs below each operand (`-L`: through the links met
  // there); `-M`/`-X`/`--set-file` read their file; `--restore FILE` sets the ACLs of the files
  // FILE names, known only at run time (round 11 review, as `chmod -R` was).
  setfacl: { access: WRITE, short: 'mMxX', long: ['modify', 'modify-file', 'remove', 'remove-file', 'set', 'set-file', 'restore'], reads: ['-M', '--modify-file', '-X', '--remove-file', '--set-file', '--restore'], tree: changedTree },
  // hostname(1) (net-tools): `-F FILE` sets the name from FILE's first line, which `hostname` then
  // prints (round 11 review, S1); its operand is a name, not a file.
  hostname: { access: READ, short: 'F', long: ['file'], reads: ['-F', '--file'], max: 0 },
  shred: { access: WRITE, short: 'ns', long: ['iterations', 'size', 'random-source'], reads: ['--random-source'] },
  // `cp -r` copies links as links unless `-L`; the copy is then read through the link by whoever reads it.
  cp: { access: READ, tree: (scan) => (hasOption(scan, '-r', '-R', '-a', '--recursive', '--archive') ? { content: true, follows: hasOption(scan, '-L', '--dereference') } : null), aliases: (scan) => hasOption(scan, '-l', '--link'), parents: true, short: 'St', long: ['suffix', 'target-directory'], lastWrite: true, ...TARGET },
  // `mv data elsewhere` takes away everything below data: rules below it count, as for `rm -r`.
  mv: { access: WRITE, short: 'St', long: ['suffix', 'target-directory'], tree: () => MOVED, moves: true, ...TARGET },
  install: { access: READ, short: 'mogSt', long: ['mode', 'owner', 'group', 'suffix', 'target-directory', 'strip-program'], lastWrite: true, programs: ['--strip-program'], ...TARGET },
};
for (const sum of ['md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum', 'sum', 'shasum']) SIMPLE[sum] = { access: READ, short: 'a' };
for (const name of ['domainname', 'nisdomainname', 'ypdomainname', 'dnsdomainname']) SIMPLE[name] = SIMPLE.hostname!;
SIMPLE.egrep = SIMPLE.grep!;
SIMPLE.fgrep = SIMPLE.grep!;
SIMPLE.gdu = SIMPLE.du!;

function simple(spec: SimpleSpec): Handler {
  return (args, cwd, out) => {
    const scan = scanOptions(args, 0, spec);
    addOptionPaths(scan, spec, cwd, out);
    let operands = scan.operands;
    if (spec.plusCommands) operands = operands.filter((i) => !(args[i]!.isStatic && args[i]!.value.startsWith('+')));
    if (spec.skip && !(spec.unless && hasOption(scan, ...spec.unless))) operands = operands.slice(spec.skip);
    if (spec.max !== undefined) operands = operands.slice(0, spec.max);
    const aliases = spec.aliases?.(scan) === true;
    const sources = aliases ? WRITE : spec.access;
    // `cp -rl src dest` gives every file below src a second name below dest (a hard link), where it
    // is read and written: the rules on reading count below src too, as for where a link leads
    // (round 31 review F31-3: `cp -rl conf pub/c` under `Read(./conf/secret/**)` was allowed, and
    // `cat pub/c/secret/db.txt` read the file).
    const listed = spec.tree?.(scan) ?? null;
    const tree: TreeRead | null = listed !== null && aliases ? { ...listed, moved: true, linked: true } : listed;
    // The tree is the operands' own access: `cp -r` reads its sources as trees, `rm -r` writes them.
    const operand = (word: Word, access: Access): void => push(out, access === sources && tree ? walked(pathOf(word, access, cwd), tree) : pathOf(word, access, cwd));
    if (tree && spec.searchesCwd && operands.length === 0) operand(staticWord('.'), READ);
    const target = spec.targetDir ? optionValues(scan, '-t', '--target-directory')[0] : undefined;
    // cp, mv, install into a directory write DIR/NAME (cp -r: with what is below it); with -T the
    // destination is the name itself (cp -rT src data: what src holds goes into data).
    // mv too: what a source holds arrives below the destination (`mv evil .vscode` made
    // .vscode/mcp.json; round 14 review T2).
    const copied = tree !== null && (spec.access === READ || spec.moves === true);
    const noTarget = hasOption(scan, '-T', '--no-target-directory');
    // `cp --parents a/b d` writes d/a/b (cp(1)).
    const placed = spec.parents && scan.options.some((o) => o.name.length > 3 && '--parents'.startsWith(o.name)) ? WHOLE_PATH : LAST_NAME;
    if (target) {
      push(out, pathOf(target, WRITE, cwd));
      for (const i of operands) operand(args[i]!, sources);
      backups(scan, intoDirectory(operands.map((i) => args[i]!), target, copied ? tree : null, cwd, out, placed, staticSource), cwd, out);
      return;
    }
    const directories = spec.lastWrite && hasOption(scan, '-d', '--directory'); // install -d DIR…
    const words = operands.map((i) => args[i]!);
    const replaced = (spec.lastWrite || spec.moves) && !directories && operands.length > 1 ? [words.at(-1)!, ...intoDirectory(words.slice(0, -1), words.at(-1)!, copied ? tree : null, cwd, out, noTarget ? () => '' : placed, staticSource)] : [];
    operands.forEach((index, n) => {
      const last = n === operands.length - 1 && n > 0;
      const access = directories || (spec.lastWrite && last) || (spec.secondWrite && n === 1) ? WRITE : sources;
      // `cp -r src new` (`mv src new`) with no `new` yet makes new a copy of src: what src holds is made below it.
      if (copied && (spec.lastWrite || spec.moves) && tree && last && !noTarget && operands.length === 2 && !directories) push(out, walked(pathOf(args[index]!, WRITE, cwd), copiedTree(tree, staticSource, [words[0]!], true)));
      else if (spec.moves && last) push(out, pathOf(args[index]!, WRITE, cwd));
      else operand(args[index]!, access);
    });
    backups(scan, replaced, cwd, out);
  };
}

/**
 * cp(1), mv(1), install(1), ln(1): `-b`, `--backup[=CONTROL]` (any prefix) or `-S SUFFIX` renames
 * each file the command replaces to FILE~, or FILE and SUFFIX (`cp -S .csv a data/table` turns an
 * old data/table into data/table.csv); with CONTROL `numbered`/`t` to FILE.~N~, N known only at run
 * time. `replaced`: the names the command writes. A recursive copy's backups are below what it
 * writes, already walked.
 */
function backups(scan: ScanResult, replaced: readonly Word[], cwd: string | null, out: FileFacts): void {
  const given = (long: string): ParsedOption[] => scan.options.filter((o) => o.name.length > 2 && long.startsWith(o.name));
  const controls = given('--backup');
  const suffixes = [...given('--suffix'), ...scan.options.filter((o) => o.name === '-S')];
  if (controls.length + suffixes.length === 0 && !hasOption(scan, '-b')) return;
  const control = controls.at(-1)?.value;
  const numbered = control !== undefined && control !== null && (!control.isStatic || ['numbered', 't'].includes(control.value));
  const suffix = suffixes.at(-1)?.value ?? (suffixes.length > 0 ? null : staticWord('~'));
  backupsNamed(replaced, numbered ? null : suffix, cwd, out);
}

/** FILE and SUFFIX for each file replaced; a name known only at run time when either is (null: unknown suffix). */
function backupsNamed(replaced: readonly Word[], suffix: Word | null, cwd: string | null, out: FileFacts): void {
  for (const word of replaced) {
    // Not an operand, as DEST/NAME is not: the destination stays the last operand written.
    if (suffix?.isStatic && word.isStatic) push(out, pathOf(staticWord(word.value + suffix.value), WRITE, cwd, INTO_DIRECTORY));
    else push(out, pathOf({ ...word, isStatic: false, raw: `${word.raw}<backup suffix>` }, WRITE, cwd, INTO_DIRECTORY));
  }
}

/** A path the command walks as a tree (reads or removes what is below it): RECURSIVE, so rules below it count. */
function walked(path: CommandPath | null, tree: TreeRead): CommandPath | null {
  if (path === null) return null;
  path.tree = tree;
  if (tree.content) path.via = RECURSIVE;
  return path;
}

/** Where a copy puts a (static) source inside the destination: the path below it, '' for the destination itself. */
type Placement = (source: string) => string;
/** NAME, the source's last component (`cp -r src/. data`: what src holds goes into data itself). */
const LAST_NAME: Placement = (source) => {
  const name = source.replace(/\/+$/, '').split('/').at(-1) ?? '';
  return name === '.' || name === '..' ? '' : name;
};
/** `cp --parents`: the source's whole path, without a leading `/`. */
const WHOLE_PATH: Placement = (source) => source.replace(/^\/+/, '').replace(/\/+$/, '');

/**
 * What a copy, move or link into a directory writes: DEST/NAME for each source, NAME its last
 * component (`cp secret data` writes data/secret when data is a directory, known only on disk, so it
 * is added either way), or what `placed` says (`cp --parents`, `rsync -R`: the source's path; rsync's
 * `src/`: its content in DEST itself). `tree`: the copy is recursive, so what is below the written
 * name counts too (docs/threat-model.md#recursive-reads). Returns the names written.
 */

/** What a source copied below a destination holds, as the path its content is read from (null: not known here). */
type CopiedFrom = (source: Word) => string | null;
const staticSource: CopiedFrom = (source) => (source.isStatic ? source.value : null);

/** A recursive copy's destination tree: COPIED, with the sources whose content it receives when they are known (`from`). */
function copiedTree(tree: TreeRead, from: CopiedFrom | undefined, sources: readonly Word[], absentOnly = false): TreeRead {
  if (from === undefined) return COPIED;
  return arrivals(sources.map(from), tree.follows, absentOnly, tree.moved === true);
}


function intoDirectory(sources: readonly Word[], dest: Word, tree: TreeRead | null, cwd: string | null, out: FileFacts, placed: Placement = LAST_NAME, from?: CopiedFrom): Word[] {
  if (!dest.isStatic) return []; // DEST itself is already a write known only at run time
  const names: Word[] = [];
  for (const source of sources) {
    const below = source.isStatic ? placed(source.value) : null;
    if (below === '' && !tree) continue; // DEST itself, already written
    const target = below === null ? { ...dest, value: `${dest.value}/${source.raw}`, raw: `${dest.raw}/${source.raw}`, isStatic: false } : staticWord(below === '' ? dest.value : `${dest.value.replace(/\/+$/, '')}/${below}`);
    push(out, tree ? walked(pathOf(target, WRITE, cwd), copiedTree(tree, from, [source])) : pathOf(target, WRITE, cwd, INTO_DIRECTORY));
    names.push(target);
  }
  return names;
}

function addOptionPaths(scan: ScanResult, spec: Pick<SimpleSpec, 'reads' | 'writes' | 'programs'>, cwd: string | null, out: FileFacts): void {
  for (const option of scan.options) {
    if (!option.value) continue;
    if (option.unlisted) unlistedValue(option.value, cwd, out);
    if (spec.reads?.includes(option.name)) push(out, pathOf(option.value, READ, cwd));
    else if (spec.writes?.includes(option.name)) push(out, pathOf(option.value, WRITE, cwd));
    else if (spec.programs?.includes(option.name)) runProgram(option.value, cwd, out);
  }
}

/**
 * The value of an option a model does not list, given `--name=VALUE`: it may be a file the program
 * reads (tar's `--add-file=.env` was one), so it meets the deny rules (docs/threat-model.md#deny-rules-for-every-program).
 */
function unlistedValue(value: Word, cwd: string | null, out: FileFacts): void {
  const path = pathOf(value, READ, cwd);
  if (path) push(out, { ...path, via: DENY_CANDIDATE });
}

/** An option naming a program to run (`rg --pre CMD`, `tar -I 'zstd -T0'`): its words (`split`) become a nested command. */
function runProgram(value: Word, cwd: string | null, out: FileFacts, split: (text: string) => string[] = (text) => text.split(/\s+/)): void {
  if (!value.isStatic) {
    out.reasons.push('executor');
    return;
  }
  const words = split(value.value).filter(Boolean).map(staticWord);
  if (words.length > 0) out.nested.push({ kind: 'argv', words, cwd });
}

/**
 * How rsync splits `-e`/`--rsh` into words (rsync 3.5 main.c `do_cmd`): at spaces only, `'…'` and
 * `"…"` quote (a doubled quote inside is one), no backslash escapes. `rsync -e '"sh" -c "rm -f x"'`
 * runs sh -c 'rm -f x' (bash 5.2, rsync 3.5; docs/threat-model.md#deny-rules-for-every-program).
 */
function rsyncShellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote === '' && ch === ' ') {
      if (word !== null) words.push(word);
      word = null;
      continue;
    }
    word ??= '';
    if (quote === '' && (ch === "'" || ch === '"')) quote = ch;
    else if (ch === quote && text[i + 1] === quote) word += text[++i];
    else if (ch === quote) quote = '';
    else word += ch;
  }
  if (word !== null) words.push(word);
  return words;
}

function push(out: FileFacts, path: CommandPath | null): void {
  pushPath(out.paths, path);
}

// ---------------------------------------------------------------------------------------------
// Programs with their own argument grammar
// ---------------------------------------------------------------------------------------------

const FIND_VALUE = new Set(['-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-type', '-xtype', '-user', '-group', '-uid', '-gid', '-perm', '-size', '-mtime', '-atime', '-ctime', '-mmin', '-amin', '-cmin', '-newer', '-anewer', '-cnewer', '-samefile', '-links', '-inum', '-maxdepth', '-mindepth', '-fstype', '-printf', '-used', '-context', '-regextype', '-lname', '-ilname']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const FIND_WRITE = new Set(['-fprint', '-fprint0', '-fls', '-fprintf']);

/**
 * `find [-H|-L|-P] [-D x] [-Olevel] START… EXPRESSION`: starting points are walked (written with
 * -delete); with `-exec` and friends the command reads the files found, so the walk is a content read.
 */
const find: Handler = (args, cwd, out) => {
  let i = 0;
  let follows = false;
  for (; i < args.length && args[i]!.isStatic && /^-([HLP]|O\d*|D)$/.test(args[i]!.value); i += args[i]!.value === '-D' ? 2 : 1) {
    if (/^-[HLP]$/.test(args[i]!.value)) follows = args[i]!.value === '-L'; // the last one wins
  }
  let runs = false;
  const starts: Word[] = [];
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (word.isStatic && (word.value.startsWith('-') || ['(', ')', '!', ','].includes(word.value))) break;
    starts.push(word);
  }
  let deletes = false;
  const execs: Array<Nested & { kind: 'argv' }> = [];
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) continue;
    const v = word.value;
    if (FIND_EXEC.has(v)) {
      const inner: Word[] = [];
      for (i++; i < args.length; i++) {
        const w = args[i]!;
        if (w.isStatic && (w.value === ';' || (w.value === '+' && inner.at(-1)?.value === '{}'))) break;
        inner.push(w);
      }
      runs = true;
      // -execdir runs in each match's directory: unknown here.
      if (inner.length > 0) execs.push({ kind: 'argv', words: inner, cwd: v === '-exec' || v === '-ok' ? cwd : null });
    } else if (FIND_WRITE.has(v)) {
      const target = args[i + 1];
      if (target) push(out, pathOf(target, WRITE, cwd));
      i += v === '-fprintf' ? 2 : 1;
    } else if (v === '-files0-from') {
      const source = args[i + 1];
      if (source) push(out, pathOf(source, READ, cwd));
      i++;
    } else if (v === '-delete') {
      deletes = true;
    } else if (FIND_VALUE.has(v) || /^-newer[aBcmt][aBcmt]$/.test(v)) {
      i++;
    }
  }
  if (starts.length === 0) starts.push(staticWord('.'));
  // `-delete` removes what it matches below each start: rules below it count.
  for (const start of starts) push(out, deletes ? walked(pathOf(start, WRITE, cwd), { content: true, follows }) : walked(pathOf(start, READ, cwd), { content: runs, follows }));
  for (const exec of execs) out.nested.push({ ...exec, found: { starts, cwd, follows } });
};

/**
 * The paths of a command `find -exec` runs, with `{}` (alone or inside a word: GNU find replaces it
 * wherever it occurs) standing for what find found: a write of `{}` (`-exec rm -rf {} +`, `-exec
 * sed -i … {} +`) writes every file below the starting points, so rules below them count as for
 * `rm -r` (docs/threat-model.md#recursive-reads); a read of `{}` is find's own content read of them.
 */
export function foundPaths(paths: readonly CommandPath[], found: Found): CommandPath[] {
  return paths.flatMap((path) => {
    if (!path.isStatic || !path.path.includes('{}')) return [path];
    if (path.access === READ) return [];
    return found.starts.flatMap((start) => walked(pathOf(start, WRITE, found.cwd), { ...REMOVED, follows: found.follows }) ?? []);
  });
}

/** `sed [-n] [-i[SUF]] [-e SCRIPT]… [-f FILE]… [SCRIPT] FILE…`; `-i` turns reads into writes. */
const sed: Handler = (args, cwd, out) => {
  const words = [...args];
  // BSD/macOS `sed -i '' …`: the empty word is the backup suffix, not the script.
  const bsd = words.findIndex((w, i) => w.isStatic && w.value === '-i' && words[i + 1]?.isStatic && words[i + 1]!.value === '');
  if (bsd !== -1) words.splice(bsd + 1, 1);
  const scan = scanOptions(words, 0, { short: 'efl', attached: 'i', long: ['expression', 'file', 'line-length'] });
  const inPlace = hasOption(scan, '-i', '--in-place', '-I');
  const scripts = optionValues(scan, '-e', '--expression');
  const scriptFiles = optionValues(scan, '-f', '--file');
  for (const file of scriptFiles) push(out, pathOf(file, READ, cwd));
  // A script file can hold `e` and `w` commands the scanner never sees.
  if (scriptFiles.length > 0 && !hasOptionAsSpelled(scan, '--sandbox')) out.reasons.push('interpreter');
  let operands = scan.operands;
  if (scripts.length === 0 && scriptFiles.length === 0 && operands.length > 0) {
    scripts.push(words[operands[0]!]!);
    operands = operands.slice(1);
  }
  const sandboxed = hasOptionAsSpelled(scan, '--sandbox');
  for (const script of scripts) {
    if (!script.isStatic) {
      out.reasons.push('interpreter');
      continue;
    }
    const facts = scanSedScript(script.value);
    if (facts.exec && !sandboxed) out.reasons.push('interpreter');
    for (const file of facts.writes) push(out, pathOf(staticWord(file), WRITE, cwd));
    for (const file of facts.reads) push(out, pathOf(staticWord(file), READ, cwd));
  }
  for (const i of operands) push(out, pathOf(words[i]!, inPlace ? WRITE : READ, cwd));
};

const AWK_EXEC = /\bsystem\s*\(|(^|[^|])\|(?!\|)|\bprintf?\b.*>|\bgetline\b/;

/**
 * An awk program with its string literals emptied: a `;`, `{` or `}` in a string hid `print ";" >
 * "F"` from a scan that stops at them (round 11 review). A `>` anywhere after a print on its line
 * counts: a regex literal may hold those characters too, and a comparison there only asks.
 */
const awkCode = (program: string): string => program.replace(/"(?:[^"\\\n]|\\.)*"/g, '""');

/** `awk [-F fs] [-v a=b] [-f prog | 'program'] [var=value | file]…`; a program that can run commands is an interpreter. */
const awk: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, { short: 'fvFiIlEeW', attached: 'opdM', long: ['file', 'assign', 'field-separator', 'include', 'load', 'exec', 'source'] });
  // mawk (Debian's awk): `-W exec FILE` (`-We FILE`, `-Wexec`) runs FILE's program; its other `-W`
  // words are not worth telling apart.
  if (hasOption(scan, '-W')) out.reasons.push('interpreter');
  const programFiles = optionValues(scan, '-f', '--file', '-E', '--exec');
  for (const file of programFiles) push(out, pathOf(file, READ, cwd));
  // A program file can call system() or pipe to a command.
  if (programFiles.length > 0) out.reasons.push('interpreter');
  const programs = optionValues(scan, '-e', '--source');
  let operands = scan.operands;
  if (programFiles.length === 0 && programs.length === 0 && operands.length > 0) {
    programs.push(args[operands[0]!]!);
    operands = operands.slice(1);
  }
  for (const program of programs) if (!program.isStatic || AWK_EXEC.test(awkCode(program.value))) out.reasons.push('interpreter');
  for (const i of operands) {
    const word = args[i]!;
    if (word.isStatic && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.value)) continue; // var=value, not a file
    push(out, pathOf(word, READ, cwd));
  }
};

/** `jq [options] FILTER [FILE…]`; `--arg`/`--argjson` take two words, `--slurpfile`/`--rawfile` name a file, `-L` a directory of modules. */
const jq: Handler = (args, cwd, out) => {
  let filterFromFile = false;
  let argsMode = false;
  const operands: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (!word.isStatic || !v.startsWith('-') || v === '-' || argsMode) {
      operands.push(word);
      continue;
    }
    if (v === '--arg' || v === '--argjson') i += 2;
    else if (v === '--slurpfile' || v === '--rawfile') {
      if (args[i + 2]) push(out, pathOf(args[i + 2]!, READ, cwd));
      i += 2;
    } else if (v === '-f' || v === '--from-file') {
      if (args[i + 1]) push(out, pathOf(args[i + 1]!, READ, cwd));
      filterFromFile = true;
      i++;
    } else if (v === '--indent' || v === '-L' || v === '--library-path') i++;
    else if (v === '--args' || v === '--jsonargs') argsMode = true;
  }
  const files = filterFromFile ? operands : operands.slice(1);
  if (!argsMode) for (const file of files) push(out, pathOf(file, READ, cwd));
  // The modules it loads: `-L DIR` and a directive's `{search: DIR}` (round 32 review R32-2; jq-modules.ts).
  jqLibraryDirs(args, cwd, out.paths);
  if (!filterFromFile && operands[0]) jqFilterReads(operands[0], cwd, out.paths);
  // A program from a file (`-f F`) may open with a directive not read here (round 33, rules33).
  if (filterFromFile) out.paths.push(...unknownModules(cwd));
  else jqUnknownLibrary(args, operands[0], cwd, out.paths);
};

/** `chmod [-Rcfv] MODE FILE…`: `-x`, `-w` are modes, not options. */
const chmod: Handler = (args, cwd, out) => {
  const words = args.map((w) => (w.isStatic && /^-[rwxXstugoa=+,0-7-]+$/.test(w.value) && !/^-[Rcfv]+$/.test(w.value) ? { ...w, value: `\u0000${w.value}` } : w));
  simple({ access: WRITE, skip: 1, unless: ['--reference'], long: ['reference'], reads: ['--reference'], tree: changedTree })(words, cwd, out);
};

/**
 * `ln [-s] TARGET… LINK` / `ln -t DIR TARGET…` / `ln TARGET` (link in the cwd). Hard links alias the
 * target: written. A symbolic link is a new name for its target and what is below it, which a call
 * decided before the link is made meets after (`ln -s conf pub/l` with a `write_file pub/l/x` sent
 * with it, decided as a new file in pub, wrote conf/x: round 30 review F30-1): the target is
 * decided as a move's source (LINKED: the Edit and Read rules on it and below it). A relative
 * target is looked up from the link's own directory (the kernel does so when the link is
 * followed), and from the cwd (`ln -r`); when LINK may be a directory the link is made inside it,
 * so that reading is added too.
 */
const ln: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, { short: 'St', long: ['suffix', 'target-directory'] });
  const symbolic = hasOption(scan, '-s', '--symbolic');
  const dir = optionValues(scan, '-t', '--target-directory')[0];
  const operands = scan.operands.map((i) => args[i]!);
  const target = (word: Word): void => {
    const path = pathOf(word, WRITE, cwd, symbolic ? LINK_TARGET : 'argument');
    if (path && symbolic) path.tree = LINKED;
    push(out, path);
  };
  const source = (word: Word, linkDirs: Array<string | null>): void => {
    target(word);
    if (!symbolic || !word.isStatic || word.value.startsWith('/') || word.value.startsWith('~')) return;
    for (const linkDir of linkDirs) if (linkDir !== null && linkDir !== '.') target(staticWord(`${linkDir}/${word.value}`));
  };
  if (dir) {
    push(out, pathOf(dir, WRITE, cwd));
    for (const word of operands) source(word, [dir.isStatic ? dir.value : null]);
    backups(scan, intoDirectory(operands, dir, null, cwd, out), cwd, out);
    return;
  }
  if (operands.length === 1) {
    const only = operands[0]!;
    target(only);
    push(out, pathOf(only.isStatic ? staticWord(baseName(only.value)) : only, WRITE, cwd));
    return;
  }
  const link = operands.at(-1);
  const linkDirs = link?.isStatic ? [posix.dirname(link.value), operands.length === 2 ? link.value : null] : [];
  // `ln -f secret data` replaces data/secret when data is a directory (before LINK: the name made is the last write).
  const names = link && !hasOption(scan, '-T', '--no-target-directory') ? intoDirectory(operands.slice(0, -1), link, null, cwd, out) : [];
  operands.forEach((word, n) => (n === operands.length - 1 ? push(out, pathOf(word, WRITE, cwd)) : source(word, linkDirs)));
  if (link) backups(scan, [link, ...names], cwd, out);
};

/**
 * `mount --bind SOURCE TARGET` (`-B`, `--rbind`, `-R`, `-o bind`/`rbind`; mount(8)) and `bindfs
 * SOURCE TARGET`: TARGET becomes another name for SOURCE and what is below it, which realpath does
 * not see (`mount --bind conf pub/m`, then `cat pub/m/secret/db.txt`: round 32 review F32-6). SOURCE
 * is decided as a link's target (LINKED: the Read and Edit rules on it and below it), TARGET is
 * written. Any other mount reads SOURCE (a device or an image) and writes TARGET; with one operand
 * or none fstab says what: not known.
 */
const mount = (bindfs: boolean): Handler => (args, cwd, out) => {
  const scan = scanOptions(args, 0, { short: bindfs ? 'ou' : 'otLUTN', long: ['options', 'types', 'label', 'uuid', 'fstab', 'namespace', 'source', 'target', 'target-prefix', 'options-mode', 'options-source', 'map', 'mirror', 'mirror-only'] });
  const options = optionValues(scan, '-o', '--options');
  const bind = bindfs || hasOption(scan, '-B', '--bind', '-R', '--rbind') || options.some((word) => !word.isStatic || /(^|,)r?bind(,|$)/.test(word.value));
  const operands = [...optionValues(scan, '--source'), ...scan.operands.map((i) => args[i]!), ...optionValues(scan, '--target')];
  if (operands.length < 2) {
    push(out, pathOf(unknownWord(operands[0] ?? staticWord('<what fstab names>')), WRITE, cwd));
    return;
  }
  const source = pathOf(operands[0]!, bind ? WRITE : READ, cwd, bind ? LINK_TARGET : 'argument');
  if (source && bind) source.tree = LINKED;
  push(out, source);
  push(out, pathOf(operands.at(-1)!, WRITE, cwd));
};

/** `dd if=IN of=OUT …`. */
const dd: Handler = (args, cwd, out) => {
  for (const word of args) {
    if (!word.isStatic) continue;
    if (word.value.startsWith('if=')) push(out, pathOf(staticWord(word.value.slice(3)), READ, cwd));
    if (word.value.startsWith('of=')) push(out, pathOf(staticWord(word.value.slice(3)), WRITE, cwd));
  }
};

/** Subcommands with options whose value is a file read (commit message, template), by their short letters. */
const GIT_MESSAGE_FILES: Record<string, { short: string }> = {
  commit: { short: 'FtmcCS' },
  tag: { short: 'Fmu' },
  merge: { short: 'FmsX' },
  notes: { short: 'FmcC' },
  'commit-tree': { short: 'Fmp' },
  // `git fmt-merge-msg -F F` quoted F's first line in its error (git 2.39, round 11).
  'fmt-merge-msg': { short: 'Fm' },
};

/** Subcommands that print what they are pointed at: each operand may be a path (git decides by looking). */
const GIT_SHOWS = new Set(['diff', 'log', 'show', 'blame', 'annotate', 'grep', 'ls-files', 'status', 'whatchanged', 'shortlog', 'cat-file', 'difftool']);

/**
 * `git [-C DIR] [--git-dir=D] [--work-tree=D] [-c k=v] SUBCOMMAND …`: the repository directories are
 * read; so is every operand of a subcommand that prints files (`git diff -- .env`, `git show
 * HEAD:.env`), so Read deny rules meet them. A revision taken for a path is a harmless extra read.
 */
const git: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, { short: 'Cc', long: ['git-dir', 'work-tree', 'namespace', 'super-prefix', 'config-env', 'exec-path', 'list-cmds', 'attr-source'], stopAtOperand: true });
  let base = cwd;
  for (const option of scan.options) {
    if (!option.value) continue;
    if (option.name === '-C' || option.name === '--git-dir' || option.name === '--work-tree') push(out, pathOf(option.value, READ, base));
    if (option.name === '-C') base = option.value.isStatic ? resolveDirectory(base, option.value.value) : null;
    // `git --exec-path=t lg` ran t/git-lg (git 2.39): programs from a directory the analyser does not read.
    if (option.name === '--exec-path') out.reasons.push('interpreter');
  }
  for (const option of scan.options) {
    // `git -c core.fsmonitor='rm -rf x' status`; `--config-env=KEY=ENVVAR` takes the value from the
    // environment. From git's working directory (`-C`): `format.outputDirectory` is read from there.
    if (option.name === '-c' && option.value) gitSettingWord(option.value, base, out);
    if (option.name === '--config-env' && option.value) gitSettingWord(option.value, base, out, true);
  }
  const sub = args[scan.end];
  // The subcommand's words, read by each model below (none changes them).
  const after = args.slice(scan.end + 1);
  if (sub?.isStatic && sub.value === 'config') gitConfig(after, base, out, hasOption(scan, '--git-dir'));
  // `git remote add`, `branch -u`, `submodule init`, `push -u`… change the same file (round 29): git's own update of it, as gitConfig's harmless settings.
  else if (sub?.isStatic) {
    // `git checkout NAME` may make NAME tracking a remote's branch (round 30): unless `-c checkout.guess=false`.
    const guessOff = scan.options.some((option) => option.name === '-c' && option.value?.isStatic === true && /^checkout\.guess=(false|no|off|0)$/i.test(option.value.value));
    const guess = changesGitConfig(sub.value, after) ? undefined : guessOff ? null : branchGuess(sub.value, after);
    // A new branch from HEAD tracks only by branch.autoSetupMerge (round 31): inspect.ts reads whether any config sets it; a `-c` may (or include one that does).
    const bySetting = guess === undefined && !scan.options.some((option) => option.name === '-c' || option.name === '--config-env') && tracksBySettingOnly(sub.value, after);
    if (guess !== null) out.paths.push({ path: 'config', access: WRITE, base, isStatic: !hasOption(scan, '--git-dir'), via: GIT_CONFIG_SETTING, ...(guess?.name ? { branchGuess: { name: guess.name, pathsStop: guess.pathsStop } } : {}), ...(bySetting ? { autoSetupMerge: true as const } : {}) });
  }
  if (sub?.isStatic && sub.value === 'maintenance') gitMaintenance(after, base, out);
  // `--git-dir=D` for any subcommand: git runs D's config and hooks. Otherwise the repository git
  // finds from its working directory is checked on disk (inspect.ts, git-dir.ts repositoryProblem).
  for (const dir of optionValues(scan, '--git-dir')) push(out, pathOf(dir, WRITE, base, GIT_DIRECTORY_MADE));
  // `git --git-dir=D init` makes D (R27-5).
  if (sub?.isStatic && sub.value === 'init') for (const dir of optionValues(scan, '--git-dir')) push(out, pathOf(dir, WRITE, base));
  if (!hasOption(scan, '--git-dir')) push(out, pathOf(staticWord('.'), READ, base, GIT_REPOSITORY_FOUND));
  if (sub?.isStatic && (sub.value === 'init' || sub.value === 'clone')) gitDirectoryMade(sub.value, after, base, out);
  if (sub?.isStatic && (sub.value === 'clean' || sub.value === 'rm')) gitRemoval(sub.value, after, base, out);
  if (sub?.isStatic && sub.value === 'stash') gitStash(after, base, out);
  if (sub?.isStatic && sub.value === 'mv') gitMove(after, base, out);
  if (sub?.isStatic && sub.value === 'merge-file') gitMergeFile(after, base, out);
  if (sub?.isStatic) gitOutputs(sub.value, after, base, out);
  if (sub !== undefined && !(sub.isStatic && GIT_OUTPUTS[sub.value]?.files.includes('--output'))) revisionOutput(after, base, out);
  if (sub?.isStatic) gitReads(sub.value, after, base, out);
  if (sub?.isStatic) gitStdinPaths(sub.value, after, base, out);
  if (sub?.isStatic) gitCredentials(sub.value, after, base, out);
  if (sub?.isStatic) gitRepositories(sub.value, after, base, out);
  // `--work-tree=D` is the top; `--git-dir` alone makes it the cwd unless core.worktree says otherwise (git(1)).
  // `--icase-pathspecs` (git takes its own options only in full): `DATA/SECRET` is data/secret.
  const top = optionValues(scan, '--work-tree').at(-1) ?? null;
  const place: GitPlace = { base, top, elsewhere: top === null && hasOption(scan, '--git-dir'), caseless: hasOption(scan, '--icase-pathspecs') };
  if (sub !== undefined) {
    gitPrints(sub, after, place, out);
    rewritten(treeRewrite(sub.isStatic ? sub.value : null, after), place, out);
    if (sub.isStatic) gitStores(sub.value, after, place, out);
    const objects = sub.isStatic && printsObjects(sub.value, after);
    if (objects) {
      // `cat-file -p NAME`: what NAME resolves to decides, as for `git show` (inspect.ts).
      const path = objectsRead(place);
      if (path && Array.isArray(objects)) path.revisions = objects;
      push(out, path);
    }
    // What a ref, the index or the tree is set to (`git branch x C`, `git reset --soft C`): a commit
    // no ref named may hold any stored file; a tree holds its files (git-targets.ts).
    const pointed = sub.isStatic ? pointedRevisions(sub.value, after) : undefined;
    if (pointed !== undefined) {
      const path = objectsRead(place);
      if (path && pointed !== null) {
        path.revisions = pointed;
        path.treesPrinted = true;
        path.refTarget = true;
      }
      push(out, path);
    }
    // What it runs (`rebase -x CMD`, `bisect run CMD`), from the working tree's top or elsewhere: a cwd not known here.
    const runs = sub.isStatic ? gitRuns(sub.value, after) : { scripts: [], argvs: [] };
    for (const script of runs.scripts) {
      if (script.isStatic) out.nested.push({ kind: 'script', text: script.value, cwd: null });
      else out.reasons.push('executor');
    }
    for (const words of runs.argvs) out.nested.push({ kind: 'argv', words, cwd: null });
  }
  if (sub?.isStatic && GIT_MESSAGE_FILES[sub.value]) {
    // `git commit -F .env` makes a file the commit message: a read.
    const messages = scanOptions(args, scan.end + 1, { short: GIT_MESSAGE_FILES[sub.value]!.short, long: ['file', 'template', 'message', 'reuse-message', 'reedit-message', 'fixup', 'squash', 'author', 'date', 'cleanup', 'trailer', 'pathspec-from-file'] });
    for (const file of optionValues(messages, '-F', '--file', '-t', '--template', '--pathspec-from-file')) push(out, pathOf(file, READ, base));
  }
  if (!sub?.isStatic || !GIT_SHOWS.has(sub.value)) return;
  const rest = scanOptions(args, scan.end + 1, { short: 'L', long: ['output'] });
  // `git log -L1,5:FILE` / `-L:func:FILE` prints those lines of FILE.
  for (const range of optionValues(rest, '-L')) {
    const file = range.isStatic ? /:([^:]+)$/.exec(range.value)?.[1] : undefined;
    push(out, pathOf(file !== undefined ? staticWord(file) : range, READ, base));
  }
  for (const index of rest.operands) {
    const word = args[index]!;
    push(out, pathOf(word, READ, base));
    if (word.isStatic) storedPath(word.value, place, out);
  }
};

/**
 * `REV:PATH`, `:PATH`, `:N:PATH` (gitrevisions(7)): a file as stored in REV's tree or the index.
 * git splits at the first `:` outside braces (`HEAD^{/fix: x}:a` is HEAD^{/fix: x}'s a), and PATH is
 * from the top of the working tree, `./` and `../` from git's working directory: `cd src && git show
 * HEAD:config/prod.json` printed the top's config/prod.json (git 2.39), which was read as
 * src/config/prod.json. What REV starts from is resolved as `git show`'s operands are (inspect.ts):
 * PATH is a path of the working tree only in a commit's tree; in a tree (a subdirectory's, or one
 * `git mktree` made around any stored blob: `git show T:x` printed an ignored .env) or a commit no
 * ref named it is any stored file, and the read of every stored file stays.
 */
function storedPath(value: string, place: GitPlace, out: FileFacts): void {
  let depth = 0;
  let colon = -1;
  for (let i = 0; i < value.length && colon === -1; i++) {
    const c = value[i];
    if (c === '{') depth++;
    else if (depth > 0 && c === '}') depth--;
    else if (depth === 0 && c === ':') colon = i;
  }
  if (colon === -1) return;
  let file = value.slice(colon + 1);
  if (colon === 0) {
    // `:/text` searches the commit messages; `:N:PATH` is stage N's.
    if (file.startsWith('/')) return;
    file = file.replace(/^[0-3]:/, '');
  } else {
    const roots = revisionRoot(value.slice(0, colon));
    const path = roots === null || roots.length > 0 ? objectsRead(place) : null;
    if (path && roots !== null) {
      path.revisions = roots;
      path.treesPrinted = true;
    }
    push(out, path);
  }
  if (file === '') return;
  // From git's working directory: `./`, `../`; any other PATH too, a harmless extra read (outside a
  // repository git stops; a deny rule on the name as written is met there too).
  push(out, pathOf(staticWord(file), READ, place.base));
  if (/^\.\.?(\/|$)/.test(file)) return;
  // From the top: the one git finds from its working directory (inspect.ts), or not known.
  const known = place.top === null && !place.elsewhere;
  const path = pathOf({ ...staticWord('.'), isStatic: known, raw: file }, READ, place.base);
  if (path) path.workTree = file;
  push(out, path);
}

/**
 * The git directory `git init` or `git clone` makes where its name does not say so (git-init(1),
 * git-clone(1)): `init --bare [DIR]` (DIR, or the working directory), `clone --bare|--mirror URL
 * DIR`, `--separate-git-dir D`, `--template T` (`--git-dir=D` is taken for every subcommand). Without DIR, clone
 * names it `<name>.git`, which the name check already covers, like `<DIR>/.git` of a plain init or clone.
 */
function gitDirectoryMade(sub: 'init' | 'clone', args: readonly Word[], base: string | null, out: FileFacts): void {
  const long = sub === 'init' ? ['separate-git-dir', 'template', 'initial-branch', 'object-format', 'ref-format'] : ['separate-git-dir', 'template', 'origin', 'branch', 'upload-pack', 'reference', 'reference-if-able', 'depth', 'shallow-since', 'shallow-exclude', 'config', 'jobs', 'filter', 'server-option', 'bundle-uri', 'ref-format'];
  const scan = scanOptions(args, 0, { short: sub === 'init' ? 'b' : 'obucj', long });
  // The template directory's hooks and info/ are copied into the new repository (git-init(1) TEMPLATE
  // DIRECTORY), and `clone` runs its post-checkout hook (`git clone --template=t . c` ran t's, git
  // 2.39): code the analyser does not read. `--template=` (empty) copies nothing.
  const made = optionValues(scan, '--separate-git-dir', '--template');
  if (optionValues(scan, '--template').some((word) => !word.isStatic || word.value !== '')) out.reasons.push('interpreter');
  if (hasOption(scan, '--bare') || (sub === 'clone' && hasOption(scan, '--mirror'))) {
    const dir = args[scan.operands[sub === 'init' ? 0 : 1]!];
    if (dir !== undefined) made.push(dir);
    else if (sub === 'init') made.push(staticWord('.'));
  }
  for (const word of made) push(out, pathOf(word, WRITE, base, GIT_DIRECTORY_MADE));
  // `git init DIR` makes DIR/.git, `--bare DIR` DIR, `--separate-git-dir D` D (moving an existing
  // .git there): a write of it, so deny and ask rules meet it (git 2.39 made outside/new/.git; round 27 R27-5).
  // Without DIR it is the working directory, as `git init .` (round 28): a write in the workspace, as
  // docs/rules.md says writes are (an Edit allow rule in default mode; acceptEdits allows it).
  if (sub === 'init') {
    const named = [...optionValues(scan, '--separate-git-dir'), scan.operands[0] === undefined ? staticWord('.') : args[scan.operands[0]]!];
    for (const dir of named) push(out, pathOf(dir, WRITE, base));
  }
  // `clone -c KEY=VALUE` sets KEY in the new repository before its checkout (`--config
  // core.hooksPath=t` ran t/post-checkout, git 2.39): decided as `git -c` is.
  for (const setting of optionValues(scan, '-c', '--config')) gitSettingWord(setting, base, out);
  // The clone itself: DIR, or the repository's name in the cwd (`git clone u/x.git` makes x), checked
  // out from the repository as a tree rewrite is (`git clone . data/x` wrote below data, git 2.39).
  const source = args[scan.operands[0]!];
  const dir = sub === 'clone' ? (args[scan.operands[1]!] ?? (source === undefined ? undefined : clonedName(source))) : undefined;
  if (dir !== undefined) push(out, planting(pathOf(dir, WRITE, base, GIT_REWRITE)));
}

/** The directory `git clone URL` makes: URL's last component without `.git` (git-clone(1)); unknown when URL is. */
function clonedName(url: Word): Word {
  const name = url.isStatic ? url.value.replace(/[/\\]+$/, '').replace(/\/?\.git$/, '').split(/[/:]/).at(-1) : undefined;
  return name ? staticWord(name) : { ...url, isStatic: false };
}

/**
 * Subcommands that write a file or directory an option or operand names (git-archive(1) `-o`,
 * git-format-patch(1) `-o DIR`/`--output`, git-read-tree(1) `--index-output`, git-bundle(1) `create
 * FILE`, git-bugreport(1) and git-diagnose(1) `-o DIR`): `git archive -o data/secret HEAD` replaced it
 * (git 2.39). A directory is written with what is below it (the names in it are git's).
 */
const DIFF_OUTPUT = { spec: { short: 'USGOlB', long: ['output', 'unified', 'relative', 'stat', 'dirstat', 'abbrev', 'diff-algorithm', 'anchored', 'word-diff-regex', 'color-moved', 'ws-error-highlight', 'src-prefix', 'dst-prefix', 'line-prefix', 'creation-factor'] }, files: ['--output'], directories: [] };
const GIT_FAST_IMPORT: OptionSpec = { long: ['import-marks', 'import-marks-if-exists', 'export-marks', 'date-format', 'max-pack-size', 'depth', 'active-branches', 'cat-blob-fd', 'rewrite-submodules-from', 'rewrite-submodules-to'] };
const GIT_OUTPUTS: Record<string, { spec: OptionSpec; files: string[]; directories: string[]; operand?: { after: string; at: number } }> = {
  archive: { spec: { short: 'o', long: ['output', 'format', 'prefix', 'remote', 'exec', 'add-file', 'add-virtual-file'] }, files: ['-o', '--output'], directories: [] },
  'format-patch': { spec: { short: 'ov', long: ['output-directory', 'output', 'reroll-count', 'subject-prefix', 'suffix', 'to', 'cc', 'from', 'in-reply-to', 'add-header', 'base', 'interdiff', 'range-diff', 'creation-factor', 'signature-file', 'filename-max-length', 'start-number'] }, files: ['--output'], directories: ['-o', '--output-directory'] },
  'read-tree': { spec: { long: ['index-output', 'prefix', 'exclude-per-directory'] }, files: ['--index-output'], directories: [] },
  bugreport: { spec: { short: 'os', long: ['output-directory', 'suffix'] }, files: [], directories: ['-o', '--output-directory'] },
  diagnose: { spec: { short: 'os', long: ['output-directory', 'suffix', 'mode'] }, files: [], directories: ['-o', '--output-directory'] },
  bundle: { spec: { long: ['version'] }, files: [], directories: [], operand: { after: 'create', at: 1 } },
  // The diff plumbing and range-diff take the diff options, `--output` too (review of 2dae263).
  'diff-index': DIFF_OUTPUT,
  'diff-tree': DIFF_OUTPUT,
  'diff-files': DIFF_OUTPUT,
  'range-diff': DIFF_OUTPUT,
  'fast-export': { spec: { long: ['export-marks', 'import-marks', 'import-marks-if-exists', 'signed-tags', 'tag-of-filtered-object', 'refspec', 'anonymize-map'] }, files: ['--export-marks'], directories: [] },
  'fast-import': { spec: GIT_FAST_IMPORT, files: ['--export-marks'], directories: [] },
  'credential-store': { spec: { long: ['file'] }, files: ['--file'], directories: [] },
  'interpret-trailers': { spec: { long: ['trailer', 'where', 'if-exists', 'if-missing'] }, files: [], directories: [] },
  // Round 11 (git 2.39, bash 5.2): `git mailinfo MSG PATCH < mail` and `git index-pack -o F p.pack`
  // replaced F, `git mailsplit -oDIR mbox` made DIR/0001, `git credential-cache --socket F` makes F.
  mailinfo: { spec: { long: ['encoding', 'quoted-cr'] }, files: [], directories: [] },
  mailsplit: { spec: { attached: 'odf' }, files: [], directories: ['-o'] },
  'index-pack': { spec: { short: 'o' }, files: ['-o'], directories: [] },
  'credential-cache': { spec: { long: ['socket', 'timeout'] }, files: ['--socket'], directories: [] },
  'pack-objects': { spec: { long: ['window', 'depth', 'window-memory', 'max-pack-size', 'compression', 'threads', 'index-version', 'filter', 'missing', 'unpack-unreachable', 'keep-pack', 'honor-pack-keep', 'cruft-expiration', 'shallow-file'] }, files: [], directories: [] },
  daemon: { spec: {}, files: [], directories: [] },
};

/**
 * Files git reads that an option or operand names (git-archive(1) `--add-file`, git-fast-import(1)
 * `--import-marks`, git-mailsplit(1) and git-hash-object(1) operands): each put the content of
 * ~/.ssh/id_rsa where it could be printed (git 2.39, bash 5.2; docs/threat-model.md#git-rewrites-tracked-files).
 */
const GIT_BLAME: OptionSpec = { short: 'LS', long: ['contents', 'ignore-rev', 'ignore-revs-file', 'date', 'abbrev', 'reverse'] };
const GIT_ORDERFILE: OptionSpec = { short: 'O', long: ['orderfile'] }; // git 2.39: `-O FILE` and `-OFILE`, `--orderfile=FILE`
const GIT_READS: Record<string, { spec: OptionSpec; options: string[]; operands: boolean }> = {
  archive: { spec: GIT_OUTPUTS.archive!.spec, options: ['--add-file'], operands: false },
  'fast-import': { spec: GIT_FAST_IMPORT, options: ['--import-marks', '--import-marks-if-exists'], operands: false },
  mailsplit: { spec: { attached: 'odf' }, options: [], operands: true },
  'hash-object': { spec: { short: 't', long: ['path'] }, options: [], operands: true },
  // git-blame(1) `--contents <file>` prints every line of FILE (`-S`, `--ignore-revs-file` read one too);
  // git-diff(1) `-O<orderfile>` reads its file: found by the review of round 11, allowed as read-only commands.
  blame: { spec: GIT_BLAME, options: ['--contents', '--ignore-revs-file', '-S'], operands: false },
  annotate: { spec: GIT_BLAME, options: ['--contents', '--ignore-revs-file', '-S'], operands: false },
  ...Object.fromEntries(['diff', 'log', 'show', 'whatchanged', 'format-patch', 'diff-index', 'diff-tree', 'diff-files', 'range-diff', 'difftool'].map((sub) => [sub, { spec: GIT_ORDERFILE, options: ['-O', '--orderfile'], operands: false }])),
  // git-send-email(1) mails each file operand, or every file of a directory (`--sendmail-cmd='cat;
  // true' ~/.ssh/x` printed it, git 2.39); a revision taken for a path is a harmless extra read.
  'send-email': { spec: {}, options: [], operands: true },
  // git-interpret-trailers(1) prints each file operand with its trailers (`git interpret-trailers
  // .env` printed it, git 2.39, round 27 R27-16); git-apply(1) reads each patch (`--stat`, `--check`
  // print what parses), git-verify-pack(1) each pack, git-bundle(1) `verify|list-heads|unbundle FILE` it.
  'interpret-trailers': { spec: GIT_OUTPUTS['interpret-trailers']!.spec, options: [], operands: true },
  apply: { spec: { short: 'pC', long: ['exclude', 'include', 'directory', 'whitespace', 'build-fake-ancestor'] }, options: [], operands: true },
  'verify-pack': { spec: {}, options: [], operands: true },
  bundle: { spec: GIT_OUTPUTS.bundle!.spec, options: [], operands: true },
};

/**
 * git-credential(1) `fill` asks the configured helper for a credential and prints it; a helper run
 * itself (`git credential-store get`, `credential-cache`, `credential-osxkeychain`, …) prints it
 * too (git 2.39 printed `password=ghp_…` from ~/.git-credentials for both, round 28 review R28-9).
 * Either is a read of the credential store: git-credential-store(1)'s files and, for any helper,
 * its own store (a keyring, a cache daemon), a place known only at run time; `approve`/`reject`
 * and a helper's `store`/`erase` write them. `credential-store --file F` is F (a candidate).
 */
const CREDENTIAL_FILES = ['~/.git-credentials', '~/.config/git/credentials'];
const CREDENTIAL_STORE: Word = { value: '<credential store>', raw: "<git's credential helper's store>", isStatic: false, ansi: false };
function gitCredentials(sub: string, args: readonly Word[], base: string | null, out: FileFacts): void {
  const helper = /^credential-(.+)$/.exec(sub)?.[1];
  if (sub !== 'credential' && helper === undefined) return;
  const action = args.find((word) => !word.isStatic || !word.value.startsWith('-'));
  const verb = action?.isStatic ? action.value : null;
  const access = verb === null || verb === 'fill' || verb === 'get' ? READ : ['approve', 'reject', 'store', 'erase'].includes(verb) ? WRITE : null;
  if (access === null) return; // `credential-cache exit`, `credential capability`
  if (helper === undefined || helper === 'store') for (const file of CREDENTIAL_FILES) push(out, pathOf(staticWord(file), access, base));
  if (helper !== 'store') push(out, pathOf(CREDENTIAL_STORE, access, base));
}

/**
 * `kubectl config view --raw` prints the kubeconfig with its tokens, keys and certificates (without
 * `--raw` they are `REDACTED`; kubectl printed `token: …` from ~/.kube/config, round 28 review
 * R28-9): a read of ~/.kube/config and of the files KUBECONFIG names (known only at run time).
 */
const KUBECONFIG: Word = { value: '<kubeconfig>', raw: '<the kubeconfig: KUBECONFIG or ~/.kube/config>', isStatic: false, ansi: false };
function kubeconfigPrinted(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  const operands = args.filter((word) => !word.isStatic || !word.value.startsWith('-')).map((word) => (word.isStatic ? word.value : null));
  // A global option's value may stand before `config` (`kubectl -n x config view --raw`).
  const at = operands.indexOf('config');
  if (at === -1 || operands[at + 1] !== 'view') return;
  if (!args.some((word) => !word.isStatic || /^--raw(=(true|1|t|T|TRUE|True))?$/.test(word.value))) return;
  push(out, pathOf(staticWord('~/.kube/config'), READ, cwd));
  push(out, pathOf(KUBECONFIG, READ, cwd));
}

/**
 * Subcommands that read the paths named on stdin (git-hash-object(1) `--stdin-paths`: `echo
 * ~/.ssh/id_rsa | git hash-object -w --stdin-paths` stored it for `cat-file -p`, git 2.39;
 * git-update-index(1) `--stdin`): paths known only at run time. git-check-attr(1) `--stdin` reads
 * the attributes of the names, not the files.
 */
const GIT_STDIN_PATHS: Record<string, string> = { 'hash-object': '--stdin-paths', 'update-index': '--stdin' };

function gitReads(sub: string, args: readonly Word[], base: string | null, out: FileFacts): void {
  const known = GIT_READS[sub];
  if (!known) return;
  const scan = scanOptions(args, 0, known.spec);
  for (const file of optionValues(scan, ...known.options)) push(out, pathOf(file, READ, base));
  // A bundle's subcommand word is no file, and `create FILE` writes FILE (gitOutputs).
  const action = sub === 'bundle' ? args[scan.operands[0]!] : undefined;
  const reads = action === undefined || !action.isStatic || ['verify', 'list-heads', 'unbundle'].includes(action.value);
  const operands = sub === 'bundle' ? (reads ? scan.operands.slice(1, 2) : []) : scan.operands;
  if (known.operands) for (const i of operands) push(out, pathOf(args[i]!, READ, base));
}

/**
 * A local repository another git command reads (its objects, so every file it ever held) or, for
 * `push`, writes: `git clone /prot/repo x && cat x/data/secret`, `git fetch /prot/repo HEAD && git
 * show FETCH_HEAD:…`, `git archive --remote=/prot/repo HEAD` printed a file below a Read deny rule
 * (git 2.39, round 11). A URL with a scheme or `host:` names no local path; `file://` does.
 */
const GIT_REPOSITORY: Record<string, { spec: OptionSpec; options: string[]; at: number | null; access: Access }> = {
  clone: { spec: { short: 'obucj', long: ['separate-git-dir', 'template', 'origin', 'branch', 'upload-pack', 'reference', 'reference-if-able', 'depth', 'shallow-since', 'shallow-exclude', 'config', 'jobs', 'filter', 'server-option', 'bundle-uri', 'ref-format'] }, options: ['--reference', '--reference-if-able'], at: 0, access: READ },
  fetch: { spec: { short: 'oj', long: ['upload-pack', 'depth', 'deepen', 'shallow-since', 'shallow-exclude', 'refmap', 'server-option', 'jobs', 'filter', 'negotiation-tip', 'recurse-submodules-default', 'submodule-prefix'] }, options: [], at: 0, access: READ },
  pull: { spec: { short: 'soXj', long: ['upload-pack', 'depth', 'deepen', 'shallow-since', 'shallow-exclude', 'strategy', 'strategy-option', 'server-option', 'jobs', 'negotiation-tip'] }, options: [], at: 0, access: READ },
  'ls-remote': { spec: { long: ['upload-pack', 'sort', 'server-option'] }, options: [], at: 0, access: READ },
  archive: { spec: { short: 'o', long: ['output', 'format', 'prefix', 'remote', 'exec', 'add-file', 'add-virtual-file'] }, options: ['--remote'], at: null, access: READ },
  push: { spec: { short: 'o', long: ['receive-pack', 'exec', 'repo', 'push-option', 'signed', 'force-with-lease'] }, options: ['--repo'], at: 0, access: WRITE },
};

function gitRepositories(sub: string, args: readonly Word[], base: string | null, out: FileFacts): void {
  if (sub === 'remote') return gitRemote(args, base, out);
  const known = GIT_REPOSITORY[sub];
  if (!known) return;
  const scan = scanOptions(args, 0, known.spec);
  const url = known.at === null ? undefined : args[scan.operands[known.at]!];
  for (const word of [...optionValues(scan, ...known.options), ...(url ? [url] : [])]) {
    const local = localRepository(word);
    // `git fetch origin` names a remote, or ./origin when no remote has that name; clone's source is a path.
    if (local) push(out, repositoryRead(sub === 'clone' ? { ...local, bare: false } : local, base, known.access));
  }
}

/**
 * git-remote(1) `add NAME URL`, `set-url [--push|--add] NAME URL [OLD]`: the repository a later
 * fetch reads (`git remote add x /prot/repo && git fetch x` printed a file below Read(/prot/**), git 2.39, round 12).
 */
function gitRemote(args: readonly Word[], base: string | null, out: FileFacts): void {
  if (!args[0]?.isStatic || !['add', 'set-url'].includes(args[0].value)) return;
  const scan = scanOptions(args, 1, { short: 'tm', long: ['track', 'master', 'mirror'] });
  const word = args[scan.operands[1]!];
  const local = word === undefined ? null : localRepository(word);
  if (local) push(out, repositoryRead(local, base));
}

function gitStdinPaths(sub: string, args: readonly Word[], base: string | null, out: FileFacts): void {
  const option = GIT_STDIN_PATHS[sub];
  if (option && args.some((word) => !word.isStatic || word.value === option)) push(out, pathOf(unknownWord(staticWord(`<paths git ${sub} reads from stdin>`)), READ, base));
}

/**
 * `--output=FILE` (or `--output FILE`) of git's revision and diff options writes FILE for every
 * subcommand that takes them: `log`, `show`, `diff`, and also `rev-list`, `reflog`, `stash show`,
 * `cherry-pick`, `revert`, `fast-export`, `bundle create`, `blame`, `shortlog` (each made FILE under
 * git 2.39, round 11). Taken wherever it appears; a value of another option taken for it is a
 * harmless extra write. Those whose GIT_OUTPUTS entry names `--output` are read there.
 */
function revisionOutput(args: readonly Word[], base: string | null, out: FileFacts): void {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    // Any prefix of `--output` (`--outp=F`): git 2.39 refuses it, other versions may take it.
    const option = word.isStatic ? /^--(o[a-z]*)(=?)/.exec(word.value) : null;
    if (!option || !'output'.startsWith(option[1]!)) continue;
    const value = option[2] ? { ...word, value: word.value.slice(option[0].length), raw: word.value.slice(option[0].length) } : args[i + 1];
    if (value !== undefined) push(out, pathOf(value, WRITE, base));
  }
}

function gitOutputs(sub: string, args: readonly Word[], base: string | null, out: FileFacts): void {
  const known = GIT_OUTPUTS[sub];
  if (!known) return;
  const scan = scanOptions(args, 0, known.spec);
  for (const file of optionValues(scan, ...known.files)) push(out, pathOf(file, WRITE, base));
  for (const directory of optionValues(scan, ...known.directories)) push(out, walked(pathOf(directory, WRITE, base), REMOVED));
  const operands = scan.operands.map((i) => args[i]!);
  // git-interpret-trailers(1) `--in-place` rewrites each file named.
  if (sub === 'interpret-trailers' && hasOption(scan, '--in-place')) for (const file of operands) push(out, pathOf(file, WRITE, base));
  if (sub === 'mailinfo') for (const file of operands.slice(0, 2)) push(out, pathOf(file, WRITE, base));
  // git-pack-objects(1) `BASE` makes BASE-<hash>.pack, .idx, .rev: the names below BASE's directory.
  if (sub === 'pack-objects' && operands[0] !== undefined && !hasOptionAsSpelled(scan, '--stdout')) push(out, walked(pathOf(prefixDirectory(operands[0]), WRITE, base), REMOVED));
  // git-daemon(1) takes `--pid-file=FILE` in this spelling only.
  if (sub === 'daemon') for (const word of args) if (word.isStatic && word.value.startsWith('--pid-file=')) push(out, pathOf(staticWord(word.value.slice('--pid-file='.length)), WRITE, base));
  // git-format-patch(1) without `-o`, `--output` or `--stdout` writes NNNN-subject.patch in the cwd
  // (`cd data && git format-patch -1` made data/0001-2.patch, `--numbered-files` data/1; git 2.39).
  if (sub === 'format-patch' && !hasOptionAsSpelled(scan, '-o', '--output-directory', '--output', '--stdout')) push(out, walked(pathOf(staticWord('.'), WRITE, base), REMOVED));
  if (known.operand && operands[0] !== undefined && (!operands[0].isStatic || operands[0].value === known.operand.after)) {
    const file = operands[known.operand.at];
    if (file !== undefined) push(out, pathOf(file, WRITE, base));
  }
}

/**
 * `git clean [-d] [-f] [-x|-X] [-e P] [--] [PATHSPEC…]` removes untracked files below each pathspec,
 * or below the working directory without one (git-clean(1)); `-x`/`-X` take git-ignored files too
 * (a `.env`). `git rm [-r] [--] PATHSPEC…` removes tracked files, below a directory with `-r`
 * (git-rm(1)). Which files git tracks is not looked up: every file below counts, as for `rm -r`.
 * `-n`/`--dry-run`, and `git rm --cached` (the index only), remove nothing. A pathspec with a glob
 * matches below its fixed leading directories, one with magic asks (pathspecRemoved).
 */
function gitRemoval(sub: 'clean' | 'rm', args: readonly Word[], base: string | null, out: FileFacts): void {
  const scan = scanOptions(args, 0, { short: sub === 'clean' ? 'e' : '', long: ['exclude', 'pathspec-from-file'] });
  // git takes any unambiguous prefix (`--dry`), and a `--no-…` may undo one: then it removes.
  const given = (long: string, short?: string): boolean => scan.options.some((o) => o.name === short || (o.name.length > 3 && long.startsWith(o.name)));
  if (!scan.options.some((o) => o.name.startsWith('--no')) && (given('--dry-run', '-n') || (sub === 'rm' && given('--cached')))) return;
  const recursive = sub === 'clean' || hasOption(scan, '-r');
  const pathspecs = scan.operands.map((i) => args[i]!);
  if (sub === 'clean' && pathspecs.length === 0 && !hasOption(scan, '--pathspec-from-file')) pathspecRemoved(staticWord('.'), recursive, base, out);
  for (const word of [...optionValues(scan, '--pathspec-from-file').map(unknownWord), ...pathspecs]) pathspecRemoved(word, recursive, base, out);
}

/** Where git's working tree is: found on disk from `base` (inspect.ts), `top` when given, unknown when git is pointed `elsewhere`. */
/**
 * What git prints of the files it tracks (docs/threat-model.md#what-git-prints): `git diff` the work
 * tree's and index's, `git show` and `git log -p` the history's, `git grep` the files it searches
 * (`git archive`, `fast-export`, `stash show`, `cat-file` print objects: `printsObjects`). A Read deny rule on a tracked file must meet them (round 11 review,
 * F14: `git diff`, `git show`, `git log -p` printed a tracked .env, safe-listed in every mode).
 * Pathspecs after `--` are read with the tracked files below them; without them the whole tree is
 * (git takes an operand for a path only when it exists, which a revision may too). `--no-index`
 * and grep's `--untracked` read what is on disk instead.
 */
const GIT_PRINTS = new Set(['diff', 'show', 'grep', 'format-patch', 'range-diff', 'difftool']);
/** Subcommands that print a patch only when asked (`git log -p`); `git stash show` as well (stash.showPatch may ask for it). */
const GIT_PATCH_ASKED = new Set(['log', 'whatchanged', 'reflog', 'diff-tree', 'diff-files', 'diff-index', 'request-pull']);
const PATCH_LONG = ['--patch', '--unified', '--patch-with-stat', '--patch-with-raw', '--cc', '--word-diff', '--word-diff-regex', '--color-words', '--binary', '--diff-merges', '--remerge-diff', '--dd', '--function-context', '--combined-all-paths', '--ext-diff', '--textconv', '--full-diff', '--check'];
/** Options after which `git diff`/`git show` print names or counts only (unless a patch option is given too). */
const NO_PATCH_LONG = ['--no-patch', '--stat', '--numstat', '--shortstat', '--name-only', '--name-status', '--raw', '--summary', '--dirstat', '--dirstat-by-file', '--compact-summary', '--cumulative'];
const TRACKED: TreeRead = { content: true, follows: false, tracked: true };
/**
 * Subcommands that compare tree-ish operands and print the files that differ (git-diff(1),
 * git-diff-tree(1), git-diff-index(1), git-difftool(1)): a tree's files are printed as a commit's
 * are. A tree made with `git mktree` around any stored blob (`printf '100644 blob ID\tx' | git
 * mktree`) printed an ignored .env's blob in `git diff EMPTY T` and `git diff-tree -p EMPTY T`
 * (git 2.39, round 14 left open).
 */
const TREE_DIFFS: ReadonlySet<string> = new Set(['diff', 'diff-tree', 'diff-index', 'difftool']);
/** Subcommands that print commits' patches (`git log -p C`, `git format-patch -1 C`): a commit by id may be one `git commit-tree` made around any blob. */
const COMMIT_PATCHES: ReadonlySet<string> = new Set(['log', 'whatchanged', 'format-patch']);

function gitPrints(sub: Word, args: readonly Word[], place: GitPlace, out: FileFacts): void {
  // An alias or a subcommand known only at run time may print anything.
  const name = sub.isStatic ? sub.value : null;
  if (name !== null && !GIT_PRINTS.has(name) && !GIT_PATCH_ASKED.has(name)) return;
  const words = args.filter((w) => w.isStatic).map((w) => w.value);
  const dashes = words.indexOf('--');
  const options = (dashes === -1 ? words : words.slice(0, dashes)).filter((w) => w.startsWith('-'));
  const long = (names: readonly string[]): boolean => options.some((o) => o.startsWith('--') && names.some((n) => { const given = o.split('=')[0]!; return given.length > 3 && n.startsWith(given); }));
  const patch = options.some((o) => /^-[A-Za-z0-9]*[pucmUW]/.test(o)) || long(PATCH_LONG) || args.some((w) => !w.isStatic);
  // `git diff --stat`, `git show -s`: names and counts only, unless a patch is asked for too.
  const namesOnly = options.some((o) => /^-[A-Za-z0-9]*s/.test(o)) || long(NO_PATCH_LONG);
  const printsPatch = name === null || (name === 'diff' || name === 'show' ? patch || !namesOnly : GIT_PRINTS.has(name) || patch);
  const disk = options.some((o) => o === '--no-index' || (name === 'grep' && o.length > 3 && '--untracked'.startsWith(o)));
  // `git show BLOB` prints it whatever the options, `git diff BLOB BLOB` with a patch (round 13);
  // `git diff T1 T2` (and diff-tree, diff-index, difftool) the files of trees T1 and T2.
  const revisionWords = dashes === -1 ? args : args.slice(0, args.findIndex((w) => w.isStatic && w.value === '--'));
  if (name === 'show' || (name !== null && TREE_DIFFS.has(name) && printsPatch && !disk)) objectRevisions(revisionWords, place, out, name === 'show' ? 'show' : 'diff');
  else if (name !== null && COMMIT_PATCHES.has(name) && printsPatch) objectRevisions(revisionWords, place, out, 'log');
  if (!printsPatch) return;
  const tree: TreeRead = disk ? { content: true, follows: false } : TRACKED;
  const pathspecs = dashes === -1 ? [] : args.slice(args.findIndex((w) => w.isStatic && w.value === '--') + 1);
  // git-diff(1): with two paths, outside a working tree or with one of them outside it, git diff
  // is `--no-index` unasked, which git decides at run time (round 12 review, S0: `git diff src .`
  // printed .env). Both operands are read on disk with what is below them, as well as the tracked files.
  const operands = args.filter((w) => !(w.isStatic && w.value.startsWith('-')));
  if (!disk && name === 'diff' && operands.length === 2) {
    const noIndex = { from: place.top === null && !place.elsewhere ? place.base : null, operands: operands.map((word) => (word.isStatic && !word.value.startsWith('~') ? word.value : null)) };
    for (const word of operands) push(out, walked(pathOf(word, READ, place.base), { content: true, follows: false, onlyDirectories: true, noIndex }));
  }
  const exact = pathspecs.length > 0 && pathspecs.every((w) => w.isStatic && !GLOB.test(w.value) && !w.value.startsWith(':')) && place.top === null && !place.elsewhere && !place.caseless;
  if (exact) {
    for (const word of pathspecs) push(out, walked(pathOf(word, READ, place.base), tree));
    return;
  }
  if (disk) {
    // `git diff --no-index A B` compares A and B (directories recursively): its operands are on disk.
    const operands = dashes === -1 ? [staticWord('.'), ...args.filter((w) => !(w.isStatic && w.value.startsWith('-')))] : pathspecs;
    for (const word of operands.length > 0 ? operands : [staticWord('.')]) push(out, walked(pathOf(word.isStatic && GLOB.test(word.value) ? staticWord(globBase(word.value)) : word, READ, place.base), tree));
    return;
  }
  push(out, printedTree(place));
}

/**
 * The operands of `git show` and `git diff` that may name a blob: any file git ever stored, under
 * any name (`git hash-object -w .env`, or `git add -f .env && git rm --cached .env`, then `git show
 * ID` printed the ignored .env; git 2.39, bash 5.2). Revisions that can only be commits (`HEAD~1`,
 * ranges, `^{commit}`) and stored paths (`REV:PATH`, read as such) are left out; inspect.ts resolves
 * the rest in the object store (subjects/git-objects.ts) and keeps the read unless each is a
 * commit, a tree or a file on disk (docs/threat-model.md#what-git-prints).
 */
function objectRevisions(words: readonly Word[], place: GitPlace, out: FileFacts, how: 'show' | 'diff' | 'log'): void {
  const show = how === 'show';
  const revisions: string[] = [];
  let unknown = false;
  let operands = 0;
  // `git show TREE` lists names; a diff prints a tree's files: `X^{tree}` is X's tree, so X is
  // resolved (a commit's tree is its files, a tree itself, anything else not known). A commit by
  // its spelling from an id (`C~0`, `C^`) is C's: resolved as C (inspect.ts, a commit by id).
  // `git log -p` prints commits only: the ids among its operands are resolved.
  const commitOf = (end: string): string[] => {
    const base = end.replace(/(?:[~^]\d*|\^\{commit\})+$/, '');
    return objectIdOf(base) !== null ? [base] : [];
  };
  // `git log -p` peels names to commits (a ref's); an id with steps other than a commit's
  // (`C^{}`, `C^{/x}`, `C^-1`: git 2.39 printed C's patch) is not known.
  const loggedIds = (end: string): string[] => {
    const roots = revisionRoot(end);
    if (roots === null) unknown = true;
    return (roots ?? []).filter((root) => objectIdOf(root) !== null);
  };
  const ends = (value: string): string[] =>
    how === 'log' ? revisionEnds(value).flatMap(loggedIds)
    : show ? revisionEnds(value).flatMap((end) => (COMMIT.test(end) ? commitOf(end) : [end]))
    : revisionEnds(value).map((end) => end.replace(/\^\{tree\}$/, '')).flatMap((end) => (COMMIT_ONLY.test(end) ? commitOf(end) : [end]));
  for (const word of words) {
    if (!word.isStatic) unknown = true;
    else if (!word.value.startsWith('-')) {
      operands++;
      if (!STORED_PATH.test(word.value) && !/^\.{0,2}\//.test(word.value)) revisions.push(...ends(word.value));
    }
  }
  // `git show` alone shows HEAD, which may name any object (round 14 review G6).
  if (show && operands === 0) revisions.push('HEAD');
  if (!unknown && revisions.length === 0) return;
  const path = objectsRead(place);
  if (path && !unknown) {
    path.revisions = revisions;
    if (!show) path.treesPrinted = true;
  }
  push(out, path);
}

/**
 * The objects a revision operand names (gitrevisions(7)): both ends of `A..B` and `A...B` (an empty
 * end is HEAD), `A` of `^A`, `A^@`, `A^!`. git 2.39 printed both blobs for `git diff BLOB..BLOB` and
 * `git diff ^BLOB BLOB` (round 14).
 */
function revisionEnds(word: string): string[] {
  return word.replace(/\^[@!]$/, '').replace(/^\^/, '').split(/\.\.\.?/).map((end) => (end === '' ? 'HEAD' : end));
}

/** The whole working tree git prints from, with the files it tracks below it: `--work-tree`'s, or the one git finds (inspect.ts). */
function printedTree(place: GitPlace, head?: TreeRead['head']): CommandPath | null {
  const tree: TreeRead = head === undefined ? TRACKED : { ...TRACKED, head };
  // `--work-tree=D` (with `--git-dir`, or the repository found from the cwd): its index is not D's own.
  if (place.top !== null) return walked(pathOf({ ...place.top, isStatic: false }, READ, place.base), tree);
  const path = walked(pathOf({ ...staticWord('.'), isStatic: !place.elsewhere, raw: '<git working tree>' }, READ, place.base), tree);
  if (path) path.workTree = true;
  return path;
}

interface GitPlace {
  base: string | null;
  top: Word | null;
  elsewhere: boolean;
  /** Pathspecs match in any case: their spelling is not the path. */
  caseless: boolean;
}

/**
 * The writes of what git rewrites in the working tree (git-worktree.ts): each pathspec with what is
 * below it (a glob below its fixed leading directories), or the whole tree from its top, which
 * inspect.ts finds by walking up to `.git`. A pathspec only git can read (magic, an expansion), a
 * top given with `--work-tree`, or git pointed elsewhere make it the whole tree; a pathspec never
 * leaves it. They meet deny and ask rules only (decide.ts GIT_REWRITE).
 */
function rewritten(rewrite: TreeRewrite, place: GitPlace, out: FileFacts): void {
  if (rewrite.anywhere) out.reasons.push(ARCHIVE_EXTRACT);
  // A checkout under new names is a read of what it copies (git-worktree.ts TreeRewrite.copies). So
  // is any checkout into another tree: `git --work-tree=pub/x checkout -f` (`reset --hard`, `stash`,
  // `restore`) wrote the index's files, conf/secret/db.txt among them, below pub/x (git 2.39; round
  // 32 review F32-2): what the repository found from the cwd stored.
  const writes = rewrite.whole || rewrite.pathspecs.length > 0 || rewrite.directories.length > 0 || rewrite.prefixes.length > 0;
  if (place.top !== null && writes) push(out, objectsRead({ ...place, top: null }));
  else if (rewrite.copies) push(out, rewrite.copies === 'objects' ? objectsRead(place) : printedTree(place, rewrite.copies === 'head' ? { branch: rewrite.branch ?? null } : undefined));
  // A patch may rename or copy a file (`rename from`, `copy from`, or `--- a/X` `+++ b/Y`): `git apply`
  // of a 100% rename moved conf/secret/db.txt to pub/leak.txt (git 2.39; F32-2). What it reads is
  // any file of the tree, on disk or in the index.
  if (rewrite.patches) {
    push(out, walked(pathOf({ ...staticWord('.'), isStatic: place.top === null && !place.elsewhere, raw: '<git working tree>' }, READ, place.base), { content: true, follows: false }));
    push(out, printedTree(place));
  }
  for (const directory of rewrite.directories) push(out, planting(pathOf(directory, WRITE, place.base, GIT_REWRITE)));
  for (const prefix of rewrite.prefixes) push(out, planting(workTreeTop(place, prefix)));
  const whole = rewrite.whole || ((place.top !== null || place.elsewhere || place.caseless) && rewrite.pathspecs.length > 0) || rewrite.pathspecs.some((word) => !word.isStatic || word.value.startsWith(':'));
  if (whole) {
    push(out, workTreeTop(place));
    return;
  }
  for (const word of rewrite.pathspecs) {
    const glob = GLOB.test(word.value);
    push(out, rewriting(pathOf(glob ? staticWord(globBase(word.value)) : word, WRITE, place.base, GIT_REWRITE)));
  }
}

/** A path git rewrites with what is below it: the rules below count (decide.ts GIT_REWRITE keeps its `via`). */
function rewriting(path: CommandPath | null): CommandPath | null {
  if (path) path.tree = REMOVED;
  return path;
}

/**
 * A directory git checks files out into under their names in the index or a commit (`worktree add
 * PATH`, `clone URL DIR`, `checkout-index --prefix=P`), not at their place in the working tree:
 * inside a git directory they are its config and hooks (`git checkout-index -a -f --prefix=.git/`
 * replaced .git/config, `git worktree add .git/hooks` planted a hook; git 2.39). inspect.ts asks
 * for such a directory in a git directory (docs/threat-model.md#git-rewrites-tracked-files).
 */
function planting(path: CommandPath | null): CommandPath | null {
  if (path) path.tree = PLANTED;
  return path;
}
const PLANTED: TreeRead = { ...REMOVED, plants: true };

/** The whole working tree as a path, or the directory `below` its top: `--work-tree`'s, or the one git finds from its working directory (inspect.ts). */
function workTreeTop(place: GitPlace, below?: Word): CommandPath | null {
  if (below !== undefined && !below.isStatic) return rewriting(pathOf(below, WRITE, null, GIT_REWRITE));
  const inner = below === undefined || below.value === '.' ? '' : `/${below.value}`;
  if (place.top !== null) return rewriting(pathOf(place.top.isStatic ? { ...place.top, value: `${place.top.value}${inner}` } : place.top, WRITE, place.base, GIT_REWRITE));
  const path = rewriting(pathOf({ ...staticWord('.'), isStatic: !place.elsewhere, raw: '<git working tree>' }, WRITE, place.base, GIT_REWRITE));
  if (path) path.workTree = inner === '' ? true : inner.slice(1);
  return path;
}

/**
 * `GIT_WORK_TREE=D` or `GIT_DIR=D` for one git command (git(1) ENVIRONMENT) move its working tree:
 * what it rewrites there is known only at run time (a pathspec is then read from its top, not the
 * cwd). `GIT_ICASE_PATHSPECS` makes `DATA/SECRET` data/secret: taken the same way.
 */
export function gitEnvironmentTree(assigned: readonly Word[], paths: CommandPath[], cwd: string | null): void {
  // Another repository's objects, or objects from elsewhere, may hold any file: not known.
  if (assigned.some((word) => /^GIT_(WORK_TREE|DIR|OBJECT_DIRECTORY)\+?=/.test(word.value))) {
    for (const path of paths) if (path.via === GIT_OBJECTS) path.isStatic = false;
  }
  // Another repository: the configuration `git config` changes is its own, not known here.
  if (assigned.some((word) => /^GIT_(DIR|COMMON_DIR)\+?=/.test(word.value))) {
    for (const path of paths) if (path.via === GIT_CONFIG_SETTING || path.via === GIT_CONFIG_CODE) path.isStatic = false;
  }
  // Another working tree or index: which files git tracks there is not known (docs/threat-model.md#what-git-prints).
  if (assigned.some((word) => /^GIT_(WORK_TREE|DIR|INDEX_FILE|COMMON_DIR)\+?=/.test(word.value))) {
    for (const path of paths) if (path.tree?.tracked || (path.access === READ && path.workTree !== undefined)) path.isStatic = false;
  }
  if (!assigned.some((word) => /^GIT_(WORK_TREE|DIR|ICASE_PATHSPECS)\+?=/.test(word.value))) return;
  const moved = paths.filter((path) => path.via === GIT_REWRITE);
  if (moved.length === 0) return;
  paths.splice(0, paths.length, ...paths.filter((path) => path.via !== GIT_REWRITE));
  pushPath(paths, workTreeTop({ base: cwd, top: null, elsewhere: true, caseless: false }));
}

/**
 * What a repository's objects may hold, read: every file ever stored from below the working tree,
 * there now or not (decide.ts GIT_OBJECTS). From `--git-dir` or `--work-tree` the objects are
 * another repository's, or not only this tree's: not known.
 */
function objectsRead(place: GitPlace): CommandPath | null {
  const known = place.top === null && !place.elsewhere;
  const path = pathOf({ ...staticWord('.'), isStatic: known, raw: '<files git stored>' }, READ, place.base, GIT_OBJECTS);
  if (path) path.workTree = true;
  return path;
}

const GIT_TYPES = new Set(['blob', 'tree', 'commit', 'tag']);
/** `REV:PATH`: a stored path, read as such (GIT_SHOWS); `:/text` searches commit messages and is any object. */
const STORED_PATH = /^[^:]*:(?!\/)[^:]/;
/**
 * An object that is a commit or a tree by its spelling, whose `-p` prints no file's content: a
 * `~N`/`^N` step (commits only), a `^{commit}` or `^{tree}` peel. A tag may name a blob (`git tag t
 * BLOB; git cat-file -p t` printed it), and so may HEAD or a branch: `git symbolic-ref HEAD
 * refs/tags/t` (or `refs/heads/b`) is allowed by git, then `git show HEAD` printed the blob (round 14
 * review G6); they are resolved in the store like any name (git-objects.ts).
 */
const COMMIT = /^[^:]+([~^]\d*|\^\{(commit|tree)\})$/;
/** What can only be a commit by its spelling (`X^{tree}` is a tree: X's, whatever X is). */
const COMMIT_ONLY = /^[^:]+([~^]\d*|\^\{commit\})$/;
/** What `cat-file` took for a commit by its spelling before round 14; it is resolved instead. */
const HEAD_LIKE = /^(HEAD|@|refs\/heads\/[^:]+)$/;

/**
 * Subcommands that print or export objects named by id or revision, so any file ever stored (git
 * 2.39, bash 5.2: after `git add -f .env && git rm -q --cached .env`, `git cat-file -p ID`, `git
 * cat-file --batch`, `git archive REV | tar xO .env`, `git bundle create`, `git fast-export`, `git
 * unpack-file ID` (a `.merge_file_XXXXXX` at the top) and `git stash show -p --include-untracked`
 * printed it). `cat-file -t`/`-s`/`-e` and `--batch-check` print no content; `cat-file REV:PATH`
 * is that path read (GIT_SHOWS). `git show`, `diff`, `log -p`, `grep` are files.ts GIT_SHOWS'.
 */
function printsObjects(sub: string, args: readonly Word[]): boolean | string[] {
  if (sub === 'cat-file') {
    const scan = scanOptions(args, 0, { long: ['path'] });
    const batch = hasOption(scan, '--batch', '--batch-command');
    if (!batch && (hasOption(scan, '-t', '-s', '-e') || hasOption(scan, '--batch-check'))) return false;
    let operands = scan.operands.map((i) => args[i]!);
    if (operands.length === 2 && operands[0]!.isStatic && GIT_TYPES.has(operands[0]!.value)) operands = operands.slice(1);
    if (batch || operands.length === 0 || operands.some((word) => !word.isStatic || !(STORED_PATH.test(word.value) || COMMIT.test(word.value) || HEAD_LIKE.test(word.value)))) return true;
    // HEAD and branches must be resolved: a symbolic ref may name a tag of a blob (round 14 review G6).
    const revisions = operands.map((word) => word.value).filter((value) => HEAD_LIKE.test(value));
    return revisions.length > 0 && revisions;
  }
  if (sub === 'archive') return !args.some((word) => !word.isStatic || /^--(r|re|rem|remo|remot|remote)(=|$)|^-l$|^--list$/.test(word.value));
  if (sub === 'bundle') return args.some((word) => !word.isStatic || word.value === 'create');
  // `stash show` prints a patch with `-p` or `stash.showPatch` (a setting the text may not show; `-u`
  // adds the untracked files): only its stat forms print no content. `stash list` takes log's `-p`.
  if (sub === 'stash') {
    if (args[0] !== undefined && !args[0].isStatic) return true;
    if (args[0]?.value === 'list') return args.length > 1;
    if (args[0]?.value !== 'show') return false;
    const scan = scanOptions(args, 1, {});
    return hasOption(scan, '-p', '--patch') || !hasOptionAsSpelled(scan, '--stat', '--numstat', '--shortstat', '--name-only', '--name-status');
  }
  // fsck `--lost-found` writes dangling blobs into .git/lost-found/other/ as files; merge-tree prints merged content.
  if (sub === 'fsck') return hasOption(scanOptions(args, 0, {}), '--lost-found');
  return sub === 'fast-export' || sub === 'unpack-file' || sub === 'merge-tree';
}

/**
 * Subcommands that store files in the index or the objects, where the object printers above reach
 * them: a read of each (git 2.39: `git add -f .env` and `git update-index --add .env` stored an
 * ignored .env for `git cat-file -p`; `git stash -a` stored it in the stash). `add` without
 * `-f`/`--force` and `stash -u` take what git does not ignore below each pathspec (the whole tree
 * for `add -A` without one): `git add -N . && git diff` printed an untracked .env no ignore rule
 * named (round 13 review, A2). docs/threat-model.md#what-git-stores
 */
function gitStores(sub: string, args: readonly Word[], place: GitPlace, out: FileFacts): void {
  const stores = GIT_STORES[sub];
  if (!stores) return;
  const start = sub === 'stash' ? (args[0]?.isStatic && ['push', 'save'].includes(args[0].value) ? 1 : args[0] === undefined || args[0].value.startsWith('-') ? 0 : -1) : 0;
  if (start === -1) return;
  const scan = scanOptions(args, start, stores.spec);
  const operands = sub === 'stash' && args[0]?.value === 'save' ? [] : scan.operands.map((i) => args[i]!);
  const fromFile = optionValues(scan, '--pathspec-from-file').map(unknownWord);
  const all = stores.all(scan);
  // `add -u` stages the files git tracks only; `stash` without `-u`/`-a` stores no file of the tree.
  const untracked = sub === 'stash' ? hasOption(scan, '-u', '--include-untracked') : sub === 'add' && !(hasOption(scan, '-u', '--update') && !hasOption(scan, '-A', '--all', '--no-ignore-removal'));
  if (sub === 'stash' && !all && !untracked) return;
  if (!all && !untracked) {
    for (const word of [...fromFile, ...operands]) push(out, pathOf(word, READ, place.base));
    return;
  }
  const tree: TreeRead = all ? { content: true, follows: false } : { content: true, follows: false, unignored: true };
  for (const word of [...fromFile, ...operands]) {
    if (word.isStatic && word.value.startsWith(':')) push(out, pathOf(unknownWord(word), READ, place.base));
    else push(out, walked(pathOf(word.isStatic && GLOB.test(word.value) ? staticWord(globBase(word.value)) : word, READ, place.base), tree));
  }
  // `git add -A`, `git add -A -f`, `git stash -u`/`-a` without a pathspec: every file of the working
  // tree git does not ignore (with `-f`/`-a`, ignored ones too).
  if (operands.length + fromFile.length === 0 && (sub === 'stash' || hasOption(scan, '-A', '--all', '--no-ignore-removal') || (all && hasOption(scan, '-u', '--update')))) {
    const top = pathOf({ ...staticWord('.'), isStatic: place.top === null && !place.elsewhere, raw: '<git working tree>' }, READ, place.base);
    if (top) top.workTree = true;
    push(out, walked(top, tree));
  }
}

const GIT_STORES: Record<string, { spec: OptionSpec; all: (scan: ScanResult) => boolean }> = {
  add: { spec: { long: ['chmod', 'pathspec-from-file'] }, all: (scan) => hasOption(scan, '-f', '--force') },
  'update-index': { spec: { long: ['chmod', 'cacheinfo'] }, all: () => false },
  stash: { spec: { short: 'm', long: ['message', 'pathspec-from-file'] }, all: (scan) => hasOption(scan, '-a', '--all') },
};

/** `git mv [-f] [-k] [-n] SOURCE… DESTINATION` (git-mv(1)): as `mv`; `-n`/`--dry-run` moves nothing. */
function gitMove(args: readonly Word[], base: string | null, out: FileFacts): void {
  const scan = scanOptions(args, 0, {});
  if (!scan.options.some((o) => o.name === '-n' || (o.name.length > 3 && '--dry-run'.startsWith(o.name)))) simple({ access: WRITE, tree: () => MOVED, moves: true })(args, base, out);
}

/** `git merge-file [-p|--stdout] [-L name]… CURRENT BASE OTHER` (git-merge-file(1)): CURRENT is written unless `-p`. */
function gitMergeFile(args: readonly Word[], base: string | null, out: FileFacts): void {
  const scan = scanOptions(args, 0, { short: 'L', long: ['marker-size'] });
  // All three are read, and the merge printed with `-p` (`merge-file -p ~/.ssh/id_rsa /dev/null /dev/null`).
  for (const i of scan.operands.slice(0, 3)) push(out, pathOf(args[i]!, READ, base));
  const current = scan.operands[0];
  if (current !== undefined && !scan.options.some((o) => o.name === '-p' || o.name === '--stdout')) push(out, pathOf(args[current]!, WRITE, base));
}

/** `git stash` subcommands that take no file away from the working tree. */
const GIT_STASH_KEEPS = new Set(['list', 'show', 'pop', 'apply', 'drop', 'branch', 'clear', 'create', 'store']);

/**
 * `git stash [push|save] -u|--include-untracked|-a|--all [--] [PATHSPEC…]` stashes the untracked
 * files (with `-a` the ignored ones too) and removes them from the working tree (git-stash(1)):
 * below each pathspec, or in the whole working tree, whose top is not looked up, so it asks while
 * deny rules exist. git takes prefixes (`--inc`, `--a`) and the last of `-u`, `-a`,
 * `--no-include-untracked`, `--no-all` wins; a word known only at run time may be any of them.
 * `save` takes a message, not pathspecs. Without `-u`/`-a` only tracked changes are stashed.
 */
function gitStash(args: readonly Word[], base: string | null, out: FileFacts): void {
  const first = args[0];
  if (first?.isStatic && GIT_STASH_KEEPS.has(first.value)) return;
  const named = first?.isStatic && (first.value === 'push' || first.value === 'save');
  const scan = scanOptions(args, named ? 1 : 0, { short: 'm', long: ['message', 'pathspec-from-file'] });
  let untracked = false;
  for (const { name } of scan.options) {
    const long = (option: string, shortest: number): boolean => name.length >= shortest && option.startsWith(name);
    if (name === '-u' || name === '-a' || long('--include-untracked', 3) || long('--all', 3)) untracked = true;
    if (long('--no-include-untracked', 6) || long('--no-all', 6)) untracked = false;
  }
  const unknown = scan.operands.some((i) => !args[i]!.isStatic);
  if (!untracked && !unknown) return;
  const pathspecs = first?.value === 'save' ? [] : scan.operands.map((i) => args[i]!);
  const fromFile = optionValues(scan, '--pathspec-from-file').map(unknownWord);
  if (unknown || pathspecs.length + fromFile.length === 0) pathspecRemoved(unknownWord(staticWord(':/')), true, base, out);
  for (const word of [...fromFile, ...pathspecs]) pathspecRemoved(word, true, base, out);
}

/**
 * What git removes for a pathspec: a glob matches below its fixed leading directories; one with
 * magic (`:/`, `:(top)`) or read from a file is known only to git, so it asks.
 */
function pathspecRemoved(word: Word, recursive: boolean, base: string | null, out: FileFacts): void {
  if (word.isStatic && word.value.startsWith(':')) word = unknownWord(word);
  else if (word.isStatic && GLOB.test(word.value)) [word, recursive] = [staticWord(globBase(word.value)), true];
  push(out, recursive ? walked(pathOf(word, WRITE, base), REMOVED) : pathOf(word, WRITE, base));
}

const unknownWord = (word: Word): Word => ({ ...word, isStatic: false });

/**
 * What makes a pathspec a glob for git's wildmatch: `*`, `?`, `[`, and `\`, which escapes the next
 * character (`data/secre\t` is data/secret, `data\/secret` too: docs/threat-model.md#git-rewrites-tracked-files).
 */
const GLOB = /[*?[\\]/;

/**
 * The directory a git glob pathspec matches below: up to the last `/` before its first wildcard
 * (`../sec*` → `..`; a git `*` also matches `/`, so nothing narrower), the working directory when
 * the wildcard is in the first component.
 */
function globBase(pathspec: string): string {
  const fixed = pathspec.slice(0, pathspec.search(GLOB));
  const slash = fixed.lastIndexOf('/');
  return slash === -1 ? '.' : slash === 0 ? '/' : fixed.slice(0, slash);
}

/**
 * git-maintenance(1) `start` and `register` add the repository to `maintenance.repo` and (start)
 * have cron or systemd run `git maintenance run` there every hour, outside any call: git then runs
 * what the repository's configuration names, which no later call is decided for. `--config-file F`
 * is the file written.
 */
function gitMaintenance(args: readonly Word[], base: string | null, out: FileFacts): void {
  const scan = scanOptions(args, 0, { long: ['config-file', 'scheduler', 'task', 'schedule'] });
  for (const file of optionValues(scan, '--config-file')) push(out, pathOf(file, WRITE, base));
  const verb = args[scan.operands[0]!];
  if (verb === undefined || !verb.isStatic || ['start', 'register'].includes(verb.value)) out.reasons.push('executor');
}

/**
 * `git config [--file F|--global|…] KEY VALUE`, `git config set KEY VALUE`, `--edit`: writing a code
 * key is code, and a change is a write of the file changed (docs/rules.md "git's configuration").
 * `elsewhere`: git is pointed at its repository by `--git-dir` (known only at run time here).
 */
function gitConfig(args: readonly Word[], base: string | null, out: FileFacts, elsewhere: boolean): void {
  // `-t TYPE` takes a value as `--type` does (`git config -t path core.pager /tmp/x` set the pager: round 28).
  const scan = scanOptions(args, 0, { short: 'ft', long: ['file', 'blob', 'type', 'default', 'comment', 'value'] });
  for (const file of optionValues(scan, '-f', '--file')) push(out, pathOf(file, WRITE, base));
  const planted = out.reasons.length + out.nested.length;
  if (hasOption(scan, '-e', '--edit')) out.reasons.push('interpreter');
  let operands = scan.operands.map((i) => args[i]!);
  if (operands[0]?.isStatic && ['set', 'edit'].includes(operands[0].value)) {
    if (operands[0].value === 'edit') out.reasons.push('interpreter');
    operands = operands.slice(1);
  }
  // `git config foo.fsmonitor CMD && git config --rename-section foo core` made CMD core.fsmonitor,
  // run by the next `git status` (git 2.39, round 12): the keys renamed are not known here.
  if (hasOption(scan, '--rename-section') || operands[0]?.value === 'rename-section') out.reasons.push('interpreter');
  const reading = hasOptionAsSpelled(scan, '--get', '--get-all', '--get-regexp', '--get-urlmatch', '-l', '--list', '--unset', '--unset-all', '--remove-section', '--rename-section');
  if (!reading && operands.length >= 2) gitSetting(operands[0]!.isStatic ? operands[0]!.value : null, operands[1]!, base, out);
  const plants = out.reasons.length + out.nested.length > planted;
  // A change is a write of the file changed (git-config(1) FILES), so Edit deny and ask rules meet
  // it: `--global` settings `~/.gitconfig` and `~/.config/git/config`, `--system` `/etc/gitconfig`
  // (`git config --global url.X.insteadOf Y` redirected every later fetch, git 2.39; round 27
  // R27-14), the repository's own otherwise (round 28). git takes any unambiguous prefix of a long
  // option (`--glob` wrote ~/.gitconfig, git 2.39).
  const action = args[scan.operands[0]!];
  const subcommand = action?.isStatic && ['set', 'unset', 'rename-section', 'remove-section', 'edit'].includes(action.value);
  const changes = hasOptionAsSpelled(scan, '--unset', '--unset-all', '--remove-section', '--rename-section', '--replace-all', '--add', '-e', '--edit') || subcommand || (!hasOptionAsSpelled(scan, '--get', '--get-all', '--get-regexp', '--get-urlmatch', '--get-color', '--get-colorbool', '-l', '--list') && !(action?.isStatic && ['get', 'list'].includes(action.value)) && operands.length >= 2);
  if (!changes) return;
  const global = hasOption(scan, '--global');
  const system = hasOption(scan, '--system');
  const files = [...(global ? ['~/.gitconfig', '~/.config/git/config'] : []), ...(system ? ['/etc/gitconfig'] : [])];
  for (const file of files) push(out, pathOf(staticWord(file), WRITE, base));
  if (global || system || hasOption(scan, '-f', '--file', '--blob')) return;
  // The repository's own config (`--local`, the default for a change; `--worktree`), found on disk
  // (inspect.ts): a setting that runs nothing is git's update of its repository (decide.ts
  // GIT_CONFIG_SETTING), one that runs code or redirects a URL a plain write of it (GIT_CONFIG_CODE).
  out.paths.push({ path: hasOption(scan, '--worktree') ? 'config.worktree' : 'config', access: WRITE, base, isStatic: !elsewhere, via: plants ? GIT_CONFIG_CODE : GIT_CONFIG_SETTING });
}

const isRemote = (word: Word): boolean => word.isStatic && (/^[^/]*:/.test(word.value) || word.value.startsWith('rsync://'));

/**
 * `rsync`/`scp SRC… DEST`: local sources read (walked when recursive), a local destination written, `host:path` skipped.
 * `removes` says which of them the copy removes from (rsync's `--remove-source-files`, `--delete`).
 */
function copier(spec: OptionSpec & { reads: string[]; writes?: string[]; programs: string[]; tree: (scan: ScanResult) => TreeRead | null; removes?: (scan: ScanResult) => { sources: boolean; destination: boolean }; rsync?: true }): Handler {
  return (args, cwd, out) => {
    const scan = scanOptions(args, 0, spec);
    addOptionPaths(scan, spec, cwd, out);
    if (spec.rsync) for (const program of optionValues(scan, '-e', '--rsh')) runProgram(program, cwd, out, rsyncShellWords);
    if (spec.rsync) for (const rule of optionValues(scan, '-f', '--filter')) rsyncMergeFile(rule, cwd, out);
    // rsync(1) `--rsync-path=PROGRAM` "is run with the help of a shell" on the remote host (`ssh h
    // 'PROGRAM --server …'`): a remote command, read as `ssh h CMD`'s is (round 27 R27-9), also
    // passed as `-M--rsync-path=…`/`--remote-option=…`.
    if (spec.rsync) {
      const remote = optionValues(scan, '-M', '--remote-option').map((w) => (w.isStatic && w.value.startsWith('--rsync-path=') ? { ...w, value: w.value.slice('--rsync-path='.length) } : w.isStatic ? null : w));
      for (const program of [...optionValues(scan, '--rsync-path'), ...remote]) {
        if (program === null) continue;
        out.reasons.push('remote-command');
        if (program.isStatic) out.nested.push({ kind: 'script', text: program.value, cwd: null });
        else out.reasons.push('interpreter');
      }
    }
    // rsync(1) `--write-batch=FILE`/`--only-write-batch=FILE` write FILE and FILE.sh (round 10 review).
    if (spec.rsync) for (const batch of optionValues(scan, '--write-batch', '--only-write-batch')) push(out, pathOf({ ...batch, value: `${batch.value}.sh`, raw: `${batch.raw}.sh` }, WRITE, cwd));
    // rsync(1) `--files-from=FILE`: the files named in FILE (below the source, `..` taken out) go
    // below the destination, with their path (`-R` implied): a copy of a tree known only at run time.
    const listed = spec.rsync === true && hasOption(scan, '--files-from');
    const tree = spec.tree(scan) ?? (listed ? { content: true, follows: false } : null);
    const removes = spec.removes?.(scan) ?? { sources: false, destination: false };
    const operands = scan.operands.map((i) => args[i]!);
    const destination = operands.length > 1 ? operands.at(-1)! : null;
    // A relative DIR of rsync's `--link-dest=DIR` and `--backup-dir=DIR` is relative to the destination directory (rsync(1)).
    const fromDestination = (dir: Word): Word => (!dir.isStatic || dir.value.startsWith('/') ? dir : destination?.isStatic && !isRemote(destination) ? staticWord(`${destination.value}/${dir.value}`) : { ...dir, isStatic: false });
    // rsync's `--link-dest=DIR` hard-links the destination's unchanged files to DIR's: a later write
    // of the copy writes DIR's files, so DIR is written as a tree (as `ln` writes a hard link's target).
    // Its files get a second name there, read as well as written (F31-3).
    if (spec.rsync) for (const dir of optionValues(scan, '--link-dest')) push(out, walked(pathOf(fromDestination(dir), WRITE, cwd), LINKED));
    // `--copy-dest=DIR` copies DIR's unchanged files into the destination: a read of them (rsync(1)).
    if (spec.rsync) for (const dir of optionValues(scan, '--copy-dest')) push(out, walked(pathOf(fromDestination(dir), READ, cwd), { content: true, follows: false }));
    operands.forEach((word, n) => {
      if (isRemote(word)) return;
      if (n === operands.length - 1 && n > 0) {
        const sources = operands.slice(0, -1).map((source) => (isRemote(source) ? { ...source, value: source.value.replace(/^[^/]*:/, '') } : source)); // host:dir/f → dir/f
        const placed = spec.rsync ? rsyncPlacement(scan) : LAST_NAME;
        // A remote source's content is not known here (`rsync -a host:evil/ .`).
        const remote = new Set(operands.slice(0, -1).filter(isRemote).map((source) => sources[operands.indexOf(source)]!));
        const names = [word, ...intoDirectory(sources, word, tree, cwd, out, placed, (source) => (remote.has(source) ? null : staticSource(source)))];
        if (spec.rsync) rsyncBackups(scan, names, fromDestination, (dir) => intoDirectory(sources, dir, tree, cwd, out, placed), cwd, out);
        // The destination last of the writes, as for cp and mv: inspect.ts and links-made.ts take it from there.
        push(out, removes.destination || listed ? walked(pathOf(word, WRITE, cwd), REMOVED) : pathOf(word, WRITE, cwd));
        return;
      }
      push(out, tree ? walked(pathOf(word, READ, cwd), tree) : pathOf(word, READ, cwd));
      if (removes.sources) push(out, tree ? walked(pathOf(word, WRITE, cwd), REMOVED) : pathOf(word, WRITE, cwd));
    });
    if (removes.sources) removedAsRm(operands.slice(0, -1).filter((word) => !isRemote(word)), tree !== null, cwd, out);
  };
}

/**
 * Where rsync(1) puts a source: its content in DEST for `src/`, DEST/NAME otherwise; with
 * `-R`/`--relative` (implied by `--files-from`, undone by `--no-relative`/`--no-R`, the last wins) its
 * whole path from a `/./` in it, else without a leading `/` (`rsync -R data/t ..` writes ../data/t).
 */
function rsyncPlacement(scan: ScanResult): Placement {
  let relative = hasOption(scan, '--files-from');
  for (const { name } of scan.options) {
    if (name === '-R' || name === '--relative') relative = true;
    if (name === '--no-relative' || name === '--no-R') relative = false;
  }
  if (!relative) return (source) => (source.endsWith('/') ? '' : LAST_NAME(source));
  return (source) => {
    const at = source.indexOf('/./');
    return WHOLE_PATH(at === -1 ? source.replace(/^(\.\/)+/, '') : source.slice(at + 3));
  };
}

/**
 * rsync(1) `-b`/`--backup` renames each file it replaces to FILE~ (`--suffix=S`: FILE and S), or with
 * `--backup-dir=DIR` (which implies `-b`) moves it to DIR (relative to the destination) under its
 * path there, its suffix then empty unless given (`rsync --backup-dir=../../data t d/` replaced data/t).
 * `--suffix` alone makes no backup.
 */
function rsyncBackups(scan: ScanResult, replaced: readonly Word[], fromDestination: (dir: Word) => Word, into: (dir: Word) => Word[], cwd: string | null, out: FileFacts): void {
  if (!hasOption(scan, '-b', '--backup', '--backup-dir')) return;
  const given = optionValues(scan, '--backup-dir').at(-1);
  const suffix = optionValues(scan, '--suffix').at(-1) ?? staticWord(given ? '' : '~');
  if (given === undefined) {
    backupsNamed(replaced, suffix, cwd, out);
    return;
  }
  const dir = fromDestination(given);
  push(out, walked(pathOf(dir, WRITE, cwd), REMOVED));
  const moved = into(dir);
  if (!suffix.isStatic || suffix.value !== '') backupsNamed(moved, suffix, cwd, out);
}

/**
 * rsync(1) FILTER RULES: `merge FILE`, `. FILE`, `dir-merge FILE`, `: FILE` (modifiers after a comma,
 * or after `.`/`:` directly; `_` for the space) read FILE (round 10 review: `rsync -f '. FILE'` opened
 * FILE under rsync 3.5); a dir-merge file is also looked for in each directory copied, already read as
 * the source's tree. A rule known only at run time may be one.
 */
function rsyncMergeFile(rule: Word, cwd: string | null, out: FileFacts): void {
  if (!rule.isStatic) {
    push(out, pathOf(unknownWord({ ...rule, raw: `<file merged by rsync filter ${rule.raw}>` }), READ, cwd));
    return;
  }
  const file = /^(?:(?:merge|dir-merge)(?:,[^ _]*)?|[.:][^ _]*)[ _](.+)$/.exec(rule.value)?.[1];
  if (file !== undefined) push(out, pathOf(staticWord(file), READ, cwd));
}

const RSYNC_LONG = ['config', 'dparam', 'rsh', 'filter', 'exclude', 'include', 'exclude-from', 'include-from', 'files-from', 'log-file', 'password-file', 'rsync-path', 'temp-dir', 'compare-dest', 'copy-dest', 'link-dest', 'backup-dir', 'suffix', 'chmod', 'chown', 'block-size', 'max-size', 'min-size', 'partial-dir', 'timeout', 'contimeout', 'port', 'sockopts', 'out-format', 'log-file-format', 'bwlimit', 'info', 'debug', 'usermap', 'groupmap', 'remote-option', 'skip-compress', 'iconv', 'checksum-choice', 'compress-choice', 'compress-level', 'modify-window', 'max-delete', 'outbuf', 'write-batch', 'read-batch', 'only-write-batch', 'stop-after', 'stop-at', 'protocol', 'address', 'early-input'];

/**
 * The reason for programs that write the paths an archive or a patch names (`tar -x`, `unzip`,
 * `cpio -i`/`-p`, `7z x`, `ar x`, `patch`): the command does not show them, and one may be a file
 * git runs code from (`.git/hooks/post-checkout`, a bare repository's config) or any other file.
 */
const ARCHIVE_EXTRACT = 'archive-extract';

/** `unzip [-opts] ZIP [members] [-d DIR]`: extracts unless it lists (-l -t -v -z -Z) or prints (-p -c). */
const unzip: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, { short: 'dxPI', long: [] });
  if (!hasOption(scan, '-l', '-t', '-v', '-z', '-Z', '-p', '-c')) out.reasons.push(ARCHIVE_EXTRACT);
  const archive = scan.operands[0];
  if (archive !== undefined) push(out, pathOf(args[archive]!, READ, cwd));
  for (const dir of optionValues(scan, '-d')) push(out, pathOf(dir, WRITE, cwd));
};

/** `cpio -i` (extract, unless `-t` lists) and `cpio -p` (copy the files named on stdin) write paths the input names. */
const cpio: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, { short: 'EFHIMOCRD', long: ['file', 'pattern-file', 'format', 'io-size', 'message', 'owner', 'directory', 'rsh-command', 'block-size'] });
  if ((hasOption(scan, '-i', '--extract') && !hasOptionAsSpelled(scan, '-t', '--list')) || hasOption(scan, '-p', '--pass-through')) out.reasons.push(ARCHIVE_EXTRACT);
  for (const program of optionValues(scan, '--rsh-command')) runProgram(program, cwd, out);
  // `-F`/`--file`/`-O` name the archive, written by `-o` (bash 5.2, GNU cpio 2.13: `echo f | cpio -o
  // -F data/t` replaced data/t), read otherwise; `-I` and `-E`/`--pattern-file` name files read.
  const creates = hasOption(scan, '-o', '--create');
  for (const archive of optionValues(scan, '-F', '--file', '-O')) push(out, pathOf(archive, creates ? WRITE : READ, cwd));
  // `-o` stores the files named on stdin (`echo ~/.ssh/id_rsa | cpio -o > k.cpio`, round 12): known only at run time.
  if (creates) push(out, pathOf({ ...staticWord('<cpio -o input>'), isStatic: false }, READ, cwd));
  for (const file of optionValues(scan, '-I', '-E', '--pattern-file')) push(out, pathOf(file, READ, cwd));
};

/**
 * GNU ar (binutils): `ar [-]OPERATION[MODIFIERS] [--output DIR] [RELPOS] [COUNT] ARCHIVE [MEMBER…]`.
 * `d`, `m`, `q`, `r`, `s` rewrite ARCHIVE, `q` and `r` read the files named (bash 5.2: `ar q x.a
 * ~/.ssh/id_rsa && ar p x.a` printed the key), `p` and `t` read ARCHIVE, `x` writes the members
 * (`archive-extract`). Modifiers `a`, `b`, `i` take RELPOS, `N` a COUNT. An `@FILE` word holds
 * more arguments, known only at run time.
 */
const ar: Handler = (args, cwd, out) => {
  const words: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word.isStatic && /^--(plugin|target|output)$/.test(word.value)) {
      if (word.value === '--output' && args[i + 1]) push(out, pathOf(args[i + 1]!, WRITE, cwd));
      i++;
    } else if (word.isStatic && word.value.startsWith('--output=')) push(out, pathOf(staticWord(word.value.slice(9)), WRITE, cwd));
    else if (!(word.isStatic && word.value.startsWith('--'))) words.push(word);
  }
  if (words.some((word) => !word.isStatic || word.value.startsWith('@'))) push(out, pathOf(unknownWord(staticWord('<ar arguments known at run time>')), WRITE, cwd));
  const [key, ...rest] = words;
  if (key === undefined || !key.isStatic) {
    out.reasons.push(ARCHIVE_EXTRACT);
    return;
  }
  const letters = key.value.replace(/^-/, '');
  const operation = /[dmpqrtx]/.exec(letters)?.[0] ?? (letters.includes('s') ? 's' : null);
  const skipped = (/[abi]/.test(letters) ? 1 : 0) + (letters.includes('N') ? 1 : 0);
  const [archive, ...members] = rest.slice(skipped);
  if (operation === 'x' || operation === null) out.reasons.push(ARCHIVE_EXTRACT);
  if (archive) push(out, pathOf(archive, operation !== null && 'dmqrs'.includes(operation) ? WRITE : READ, cwd));
  if (operation === 'q' || operation === 'r') for (const member of members) push(out, pathOf(member, READ, cwd));
};

/**
 * pax(1) (POSIX): list (neither `-r` nor `-w`: reads the archive), `-r` extracts (`archive-extract`),
 * `-w` writes the archive (`-f FILE`, stdout otherwise) reading each operand with what is below it,
 * `-rw` copies the operands below the last one, a directory (a tree write, as `cp -r`; with `-l` hard
 * links, which alias the sources). `-s` and `-i` rename what is written: known only at run time.
 * Names from stdin (no operand) are not modelled, as xargs' are not. bash 5.2, pax 20201030: `pax -w
 * -fdata/t src` replaced data/t, `pax -rw src data` wrote data/src/a.
 */
const pax: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, { short: 'bfopsxGTU' });
  const reads = hasOption(scan, '-r');
  const writes = hasOption(scan, '-w');
  const operands = scan.operands.map((i) => args[i]!);
  const tree = { content: true, follows: hasOption(scan, '-L') };
  for (const archive of optionValues(scan, '-f')) push(out, pathOf(archive, writes && !reads ? WRITE : READ, cwd));
  if (reads && !writes) out.reasons.push(ARCHIVE_EXTRACT);
  if (!writes) return;
  const sources = reads ? operands.slice(0, -1) : operands;
  for (const source of sources) {
    push(out, walked(pathOf(source, READ, cwd), tree));
    if (reads && hasOption(scan, '-l')) push(out, walked(pathOf(source, WRITE, cwd), REMOVED));
  }
  const destination = reads ? operands.at(-1) : undefined;
  if (destination) push(out, walked(pathOf(destination, WRITE, cwd), REMOVED));
  if (reads && hasOption(scan, '-s', '-i')) push(out, pathOf(unknownWord(staticWord('<name pax -s or -i gives>')), WRITE, cwd));
};

/**
 * 7-Zip (`7z`, `7za`, `7zz`; 7-Zip's "Command Line Syntax"): `7z COMMAND [SWITCH…] ARCHIVE [FILE…]
 * [@LIST]`, switches anywhere before `--`, in any case, their values attached (`-o{dir}`, `-tzip`).
 * `a`/`u` write ARCHIVE and read each FILE with what is below it (none: the working directory; `-l`
 * follows links); `-sdel` removes them after, so they are removals as `rm -r` (bash 5.2, 7-Zip 26:
 * `7z a -sdel a.7z data` removed data); a 7-Zip wildcard counts from its fixed leading directories,
 * with `-r` a name from its own directory, `-i!NAME` is a file as an operand is, and files named by
 * `@LIST` or `-i@LIST` are known only at run time. `-u…!NAME` writes a new archive NAME, `-v{size}` volumes
 * ARCHIVE.001…. `d`, `rn` rewrite ARCHIVE; `x`, `e` write the members (`archive-extract`, `-o{dir}`).
 */
const sevenZip: Handler = (args, cwd, out) => {
  const switches: string[] = [];
  const words: Word[] = [];
  let ended = false;
  for (const word of args) {
    if (!ended && word.isStatic && word.value === '--') ended = true;
    else if (!ended && word.isStatic && word.value.length > 1 && word.value.startsWith('-')) switches.push(word.value);
    else words.push(word);
  }
  const has = (pattern: RegExp): boolean => switches.some((value) => pattern.test(value));
  // `-an`: no archive name, every word after the command is a file (`7z a -an -tzip -sdel data`
  // wrote ./.zip and removed data under bash 5.2, 7-Zip 26); `-ai…`/`-ax…` name the archives.
  const noName = has(/^-an$/i);
  const [command, ...rest] = words;
  const archive = noName ? undefined : rest[0];
  const operands = noName ? rest : rest.slice(1);
  const letter = command?.isStatic ? command.value.toLowerCase() : null;
  if (letter === null || letter === 'x' || letter === 'e') out.reasons.push(ARCHIVE_EXTRACT);
  for (const value of switches) if (/^-o./i.test(value)) push(out, pathOf(staticWord(value.slice(2)), WRITE, cwd));
  const updates = letter !== null && ['a', 'u', 'd', 'rn'].includes(letter);
  if (archive) push(out, pathOf(archive, updates ? WRITE : READ, cwd));
  for (const value of switches) {
    const archives = SEVEN_ZIP_NAMES.exec(value);
    if (archives?.[1]?.toLowerCase() !== 'ai') continue;
    if (archives[2] === '!') push(out, pathOf(staticWord(archives[3]!), READ, cwd));
    else sevenZipList(archives[3]!, cwd, out);
  }
  // `-w{DIR}`: the new archive is made in DIR under a temporary name, then moved.
  for (const value of switches) if (/^-w./i.test(value)) push(out, pathOf(unknownWord(staticWord(`${value.slice(2).replace(/\/+$/, '')}/<7z temporary file>`)), WRITE, cwd));
  if (letter !== 'a' && letter !== 'u') return;
  // `7z a NAME` without an extension writes NAME.7z (`-tzip`: NAME.zip, …), `-an` ./.7z (bash 5.2, 7-Zip 26).
  const type = switches.filter((value) => /^-t/i.test(value)).at(-1)?.slice(2).toLowerCase() ?? '7z';
  const extension = SEVEN_ZIP_TYPES.get(type);
  const named = archive === undefined ? staticWord('') : archive.isStatic && !posix.basename(archive.value).includes('.') ? archive : null;
  if (named !== null) push(out, pathOf(extension === undefined ? unknownWord({ ...named, raw: `${named.raw}.<type ${type}>` }) : staticWord(`${named.value}${extension}`), WRITE, cwd));
  if (archive && has(/^-v\d/i)) push(out, pathOf(unknownWord({ ...archive, raw: `${archive.raw}.<volume>` }), WRITE, cwd));
  for (const value of switches) if (/^-u[^!]*!./i.test(value)) push(out, pathOf(staticWord(value.slice(value.indexOf('!') + 1)), WRITE, cwd));
  const removes = has(/^-sdel$/i);
  const tree = { content: true, follows: has(/^-l$/i) };
  // `-r` searches every directory below for each name, `-r0` only for wildcards, `-r-` for none (the last wins).
  const recursion = switches.filter((value) => /^-r[-0]?$/i.test(value)).at(-1)?.slice(2) ?? '-';
  const files: Array<[word: Word, recursion: string]> = operands.filter((word) => !(word.isStatic && word.value.startsWith('@'))).map((word) => [word, recursion]);
  const lists = operands.filter((word) => word.isStatic && word.value.startsWith('@')).map((word) => word.value.slice(1));
  // `-i[r[-|0]][m[-|2]][w[-]]!NAME` names a file as an operand does (every modifier form read the key
  // under bash 5.2, 7-Zip 26), `-i…@LIST` a list file (`-x` only leaves files out).
  for (const value of switches) {
    const include = SEVEN_ZIP_NAMES.exec(value);
    if (include?.[1]?.toLowerCase() !== 'i') continue;
    const recurses = /^-ir([-0]?)/i.exec(value);
    if (include[2] === '!') files.push([staticWord(include[3]!), recurses === null ? recursion : recurses[1]!]);
    else lists.push(include[3]!);
  }
  for (const list of lists) sevenZipList(list, cwd, out);
  if (files.length === 0 && lists.length === 0) files.push([staticWord('.'), '-']);
  const removed: Word[] = [];
  for (const [file, recurses] of files) {
    // A 7-Zip wildcard matches below its fixed leading directories; with `-r` a name is looked for in
    // every directory below its own (`cd ~ && 7z a -r k.7z id_rsa` stored .ssh/id_rsa).
    const wildcard = file.isStatic && /[*?]/.test(file.value);
    const word = !file.isStatic ? file : wildcard ? staticWord(globBase(file.value)) : recurses === '' ? staticWord(posix.dirname(file.value)) : file;
    push(out, walked(pathOf(word, READ, cwd), tree));
    if (removes) push(out, walked(pathOf(word, WRITE, cwd), REMOVED));
    removed.push(word);
  }
  if (removes && lists.length > 0) push(out, pathOf(unknownWord(staticWord('<files 7z is given at run time>')), WRITE, cwd));
  if (removes) removedAsRm([...removed, ...(lists.length > 0 ? [unknownWord(staticWord('<files 7z is given at run time>'))] : [])], true, cwd, out);
};

/** 7-Zip's `-i`/`-ai` (include) switches: `[r[-|0]][m[-|2]][w[-]]`, then `!NAME` or `@LIST`. */
const SEVEN_ZIP_NAMES = /^-(a?i)(?:r[-0]?)?(?:m[-2]?)?(?:w-?)?([!@])(.+)$/i;
/** The extension 7-Zip adds to an archive name without one, by `-t` type. */
const SEVEN_ZIP_TYPES: ReadonlyMap<string, string> = new Map([['7z', '.7z'], ['zip', '.zip'], ['tar', '.tar'], ['gzip', '.gz'], ['bzip2', '.bz2'], ['xz', '.xz'], ['wim', '.wim']]);

/**
 * A 7-Zip list file (`@LIST`, `-i@LIST`, `-ai@LIST`): LIST is read, and so is each name in it, known
 * only at run time, so it asks (`echo ~/.ssh/id_rsa > l && 7z a k.7z @l` stored the key under bash 5.2).
 */
function sevenZipList(list: string, cwd: string | null, out: FileFacts): void {
  push(out, pathOf(staticWord(list), READ, cwd));
  push(out, pathOf(unknownWord(staticWord(`<files named in ${list}>`)), READ, cwd));
}

/** `patch [FILE]`: writes the files the patch names unless one is given, `-o FILE`, or `--dry-run`. */
const patch: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, { short: 'pidoDrBFVYzgM', long: ['strip', 'input', 'directory', 'output', 'reject-file', 'prefix', 'fuzz', 'version-control', 'basename-prefix', 'suffix', 'get', 'define', 'quoting-style', 'reject-format', 'merge'] });
  for (const input of optionValues(scan, '-i', '--input')) push(out, pathOf(input, READ, cwd));
  for (const output of optionValues(scan, '-o', '--output', '-r', '--reject-file')) push(out, pathOf(output, WRITE, cwd));
  const file = scan.operands[0];
  if (file !== undefined) push(out, pathOf(args[file]!, WRITE, cwd));
  if (scan.operands[1] !== undefined) push(out, pathOf(args[scan.operands[1]]!, READ, cwd));
  if (file === undefined && !hasOptionAsSpelled(scan, '--dry-run', '-o', '--output')) out.reasons.push(ARCHIVE_EXTRACT);
};

/** tar's short options that take a value. */
const TAR_VALUES = 'fCTXbHKLNVgIF';

/**
 * tar's traditional first word (`tar cfI a.tar prog dir`): each letter is an option, and the letters
 * that take a value take the words after it in order (GNU tar manual, "Old Option Style"), so the
 * words are rewritten as `-c -f a.tar -I prog dir`.
 */
function traditionalTar(args: readonly Word[]): Word[] {
  const first = args[0];
  if (!first?.isStatic || first.value === '' || first.value.startsWith('-')) return [...args];
  const words: Word[] = [];
  let next = 1;
  for (const letter of first.value) {
    words.push(staticWord(`-${letter}`));
    if (TAR_VALUES.includes(letter) && next < args.length) words.push(args[next++]!);
  }
  return [...words, ...args.slice(next)];
}

/** `tar` in any spelling (`tar czf a.tgz dir`, `tar -x -f a.tar -C out`): the archive, the members, the extraction directory. */
const tar: Handler = (args, cwd, out) => {
  const words = traditionalTar(args);
  const scan = scanOptions(words, 0, { short: TAR_VALUES, long: ['file', 'directory', 'files-from', 'exclude-from', 'exclude', 'format', 'transform', 'use-compress-program', 'to-command', 'info-script', 'new-volume-script', 'rsh-command', 'rmt-command', 'index-file', 'owner', 'group', 'mode', 'mtime', 'newer', 'after-date', 'blocking-factor', 'label', 'tape-length', 'checkpoint-action', 'listed-incremental', 'volno-file', 'add-file'] });
  for (const option of scan.options) if (option.unlisted && option.value) unlistedValue(option.value, cwd, out);
  const creates = hasOption(scan, '-c', '-r', '-u', '-A', '--create', '--append', '--update', '--concatenate');
  const extracts = hasOption(scan, '-x', '--extract', '--get');
  // `--delete` rewrites the archive (bash 5.2, GNU tar 1.34: `tar --delete -f data/a.tar m` did).
  const rewrites = creates || hasOption(scan, '--delete');
  for (const archive of optionValues(scan, '-f', '--file')) {
    push(out, pathOf(archive, rewrites ? WRITE : READ, cwd));
    // An archive named `HOST:FILE` (a `:` before any `/`) is opened through `rsh HOST rmt` (GNU tar
    // manual, "Remote Tape Server"; round 13 review A13: strace showed the execve) unless --force-local.
    if ((!archive.isStatic || /^[^/]*:/.test(archive.value)) && !hasOption(scan, '--force-local')) out.reasons.push('executor');
  }
  for (const list of optionValues(scan, '-T', '--files-from', '-X', '--exclude-from')) push(out, pathOf(list, READ, cwd));
  // The snapshot file of `-g`/`--listed-incremental` is read and rewritten (`tar -cf a.tar -g
  // data/t src` wrote 82 bytes into an empty data/t), `--volno-file` written (GNU tar manual).
  for (const file of optionValues(scan, '--index-file', '-g', '--listed-incremental', '--volno-file')) push(out, pathOf(file, WRITE, cwd));
  for (const program of optionValues(scan, '-I', '--use-compress-program', '-F', '--info-script', '--new-volume-script', '--rsh-command', '--rmt-command')) runProgram(program, cwd, out);
  for (const command of optionValues(scan, '--to-command')) nestScript(command, cwd, out);
  for (const action of optionValues(scan, '--checkpoint-action')) {
    if (!action.isStatic) out.reasons.push('executor');
    else if (action.value.startsWith('exec=')) nestScript(staticWord(action.value.slice(5)), cwd, out);
  }
  const dirs = optionValues(scan, '-C', '--directory');
  if (extracts && !hasOptionAsSpelled(scan, '-O', '--to-stdout', '--to-command')) out.reasons.push(ARCHIVE_EXTRACT);
  if (extracts) {
    if (dirs.length === 0) push(out, pathOf(staticWord('.'), WRITE, cwd));
    for (const dir of dirs) push(out, pathOf(dir, WRITE, cwd));
  } else if (creates) {
    // Members are read relative to the last -C; only the cwd case is resolved. `-h` follows links.
    const base = dirs.length === 0 ? cwd : null;
    const tree = { content: true, follows: hasOption(scan, '-h', '--dereference') };
    // `--remove-files` (any unambiguous prefix) removes what was archived.
    const removes = scan.options.some((o) => o.name.length > 4 && '--remove-files'.startsWith(o.name));
    // `--add-file=FILE` is a member too, spelled so when its name starts with a dash (tar --help;
    // round 13 review A11: `tar -cf - --add-file=.env` printed .env).
    const members = [...scan.operands.map((i) => words[i]!), ...optionValues(scan, '--add-file')];
    for (const member of members) {
      push(out, walked(pathOf(member, READ, base), tree));
      if (removes) push(out, walked(pathOf(member, WRITE, base), REMOVED));
    }
    // The members a list file or stdin names are read, known only at run time (`tar -cf k.tar -T l`
    // with l naming ~/.ssh/id_rsa stored it; `echo ~/.ssh/id_rsa | tar -cf k.tar -T -` too, round 12).
    for (const list of optionValues(scan, '-T', '--files-from')) push(out, pathOf(unknownWord({ ...list, value: list.value === '-' ? '<stdin>' : list.value, raw: `<files named in ${list.raw}>` }), READ, base));
    // Members named in a list (`-T list`, `-T -` for stdin) are known only when tar reads it.
    if (removes) for (const list of optionValues(scan, '-T', '--files-from')) push(out, walked(pathOf({ ...list, isStatic: false }, WRITE, base), REMOVED));
    if (removes) removedAsRm([...members, ...optionValues(scan, '-T', '--files-from').map((list) => ({ ...list, isStatic: false }))], true, base, out);
  }
};

/**
 * `zip [options] ARCHIVE FILE…`: the archive is written, the files read; `-r` walks directories and
 * stores what links point to unless `-y`. `zip -T -TT CMD`: the archive test command runs through a shell.
 */
const zip: Handler = (args, cwd, out) => {
  const words = args.filter((w, i) => !(w.isStatic && (w.value === '-TT' || w.value === '--unzip-command' || w.value.startsWith('--unzip-command='))) && !(i > 0 && args[i - 1]!.isStatic && ['-TT', '--unzip-command'].includes(args[i - 1]!.value)));
  args.forEach((word, i) => {
    if (word.isStatic && (word.value === '-TT' || word.value === '--unzip-command') && args[i + 1]) nestScript(args[i + 1]!, cwd, out);
    else if (word.isStatic && word.value.startsWith('--unzip-command=')) nestScript(staticWord(word.value.slice(16)), cwd, out);
  });
  const scan = scanOptions(words, 0, { short: 'bnOPtiIx', long: ['temp-path', 'suffixes', 'output-file', 'password', 'from-date', 'before-date', 'include', 'exclude'] });
  const tree = hasOption(scan, '-r', '-R', '--recurse-paths', '--recurse-patterns') ? { content: true, follows: !hasOptionAsSpelled(scan, '-y', '--symlinks') } : null;
  // `-m`/`--move` removes the files it archived (with -r, the directories and what is below them).
  const moves = hasOption(scan, '-m', '--move');
  // `-@` takes the files from stdin, known only at run time (zip(1)): read, and removed with `-m`.
  if (hasOption(scan, '-@', '--names-stdin')) push(out, pathOf({ ...staticWord('<zip -@ input>'), isStatic: false }, moves ? WRITE : READ, cwd));
  for (const output of optionValues(scan, '-O', '--output-file')) push(out, pathOf(output, WRITE, cwd));
  scan.operands.forEach((index, n) => {
    const word = words[index]!;
    if (n === 0) push(out, pathOf(word, WRITE, cwd));
    // zip(1): "If the name of the zip archive does not contain an extension, the extension .zip is added" (bash 5.2, zip 3.0: `zip d/t f` wrote d/t.zip).
    if (n === 0 && word.isStatic && !posix.basename(word.value).includes('.')) push(out, pathOf(staticWord(`${word.value}.zip`), WRITE, cwd));
    if (n > 0) push(out, tree ? walked(pathOf(word, READ, cwd), tree) : pathOf(word, READ, cwd));
    if (n > 0 && moves) push(out, tree ? walked(pathOf(word, WRITE, cwd), REMOVED) : pathOf(word, WRITE, cwd));
  });
  if (moves) removedAsRm([...scan.operands.slice(1).map((i) => words[i]!), ...(hasOption(scan, '-@', '--names-stdin') ? [unknownWord(staticWord('<zip -@ input>'))] : [])], tree !== null, cwd, out);
};

/**
 * What a program removes after archiving or sending it (`zip -m`, `tar --remove-files`, `rsync
 * --remove-source-files`, `7z a -sdel`) is also a command `rm [-r] SOURCES` (round 14 left open:
 * the sources met the Edit rules only): the rules on `rm` meet it as they meet `find -exec rm {}`,
 * so `Bash(rm *)` denies it, and an allow for the archiver alone does not allow the removal.
 */
function removedAsRm(sources: readonly Word[], recursive: boolean, cwd: string | null, out: FileFacts): void {
  if (sources.length > 0) out.nested.push({ kind: 'argv', words: [staticWord('rm'), ...(recursive ? [staticWord('-r')] : []), ...sources], cwd });
}

interface CompressorSpec extends OptionSpec {
  /** What a compressed file's name ends with (`-S`/`--suffix` changes it). */
  suffix: string;
  decompresses: boolean;
  /** zstd keeps its source unless `--rm`; gzip, bzip2, xz remove it unless `-c`, `-k`, `-t`, `-l`. */
  keepsByDefault: boolean;
  /** `-r`/`--recursive` walks a directory operand (gzip, zstd; bzip2 and xz reject `-r`). */
  recurses: boolean;
  /** zcat and its kind: `-c` always. */
  prints?: boolean;
  /** lz4: `--rm` removes the source even when it writes to stdout or tests (`lz4 -c --rm f`, `lz4cat --rm f.lz4`, lz4 1.9.4). */
  removesAlways?: boolean;
  /** The flags that remove the source of a program that keeps it by default (`--rm` unless given: brotli `-j`, lzop `-U`). */
  removeFlags?: readonly string[];
  /** Flags that name another suffix when compressing (pigz `-z` `.zz`, `-K` `.zip`). */
  flagSuffixes?: ReadonlyArray<readonly [flags: readonly string[], suffix: string]>;
  /** The options naming the suffix (`-S`, `--suffix` unless given: none for pbzip2, where `-S#` is a stack size). */
  suffixFlags?: readonly string[];
  /** lzip `-S`/`--volume-size` splits what it writes into NAME00001.lz…, names known only at run time (it is not a suffix there). */
  volumes?: boolean;
  /** `-p[DIR]`/`--path=DIR` (lzop): written into DIR (`-p` alone: the working directory). */
  pathOption?: boolean;
  /**
   * The suffixes it takes off when decompressing (after `-S`'s), each with what replaces it; a name
   * with none of them is skipped, or (bzip2) gets `unknown` added.
   */
  unpacks: ReadonlyArray<readonly [suffix: string, replacement: string]>;
  /** gzip matches the suffixes in any case (`x.TGZ` gives `x.tar`). */
  caseless?: boolean;
  unknown?: string;
  /** The flags (short, long) under which decompressing writes the name stored in the file (gzip, pigz: `-N`/`--name`). */
  storesName?: ReadonlyArray<readonly [short: string, long: string]>;
  /** The suffix each value of `-F`/`--format` gives instead of `suffix` (xz, zstd); another value gives a name known only at run time. */
  formats?: ReadonlyMap<string, string>;
}

/** A long flag spelled in full or, for flags that make a command write more, as any prefix GNU getopt could take for it. */
const spelled = (scan: ScanResult, short: string, long: string, prefix: boolean): boolean =>
  scan.options.some((o) => o.name === short || o.name === long || (prefix && o.name.length > 3 && long.startsWith(o.name)));

/**
 * gzip(1), bzip2(1), xz(1), zstd(1): each operand FILE is read and replaced by FILE.gz (…) next to it,
 * a removal of FILE and a write, unless `-c`/`--stdout` (stdout only), `-t`/`--test`, `-l`/`--list`
 * (read only) or `-k`/`--keep` (the write only); zstd keeps FILE unless `--rm`. With `-r` a directory
 * operand has every file below it replaced, so it is a removal with what is below it
 * (docs/threat-model.md#deny-rules-for-every-program). Keeping flags count only spelled in full, so an
 * abbreviation over-reports. What they read stays a deny-only candidate, as it was while they were
 * unknown programs: `zcat /var/log/x.gz` under `Bash(zcat *)` does not start to ask.
 */
const compressor = (spec: CompressorSpec): Handler => (args, cwd, out) => {
  const scan = scanOptions(args, 0, spec);
  const only = (short: string, long: string): boolean => spelled(scan, short, long, false);
  const stdout = spec.prints === true || only('-c', '--stdout') || only('-c', '--to-stdout') || only('-t', '--test') || only('-l', '--list');
  const rm = scan.options.some((o) => (spec.removeFlags ?? ['--rm']).includes(o.name));
  const removes = (spec.removesAlways === true && rm) || (!stdout && (spec.keepsByDefault ? rm : !only('-k', '--keep')));
  const recursive = spec.recurses && spelled(scan, '-r', '--recursive', true);
  const decompresses = spec.decompresses || spelled(scan, '-d', '--decompress', true) || spelled(scan, '-d', '--uncompress', true);
  const suffix = optionValues(scan, ...(spec.suffixFlags ?? ['-S', '--suffix'])).at(-1);
  const volumes = spec.volumes === true && hasOption(scan, '-S', '--volume-size');
  // `xz -F lzma f` writes f.lzma, `zstd --format=gzip f` f.gz (round 10 review); `pigz -z f` f.zz.
  const format = spec.formats ? optionValues(scan, '-F', '--format').at(-1) : undefined;
  const flagged = (spec.flagSuffixes ?? []).filter(([flags]) => hasOption(scan, ...flags)).map(([, flagSuffix]) => flagSuffix);
  const suffixes = volumes ? [null] : format !== undefined ? [format.isStatic ? (spec.formats?.get(format.value) ?? null) : null] : flagged.length > 0 ? flagged : [spec.suffix];
  const outputs = optionValues(scan, '-o', '--output');
  // zstd's `--output-dir-*`, lzop's `-p[DIR]` (none: the working directory).
  const directories = [...optionValues(scan, '--output-dir-flat', '--output-dir-mirror', ...(spec.pathOption ? ['--path'] : [])), ...(spec.pathOption ? scan.options.filter((o) => o.name === '-p').map((o) => o.value ?? staticWord('.')) : [])];
  const read = (word: Word): void => {
    const path = pathOf(word, READ, cwd);
    if (path) path.via = DENY_CANDIDATE;
    push(out, path);
  };
  // lzip `-o o -S 1M f` writes o00001.lz….
  for (const output of outputs) push(out, volumes ? pathOf(unknownWord({ ...output, raw: `${output.raw}<volume>` }), WRITE, cwd) : pathOf(output, WRITE, cwd));
  // zstd writes DIR/NAME.zst (`-mirror`: below DIR, as the source tree is).
  for (const directory of directories) push(out, walked(pathOf(directory, WRITE, cwd), REMOVED));
  for (const file of optionValues(scan, '-D', '--patch-from')) read(file);
  // `--filelist FILE` (zstd), `--files=FILE` (xz): the operands are named in FILE, known only at run time.
  for (const list of optionValues(scan, '--filelist', '--files', '--files0')) {
    read(list);
    if (!stdout) push(out, pathOf({ ...list, isStatic: false }, WRITE, cwd));
  }
  for (const index of scan.operands) {
    const word = args[index]!;
    // `gzip -rc ~ > all.gz` reads every file below `~`, as `grep -r` does: the rules below it count.
    if (recursive) push(out, walked(pathOf(word, READ, cwd), { content: true, follows: false }));
    else read(word);
    if (removes || (recursive && !stdout)) push(out, recursive ? walked(pathOf(word, WRITE, cwd), REMOVED) : pathOf(word, WRITE, cwd));
    if (stdout || outputs.length + directories.length > 0) continue;
    // `gunzip -N x.gz` restores the name stored in x.gz (gzip(1)): known only when it runs.
    if (decompresses && spec.storesName?.some(([short, long]) => spelled(scan, short, long, true))) push(out, pathOf({ ...word, isStatic: false, raw: `${posix.dirname(word.isStatic ? word.value : word.raw)}/<name stored in ${word.raw}>` }, WRITE, cwd));
    for (const compressed of decompresses ? suffixes.slice(0, 1) : suffixes) for (const name of writtenNames(word, spec, decompresses, suffix, compressed)) push(out, pathOf(name, WRITE, cwd));
  }
};

/**
 * The files written next to FILE: FILE.gz (`-S`: FILE and that suffix), or when decompressing
 * FILE without each suffix it ends with (gzip(1): `.gz`, `-gz`, `.z`, `-z`, `_z`, `.Z`, `.tgz` and
 * `.taz` give `.tar`, in any case; bzip2(1): `.bz2`, `.bz`, `.tbz2`, `.tbz`, otherwise FILE.out;
 * xz(1): `.xz`, `.txz`, `.lzma`, `.tlz`, `.lz`; zstd(1): its own and the formats it reads). Every
 * suffix the name ends with counts, so a name is never missed for the program's order of trying.
 */
function writtenNames(word: Word, spec: CompressorSpec, decompresses: boolean, suffix: Word | undefined, compressed: string | null): Word[] {
  const value = word.isStatic ? word.value : word.raw;
  const named = (name: string): Word => ({ ...word, value: name, raw: name });
  if ((suffix !== undefined && !suffix.isStatic) || (!decompresses && suffix === undefined && compressed === null)) return [{ ...word, isStatic: false, raw: `${value}.?` }];
  if (!decompresses) return [named(value + (suffix?.value ?? compressed))];
  const base = value.slice(value.lastIndexOf('/') + 1);
  const fold = (text: string): string => (spec.caseless ? text.toLowerCase() : text);
  const names = [...(suffix ? [[suffix.value, ''] as const] : []), ...spec.unpacks]
    .filter(([end]) => end !== '' && base.length > end.length && fold(base).endsWith(fold(end)))
    .map(([end, replacement]) => named(value.slice(0, -end.length) + replacement));
  return names.length > 0 || spec.unknown === undefined ? names : [named(value + spec.unknown)];
}

const TAR = '.tar';
const GZIP: CompressorSpec = {
  short: 'S',
  long: ['suffix'],
  suffix: '.gz',
  decompresses: false,
  keepsByDefault: false,
  recurses: true,
  unpacks: [['.gz', ''], ['.z', ''], ['-gz', ''], ['-z', ''], ['_z', ''], ['.tgz', TAR], ['.taz', TAR]],
  caseless: true,
  storesName: [['-N', '--name']],
};
const BZIP2: CompressorSpec = { suffix: '.bz2', decompresses: false, keepsByDefault: false, recurses: false, unpacks: [['.bz2', ''], ['.bz', ''], ['.tbz2', TAR], ['.tbz', TAR]], unknown: '.out' };
const XZ_UNPACKS = [['.xz', ''], ['.txz', TAR], ['.lzma', ''], ['.tlz', TAR], ['.lz', '']] as const;
// xz(1) `-F`: `auto` and `xz` write .xz, `lzma`/`alone` .lzma, `raw` only with `-S` (or to stdout).
const XZ_FORMATS = new Map([['auto', '.xz'], ['xz', '.xz'], ['lzma', '.lzma'], ['alone', '.lzma']]);
const XZ: CompressorSpec = { short: 'SFCTM', long: ['suffix', 'format', 'check', 'threads', 'memlimit', 'memlimit-compress', 'memlimit-decompress', 'memlimit-mt', 'block-size', 'block-list', 'flush-timeout'], suffix: '.xz', decompresses: false, keepsByDefault: false, recurses: false, unpacks: XZ_UNPACKS, formats: XZ_FORMATS };
const ZSTD: CompressorSpec = {
  short: 'oD',
  long: ['filelist', 'output-dir-flat', 'output-dir-mirror', 'patch-from'],
  suffix: '.zst',
  decompresses: false,
  keepsByDefault: true,
  recurses: true,
  unpacks: [['.zst', ''], ['.tzst', TAR], ['.gz', ''], ['.tgz', TAR], ['.lz4', ''], ['.tlz4', TAR], ...XZ_UNPACKS],
  // zstd(1) `--format=FORMAT`.
  formats: new Map([['zstd', '.zst'], ['gzip', '.gz'], ['xz', '.xz'], ['lzma', '.lzma'], ['lz4', '.lz4']]),
};

// pigz(1) 2.6: gzip's options and names, `-z`/`--zlib` writes .zz, `-K`/`--zip` .zip; decompressing
// also takes off `.zz`, `-zz`, `.zip` (bash 5.2: `unpigz -f data/table.csv.zz` replaced data/table.csv).
const PIGZ: CompressorSpec = {
  ...GZIP,
  short: 'AbCIJpS',
  long: ['alias', 'blocksize', 'comment', 'iterations', 'maxsplits', 'processes', 'suffix'],
  unpacks: [...GZIP.unpacks, ['.zz', ''], ['-zz', ''], ['.zip', '']],
  flagSuffixes: [[['-z', '--zlib'], '.zz'], [['-K', '--zip'], '.zip']],
};
// lzip/plzip/lunzip (lzip 1.23 `--help`): FILE.lz, FILE.out for a name without `.lz`/`.tlz`; `-S` is a volume size.
const LZIP: CompressorSpec = { short: 'BmnosSu', long: ['data-size', 'match-length', 'threads', 'output', 'dictionary-size', 'volume-size', 'buffer-size', 'in-slots', 'out-slots'], suffix: '.lz', decompresses: false, keepsByDefault: false, recurses: false, unpacks: [['.lz', ''], ['.tlz', TAR]], unknown: '.out', suffixFlags: [], volumes: true };
// brotli(1) 1.0.9: keeps FILE unless `-j`/`--rm`, which removes it with `-c` and `-t` too (bash 5.2).
const BROTLI: CompressorSpec = { short: 'qwoSD', long: ['quality', 'lgwin', 'large_window', 'output', 'suffix', 'dictionary'], suffix: '.br', decompresses: false, keepsByDefault: true, recurses: false, unpacks: [['.br', '']], removeFlags: ['-j', '--rm'], removesAlways: true };
// lzop(1) 1.04: keeps FILE unless `-U`/`--unlink`/`--delete` (also with `-c`); `-N`/`-P` restore a stored name or path; `-p[DIR]`.
const LZOP: CompressorSpec = { short: 'oS', attached: 'p', long: ['output', 'path', 'suffix', 'ls', 'filter'], suffix: '.lzo', decompresses: false, keepsByDefault: true, recurses: false, unpacks: [['.lzo', ''], ['.tzo', TAR]], removeFlags: ['-U', '--unlink', '--delete'], removesAlways: true, storesName: [['-N', '--name'], ['-P', '-P']], pathOption: true };
// pbzip2 (`-b#`, `-m#`, `-p#`, `-S#` attached numbers) and lbzip2 (`-n N`) name files as bzip2 does.
const PBZIP2: CompressorSpec = { ...BZIP2, attached: 'bmpS', suffixFlags: [] };
const LBZIP2: CompressorSpec = { ...BZIP2, short: 'n', suffixFlags: [] };

const LZ4: CompressorSpec = { suffix: '.lz4', decompresses: false, keepsByDefault: true, recurses: true, unpacks: [['.lz4', '']], removesAlways: true };

/**
 * lz4(1): `lz4 [OPTIONS] [INPUT] [OUTPUT]`, its second operand the file written; with `-m` or `-r`
 * every operand is an input, written beside it as zstd does (`--rm` removes it; bash 5.2, lz4 1.9.4:
 * `lz4 -r --rm data` replaced data/table.csv by table.csv.lz4).
 */
const lz4: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, {});
  if (scan.operands.length !== 2 || hasOption(scan, '-m', '--multiple', '-r')) {
    compressor(LZ4)(args, cwd, out);
    return;
  }
  // INPUT as a single operand (FILE.lz4 beside it is one name too many), OUTPUT written.
  const output = args[scan.operands[1]!]!;
  compressor(LZ4)(args.filter((word) => word !== output), cwd, out);
  push(out, pathOf(output, WRITE, cwd));
};

/**
 * lzop(1) `-x`/`--extract`: decompresses into the working directory under the path stored in the
 * file (`-dPp`), a name known only at run time.
 */
const lzop: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, LZOP);
  if (!hasOption(scan, '-x', '--extract')) {
    compressor(LZOP)(args, cwd, out);
    return;
  }
  compressor(LZOP)([staticWord('-d'), staticWord('-P'), staticWord('-p'), ...args], cwd, out);
};

/**
 * pixz(1) 1.0.7: `pixz [-d] [INPUT [OUTPUT]]`, `-i INPUT`, `-o OUTPUT`. Given an input and no output
 * it writes INPUT.xz (INPUT.tar: .tpxz; decompressing, without `.xz`, `.tpxz` → `.tar`) and
 * removes INPUT unless `-k` (bash 5.2: `pixz -d data/table.csv.xz` replaced data/table.csv). `-t`
 * is not a test there (non-tarball mode), `-l` lists, `-x PATH` extracts to stdout.
 */
const pixz: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, { short: 'iopfqx' });
  const inputs = [...optionValues(scan, '-i'), ...scan.operands.slice(0, 1).map((i) => args[i]!)];
  const outputs = [...optionValues(scan, '-o'), ...scan.operands.slice(1).map((i) => args[i]!)];
  for (const output of outputs) push(out, pathOf(output, WRITE, cwd));
  const lists = hasOption(scan, '-l', '-x');
  const decompresses = hasOption(scan, '-d');
  for (const input of inputs) {
    const path = pathOf(input, READ, cwd);
    if (path) path.via = DENY_CANDIDATE;
    push(out, path);
    // `-i INPUT` alone writes to stdout and keeps INPUT; an INPUT operand without OUTPUT does not.
    if (lists || outputs.length > 0 || !scan.operands.some((i) => args[i] === input)) continue;
    if (!hasOption(scan, '-k')) push(out, pathOf(input, WRITE, cwd));
    const names = decompresses ? writtenNames(input, PIXZ, true, undefined, null) : [...writtenNames(input, PIXZ, false, undefined, '.xz'), ...writtenNames(input, PIXZ, true, staticWord(TAR), null).map((word) => ({ ...word, value: `${word.value}.tpxz`, raw: `${word.raw}.tpxz` }))];
    for (const name of names) push(out, pathOf(name, WRITE, cwd));
  }
};
const PIXZ: CompressorSpec = { suffix: '.xz', decompresses: false, keepsByDefault: false, recurses: false, unpacks: [['.xz', ''], ['.tpxz', TAR]] };

function nestScript(text: Word, cwd: string | null, out: FileFacts): void {
  out.reasons.push('interpreter');
  if (text.isStatic) out.nested.push({ kind: 'script', text: text.value, cwd });
}

/** A call given an option the model does not know, or options from a file or command it does not read. */
const UNKNOWN_OPTION = 'unknown-option';

/**
 * curl 7.88.1 `--help all`: the long options that take a value, and those that do not. curl takes
 * any unambiguous prefix of either (`--libc F` wrote F) and `--no-` before a flag; a long option
 * that is neither may take a file as its value, so the call asks (`unknown-option`).
 */
const CURL_LONG = ['abstract-unix-socket', 'alt-svc', 'aws-sigv4', 'cacert', 'capath', 'cert', 'cert-type', 'ciphers', 'config', 'connect-timeout', 'connect-to', 'continue-at', 'cookie', 'cookie-jar', 'create-file-mode', 'crlfile', 'curves', 'data', 'data-ascii', 'data-binary', 'data-raw', 'data-urlencode', 'delegation', 'dns-interface', 'dns-ipv4-addr', 'dns-ipv6-addr', 'dns-servers', 'doh-url', 'dump-header', 'egd-file', 'engine', 'etag-compare', 'etag-save', 'expect100-timeout', 'form', 'form-string', 'ftp-account', 'ftp-alternative-to-user', 'ftp-method', 'ftp-port', 'ftp-ssl-ccc-mode', 'happy-eyeballs-timeout-ms', 'header', 'hostpubmd5', 'hostpubsha256', 'hsts', 'interface', 'json', 'keepalive-time', 'key', 'key-type', 'krb', 'libcurl', 'limit-rate', 'local-port', 'login-options', 'mail-auth', 'mail-from', 'mail-rcpt', 'max-filesize', 'max-redirs', 'max-time', 'netrc-file', 'noproxy', 'oauth2-bearer', 'output', 'output-dir', 'parallel-max', 'pass', 'pinnedpubkey', 'preproxy', 'proto', 'proto-default', 'proto-redir', 'proxy', 'proxy-cacert', 'proxy-capath', 'proxy-cert', 'proxy-cert-type', 'proxy-ciphers', 'proxy-crlfile', 'proxy-header', 'proxy-key', 'proxy-key-type', 'proxy-pass', 'proxy-pinnedpubkey', 'proxy-service-name', 'proxy-tls13-ciphers', 'proxy-tlsauthtype', 'proxy-tlspassword', 'proxy-tlsuser', 'proxy-user', 'proxy1.0', 'pubkey', 'quote', 'random-file', 'range', 'rate', 'referer', 'request', 'request-target', 'resolve', 'retry', 'retry-delay', 'retry-max-time', 'sasl-authzid', 'service-name', 'socks4', 'socks4a', 'socks5', 'socks5-gssapi-service', 'socks5-hostname', 'speed-limit', 'speed-time', 'stderr', 'telnet-option', 'tftp-blksize', 'time-cond', 'tls-max', 'tls13-ciphers', 'tlsauthtype', 'tlspassword', 'tlsuser', 'trace', 'trace-ascii', 'unix-socket', 'upload-file', 'url', 'url-query', 'user', 'user-agent', 'write-out'];
const CURL_FLAGS = 'anyauth append basic cert-status compressed compressed-ssh create-dirs crlf digest disable disable-eprt disable-epsv disallow-username-in-url doh-cert-status doh-insecure fail fail-early fail-with-body false-start form-escape ftp-create-dirs ftp-pasv ftp-pret ftp-skip-pasv-ip ftp-ssl-ccc ftp-ssl-control get globoff haproxy-protocol head help http0.9 http1.0 http1.1 http2 http2-prior-knowledge http3 http3-only ignore-content-length include insecure ipv4 ipv6 junk-session-cookies list-only location location-trusted mail-rcpt-allowfails manual metalink negotiate netrc netrc-optional next no-alpn no-buffer no-clobber no-keepalive no-npn no-progress-meter no-sessionid ntlm ntlm-wb parallel parallel-immediate path-as-is post301 post302 post303 progress-bar proxy-anyauth proxy-basic proxy-digest proxy-insecure proxy-negotiate proxy-ntlm proxy-ssl-allow-beast proxy-ssl-auto-client-cert proxy-tlsv1 proxytunnel raw remote-header-name remote-name remote-name-all remote-time remove-on-error retry-all-errors retry-connrefused sasl-ir show-error silent socks5-basic socks5-gssapi socks5-gssapi-nec ssl ssl-allow-beast ssl-auto-client-cert ssl-no-revoke ssl-reqd ssl-revoke-best-effort sslv2 sslv3 styled-output suppress-connect-headers tcp-fastopen tcp-nodelay tftp-no-options tlsv1 tlsv1.0 tlsv1.1 tlsv1.2 tlsv1.3 tr-encoding trace-time use-ascii verbose version xattr'.split(' ');
const CURL: OptionSpec = { short: 'ACDEFHKPQTUXYbcdemortuwxyz', long: CURL_LONG };
const CURL_FILES = {
  reads: ['-T', '--upload-file', '-K', '--config', '--etag-compare', '--netrc-file', '--hsts', '--alt-svc', '--cacert', '--capath', '-E', '--cert', '--key', '--crlfile', '--proxy-cacert', '--proxy-capath', '--proxy-cert', '--proxy-key', '--proxy-crlfile', '--egd-file', '--random-file', '--pubkey', '--unix-socket'],
  writes: ['-c', '--cookie-jar', '-D', '--dump-header', '--trace', '--trace-ascii', '--stderr', '--libcurl', '--hsts', '--alt-svc', '--etag-save', '--output-dir'],
};

/**
 * True when a program whose options are all listed takes the unlisted long option `--NAME` as a
 * flag: one of `flags`, `--no-` before one, or a prefix of one option only, a flag (getopt_long).
 */
function longFlag(name: string, flags: readonly string[], valued: readonly string[]): boolean {
  const given = name.slice(2);
  for (const candidate of given.startsWith('no-') ? [given, given.slice(3)] : [given]) {
    if (flags.includes(candidate)) return true;
    const hits = [...flags, ...valued].filter((option) => option.startsWith(candidate));
    if (candidate !== '' && hits.length === 1 && flags.includes(hits[0]!)) return true;
  }
  return false;
}

/** NAME in DIR (curl `--output-dir`, wget `-P`); not known when either is not. */
function inDirectory(dir: Word | undefined, name: Word): Word {
  return dir === undefined ? name : { ...name, value: `${dir.value}/${name.value}`, raw: `${dir.raw}/${name.raw}`, isStatic: dir.isStatic && name.isStatic };
}

/** The file a download of URL is saved as: NAME, or when null a name known only at run time. */
function downloadWord(url: Word, name: string | null): Word {
  return name === null ? { ...url, value: `<name of ${url.raw}>`, raw: `<name of ${url.raw}>`, isStatic: false } : staticWord(name);
}

/**
 * The local file a curl URL names: `file://[localhost]/PATH`, `%XX` decoded, read, or written by
 * `-T F` (`-T F file:///D/` writes D/F); bash 5.2, curl 7.88.1 printed `file:///…/%6bey` and
 * `--proto-default file /…/key`. A URL whose scheme is not fixed (`"$u"`, `--proto-default`, a glob)
 * may be one: a path not known. Null for a URL of another scheme.
 */
function fileUrlPath(url: Word, upload: Word | undefined, anyScheme: boolean, globs: boolean, cwd: string | null): CommandPath | null {
  const access = upload ? WRITE : READ;
  const unknown = (): CommandPath | null => pathOf({ ...url, value: `<file named by ${url.raw}>`, raw: `<file named by ${url.raw}>`, isStatic: false }, access, cwd);
  const scheme = /^["']?([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(url.isStatic ? url.value : url.raw)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'file') return null;
  if (scheme === undefined) return url.isStatic && !anyScheme ? null : unknown();
  const local = /^file:\/\/(?:localhost)?(\/[^?#]*)/i.exec(url.value);
  if (!url.isStatic || !local || (globs && /[[{]/.test(local[1]!))) return unknown();
  let path: string;
  try {
    path = decodeURIComponent(local[1]!);
  } catch {
    return unknown();
  }
  if (upload && path.endsWith('/')) path += upload.isStatic ? posix.basename(upload.value) : '<upload name>';
  return pathOf(upload && !upload.isStatic && path.endsWith('<upload name>') ? { ...url, value: path, raw: path, isStatic: false } : staticWord(path), access, cwd);
}

/**
 * The name `curl -O` gives a URL's download: the last segment of its path, without query or fragment
 * (curl(1) `--remote-name`); null when it is not known before the run: a word with an expansion, a
 * glob curl expands (`{a,b}`, `[1-3]`) or no name at all.
 */
function remoteName(url: Word, globs: boolean): string | null {
  if (!url.isStatic || (globs && /[[{]/.test(url.value))) return null;
  const rest = url.value.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//, '');
  const path = rest.includes('/') ? rest.slice(rest.indexOf('/')).replace(/[?#].*$/, '') : '';
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name === '' || name === '.' || name === '..' ? null : name;
}

/**
 * `curl`: `-o FILE` and the remote name of `-O` written (in `--output-dir DIR` when given), the
 * cache, log and jar files written, upload, config, certificate and `@FILE` values read; URLs are
 * not paths. `-J` takes the name from the server: not known (docs/threat-model.md, curl and wget).
 */
const curl: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, CURL);
  if (scan.options.some((option) => option.unlisted && !longFlag(option.name, CURL_FLAGS, CURL_LONG))) out.reasons.push(UNKNOWN_OPTION);
  // `-K FILE` holds options (`output = F`) the model does not read.
  if (hasOption(scan, '-K', '--config')) out.reasons.push(UNKNOWN_OPTION);
  // `--hsts`, `--alt-svc` caches are read and written: each list on its own.
  addOptionPaths(scan, { reads: CURL_FILES.reads }, cwd, out);
  addOptionPaths(scan, { writes: CURL_FILES.writes }, cwd, out);
  const dir = optionValues(scan, '--output-dir').at(-1);
  const globs = !hasOption(scan, '-g', '--globoff');
  const urls = [...scan.operands.map((i) => args[i]!), ...optionValues(scan, '--url')];
  // `-o 'out/#1' 'URL/{a,b}'` writes out/a: `#N` is the text a URL glob matched.
  for (const file of optionValues(scan, '-o', '--output')) push(out, pathOf(inDirectory(dir, globs && /#\d/.test(file.value) ? { ...file, isStatic: false } : file), WRITE, cwd));
  const upload = optionValues(scan, '-T', '--upload-file')[0];
  const anyScheme = hasOption(scan, '--proto-default');
  for (const url of urls) push(out, fileUrlPath(url, upload, anyScheme, globs, cwd));
  if (hasOption(scan, '-O', '--remote-name', '--remote-name-all')) {
    const serverNamed = hasOption(scan, '-J', '--remote-header-name');
    for (const url of urls) {
      const name = serverNamed ? null : remoteName(url, globs);
      push(out, pathOf(inDirectory(dir, downloadWord(url, name)), WRITE, cwd));
    }
  }
  for (const option of scan.options) {
    // `--engine PATH` loads PATH as an OpenSSL engine: a shared object (openssl.ts; round 29 review R29-4).
    if (option.name === '--engine' && namesModule(option.value ?? undefined)) {
      out.reasons.push('interpreter');
      if (option.value) push(out, pathOf(option.value, READ, cwd));
    }
    const v = option.value?.isStatic ? option.value.value : null;
    if (v === null) continue;
    let file: string | null = null;
    if (/^(-d|--data|--data-binary|--data-ascii|--json|-H|--header|--proxy-header)$/.test(option.name) && v.startsWith('@')) file = v.slice(1);
    else if (option.name === '--data-urlencode' || option.name === '--url-query') file = /^[^=]*@(.+)$/.exec(v)?.[1] ?? null;
    else if (option.name === '-F' || option.name === '--form') file = /^[^=]*=[@<]([^;]+)/.exec(v)?.[1] ?? null;
    // `-b NAME=VALUE` is a cookie; without `=`, a cookie file read (curl(1) `--cookie`).
    else if ((option.name === '-b' || option.name === '--cookie') && !v.includes('=')) file = v;
    // curl 8.3 `-w '%output{>>F}'` writes what follows to F.
    else if (option.name === '-w' || option.name === '--write-out') for (const m of v.matchAll(/%output\{(?:>>)?([^}]*)\}/g)) push(out, pathOf(staticWord(m[1]!), WRITE, cwd));
    if (file) push(out, pathOf(staticWord(file), READ, cwd));
  }
};

/**
 * GNU Wget 1.21.3 `--help`: the long options that take a value, and those that do not (getopt_long
 * also takes an unambiguous prefix, and `--no-` before a flag). Another long option asks (`unknown-option`).
 */
const WGET_LONG = ['execute', 'output-file', 'append-output', 'report-speed', 'input-file', 'base', 'config', 'rejected-log', 'tries', 'retry-on-http-error', 'output-document', 'start-pos', 'progress', 'timeout', 'dns-timeout', 'connect-timeout', 'read-timeout', 'wait', 'waitretry', 'quota', 'bind-address', 'limit-rate', 'restrict-file-names', 'prefer-family', 'user', 'password', 'use-askpass', 'local-encoding', 'remote-encoding', 'directory-prefix', 'cut-dirs', 'http-user', 'http-password', 'default-page', 'header', 'compression', 'proxy-user', 'proxy-password', 'referer', 'user-agent', 'load-cookies', 'save-cookies', 'post-data', 'post-file', 'method', 'body-data', 'body-file', 'secure-protocol', 'certificate', 'certificate-type', 'private-key', 'private-key-type', 'ca-certificate', 'ca-directory', 'crl-file', 'pinnedpubkey', 'ciphers', 'ftp-user', 'ftp-password', 'warc-file', 'warc-header', 'warc-max-size', 'warc-dedup', 'warc-tempdir', 'level', 'backups', 'accept', 'reject', 'accept-regex', 'reject-regex', 'regex-type', 'domains', 'exclude-domains', 'follow-tags', 'ignore-tags', 'include-directories', 'exclude-directories', 'max-redirect', 'hsts-file'];
const WGET_FLAGS = 'version help background debug quiet verbose no-verbose force-html no-config retry-connrefused no-clobber no-netrc continue show-progress timestamping no-if-modified-since no-use-server-timestamps server-response spider random-wait no-proxy no-dns-cache ignore-case inet4-only inet6-only ask-password no-iri unlink xattr no-directories force-directories no-host-directories protocol-directories no-cache adjust-extension ignore-length save-headers no-http-keep-alive no-cookies keep-session-cookies content-disposition content-on-error auth-no-challenge https-only no-check-certificate no-hsts no-remove-listing no-glob no-passive-ftp preserve-permissions retr-symlinks ftps-implicit ftps-resume-ssl ftps-clear-data-connection ftps-fallback-to-ftp warc-cdx no-warc-compression no-warc-digests no-warc-keep-log recursive delete-after convert-links convert-file-only backup-converted mirror page-requisites strict-comments follow-ftp span-hosts relative trust-server-names no-parent'.split(' ');
const WGET: OptionSpec = { short: 'eoaiBtOTwQPUlARDIXn', long: WGET_LONG };
const WGET_FILES = {
  reads: ['-i', '--input-file', '--post-file', '--body-file', '--config', '--load-cookies', '--certificate', '--private-key', '--ca-certificate', '--ca-directory', '--crl-file', '--warc-dedup', '--hsts-file'],
  writes: ['-O', '--output-document', '-o', '--output-file', '-a', '--append-output', '-P', '--directory-prefix', '--save-cookies', '--rejected-log', '--hsts-file', '--warc-tempdir'],
};
/** Options after which the files wget writes are named by the server or the pages it follows. */
const WGET_SERVER_NAMES = ['-r', '--recursive', '-m', '--mirror', '-p', '--page-requisites', '-x', '--force-directories', '--protocol-directories', '--content-disposition', '--trust-server-names', '-E', '--adjust-extension', '--restrict-file-names', '--default-page', '-i', '--input-file'];

/**
 * wgetrc commands (wget(1) `-e`, "Wgetrc Commands"; `_` and `-` in a name are ignored): those that
 * name a file, as the option does; those that change how downloads are named; the others known to
 * name nothing. Any other asks.
 */
const WGETRC: Record<string, string> = {
  outputdocument: '-O', logfile: '-o', dirprefix: '-P', savecookies: '--save-cookies', loadcookies: '--load-cookies', input: '-i',
  postfile: '--post-file', bodyfile: '--body-file', rejectedlog: '--rejected-log', warcfile: '--warc-file', hstsfile: '--hsts-file',
  cacertificate: '--ca-certificate', certificate: '--certificate', privatekey: '--private-key', cadirectory: '--ca-directory', crlfile: '--crl-file', warcdedup: '--warc-dedup',
  recursive: '-r', mirror: '-m', pagerequisites: '-p', dirstruct: '-x', contentdisposition: '--content-disposition', trustservernames: '--trust-server-names',
  adjustextension: '-E', restrictfilenames: '--restrict-file-names', protocoldirectories: '--protocol-directories', defaultpage: '--default-page',
  timestamping: '-N', continue: '-c', spider: '--spider',
};
const WGETRC_HARMLESS = new Set('robots tries timeout readtimeout connecttimeout dnstimeout quiet verbose useragent wait waitretry randomwait checkcertificate header limitrate retryconnrefused httpproxy httpsproxy ftpproxy useproxy noproxy serverresponse showprogress progress inet4only inet6only maxredirect httpsonly secureprotocol localencoding remoteencoding iri httpkeepalive cache compression contentonerror debug noclobber cookies'.split(' '));

/**
 * `wget`: `-O FILE`, `-o LOG`, the cookie, WARC and log files written; without `-O`, each URL's
 * last path segment (`index.html` when empty) in `-P DIR`, which `-N`/`-c` replace when it exists;
 * `-e` wgetrc commands read as their options. Names the server or the pages choose (`-r`, `-i`,
 * `--content-disposition`) are not known (docs/threat-model.md, curl and wget).
 */
const wget: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, WGET);
  if (scan.options.some((option) => option.unlisted && !longFlag(option.name, WGET_FLAGS, WGET_LONG))) out.reasons.push(UNKNOWN_OPTION);
  // `--config FILE` holds wgetrc commands the model does not read.
  if (hasOption(scan, '--config')) out.reasons.push(UNKNOWN_OPTION);
  // wget(1) `--use-askpass=COMMAND` runs COMMAND for the user and password before it connects (wget
  // 1.21.3 ran `--use-askpass=/x/ask`): a command of its own, deny and allow rules meet (round 32 review R32-6).
  for (const program of optionValues(scan, '--use-askpass')) {
    out.reasons.push('interpreter');
    out.nested.push({ kind: 'argv', words: [program], cwd });
  }
  // Each `-e key=value` is read as the option it stands for.
  const options: ParsedOption[] = [];
  for (const option of scan.options) {
    if (option.name !== '-e' && option.name !== '--execute') {
      options.push(option);
      continue;
    }
    const command = option.value?.isStatic ? /^\s*([A-Za-z_-]+)\s*=\s*(.*?)\s*$/.exec(option.value.value) : null;
    const name = command ? WGETRC[command[1]!.toLowerCase().replace(/[-_]/g, '')] : undefined;
    if (name !== undefined) options.push({ name, value: { ...option.value!, value: command![2]!, raw: command![2]! }, index: option.index });
    else if (!command || !WGETRC_HARMLESS.has(command[1]!.toLowerCase().replace(/[-_]/g, ''))) out.reasons.push(UNKNOWN_OPTION);
  }
  const read: ScanResult = { ...scan, options };
  addOptionPaths(read, { reads: WGET_FILES.reads }, cwd, out);
  addOptionPaths(read, { writes: WGET_FILES.writes }, cwd, out);
  // --warc-file=F writes F.warc.gz (F.warc without compression) and F.cdx with --warc-cdx.
  for (const warc of optionValues(read, '--warc-file')) for (const suffix of ['.warc.gz', '.warc', '.cdx']) push(out, pathOf({ ...warc, value: warc.value + suffix, raw: warc.raw + suffix }, WRITE, cwd));
  if (hasOption(read, '-O', '--output-document', '--spider')) return;
  const dir = optionValues(read, '-P', '--directory-prefix').at(-1);
  const serverNamed = hasOption(read, ...WGET_SERVER_NAMES);
  // wget(1): without -N, -nc or -c, a download whose NAME exists is saved as NAME.1 (NAME.2 when that
  // exists too…): `wget URL/f.txt -P out` twice wrote out/f.txt.1 (wget 1.21.3, bash 5.2).
  // (`-nc` is read as -n with the value `c`, as WGET lists -n among the options taking one.)
  const numbered = !hasOption(read, '-N', '--timestamping', '--no-clobber', '-c', '--continue') && !optionValues(read, '-n').some((v) => v.value === 'c');
  for (const url of scan.operands.map((i) => args[i]!)) {
    const name = serverNamed ? null : downloadName(url);
    push(out, pathOf(inDirectory(dir, downloadWord(url, name)), WRITE, cwd));
    if (numbered && name !== null) push(out, pathOf(inDirectory(dir, downloadWord(url, `${name}.1`)), WRITE, cwd));
  }
  if (serverNamed && scan.operands.length === 0) push(out, pathOf({ ...staticWord(`${dir?.raw ?? '.'}/<name the server gives>`), isStatic: false }, WRITE, cwd));
};

/** The name wget saves a URL under: its last path segment with the query (`index.html` when empty); null when not known before the run. */
function downloadName(url: Word): string | null {
  if (!url.isStatic) return null;
  const rest = url.value.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//, '').replace(/#.*$/, '');
  const slash = rest.search(/[/?]/);
  const path = slash === -1 ? '' : rest.slice(slash);
  const query = path.indexOf('?');
  const file = query === -1 ? path : path.slice(0, query);
  const name = file.slice(file.lastIndexOf('/') + 1) + (query === -1 ? '' : path.slice(query));
  if (/[*[\]]/.test(name) || name === '.' || name === '..') return null;
  return name === '' || name.startsWith('?') ? `index.html${name}` : name;
}

/**
 * `less +!cmd` runs a shell command on start-up; its `-o FILE` writes a log. `-k F`,
 * `--lesskey-file=F` and `--lesskey-src=F` (and long names abbreviated, as less takes them) read a
 * lesskey file whose `#env` section sets LESSOPEN, a command less runs on every file: less 590 ran
 * it for each (round 25; as `LESSKEYIN=F`, round 24). Options are read as less reads them: after a
 * number or a value, less goes on with the rest of the word (less-options.ts).
 */
const less: Handler = (args, cwd, out) => {
  if (args.some((w) => !w.isStatic ? w.raw.startsWith('+') || w.raw.startsWith('-') : lessRunsCode(w.value))) out.reasons.push('interpreter');
  simple({ access: READ, short: 'bhjkoOpPtTxyz#', long: ['log-file', 'LOG-FILE', 'pattern', 'prompt', 'tag', 'tag-file', 'shift', 'window', 'max-back-scroll', 'max-forw-scroll', 'jump-target', 'lesskey-file', 'lesskey-src', 'lesskey-content'], writes: ['-o', '-O', '--log-file', '--LOG-FILE'], reads: ['-k', '--lesskey-file', '--lesskey-src'], plusCommands: true })(args, cwd, out);
};
/** `perl -pi -e CODE FILE…` / `ruby -i`: in-place editing writes the files (the code itself is an interpreter reason). */
const inPlace: Handler = (args, cwd, out) => {
  let code = false;
  let edits = false;
  const operands: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (!word.isStatic || v === '-' || !v.startsWith('-') || operands.length > 0) {
      operands.push(word);
      continue;
    }
    if (v === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    for (let j = 1; j < v.length; j++) {
      const ch = v[j]!;
      if (ch === 'i') edits = true;
      if ('IMmlx0CdDiF'.includes(ch)) break; // value attached
      if (ch === 'e' || ch === 'E') {
        code = true;
        if (j === v.length - 1) i++;
        break;
      }
    }
  }
  // Without -i the operands are the script's arguments, not necessarily files.
  if (edits) for (const file of code ? operands : operands.slice(1)) push(out, pathOf(file, WRITE, cwd));
};

/**
 * man-db's man(1): a page name is looked up, but with `-l`/`--local-file` every operand is a file
 * shown, and so is an operand holding a `/` (`man ./.env` printed it through cat, man-db 2.11, round 11
 * review); `-C` reads a config file; `-P`/`--pager` and `-H`/`--html` run a program (`-H`, `-T`, `-X`
 * take their value attached only).
 */
const MAN: OptionSpec = { short: 'CRLmMPprSseE', attached: 'HTX', long: ['config-file', 'manpath', 'systems', 'sections', 'extension', 'preprocessor', 'pager', 'prompt', 'encoding', 'locale', 'recode', 'html', 'troff-device', 'gxditview'] };
const man: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, MAN);
  addOptionPaths(scan, { reads: ['-C', '--config-file'], programs: ['-P', '--pager', '-H', '--html'] }, cwd, out);
  const local = hasOption(scan, '-l', '--local-file');
  for (const i of scan.operands) {
    const word = args[i]!;
    if (local || !word.isStatic || word.value.includes('/')) push(out, pathOf(word, READ, cwd));
  }
};

/**
 * util-linux `rename.ul [-s] FROM TO FILE…` renames each FILE to its name with the first FROM (`-l`:
 * the last, `-a`: every one) replaced by TO; `-s` rewrites a link's target instead. The perl
 * `rename`/`prename`/`file-rename EXPR FILE…` run EXPR as Perl code (and Fedora's `rename` is
 * util-linux's: either, so it is decided as both). Each FILE leaves its place with what is below it;
 * the names made may be links (links-made.ts; docs/threat-model.md#deny-rules-for-every-program).
 */
const renameUl: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, {});
  const [from, to, ...files] = scan.operands.map((i) => args[i]!);
  if (from === undefined || to === undefined) return;
  const symbolic = hasOption(scan, '-s', '--symlink');
  for (const file of files) {
    if (symbolic) {
      push(out, pathOf(file, WRITE, cwd));
      continue;
    }
    push(out, walked(pathOf(file, WRITE, cwd), REMOVED));
    push(out, pathOf(renamedWord(file, from, to, hasOption(scan, '-a', '--all'), hasOption(scan, '-l', '--last')), WRITE, cwd));
  }
};

function renamedWord(file: Word, from: Word, to: Word, all: boolean, last: boolean): Word {
  if (!file.isStatic || !from.isStatic || !to.isStatic) return { ...file, value: `<renamed ${file.raw}>`, raw: `<renamed ${file.raw}>`, isStatic: false };
  const at = last ? file.value.lastIndexOf(from.value) : file.value.indexOf(from.value);
  if (at < 0 || from.value === '') return file;
  const value = all ? file.value.split(from.value).join(to.value) : file.value.slice(0, at) + to.value + file.value.slice(at + from.value.length);
  return staticWord(value);
}

const perlRename: Handler = (args, cwd, out) => {
  out.reasons.push('interpreter');
  renameUl(args, cwd, out);
  for (const i of scanOptions(args, 0, {}).operands.slice(1)) {
    const file = args[i]!;
    push(out, walked(pathOf(file, WRITE, cwd), REMOVED));
    push(out, pathOf({ ...file, value: `<renamed ${file.raw}>`, raw: `<renamed ${file.raw}>`, isStatic: false }, WRITE, cwd));
  }
};

/** Debian's rgrep is `exec grep -r "$@"` (/usr/bin/rgrep): a recursive grep (round 11 review, S2). */
const rgrep: Handler = (args, cwd, out) => HANDLERS.grep!([staticWord('-r'), ...args], cwd, out);

/**
 * chattr(1) (e2fsprogs): `-R` changes the attributes below each operand; `+ATTR`, `-ATTR`, `=ATTR`
 * words are modes, not files (`-p`/`-v` take a value).
 */
/** setfacl: SIMPLE's model, and `--restore FILE` writes the files FILE names (known only at run time). */
const setfacl: Handler = (args, cwd, out) => {
  simple(SIMPLE.setfacl!)(args, cwd, out);
  if (hasOption(scanOptions(args, 0, SIMPLE.setfacl!), '--restore')) push(out, pathOf(unknownWord(staticWord('<files --restore names>')), WRITE, cwd));
};

const chattr: Handler = (args, cwd, out) => simple({ access: WRITE, short: 'pv', tree: changedTree })(args.filter((w) => !(w.isStatic && /^[+=]/.test(w.value))), cwd, out);

/**
 * info(1) (texinfo 6.8): `-f FILE`/`--file`, `--init-file`, `--restore` read a file, `-d DIR` adds
 * DIR to the path searched, `-o FILE`/`--output` and `--dribble` write one (`info -o data/secret ls`
 * replaced it; round 11 review, S3); an operand with a `/` is a file too (`info ./foo.info`).
 */
const INFO: OptionSpec = { short: 'kdfnovx', long: ['apropos', 'directory', 'dribble', 'file', 'index-search', 'init-file', 'node', 'output', 'restore', 'variable', 'debug'] };
const info: Handler = (args, cwd, out) => {
  const scan = scanOptions(args, 0, INFO);
  addOptionPaths(scan, { reads: ['-f', '--file', '--init-file', '--restore', '-d', '--directory'], writes: ['-o', '--output', '--dribble'] }, cwd, out);
  for (const i of scan.operands) if (!args[i]!.isStatic || args[i]!.value.includes('/')) push(out, pathOf(args[i]!, READ, cwd));
};

/** diff: SIMPLE's model, and `--from-file=X`/`--to-file=X` are operands compared with every other, directories too. */
const diff: Handler = (args, cwd, out) => {
  simple(SIMPLE.diff!)(args, cwd, out);
  const scan = scanOptions(args, 0, SIMPLE.diff!);
  for (const word of optionValues(scan, '--from-file', '--to-file')) push(out, walked(pathOf(word, READ, cwd), SIMPLE.diff!.tree!(scan)!));
};

const HANDLERS: Record<string, Handler> = {
  rgrep,
  diff,
  chattr,
  info,
  setfacl,
  'rename.ul': renameUl,
  rename: perlRename,
  prename: perlRename,
  'file-rename': perlRename,
  'perl-rename': perlRename,
  perl: inPlace,
  ruby: inPlace,
  find,
  sed,
  gsed: sed,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  jq,
  chmod,
  ln,
  mount: mount(false),
  bindfs: mount(true),
  dd,
  git,
  npm: (args, cwd, out) => {
    npm(args, cwd, out);
    movesPackage('npm', args, out);
    globalInstall('npm', args, out);
  },
  pnpm: (args, cwd, out) => {
    movesPackage('pnpm', args, out);
    pnpmProgramOptions(args, cwd, out);
    managerConfig('pnpm', args, cwd, out);
    globalInstall('pnpm', args, out);
  },
  yarn: (args, cwd, out) => {
    movesPackage('yarn', args, out);
    managerConfig('yarn', args, cwd, out);
    yarnRunsFile(args, out);
    globalInstall('yarn', args, out);
  },
  bun: (args, cwd, out) => {
    bunOptions(args, cwd, out);
    globalInstall('bun', args, out);
  },
  gh: ghSettings,
  corepack,
  kubectl: (args, cwd, out) => {
    cobraFlags('kubectl', args, cwd, out);
    kubeconfigPrinted(args, cwd, out);
  },
  helm: (args, cwd, out) => cobraFlags('helm', args, cwd, out),
  docker,
  podman: docker,
  'docker-compose': (args, cwd, out) => cobraFlags('compose', args, cwd, out),
  // `cargo +D` (a toolchain by path) is read with rustup's other proxies (program.ts, rust-toolchains.ts).
  cargo: (args, cwd, out) => {
    cargo(args, cwd, out);
    cargoPaths(args, cwd, out);
    cargoInstall(args, out);
  },
  rustup,
  go,
  // rustc and rustdoc run a linker and load crates their options name (package-managers.ts rustcRunsCode).
  rustc: (args, _cwd, out) => void (rustcRunsCode(args) && out.reasons.push('interpreter')),
  rustdoc: (args, _cwd, out) => void (rustcRunsCode(args) && out.reasons.push('interpreter')),
  pytest,
  'py.test': pytest,
  ...TOOL_HANDLERS,
  vitest,
  make,
  gmake: make,
  tar,
  gtar: tar,
  bsdtar: tar,
  unzip,
  cpio,
  '7z': sevenZip,
  '7za': sevenZip,
  '7zz': sevenZip,
  ar,
  pax,
  patch,
  curl,
  wget,
  less,
  man,
  zip,
  gzip: compressor(GZIP),
  gunzip: compressor({ ...GZIP, decompresses: true }),
  bzip2: compressor(BZIP2),
  bunzip2: compressor({ ...BZIP2, decompresses: true }),
  xz: compressor(XZ),
  unxz: compressor({ ...XZ, decompresses: true }),
  lzma: compressor({ ...XZ, suffix: '.lzma' }),
  unlzma: compressor({ ...XZ, suffix: '.lzma', decompresses: true }),
  zstd: compressor(ZSTD),
  unzstd: compressor({ ...ZSTD, decompresses: true }),
  zcat: compressor({ ...GZIP, decompresses: true, prints: true }),
  bzcat: compressor({ ...BZIP2, decompresses: true, prints: true }),
  xzcat: compressor({ ...XZ, decompresses: true, prints: true }),
  lzcat: compressor({ ...XZ, decompresses: true, prints: true }),
  zstdcat: compressor({ ...ZSTD, decompresses: true, prints: true }),
  // Debian's `uncompress` runs `gzip -d`.
  uncompress: compressor({ ...GZIP, decompresses: true }),
  lz4,
  lz4c: lz4,
  pigz: compressor(PIGZ),
  unpigz: compressor({ ...PIGZ, decompresses: true }),
  lzip: compressor(LZIP),
  plzip: compressor(LZIP),
  lunzip: compressor({ ...LZIP, decompresses: true }),
  // Debian's names behind the `lzip` alternative.
  'lzip.lzip': compressor(LZIP),
  'lzip.plzip': compressor(LZIP),
  'lzip.lunzip': compressor({ ...LZIP, decompresses: true }),
  brotli: compressor(BROTLI),
  lzop,
  pbzip2: compressor(PBZIP2),
  lbzip2: compressor(LBZIP2),
  lbunzip2: compressor({ ...LBZIP2, decompresses: true }),
  lbzcat: compressor({ ...LBZIP2, decompresses: true, prints: true }),
  pixz,
  zstdmt: compressor(ZSTD),
  pzstd: compressor({ ...ZSTD, short: 'oDp', long: [...(ZSTD.long ?? []), 'processes'] }),
  unlz4: (args, cwd, out) => lz4([staticWord('-d'), ...args], cwd, out),
  lz4cat: compressor({ ...LZ4, decompresses: true, prints: true }),
  rsync: copier({
    short: 'efBTM',
    long: RSYNC_LONG,
    // rsync takes no abbreviations: `--backup`, `--partial`, `--checksum` are options of their own,
    // not `--backup-dir`, `--partial-dir`, `--checksum-choice` taking the next word.
    exactLong: true,
    rsync: true,
    // `--early-input=FILE` sends FILE to the daemon before the transfer (rsync 3.5; round 13 review A12: a key went over the wire).
    // `--daemon --config=FILE` reads its modules and `pre-xfer exec` commands from FILE (round 32 review).
    reads: ['--exclude-from', '--include-from', '--files-from', '--password-file', '--read-batch', '--early-input', '--config'],
    writes: ['--log-file', '--write-batch', '--only-write-batch'],
    programs: [],
    // `--copy-unsafe-links` follows exactly the links that leave the tree.
    tree: (scan) => (hasOption(scan, '-r', '-a', '--recursive', '--archive') ? { content: true, follows: hasOption(scan, '-L', '--copy-links', '--copy-unsafe-links', '-k', '--copy-dirlinks') } : null),
    // rsync(1): `--remove-source-files` (formerly `--remove-sent-files`) removes the files it sent;
    // `--del`, `--delete`, `--delete-{before,during,delay,after,excluded,missing-args}` remove from
    // the destination what the source lacks (rsync takes no abbreviations).
    removes: (scan) => ({ sources: hasOption(scan, '--remove-source-files', '--remove-sent-files'), destination: scan.options.some((o) => o.name.startsWith('--del')) }),
  }),
  // `scp -r` follows the links it meets.
  scp: copier({ short: 'cFiJlmoPSDX', reads: ['-i', '-F'], programs: ['-S'], tree: (scan) => (hasOption(scan, '-r') ? { content: true, follows: true } : null) }),
};
/** Names read by their SIMPLE entry (a handler of their own reads the others). */
const READ_AS_SIMPLE = new Set<string>();
for (const [name, spec] of Object.entries(SIMPLE)) {
  if (Object.hasOwn(HANDLERS, name)) continue;
  HANDLERS[name] = simple(spec);
  READ_AS_SIMPLE.add(name);
}

/**
 * File programs whose every word the model reads as an option it lists or a path it writes: read by
 * their SIMPLE entry, each operand a path decided as a subject on every call, every option that
 * takes a value listed, none naming a program (`install --strip-program`), and no operand that is
 * not a path (an owner, a pattern, a count) or permission change (`setfacl`). A later call of one
 * can only do the same to paths the rules and the mode decide again: what "Always allow" may
 * remember as a prefix (latch/remember.ts, docs/approval.md#answers).
 */
const WRITES_ONLY_NAMED = new Set(
  [...READ_AS_SIMPLE].filter((name) => {
    const spec = SIMPLE[name]!;
    return (spec.access === WRITE || spec.lastWrite === true) && spec.skip === undefined && spec.max === undefined && spec.programs === undefined && spec.tree !== changedTree;
  }),
);

/** True when `name` is one of the file programs that write only the paths they name (WRITES_ONLY_NAMED). */
export function writesOnlyNamedPaths(name: string): boolean {
  return WRITES_ONLY_NAMED.has(name);
}

/** The paths a program touches and the code it runs, from its arguments; null for programs not known here. */
/** True when a handler here models what the program does with its words. */
export const modelsProgram = (name: string): boolean => Object.hasOwn(HANDLERS, name);

export function fileFacts(name: string, args: readonly Word[], cwd: string | null): FileFacts | null {
  const handler = Object.hasOwn(HANDLERS, name) ? HANDLERS[name] : /^(python[\d.]*|pypy[\d.]*)$/.test(name) ? pythonModule : undefined;
  if (!handler) return null;
  const out: FileFacts = { paths: [], nested: [], reasons: [] };
  handler(args, cwd, out);
  return out;
}
