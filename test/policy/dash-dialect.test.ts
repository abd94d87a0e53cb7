import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { decide } from '../../src/policy/decide.js';
import { RuleSet } from '../../src/policy/match.js';
import { builtInRules, parseRules } from '../../src/policy/policy.js';
import type { Decision, DefaultMode } from '../../src/policy/types.js';
import type { CallFacts } from '../../src/policy/decide.js';
import { inspectCall } from '../../src/subjects/inspect.js';
import { analyseCommand } from '../../src/subjects/shell/command.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { tempDir } from '../helpers/gateway.js';
import { SHELL_TOOL } from '../helpers/policy.js';

/**
 * Round 15 review P6/P7: mcp-server-commands runs its command with `/bin/sh -c`, and /bin/sh is
 * dash on Debian and Ubuntu; the model reads bash, and dash's language is not a subset of bash's.
 * `echo $'\'; rm -rf pub; #'` was one allowed echo to the model and ran rm in dash; `((rm -rf *pub))`
 * was arithmetic to the model and two subshells running rm in dash. Every form of bash's that dash
 * reads otherwise (bash manual, "Bash POSIX Mode" and "Major Differences From The Bourne Shell";
 * dash(1)) makes a text for `sh` not fully analysable (`sh-dialect`, naming the form): never
 * allowed, and it asks in bypassPermissions while deny rules exist
 * (docs/threat-model.md#the-shell-that-reads-the-text).
 *
 * Each case is run by bash and by dash in a scratch directory (`conf/secret/key`, `pub/f`) and the
 * two must differ (output or files left), so the case is a real difference, not a guess.
 */

const MODES: DefaultMode[] = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'];
const DENY = ['Bash(rm:*)', 'Bash(curl:*)'];

let T = '';
let W = '';
const dash = spawnSync('dash', ['-c', 'exit 0']).status === 0;

beforeAll(async () => {
  await initShellParser();
  T = realpathSync(tempDir('dash-dialect-'));
  W = join(T, 'work');
  mkdirSync(join(W, 'conf', 'secret'), { recursive: true });
  writeFileSync(join(W, 'conf', 'secret', 'key'), 'TOPSECRET\n');
});

function facts(command: string, extra: Record<string, unknown> = {}): CallFacts {
  return inspectCall('shell', 'run_command', { command, workdir: W, ...extra }, SHELL_TOOL, { workspace: [W], clientRoots: [], pathEnv: { home: join(T, 'home'), platform: process.platform } });
}

function decision(command: string, mode: DefaultMode, extra: Record<string, unknown> = {}): Decision {
  const { rules } = parseRules({ defaultMode: mode, allow: [], ask: [], deny: [...DENY, `Read(${W}/conf/secret/**)`] });
  const all = [...builtInRules('/etc/mcp-latch-test/mcp-latch.json', null), ...rules];
  return decide(facts(command, extra), { mode, rules: new RuleSet(all, { home: join(T, 'home'), roots: [W], platform: process.platform }) });
}

/** stdout+stderr and the files left, of `shell -c text` in a fresh scratch copy of the tree. */
function run(shell: string, text: string): string {
  const dir = join(T, `run-${shell}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'conf', 'secret'), { recursive: true });
  mkdirSync(join(dir, 'pub'));
  writeFileSync(join(dir, 'conf', 'secret', 'key'), 'TOPSECRET\n');
  writeFileSync(join(dir, 'pub', 'f'), 'keep\n');
  const result = spawnSync(shell, ['-c', text], { cwd: dir, input: '', encoding: 'utf8', timeout: 5000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir } });
  const files = (sub: string): string[] => readdirSync(join(dir, sub), { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? [`${sub}${entry.name}/`, ...files(`${sub}${entry.name}/`)] : [`${sub}${entry.name}`]));
  return `${result.stdout.replace(new RegExp(dir, 'g'), 'D')}|${result.stderr.replace(/^(bash|dash)(: line)? [0-9]+:|[0-9.]+(user|system|elapsed)/gm, '').replace(/[0-9.]+s/g, '')}|${files('').join(' ')}`;
}

/** [text, the form the reason names]: bash and dash read each otherwise. */
const CASES: Record<string, Array<[string, string]>> = {
  'ANSI-C and locale quoting (P7)': [
    [`echo $'\\'; touch pwned; cat conf/secret/key; #'`, "$'…'"],
    [`echo $'\\'; rm -rf pub; #'`, "$'…'"],
    [`cat $'conf'/secret/key`, "$'…'"],
    [`echo $"x"; touch pwned`, '$"…"'],
    [`echo a$"x"b`, '$"…"'],
  ],
  'arithmetic and conditional commands (P6)': [
    ['((touch *pwned))', '((…))'],
    ['((rm -rf *pub))', '((…))'],
    ['((cat *conf/secret/key))', '((…))'],
    ['[[ a > conf/secret/key ]]', '[[…]]'],
    // The grammar reads these as dash does, guard (d) as bash does: every reading is checked.
    ['! (( 1 > 2 )) && echo y', '((…))'],
    ['if ! (( $# )); then echo none; fi', '((…))'],
    ['time (( 2 > 1 )) && echo y', 'time'],
    ['[[ -f pub/f ]] || touch pwned', '[[…]]'],
    ['for ((i=0; i<1; i++)); do touch pwned; done', 'for ((…))'],
    ['echo $((x++)) $x', '++/--'],
    ['echo $((2**3))', '** in arithmetic'],
    ['echo $((16#ff))', 'base#'],
    ['echo $[1+1]', '$[…]'],
  ],
  'redirections and pipes': [
    ['echo &>out touch pwned', '&>'],
    ['echo x &>>out', '&>>'],
    ['echo x >&out', '>&WORD'],
    ['echo x |& cat', '|&'],
    ['cat <<< x', '<<<'],
    ['cat <(echo x)', 'process substitution'],
    ['echo x > >(cat)', 'process substitution'],
    ['exec {fd}>out; echo ok', '{NAME}>'],
    // mcp-server-commands' everyday forms that ask, each read otherwise by dash (round 16 rechecked).
    ['echo ran &>/dev/null', '&>'],
  ],
  expansions: [
    ['echo {a,b}', 'brace expansion'],
    ['touch {pwned,x}', 'brace expansion'],
    ['echo x{1..3}', 'brace expansion'],
    // A declaration builtin's argument is a word to bash (brace-expanded: x=b), an assignment to dash.
    ['export x={a,b}; echo "$x"', 'brace expansion'],
    ['f() { local x={a,b}; echo "$x"; }; f', 'brace expansion'],
    ['x=abc; echo ${x/a/b}', 'bash parameter expansion'],
    ['x=abc; echo ${x:1:1}', 'bash parameter expansion'],
    ['x=y; y=1; echo ${!x}', 'bash parameter expansion'],
    ['x=abc; echo ${x^^}', 'bash parameter expansion'],
    ['x=ABC; echo ${x,,}', 'bash parameter expansion'],
    ['x=abc; echo ${x@Q}', 'bash parameter expansion'],
    ['echo a=~/x', '=~/'],
    ['echo ~+/x ~-/y', '~+'],
    ['mkdir -p "~+"; echo linked > "~+/x"; cat ~+/x', '~+'],
    ['x=~+/y; echo $x', '~+'],
    ['echo a=b:~/x', '=~/'],
    ['cat conf/[^s]ecret/key', '[^…]'],
    ['case secret in [^s]*) touch pwned;; esac', '[^…]'],
    ['echo .*', '.*'],
    // Any pattern whose rest after the leading `.` can match "" or "." (round 16).
    ['echo .?', '.*'],
    ['echo .[!a]', '.*'],
    ['echo .[,-0]', '.*'],
    ['echo pub/.*', '.*'],
    ['echo x; echo .**', '.*'],
  ],
  'arrays and assignments': [
    ['a=(1 2); echo ${a[1]}', 'array'],
    ['a[1]=2; echo ok', 'array subscript'],
    ['a=1; a+=2; echo $a', '+='],
    ['declare x=1; echo $x', 'declare'],
    ['typeset x=1; echo $x', 'typeset'],
  ],
  'keywords and builtins dash does not have': [
    ['function f { echo ran; }; f', 'function keyword'],
    ['echo 1 > in; select x in a; do echo ran; break; done < in', 'select'],
    ['coproc echo ran', 'coproc'],
    ['time -o timed true', 'time'],
    ['time ls pub', 'time'],
    ['[[ -f x ]]; echo $?', '[[…]]'],
    ['let x=1; echo $x', 'let'],
    ['echo echo ran > s; source ./s', 'source'],
    ['shopt -s nullglob; echo ok', 'shopt'],
    ['case a in a) echo 1;& b) echo 2;; esac', ';&'],
    ['case a in a) echo 1;;& *) echo 2;; esac', ';;&'],
    ['[ a == a ] || touch pwned', '=='],
  ],
  // dash(1) lists `chdir` with `cd`; bash has no such builtin, so its reading misses the directory
  // change: `chdir d && cat secrets/key` read a Read-denied file under Bash(chdir *) (round 19 review).
  'builtins bash does not have': [
    ['mkdir -p d; chdir d && pwd', 'chdir'],
    ['mkdir -p d; command chdir d; pwd', 'chdir'],
  ],
  // bash's exec takes `-a NAME`, `-c`, `-l` and `--` (bash manual, "Bourne Shell Builtins"); dash's
  // takes no options (dash(1): `exec [command arg ...]`) and runs the word as a program from PATH
  // ("exec: -a: not found"): bash's reading of the program is not dash's (round 19 review, F2).
  "exec's options": [
    ['exec -a foo echo hi', 'exec -a/-c/-l/--'],
    ['exec -c echo hi', 'exec -a/-c/-l/--'],
    ['exec -la x echo hi', 'exec -a/-c/-l/--'],
    ['exec -- echo hi', 'exec -a/-c/-l/--'],
    ["exec '-c' echo hi", 'exec -a/-c/-l/--'],
    ['command exec -l echo hi', 'exec -a/-c/-l/--'],
    ['exec -a foo; echo after', 'exec -a/-c/-l/--'],
  ],
};

for (const [family, cases] of Object.entries(CASES)) {
  describe(family, () => {
    test.skipIf(!dash).each(cases)('bash and dash read %j otherwise', (text) => {
      expect(run('dash', text)).not.toBe(run('bash', text));
    });
    test.each(cases)('%j is sh-dialect, naming %s', (text, form) => {
      const reasons = facts(text).commandInfo?.unanalyzable ?? [];
      const reason = reasons.find((r) => r.startsWith('sh-dialect')) ?? '';
      expect(reason, reasons.join('; ')).toContain(form);
      expect(reason).toContain('dash');
    });
    for (const mode of MODES) {
      test.each(cases)(`${mode}: %j is not allowed`, (text) => {
        const decided = decision(text, mode);
        expect(decided.verdict, decided.reason).not.toBe('allow');
      });
    }
  });
}

describe('the reported texts, as the review ran them', () => {
  test.each(MODES)('%s: P7 `echo $\'\\\'; rm -rf pub; id > pwned; #\'` is not allowed', (mode) => {
    expect(decision(`echo $'\\'; rm -rf pub; id > pwned; #'`, mode).verdict).not.toBe('allow');
  });
  test('P6 in bypassPermissions with deny rules: `((rm -rf *pub))` asks', () => {
    expect(decision('((rm -rf *pub))', 'bypassPermissions').verdict).toBe('ask');
    expect(decision('((cat *conf/secret/key))', 'bypassPermissions').verdict).toBe('ask');
  });
  test('plan mode: `[[ a > conf/secret/key ]]` is denied', () => {
    expect(decision('[[ a > conf/secret/key ]]', 'plan').verdict).toBe('deny');
  });
});

describe('payloads for a shell inside the command', () => {
  test.each([
    [`sh -c "echo \\$'\\\\'; touch pwned; #'"`, "$'…'"],
    [`dash -c '((touch *pwned))'`, '((…))'],
    [`find . -exec sh -c '[[ -f x ]]' \\;`, '[[…]]'],
    [`bash -c 'sh -c "cat <<< x"'`, '<<<'],
  ])('%j: the payload is sh-dialect (%s)', (text, form) => {
    const reasons = facts(text).commandInfo?.unanalyzable ?? [];
    expect(reasons.find((r) => r.startsWith('sh-dialect')) ?? '', reasons.join('; ')).toContain(form);
  });
  test.each([`bash -c '[[ -f x ]] && echo $"y"'`, `rbash -c 'cat <<< x'`])('%j: bash reads its own payload', (text) => {
    expect(facts(text).commandInfo?.unanalyzable.filter((r) => r.startsWith('sh-dialect'))).toEqual([]);
  });
  test('a script on stdin of `sh` is read as sh, of `bash` as bash', () => {
    const script = `echo $'\\'; touch pwned; #'`;
    expect(facts('sh', { stdin: script }).commandInfo?.unanalyzable.some((r) => r.startsWith('sh-dialect'))).toBe(true);
    expect(facts('bash', { stdin: script }).commandInfo?.unanalyzable.some((r) => r.startsWith('sh-dialect'))).toBe(false);
  });
  test("bash reads exec's options: the program after them, no sh-dialect", () => {
    for (const text of ['exec -a foo rm x', 'exec -cl -- rm x', 'exec -cla foo rm x', 'exec -afoo rm x', 'command exec -c rm x']) {
      const info = analyseCommand(text, { cwd: W, shell: 'bash' });
      expect(info.unanalyzable, text).toEqual([]);
      expect(info.segments.map((s) => [s.name, ...s.args]), text).toEqual([['rm', 'x']]);
    }
    expect(facts(`bash -c 'exec -a foo ls pub'`).commandInfo?.unanalyzable.filter((r) => r.startsWith('sh-dialect'))).toEqual([]);
    expect(facts(`sh -c 'exec -a foo ls pub'`).commandInfo?.unanalyzable.some((r) => r.startsWith('sh-dialect'))).toBe(true);
  });
  test('the model itself still reads bash when told so (the default of analyseCommand)', () => {
    expect(analyseCommand(`echo $'\\'; touch pwned; #'`, { cwd: W }).unanalyzable).toEqual([]);
    expect(analyseCommand(`echo $'\\'; touch pwned; #'`, { cwd: W, shell: 'sh' }).unanalyzable.some((r) => r.startsWith('sh-dialect'))).toBe(true);
  });
});

describe('the same reading in both shells: no sh-dialect', () => {
  const same = [
    'ls -a pub conf',
    'git status',
    'echo "a b" \'c\' d',
    'x=abc; echo ${x:-def} ${#x} ${x##*b} ${x%c} ${x:+y} ${x#a}',
    'echo $((1 + 2 * 3)) $((7 % 3))',
    "awk '{print $1,$2}' conf/secret/key",
    "echo '{a,b}' \"{a,b}\" '$'\"'\"'x'",
    'ls 2>&1 >out; cat out >&2',
    '[ -f pub/f ] && echo yes; test a = a && echo eq',
    'for f in pub/*; do echo "$f"; done',
    'f() { echo ran; }; f',
    "case a in a) echo 1;; *) echo 2;; esac",
    'echo "$(echo x)" `echo y`',
    'cat <<EOF\na $HOME\nEOF',
    'echo a=b ~/x',
    'ls ./pub ../work',
    // Round 16: forms the dialect rule took for bash's where dash reads them the same.
    'x=1; echo $((x+=2)) $x; : $((x-=1)); echo $x',
    'x=[^a]; echo "$x"',
    'echo a[^b',
    'x=.*; echo "$x"',
    // Round 17: neither shell brace-expands an assignment's value (bash manual "Simple Command
    // Expansion": tilde, parameter, command and arithmetic expansion, quote removal), alone or before a command.
    'x={a,b}; echo "$x"',
    'x=a{1,2}b; echo "$x"',
    'x={1..3}; echo "$x"',
    'x={pub,conf}/f; cat "$x"',
    'x={a,b} sh -c \'echo "$x"\'',
    'touch .gx .gy; echo .g* ./.g? .*.ts pub/.f*',
    'touch .ab; echo .[a-z]? .[!.]?',
    // exec with no option.
    'exec echo hi',
    'exec >out; echo hi',
  ];
  test.skipIf(!dash).each(same)('bash and dash read %j alike', (text) => {
    expect(run('dash', text)).toBe(run('bash', text));
  });
  test.each(same)('%j is not sh-dialect', (text) => {
    expect(facts(text).commandInfo?.unanalyzable.filter((r) => r.startsWith('sh-dialect'))).toEqual([]);
  });
});

// Round 15 left open: the script a shell reads from a producer (`echo … | sh`) was what bash's echo
// prints, but the shell running the pipeline on mcp-server-commands may be dash, whose echo decodes
// `\n`, `\c`, `\0NNN` and takes no `-e` (dash(1)); printf's `\\n` was decoded twice. Deny rules then
// met another script than the one that ran: `echo 'echo hi\nrm -rf pub' | sh` was one echo to the
// model and ran rm in dash. The script the model holds is now exactly the producer's output in that
// shell, or none (the call asks as an interpreter with unknown input).
describe('a producer piped into a shell: the script is what that shell\'s producer prints, or unknown', () => {
  const stdinScript = (text: string, shell: 'sh' | 'bash'): string[][] => analyseCommand(text, { cwd: W, shell }).segments.filter((s) => s.context === 'nested').map((s) => [s.name ?? '', ...s.args]);
  const producer = (text: string): string => text.slice(0, text.lastIndexOf('|'));
  const printed = (shell: string, text: string): string => spawnSync(shell, ['-c', producer(text)], { encoding: 'utf8' }).stdout;
  const DIFFER = [
    "echo 'echo hi\\nrm -rf pub' | sh",
    "echo 'echo hi\\0012rm -rf pub' | sh",
    "echo 'rm -rf pub\\c; echo' | sh",
    "echo -e 'rm -rf pub' | sh",
    "echo -n -n 'rm -rf pub' | sh",
    "printf 'echo \\x41; rm -rf pub\\n' | sh",
  ];
  test.skipIf(!dash).each(DIFFER)('bash and dash print %j otherwise', (text) => {
    expect(printed('dash', text)).not.toBe(printed('bash', text));
  });
  test.each(DIFFER)('%j on a sh: the model holds no script for it', (text) => {
    expect(stdinScript(text, 'sh')).toEqual([]);
  });
  for (const mode of MODES) {
    test.each(DIFFER)(`${mode}: %j is not allowed`, (text) => {
      expect(decision(text, mode).verdict).not.toBe('allow');
    });
  }
  // Where the model holds a script, it is the one the shell gets: the producer run by that shell.
  const KNOWN: Array<[string, 'sh' | 'bash']> = [
    ["echo 'rm -rf pub' | sh", 'sh'],
    ["echo -n 'rm -rf pub' | sh", 'sh'],
    ["printf 'echo a\\\\nrm b\\n' | sh", 'sh'],
    ["printf 'echo a\\\\nrm b\\n' | bash", 'bash'],
    ["printf 'echo a\\trm b\\n' | sh", 'sh'],
    ["echo 'echo a\\nrm b' | bash", 'bash'],
    ["echo -E 'echo a\\nrm b' | bash", 'bash'],
  ];
  test.skipIf(!dash).each(KNOWN)('%j (%s): the script held is the one the shell prints', (text, shell) => {
    const output = printed(shell === 'sh' ? 'dash' : 'bash', text);
    expect(stdinScript(text, shell)).toEqual(analyseCommand(output, { cwd: W, shell }).segments.map((s) => [s.name ?? '', ...s.args]));
  });
  test.each(["echo -e 'echo a\\nrm b' | bash", "printf 'echo \\x41\\n' | bash"])('%j: an escape bash decodes is not modelled, so no script', (text) => {
    expect(stdinScript(text, 'bash')).toEqual([]);
  });
});
