import { posix } from 'node:path';
import { CLIS, ghCommand, ghCommandPath, GIT_COMMANDS, GIT_LATER_COMMANDS, globalValueOptions, isScriptRunner, managerAlias, MANAGER_COMMANDS, optionReadings, RUNNERS, SAFE_WRAPPERS } from '../programs.js';
import type { Segment } from './types.js';

/**
 * Matching command rules against a segment's words (docs/rules.md): which word lists a deny or ask
 * rule is tried against (wrappers and runners looked through, flags in any order and spelling), and
 * whether a segment is plain enough for an allow rule to match it at all.
 */

/**
 * Environment assignments an allow rule may look past: they change formatting, not behaviour. A
 * locale, TZ or TERM value names a file the C library opens (`LANGUAGE=../../W/mo ls` loaded a
 * workspace message catalog, whose translations are printf formats; `TZ=~/.ssh/id_rsa date` opened
 * the key; round 12 review, S3, docs/threat-model.md): only a plain name is looked past, TZ's with
 * `/` (`Europe/Paris`) but not from `/`, `:/` or `~`, and no value with `..`.
 */
export const SAFE_ASSIGNMENTS = /^(?:(?:LANG|LANGUAGE|LC_[A-Z]+|TERM)=(?!.*\.\.)[\w.@:+-]*$|TZ=(?!:?[/~])(?!.*\.\.)[\w.@:+,<>/-]*$|(?:NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|COLUMNS|LINES|CI|NODE_ENV|RUST_BACKTRACE|PYTHONUNBUFFERED|DEBUG)=)/;

export function isNarrowEligible(segment: Segment): boolean {
  if (!segment.isStatic || segment.program === null || segment.name === null) return false;
  // A path to the program (/tmp/evil/git) is not the program the rule names.
  if (segment.program !== segment.name) return false;
  if (!segment.assignments.every((assignment) => SAFE_ASSIGNMENTS.test(assignment))) return false;
  return segment.wrappers.every((wrapper) => SAFE_WRAPPERS.has(wrapper.split(/\s+/)[0] ?? ''));
}

/**
 * Word lists a deny/ask rule is tried against: without wrappers, as written (wrappers included),
 * and for runners (`uv run CMD…`, `npx PKG…`, `bundle exec CMD…`) every word after the subcommand
 * that could be the command they run, so `Bash(rm *)` also meets `uv run rm -rf .` (a known
 * Claude Code bypass: programs that exec their arguments hid them from deny rules).
 */
export function wideCandidates(segment: Segment): string[][] {
  const out: string[][] = [];
  if (segment.name !== null) {
    out.push([segment.name, ...segment.args]);
    out.push(...runnerPayloads(segment.name, segment.args));
    // `node …/bin/mcp-latch.js allow`: the script is the program a deny rule names.
    const script = isScriptRunner(segment.name) ? segment.args.findIndex((arg) => !arg.startsWith('-')) : -1;
    if (script >= 0) out.push([scriptName(segment.args[script]!), ...segment.args.slice(script + 1)]);
  }
  const written = segment.words.slice(segment.assignments.length);
  if (written.length > 0) {
    const first = posix.basename(stripQuotesForDeny(written[0]!));
    // Without wrappers the written words are the program and its args: the first list again.
    if (!(first === segment.name && sameAfterFirst(written, segment.args))) out.push([first, ...written.slice(1)]);
  }
  if (segment.alternatives) for (const words of segment.alternatives) if (words.length > 0) out.push([posix.basename(words[0]!), ...words.slice(1)]);
  // git's dashed form (`/usr/lib/git-core/git-clean -fdx`) is that command (git(1)): a rule naming
  // `git clean` meets it, and so do the push spellings below (round 21 late review L2). `git-lfs`,
  // `git-crypt`: programs of their own, left as written.
  const sub = segment.name?.startsWith('git-') ? segment.name.slice(4) : '';
  if (GIT_COMMANDS.has(sub)) out.push(['git', sub, ...segment.args]);
  const gitArgs = segment.name === 'git' ? segment.args : GIT_COMMANDS.has(sub) ? [sub, ...segment.args] : null;
  if (gitArgs) {
    const pushed = gitPushSpelling(gitArgs);
    if (pushed) out.push(['git', ...pushed]);
  }
  // A multi-call coreutils' `--coreutils-prog=rm -rf x` (`-shebang=rm SCRIPT …` drops the script's path) is rm.
  const multi = coreutilsProgram(segment);
  if (multi !== null) out.push([multi, ...segment.args.slice(1)], [multi, ...segment.args.slice(2)]);
  // rustup's `cargo +nightly run` is `cargo run` with another toolchain (round 21 review, B4's family).
  if (segment.name === 'cargo' && segment.args[0]?.startsWith('+')) out.push(['cargo', ...segment.args.slice(1)]);
  if (segment.name === 'docker' || segment.name === 'podman') out.push(...dockerSpellings(segment.name, segment.args));
  // gh's flags before or between its command words (`gh release -R o/r create`, `gh release -t T
  // create`): the command words first, so that `Bash(gh release create *)` meets it (round 30).
  if (segment.name === 'gh') {
    const path = ghCommandPath(segment.args);
    if (path.some((at, i) => at !== i)) out.push(['gh', ...path.map((at) => segment.args[at]!), ...segment.args.filter((_, i) => !path.includes(i))]);
  }
  // pnpm, yarn and bun run a word that is not one of their commands as a script or that program
  // (programs.ts MANAGER_COMMANDS; round 21 review, B7): `yarn deploy` is `yarn run deploy`.
  if (segment.name !== null) {
    // `yarnpkg …`, `corepack yarn …` are yarn's (programs.ts managerAlias): read as that spelling too.
    const alias = managerAlias(segment.name, segment.args);
    const spellings: [string, readonly string[]][] = [[segment.name, segment.args]];
    if (alias !== null) {
      const args = segment.args.slice(alias.skip);
      spellings.push([alias.name, args]);
      out.push([alias.name, ...args], ...runnerPayloads(alias.name, args));
    }
    for (const [name, given] of spellings) {
      out.push(...scriptRuns(name, given));
      // pnpm, yarn, bun: an option not known here may take the next word or not; each reading is tried
      // as the words' own (programs.ts optionReadings; round 21 late review L5).
      for (const args of optionReadings(name, given)) out.push([name, ...args], ...runnerPayloads(name, args), ...scriptRuns(name, args));
      out.push(...scriptPastOptions(name, given));
      // yarn with no command word is `yarn install` (yarn 1 and berry): a rule on `yarn install` meets
      // it (round 25 review R13), with `install` first too: after an option taking an optional value
      // (`yarn --production`) the rule's words would read `install` as that value (round 26 review S7).
      if (name === 'yarn' && commandWordAt(name, given) >= given.length) out.push([name, ...given, 'install'], [name, 'install', ...given]);
    }
  }
  // What a runner runs, read as at top level (`bun run env rm x` is rm; round 26 review S12).
  if (segment.runs) for (const ran of segment.runs) out.push(...wideCandidates(ran));
  return out;
}

/**
 * pnpm, yarn and bun read their options between `run` and the script's name as their own (pnpm's
 * nopt and yarn 1's commander stop at the script's name): `pnpm run --filter app deploy` runs
 * deploy, which `Bash(pnpm run deploy *)` met only as written (round 22, N1's family). Each reading
 * of those options (optionReadings) gives `NAME run SCRIPT …`.
 */
function scriptPastOptions(name: string, args: readonly string[]): string[][] {
  if (!Object.hasOwn(MANAGER_COMMANDS, name)) return [];
  const i = commandWordAt(name, args);
  if (args[i] !== 'run' && args[i] !== 'run-script') return [];
  const rest = args.slice(i + 1);
  if (!rest[0]?.startsWith('-')) return [];
  const out: string[][] = [];
  for (const reading of [rest, ...optionReadings(name, rest)]) {
    const j = commandWordAt(name, reading);
    if (j < reading.length) out.push([name, 'run', ...reading.slice(j)]);
  }
  return out;
}

/** What a package manager runs for a first word that is not one of its commands: that program, and the script of that name. */
function scriptRuns(name: string, args: readonly string[]): string[][] {
  const ran = scriptRunsWord(name, args);
  const out = ran >= 0 ? [[posix.basename(args[ran]!), ...args.slice(ran + 1)], [name, 'run', ...args.slice(ran)]] : [];
  const program = bunRunWord(name, args);
  if (program >= 0) out.push([posix.basename(args[program]!), ...args.slice(program + 1)]);
  return out;
}

/**
 * `bun run NAME ARGS` runs the program NAME from PATH when no script or file has that name (bun
 * 1.4.5; round 25 review R7): where NAME stands, else -1.
 */
function bunRunWord(name: string, args: readonly string[]): number {
  if (name !== 'bun') return -1;
  const i = commandWordAt(name, args);
  if (args[i] !== 'run') return -1;
  const j = commandWordAt(name, args, i + 1);
  return j < args.length ? j : -1;
}

/**
 * git's other commands that push, as `push` with the same words: `send-pack` (git-send-pack(1):
 * "Usually you would want to use git push, which is a higher-level wrapper of this command"),
 * `http-push`, and contrib's `subtree push`. `git send-pack ../r main` updated the remote past
 * `ask: Bash(git push *)` (git 2.39, round 21 review B5): a deny or ask rule on `git push` is
 * there for what a push does. Null for any other command.
 */
function gitPushSpelling(args: readonly string[]): string[] | null {
  const i = commandWordAt('git', args);
  const sub = args[i];
  if (sub === 'send-pack' || sub === 'http-push') return [...args.slice(0, i), 'push', ...args.slice(i + 1)];
  if (sub !== 'subtree') return null;
  // git-subtree(1): its options may come before its own command; -P and -m take the next word.
  for (let j = i + 1; j < args.length; j++) {
    const arg = args[j]!;
    if (SUBTREE_VALUE.has(arg)) j++;
    else if (!arg.startsWith('-')) return arg === 'push' ? [...args.slice(0, i), 'push', ...args.slice(i + 1, j), ...args.slice(j + 1)] : null;
  }
  return null;
}

const SUBTREE_VALUE = new Set(['-P', '--prefix', '-m', '--message']);

/**
 * docker's spellings of one command (docker 28.2.2, each command's `Aliases:` in its --help):
 * `docker exec` is `docker container exec`, `docker push` is `docker image push`, `docker rmi` is
 * `docker image rm` and `docker image remove`. A deny or ask rule written in one spelling meets the
 * others (`docker container exec` passed `Bash(docker exec *)`; round 21 review, B4's family).
 */
const DOCKER_SPELLINGS: readonly string[][][] = [
  ...['attach', 'commit', 'cp', 'create', 'diff', 'exec', 'export', 'kill', 'logs', 'pause', 'port', 'rename', 'restart', 'run', 'start', 'stats', 'stop', 'top', 'unpause', 'update', 'wait'].map((command) => [[command], ['container', command]]),
  [['ps'], ['container', 'ls'], ['container', 'list'], ['container', 'ps']],
  [['rm'], ['container', 'rm'], ['container', 'remove']],
  [['build'], ['image', 'build'], ['builder', 'build']],
  ...['history', 'import', 'load', 'pull', 'push', 'save', 'tag'].map((command) => [[command], ['image', command]]),
  [['images'], ['image', 'ls'], ['image', 'list']],
  [['rmi'], ['image', 'rm'], ['image', 'remove']],
];

/** The command's words in each other spelling docker has for its command (after the global options). */
function dockerSpellings(name: string, args: readonly string[]): string[][] {
  const i = commandWordAt(name, args);
  const out: string[][] = [];
  for (const group of DOCKER_SPELLINGS) {
    const given = group.find((spelling) => spelling.every((word, j) => args[i + j] === word));
    if (!given) continue;
    for (const other of group) if (other !== given) out.push([name, ...args.slice(0, i), ...other, ...args.slice(i + given.length)]);
    break;
  }
  return out;
}

/** Where a package manager's first word stands when it is not one of its commands (it runs a script or that program), else -1. */
function scriptRunsWord(name: string, args: readonly string[]): number {
  const commands = Object.hasOwn(MANAGER_COMMANDS, name) ? MANAGER_COMMANDS[name]! : null;
  if (!commands) return -1;
  const i = commandWordAt(name, args);
  const word = args[i];
  if (word === undefined) return -1;
  if (!commands.has(word)) return i;
  // bun takes its command from the first word not starting with `-` (cli.zig Command.which), an
  // option's value included: `bun --filter app build` is no command, so bun runs the script
  // `build` (round 24; bun 1.4.5 ran it), which `Bash(bun run build *)` meets.
  if (name === 'bun') {
    const first = args.findIndex((arg) => !arg.startsWith('-'));
    if (first < i && !commands.has(args[first]!)) return i;
  }
  return -1;
}

/**
 * Where a program's command word stands in its arguments: after its global options, a value option
 * (programs.ts CLIS) taking the next word; `args.length` when there is none. A `--` is passed over
 * like an option (docker runs `docker -- image push`; git refuses it): for deny and ask rules a
 * word found past it only adds a list to try.
 */
export function commandWordAt(name: string, args: readonly string[], from = 0): number {
  const values = globalValueOptions(name);
  let i = from;
  while (i < args.length && args[i]!.startsWith('-')) i += values.has(args[i]!) ? 2 : 1;
  return i;
}

/** `written` is one word followed by exactly `args`. */
function sameAfterFirst(written: readonly string[], args: readonly string[]): boolean {
  if (written.length !== args.length + 1) return false;
  for (let i = 0; i < args.length; i++) if (written[i + 1] !== args[i]) return false;
  return true;
}

/**
 * The program names deny and ask rules are looked up by (RuleSet.matchCommandWide): the first word
 * of each of wideCandidates' lists, in their order, found without making the lists. Most segments
 * have no deny or ask rule for any of them, and then the lists are not made (policy/decide.ts,
 * docs/performance.md "Round 18: decision time").
 */
export function wideHeads(segment: Segment): string[] {
  const out: string[] = [];
  if (segment.name !== null) {
    out.push(baseOf(segment.name));
    const args = segment.args;
    const script = isScriptRunner(segment.name) ? args.findIndex((arg) => !arg.startsWith('-')) : -1;
    if (script >= 0) out.push(scriptName(args[script]!));
    runHeads(segment.name, args, out);
    for (const reading of optionReadings(segment.name, args)) runHeads(segment.name, reading, out);
    const alias = managerAlias(segment.name, args);
    if (alias !== null) {
      out.push(alias.name);
      runHeads(alias.name, args.slice(alias.skip), out);
      for (const reading of optionReadings(alias.name, args.slice(alias.skip))) runHeads(alias.name, reading, out);
    }
    if (segment.name.startsWith('git-') && GIT_COMMANDS.has(segment.name.slice(4))) out.push('git');
    const multi = coreutilsProgram(segment);
    if (multi !== null) out.push(multi);
  }
  // The written words' list is left out when it is the first one again; its head is then the first head.
  const first = segment.words[segment.assignments.length];
  if (first !== undefined) out.push(posix.basename(stripQuotesForDeny(first)));
  if (segment.alternatives) for (const words of segment.alternatives) if (words.length > 0) out.push(baseOf(words[0]!));
  if (segment.runs) for (const ran of segment.runs) out.push(...wideHeads(ran));
  return out;
}

/** The programs a runner's subcommand or a package manager's first word may run, by name. */
function runHeads(name: string, args: readonly string[], out: string[]): void {
  const from = runnerPayloadStart(name, args);
  if (from >= 0) for (let j = from; j < args.length; j++) if (!args[j]!.startsWith('-')) out.push(baseOf(args[j]!));
  const ran = scriptRunsWord(name, args);
  if (ran >= 0) out.push(baseOf(args[ran]!));
  const program = bunRunWord(name, args);
  if (program >= 0) out.push(baseOf(args[program]!));
}

/**
 * The word of a git command that is not one of git's own commands (programs.ts GIT_COMMANDS), from
 * its wide candidates; null when there is none. git runs such a word as an alias from the user's
 * config (which may add any options: `p = push --force`), a `git-<word>` program, or, with
 * `help.autocorrect` set (by the user, or `-c` in the call), the command it is taken for a typo of:
 * `git -c help.autocorrect=immediate psuh` pushed and `cleab -fdx` cleaned (git 2.39, round 21
 * review B1). So deny and ask rules naming git may name what it runs (policy/decide.ts).
 */
export function otherGitCommand(candidates: readonly string[][]): string | null {
  for (const words of candidates) {
    if (words.length < 2 || posix.basename(words[0]!) !== 'git') continue;
    const at = commandWordAt('git', words, 1);
    const word = words[at];
    if (word === undefined || (GIT_COMMANDS.has(word) && !GIT_LATER_COMMANDS.has(word))) continue;
    if (!runsNoWord(words, at)) return word;
  }
  return null;
}

/**
 * The words of a gh command up to the first that names no command of gh's own (programs.ts
 * ghCommand): gh runs it as an alias from its config (one led by `!` in a shell) or as an extension's
 * program, set up outside this call (`gh alias set`, `gh extension install`, or by hand), so what
 * runs is not known here. `gh help NAME` runs extension NAME with `--help` and `gh extension exec
 * NAME` runs it (cli/cli cmd/gh): NAME is read so too. Options are skipped as cobra skips them, a value
 * with its flag (round 30). Null for gh's own commands (docs/rules.md; round 28).
 */
export function otherGhCommand(args: readonly string[]): string[] | null {
  const words: string[] = [];
  let group = '';
  // The command words as cobra finds them, past flags and their values (programs.ts ghCommandPath; round 30).
  for (const i of ghCommandPath(args)) {
    const word = args[i]!;
    words.push(word);
    const found = ghCommand(group, word);
    if (found === null) return words;
    if (found !== 'run') {
      group = found.group;
      continue;
    }
    const names = (group === '' && word === 'help') || (group === 'extension' && word === 'exec');
    const name = names ? args.slice(i + 1).find((next) => !next.startsWith('-')) : undefined;
    return name !== undefined && (word === 'exec' || ghCommand('', name) === null) ? [...words, name] : null;
  }
  return null;
}

/**
 * git (git.c handle_options) prints a path and exits at `--exec-path` without `=`, `--html-path`,
 * `--man-path` and `--info-path`, and runs `help`/`version` at `--help`/`--version`: the word after
 * them is not run (`git --exec-path /tmp/x status` printed /usr/lib/git-core; git 2.39.5).
 */
function runsNoWord(words: readonly string[], at: number): boolean {
  for (let i = 1; i < at; i++) if (GIT_QUERIES.has(words[i]!)) return true;
  return false;
}

const GIT_QUERIES: ReadonlySet<string> = new Set(['--exec-path', '--html-path', '--man-path', '--info-path', '--help', '--version']);

/** The program `coreutils --coreutils-prog=NAME` (or `--coreutils-prog-shebang=NAME`) runs; null for any other segment. */
function coreutilsProgram(segment: Segment): string | null {
  if (segment.name !== 'coreutils') return null;
  const match = /^--coreutils-prog(?:-shebang)?=(.*)$/s.exec(segment.args[0] ?? '');
  return match ? baseOf(match[1]!) : null;
}

/** `posix.basename`, which returns a name without `/` as it is. */
function baseOf(word: string): string {
  return word.includes('/') ? posix.basename(word) : word;
}

/** `…/bin/mcp-latch.js` → `mcp-latch`: a script runner's script as the program a deny rule names. */
function scriptName(script: string): string {
  return posix.basename(script).replace(/\.(c?js|mjs|ts|py|rb|pl|php|sh)$/, '');
}

/** Each non-option word after a runner's subcommand, with the words after it. */
function runnerPayloads(name: string, args: readonly string[]): string[][] {
  const from = runnerPayloadStart(name, args);
  if (from < 0) return [];
  const out: string[][] = [];
  for (let j = from; j < args.length; j++) if (!args[j]!.startsWith('-')) out.push([posix.basename(args[j]!), ...args.slice(j + 1)]);
  return out;
}

/** Where a runner's command may start in its arguments (after its subcommand); -1 when it runs none. */
function runnerPayloadStart(name: string, args: readonly string[]): number {
  const subcommands = Object.hasOwn(RUNNERS, name) ? RUNNERS[name]!.run : [];
  if (subcommands.length === 0) return -1;
  if (subcommands.includes('')) return 0;
  const i = commandWordAt(name, args);
  if (i >= args.length || !subcommands.includes(args[i]!)) return -1;
  return i + 1;
}

/** `\rm`, `"rm"`, `r''m` are already unquoted by the analyser; a raw dynamic word keeps only its letters. */
function stripQuotesForDeny(word: string): string {
  return word.includes('"') || word.includes("'") || word.includes('\\') ? word.replace(/["'\\]/g, '') : word;
}

/** Long options and their short letters, so `rm --recursive --force` contains `-rf`. */
const LONG_FLAG_ALIASES: Record<string, Record<string, string>> = {
  rm: { '--recursive': 'r', '--force': 'f', '--dir': 'd', '--verbose': 'v' },
  cp: { '--recursive': 'r', '--force': 'f' },
  chmod: { '--recursive': 'r' },
  chown: { '--recursive': 'r' },
  git: { '--force': 'f', '--delete': 'd', '--all': 'a' },
};
/** Programs whose short flags are case-insensitive aliases (`rm -R` = `rm -r`). */
const FOLD_FLAG_CASE = new Set(['rm', 'cp', 'chmod', 'chown', 'chgrp']);

/**
 * CLIs that read their global options after the service and verb too, with the value as the next
 * word: a deny or ask rule's words are read past them wherever they stand (round 31 review R31-5:
 * `aws --region r secretsmanager get-secret-value` missed `Bash(aws secretsmanager *)`, `kubectl
 * get -n prod secret db` `Bash(kubectl get secret *)`). From `aws help` (aws-cli 1.45 "GLOBAL
 * OPTIONS"), `gcloud topic` (gcloud 528's global flags), az's global arguments, op's global flags;
 * kubectl's are CLIS's (cobra takes them anywhere). Deny and ask rules only: reading a word as an
 * option's value can only make them meet more.
 */
const OPTIONS_ANYWHERE: Readonly<Record<string, ReadonlySet<string>>> = {
  aws: new Set(['--endpoint-url', '--output', '--query', '--profile', '--region', '--color', '--ca-bundle', '--cli-read-timeout', '--cli-connect-timeout', '--cli-binary-format']),
  gcloud: new Set(['--account', '--billing-project', '--configuration', '--flags-file', '--flatten', '--format', '--project', '--verbosity', '--access-token-file', '--impersonate-service-account', '--trace-token']),
  az: new Set(['-o', '--output', '--query', '--subscription']),
  op: new Set(['--account', '--config', '--encoding', '--format', '--session']),
  kubectl: new Set(CLIS.kubectl!.value),
};

interface ParsedWords {
  program: string;
  shortFlags: Set<string>;
  longFlags: string[];
  positionals: string[];
}

function parseWords(words: readonly string[], expandAliases: boolean): ParsedWords {
  const program = posix.basename(words[0] ?? '');
  const valueOptions = globalValueOptions(program);
  const anywhere = Object.hasOwn(OPTIONS_ANYWHERE, program) ? OPTIONS_ANYWHERE[program] : undefined;
  const aliases = LONG_FLAG_ALIASES[program] ?? {};
  const foldCase = FOLD_FLAG_CASE.has(program);
  const shortFlags = new Set<string>();
  const longFlags: string[] = [];
  const positionals: string[] = [];
  let optionsEnded = false;
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (optionsEnded || word === '-' || !word.startsWith('-')) {
      positionals.push(word);
      continue;
    }
    if (word === '--') {
      optionsEnded = true;
      continue;
    }
    // npm (nopt) reads its options wherever they stand: `npm run --cache D deploy` runs deploy (round 22).
    if (((positionals.length === 0 || program === 'npm') && valueOptions.has(word)) || anywhere?.has(word)) {
      i++; // its value is not a positional
      continue;
    }
    if (word.startsWith('--')) {
      const name = word.split('=')[0]!;
      longFlags.push(name);
      const letter = expandAliases ? aliasOf(aliases, name) : undefined;
      if (letter) shortFlags.add(letter);
      continue;
    }
    for (const ch of word.slice(1)) shortFlags.add(foldCase ? ch.toLowerCase() : ch);
  }
  // `git push origin +main` force-pushes main, exactly like `git push --force origin main`.
  if (expandAliases && program === 'git' && positionals[0] === 'push' && positionals.slice(1).some((p) => p.startsWith('+'))) shortFlags.add('f');
  return { program, shortFlags, longFlags, positionals };
}

/** The short letter of a long option, also when abbreviated (GNU getopt: `rm --recur` is `--recursive`). */
function aliasOf(aliases: Record<string, string>, name: string): string | undefined {
  if (aliases[name]) return aliases[name];
  if (name.length < 3) return undefined;
  const matches = Object.keys(aliases).filter((long) => long.startsWith(name));
  return matches.length === 1 ? aliases[matches[0]!] : undefined;
}

/**
 * Does a command contain everything a deny/ask rule names? The program (by basename), every short
 * flag in any order or grouping, every long flag (or an abbreviation git would accept, or its short
 * alias), and the rule's positional words as a prefix of the command's positionals.
 */
export function containsRule(commandWords: readonly string[], ruleWords: readonly string[]): boolean {
  const command = parseWords(commandWords, true);
  const rule = parseWords(ruleWords, false);
  if (command.program !== rule.program) return false;
  const foldCase = FOLD_FLAG_CASE.has(rule.program);
  for (const flag of rule.shortFlags) if (!command.shortFlags.has(foldCase ? flag.toLowerCase() : flag)) return false;
  const aliases = LONG_FLAG_ALIASES[rule.program] ?? {};
  for (const flag of rule.longFlags) {
    const letter = aliases[flag];
    const present = command.longFlags.some((given) => given === flag || (given.length >= 4 && flag.startsWith(given)));
    if (!present && !(letter && command.shortFlags.has(letter))) return false;
  }
  // The gateway's own CLI parses options anywhere, and an unknown `--opt` takes the next word as
  // its value: its subcommand is found wherever it stands.
  if (rule.program === 'mcp-latch') return rule.positionals.every((word) => command.positionals.includes(word));
  return startsWith(command.positionals, rule.positionals);
}

export function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > words.length) return false;
  for (let i = 0; i < prefix.length; i++) if (words[i] !== prefix[i]) return false;
  return true;
}

export function equalWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && startsWith(a, b);
}
