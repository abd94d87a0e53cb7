import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandInfo } from '../../src/policy/types.js';
import { analyseCommand } from '../../src/subjects/shell/command.js';
import { canonicalPath, isInside } from '../../src/subjects/paths.js';
import { rng } from '../helpers/random.js';

/**
 * A differential fuzz of the shell analyser against real bash. Commands are generated from a
 * grammar of the constructs bash evaluates in hidden places (substitutions, arithmetic contexts,
 * subscripts, eval and `bash -c`, wrappers, heredocs, functions, quoting and spelling tricks,
 * directory links with `..`) around a marker, run with `bash -c` under `env -i` and a timeout in
 * a sandbox made for the run, and checked: whenever the marker effect happened, the analysis must
 * have listed it (the `touch MARK` command, or a read of the secret through its real path) or
 * called the command unanalysable. Seeded: the same seed gives the same commands.
 *
 * Sandbox: S/ws (cwd), S/ws/out -> S/data, S/secret/token holding a random string, so
 * `out/../secret/token` read from S/ws is the secret (the kernel follows `out` first).
 */

export interface FuzzFinding {
  command: string;
  effect: 'marker' | 'secret';
  unanalyzable: string[];
  segments: string[];
}

export interface FuzzResult {
  seed: number;
  count: number;
  /** Commands whose marker effect happened (the ones the check says something about). */
  effective: number;
  findings: FuzzFinding[];
}


type Gen = (r: () => number, depth: number) => string;
const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;

/** Spellings of `touch MARK` bash runs as that command. */
const TOUCH = [
  'touch MARK',
  "'touch' MARK",
  't\\ouch MARK',
  '"touch" MARK',
  "$'touch' MARK",
  "t''ouch MARK",
  '$"touch" MARK',
  '{touch,MARK}',
  'touch${IFS}MARK',
  '/usr/bin/touch MARK',
  'command touch MARK',
  '\\touch MARK',
  "$'\\x74ouch' MARK",
  't"o"uch M"A"RK',
  // Programs that run what their options name (find(1), GNU tar).
  'find . -maxdepth 0 -exec touch MARK \\;',
  'find . -maxdepth 0 -execdir touch MARK \\;',
  "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='touch MARK' --exclude=out .",
  "tar -cf /dev/null -I 'touch MARK' --exclude=out .",
  "tar cfI /dev/null 'touch MARK' --exclude=out .",
];

/**
 * Spellings that name the program through a value the text gives (bash manual, "Simple Command
 * Expansion": expansions first, then the first word is the command). The program word is dynamic,
 * so the call is unanalysable anyway; for these the analysis must also list `touch MARK`, which is
 * what lets deny rules see them.
 */
const VALUE_TOUCH = [
  'x=touch; $x MARK',
  'x=touch && "$x" MARK',
  "x='touch MARK'; $x",
  'x=to; y=uch; $x$y MARK',
  'y=touch; x=$y; $x MARK',
  'a=(touch MARK); "${a[@]}"',
  'a=(ls touch); ${a[1]} MARK',
  'a=(x); a+=(touch); "${a[1]}" MARK',
  '${T:-touch} MARK',
  'v=x; x=touch; ${!v} MARK',
  '$(echo touch) MARK',
  '`echo touch` MARK',
  'for c in touch; do $c MARK; done',
  'read -r c <<< touch; $c MARK',
  'printf -v c touch; $c MARK',
  'declare c=touch; $c MARK',
  "x=$'\\x74ouch'; $x MARK",
  'c=touch; eval "$c MARK"',
  // A shell function's arguments (bash manual, "Shell Functions"): the words of the call are listed.
  'f() { "$@"; }; f touch MARK',
  'f() { $1 MARK; }; f touch',
  'f() { shift; "$@"; }; f x touch MARK',
  'f() { "${@:2}"; }; f x touch MARK',
  'f() { local c=$1; shift; $c "$@"; }; f touch MARK',
];

/** Contexts a command can sit in; `X` is the inner command. */
const WRAP: Array<(x: string, r: () => number) => string> = [
  (x) => x,
  (x) => `true && ${x}`,
  (x) => `false || ${x}`,
  (x) => `${x}; true`,
  (x) => `echo a | ${x}`,
  (x) => `(${x})`,
  (x) => `{ ${x}; }`,
  (x) => `if true; then ${x}; fi`,
  (x) => `for i in 1; do ${x}; done`,
  (x) => `case a in a) ${x};; esac`,
  (x) => `f() { ${x}; }; f`,
  (x) => `echo $(${x})`,
  (x) => `echo "$(${x})"`,
  (x) => `echo \`${x}\``,
  (x) => `cat <(${x})`,
  (x) => `x=$(${x})`,
  (x) => `nice ${x}`,
  (x) => `timeout 5 ${x}`,
  (x) => `env ${x}`,
  (x) => `time ${x}`,
  (x) => `eval '${x.replace(/'/g, `'\\''`)}'`,
  (x) => `bash -c '${x.replace(/'/g, `'\\''`)}'`,
  (x) => `sh -c "${x.replace(/(["\\$`])/g, '\\$1')}"`,
  (x) => `bash <<'E'\n${x}\nE`,
  (x) => `cat <<E\n$(${x})\nE`,
  (x) => `echo '${x.replace(/'/g, `'\\''`)}' | bash`,
  (x) => `echo \${y:-$(${x})}`,
  // Arithmetic contexts: the subscript is evaluated, its substitution runs.
  (x) => `[[ 'a[$(${x})]' -eq 0 ]]`,
  (x) => `[[ 1 -lt 'a[$(${x})]' ]]`,
  (x) => `[[ -v 'a[$(${x})]' ]]`,
  (x) => `[ -v 'a[$(${x})]' ]`,
  (x) => `test -v 'a[$(${x})]'`,
  (x) => `(( 'a[$(${x})]' ))`,
  (x) => `echo $(( 'a[$(${x})]' ))`,
  (x) => `echo $[ 'a[$(${x})]' ]`,
  (x) => `echo \${a['$(${x})']}`,
  (x) => `echo "\${a['$(${x})']}"`,
  (x) => `: \${y-\${a['$(${x})']}}`,
  (x) => `case 1 in \${a['$(${x})']}) ;; esac`,
  (x) => `cat <<< \${a['$(${x})']}`,
  (x) => `let 'a[$(${x})]'`,
  (x) => `declare -i n; n='a[$(${x})]'`,
  (x) => `declare -n r='a[$(${x})]'; echo $r`,
  (x) => `printf -v 'a[$(${x})]' x`,
  (x) => `read 'a[$(${x})]' <<< x`,
  (x) => `a['$(${x})']=1`,
  (x) => `exec {a['$(${x})']}>/dev/null`,
  (x) => `v='a[$(${x})]'; echo $((v))`,
  (x) => `a=1; : \${a:'a[$(${x})]'}`,
  (x) => `for ((i='a[$(${x})]'; i<0;)); do :; done`,
  // A substitution assembled at run time from pieces no reading joins: `$` from printf escapes, `%q`,
  // `${x@Q}`, a replacement, `$_`, a function's argument; then evaluated by name.
  (x) => `printf -v y9 'a[\\x24(%s)]' '${x.replace(/'/g, `'\\''`)}'; (( y9 ))`,
  (x) => `printf -v y9 'a[%b(%s)]' '\\044' '${x.replace(/'/g, `'\\''`)}'; [[ $y9 -eq 0 ]]`,
  (x) => `printf -v z9 %q $'\\n'; y9="a[\${z9:0:1}(${x.replace(/(["\\$`])/g, '\\$1')})]"; (( y9 ))`,
  (x) => `n9=$'\\n'; z9=\${n9@Q}; y9="a[\${z9:0:1}(${x.replace(/(["\\$`])/g, '\\$1')})]"; (( y9 ))`,
  (x) => `y9='a[$a(${x.replace(/'/g, `'\\''`)})]'; y9=\${y9/\\$a/\\$}; (( y9 ))`,
  (x) => `: '$'; y9="a[\${_}(${x.replace(/(["\\$`])/g, '\\$1')})]"; (( y9 ))`,
  (x) => `f9() { y9="a[$1(${x.replace(/(["\\$`])/g, '\\$1')})]"; (( y9 )); }; f9 '$'`,
  (x) => `d9='$'; y9="a[\${d9}(${x.replace(/(["\\$`])/g, '\\$1')})]"; echo \${b9[y9]}`,
  (x) => `set -- 'a[$(${x.replace(/'/g, `'\\''`)})]'; (( $1 ))`,
  (x) => `b9=$'\\\\'; printf -v y9 "a[\${b9}x24(%s)]" '${x.replace(/'/g, `'\\''`)}'; (( y9 ))`,
];

/**
 * The contexts before this index (lists, pipelines, groups, loops, functions, substitutions,
 * wrappers, eval, `bash -c`) are where a value spelling must be listed; heredoc scripts and the
 * arithmetic contexts after it are only required to make the call unanalysable (their quoted code
 * is read as a "…" string, so an inner `"$x"` keeps its quotes).
 */
const LISTED_WRAPS = 23;

const touchCommand = (r: () => number, depth: number): { command: string; byValue: boolean } => {
  let byValue = r() < 0.3;
  let x = pick(r, byValue ? VALUE_TOUCH : TOUCH);
  for (let d = 0; d < depth; d++) {
    const at = Math.floor(r() * WRAP.length);
    if (at >= LISTED_WRAPS) byValue = false;
    x = WRAP[at]!(x, r);
  }
  return { command: x, byValue };
};

/** Ways to reach S/secret/token from S/ws through the `out` link. */
const SECRET_PATHS = ['out/../secret/token', './out/../secret/token', 'out/./../secret/token', 'out//../secret/token', "'out/../secret/token'", 'out/../secret/../secret/token', '"out"/../secret/token'];
const READERS = ['cat P', 'head -n 1 P', 'tail -n 1 P', 'cat < P', 'grep . P', 'sort P', 'cut -c1- P', 'nl P', 'od -c P', 'wc -c P && cat P', 'cp P ../copy && cat ../copy', 'cd -P out/.. && cat secret/token', 'cd out && cd -P .. && cat secret/token', 'grep -r tok out/..', 'grep -R . out/..'];

const readCommand: Gen = (r, depth) => {
  let x = pick(r, READERS).replace('P', pick(r, SECRET_PATHS));
  for (let d = 0; d < depth; d++) x = pick(r, WRAP.slice(0, 20))(x, r);
  return x;
};

export interface Sandbox {
  root: string;
  ws: string;
  secret: string;
  token: string;
}

export function makeSandbox(root: string): Sandbox {
  const real = realpathSync(root);
  const ws = join(real, 'ws');
  mkdirSync(ws, { recursive: true });
  mkdirSync(join(real, 'data'), { recursive: true });
  mkdirSync(join(real, 'secret'), { recursive: true });
  const token = `TOKEN${Math.random().toString(36).slice(2, 10)}`;
  const secret = join(real, 'secret', 'token');
  writeFileSync(secret, `${token}\n`);
  symlinkSync(join(real, 'data'), join(ws, 'out'));
  return { root: real, ws, secret, token };
}

/**
 * Runs every command in one outer bash (a Node spawn per command costs more than the command):
 * each under `env -i` and a timeout, from the sandbox's ws, the marker removed before and
 * looked for after. Returns, per command, whether the marker appeared and what it printed.
 */
function runAll(commands: string[], sandbox: Sandbox): Array<{ marker: boolean; stdout: string }> {
  const list = join(sandbox.root, 'commands');
  const outs = join(sandbox.root, 'outs');
  mkdirSync(outs, { recursive: true });
  writeFileSync(list, commands.map((c) => `${c}\0`).join(''));
  const script = [
    // A command that writes without end for its 3 s (`yes > f`, `cat /dev/zero`) filled the disk
    // over many runs (GBs per sandbox): files are cut at 1 MiB; only 4 KiB of output is read.
    'ulimit -f 1024',
    'i=0',
    "while IFS= read -r -d '' cmd; do",
    '  rm -f MARK ../copy',
    '  timeout 3 env -i PATH=/usr/bin:/bin bash -c "$cmd" > "$2/$i" 2>/dev/null < /dev/null',
    '  [ -e ../copy ] && cat ../copy >> "$2/$i"',
    '  [ -e MARK ] && echo "$i"',
    '  i=$((i+1))',
    'done < "$1"',
    'rm -f MARK ../copy',
  ].join('\n');
  const result = spawnSync('bash', ['-c', script, 'fuzz', list, outs], { cwd: sandbox.ws, encoding: 'utf8', timeout: 30 * 60_000 });
  const marked = new Set((result.stdout ?? '').split('\n').filter(Boolean).map(Number));
  return commands.map((_, i) => ({ marker: marked.has(i), stdout: readText(join(outs, String(i))) }));
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(0, 4096);
  } catch {
    return '';
  }
}

/** True when the analysis listed `touch MARK` (or could not analyse the command, unless it was spelled through a value). */
function listedMarker(info: CommandInfo, byValue: boolean): boolean {
  // An unknown program's words (a function's call `f touch MARK`) are tried as the command it runs.
  const listed = (words: readonly string[]): boolean => words.indexOf('touch') !== -1 && words.slice(words.indexOf('touch')).includes('MARK');
  return (!byValue && info.unanalyzable.length > 0) || info.segments.some((s) => (s.name === 'touch' && s.args.includes('MARK')) || (s.alternatives ?? []).some(listed)) || throughPositional(info);
}

/**
 * `f() { $1 MARK; }; f touch`: the program is a function's positional parameter, and its arguments
 * are in the body. No reading joins the call's `touch` to the body's `MARK` (the analysis has no
 * values for `$1`), so deny rules see `touch` (the call's words, as an unknown program's) and
 * `$1 MARK` apart; what the check can require is that both are listed and that the command is
 * unanalysable for its dynamic program name, so it asks.
 */
function throughPositional(info: CommandInfo): boolean {
  const body = info.segments.some((s) => s.program === null && /^"?\$\{?[1-9]/.test(s.words[s.assignments.length] ?? '') && s.args.includes('MARK'));
  const call = info.segments.some((s) => (s.alternatives ?? []).some((words) => words[0] === 'touch'));
  return body && call && info.unanalyzable.includes('dynamic-name');
}

/** True when the analysis listed a read whose real path is the secret, or a tree holding it (or could not analyse). */
function listedSecret(info: CommandInfo, sandbox: Sandbox): boolean {
  if (info.unanalyzable.length > 0) return true;
  const env = { home: sandbox.root, platform: process.platform };
  for (const segment of info.segments) {
    for (const path of segment.paths) {
      if (path.access !== 'read' && !path.via.startsWith('<')) continue;
      // A relative path from an unknown directory (inside a function, after a `cd` that may fail)
      // is never allowed: the decision asks.
      if (path.base === null && !path.path.startsWith('/')) return true;
      const real = canonicalPath(path.path, path.base, env).realPath;
      if (real !== null && (real === sandbox.secret || (path.via.includes('recursive') && isInside(real, sandbox.secret)))) return true;
    }
  }
  return false;
}

export function runFuzz(options: { seed: number; count: number; sandbox: Sandbox }): FuzzResult {
  const { seed, count, sandbox } = options;
  const r = rng(seed);
  const cases: Array<{ command: string; secret: boolean; byValue: boolean }> = [];
  for (let i = 0; i < count; i++) {
    const secret = r() < 0.3;
    const depth = 1 + Math.floor(r() * 3);
    cases.push(secret ? { command: readCommand(r, depth - 1), secret, byValue: false } : { ...touchCommand(r, depth), secret });
  }
  const runs = runAll(cases.map((c) => c.command), sandbox);
  const result: FuzzResult = { seed, count, effective: 0, findings: [] };
  cases.forEach(({ command, secret, byValue }, i) => {
    const happened = secret ? runs[i]!.stdout.includes(sandbox.token) : runs[i]!.marker;
    if (!happened) return;
    result.effective++;
    const info = analyseCommand(command, { cwd: sandbox.ws });
    const listed = secret ? listedSecret(info, sandbox) : listedMarker(info, byValue);
    if (!listed) result.findings.push({ command, effect: secret ? 'secret' : 'marker', unanalyzable: info.unanalyzable, segments: info.segments.map((s) => s.words.join(' ')) });
  });
  return result;
}
