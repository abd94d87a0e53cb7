import type { FileFacts } from './files.js';
import { ghCommandPath } from '../../programs.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';

/**
 * gh (GitHub CLI) settings that name code a later gh command runs (docs/threat-model.md "Round 27:
 * rules left by round 26 (rules27b)", S17), as git's `alias.*`, `core.editor` are (git-config.ts):
 *
 *   gh alias set NAME EXPANSION   pkg/cmd/alias/set: an expansion starting with `!`, or any with
 *                                 `--shell`/`-s`, runs through `sh -c` when `gh NAME` is called (gh
 *                                 2.23 ran `gh alias set --shell x 'touch F'; gh x`'s touch);
 *                                 another expands to gh's own words. `-` reads it from stdin.
 *   gh alias import FILE          (gh 2.40 on) many such at once, from FILE or stdin.
 *   gh config set KEY VALUE       internal/config: `editor`, `pager`, `browser` are programs gh runs
 *                                 (gh 2.23 ran `gh config set browser ./x; gh browse`'s ./x);
 *                                 `http_unix_socket` sends every request, the token with it, to
 *                                 whoever listens there; gh writes keys it does not know too (an
 *                                 extension may read them). The keys that only pick a protocol or
 *                                 switch prompts and display stay plain.
 *   gh extension install|upgrade|create|browse
 *                                 fetch (or make, or offer to fetch) a gh-NAME program `gh NAME`
 *                                 then runs (gh 2.23: `gh extension install .` in gh-x/, then `gh x`).
 *
 * Each is `interpreter`; a static expansion or program is also a nested script deny rules meet
 * (a plain alias as `gh EXPANSION`). cobra reads flags anywhere before `--`.
 */

/** gh's config keys whose values only choose among fixed values (internal/config Options' AllowedValues, and the display switches of later releases). */
const GH_PLAIN_KEYS: ReadonlySet<string> = new Set(['git_protocol', 'prompt', 'prefer_editor_prompt', 'advanced_issue_search', 'color_labels', 'accessible_colors', 'accessible_prompter', 'spinner', 'telemetry']);
/** Keys whose value is a command line gh runs. */
const GH_PROGRAM_KEYS: ReadonlySet<string> = new Set(['editor', 'pager', 'browser']);
/** `gh extension` commands that bring code `gh NAME` runs later. */
const GH_EXTENSION_INSTALLS: ReadonlySet<string> = new Set(['install', 'upgrade', 'create', 'browse']);

/** gh's token in the system keyring (gh 2.24 on), or in GH_CONFIG_DIR's hosts.yml: a place known only at run time. */
const GH_TOKEN_STORE: Word = { value: '<gh token store>', raw: "<gh's token store: GH_CONFIG_DIR/hosts.yml or the keyring>", isStatic: false, ansi: false };

/** A static word, or NUL for one known only at run time. */
const text = (word: Word): string => (word.isStatic ? word.value : '\u0000');

export function ghSettings(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  const end = args.findIndex((word) => word.isStatic && word.value === '--');
  const before = end === -1 ? args : args.slice(0, end);
  const isFlag = (word: Word): boolean => word.isStatic && word.value.startsWith('-') && word.value !== '-';
  // The group and command as cobra finds them, flags' values before them skipped (`gh auth
  // --hostname h token`; programs.ts ghCommandPath, round 30); past them, the words that are not
  // flags (cobra reads flags anywhere; `config set --host H` takes H, below).
  const path = ghCommandPath(before.map(text));
  const [group, command] = path.map((i) => text(before[i]!));
  const past = path.length === 0 ? before.length : path.at(-1)! + 1;
  const rest = before.slice(past);
  const operands = [...rest.filter((word) => !isFlag(word)), ...(end === -1 ? [] : args.slice(end + 1))];
  const code = (): void => void out.reasons.push('interpreter');
  // A group or command known only at run time may be `alias set` or `extension install`.
  if (group === '\u0000' || (['alias', 'config', 'extension', 'extensions', 'ext'].includes(group ?? '') && command === '\u0000')) return code();
  if (group === 'alias' && command === 'import') return code();
  if (group === 'alias' && command === 'set') {
    const expansion = operands[1];
    if (expansion === undefined || !expansion.isStatic || expansion.value === '-') return code();
    const shell = expansion.value.startsWith('!') || before.some((word) => word.isStatic && /^(-s|--shell(=.*)?|-[A-Za-z]*s[A-Za-z]*)$/.test(word.value) && word.value !== '--shell=false');
    code();
    const script = shell ? expansion.value.replace(/^!/, '') : `gh ${expansion.value}`;
    if (script.trim() !== '') out.nested.push({ kind: 'script', text: script, cwd });
    return;
  }
  if (group === 'config' && command === 'set') return configSet(rest, end === -1 ? [] : args.slice(end + 1), cwd, out);
  // `gh auth token` and `gh auth status --show-token` print the token gh keeps (gh 2.23 printed
  // hosts.yml's `oauth_token`; round 28 review R28-9): a read of its store, the file or a keyring.
  if (group === 'auth' && (command === 'token' || (command === 'status' && before.some((word) => word.isStatic && /^(-t|--show-token(=.*)?|-[A-Za-z]*t[A-Za-z]*)$/.test(word.value))))) {
    pushPath(out.paths, pathOf(staticWord('~/.config/gh/hosts.yml'), 'read', cwd));
    pushPath(out.paths, pathOf(GH_TOKEN_STORE, 'read', cwd));
  }
  if ((group === 'extension' || group === 'extensions' || group === 'ext') && command !== undefined && GH_EXTENSION_INSTALLS.has(command)) code();
}

/** `gh config set [--host H] KEY VALUE`: the key and value are the operands past `set` (`before`: the words after it), `--host`/`-h` taking a word. */
function configSet(before: readonly Word[], after: readonly Word[], cwd: string | null, out: FileFacts): void {
  const operands: Word[] = [];
  for (let i = 0; i < before.length; i++) {
    const word = before[i]!;
    if (!word.isStatic) {
      operands.push(word);
      continue;
    }
    if (word.value === '--host' || word.value === '-h') i++;
    else if (!word.value.startsWith('-') || word.value === '-') operands.push(word);
  }
  operands.push(...after);
  // operands: KEY, VALUE (the words past `config set`)
  const key = operands[0];
  if (key === undefined) return;
  if (!key.isStatic) return void out.reasons.push('interpreter');
  if (GH_PLAIN_KEYS.has(key.value)) return;
  out.reasons.push('interpreter');
  const value = operands[1];
  if (GH_PROGRAM_KEYS.has(key.value) && value?.isStatic && value.value.trim() !== '') out.nested.push({ kind: 'script', text: value.value, cwd });
}
