import { RECURSIVE } from '../../policy/decide.js';
import type { Access, CommandPath } from '../../policy/types.js';
import { GIT_REMOTE_NAME } from '../git-dir.js';
import type { FileFacts } from './files.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';

/**
 * git configuration given on the command line or in the environment (`git -c KEY=VALUE`,
 * `git config KEY VALUE`, `GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`):
 * a key whose value git runs makes the value a command to decide; other keys change nothing here.
 *
 *   GIT_CONFIG_PARAMETERS="'color.ui'='always' 'core.fsmonitor'='rm -rf x'"
 *     → color.ui harmless; core.fsmonitor: interpreter, nested script `rm -rf x`
 */

/**
 * git-config(1) keys whose value git runs (a command, a hook directory, an included config file):
 * core.fsmonitor, core.pager, core.editor, core.sshCommand, core.hooksPath, diff.external,
 * diff.<driver>.textconv, filter.<driver>.clean/smudge/process, merge.<driver>.driver,
 * alias.<name>=!cmd, credential.helper, gpg.program, sequence.editor, include.path, …; also
 * imap.tunnel (git-imap-send(1)), trailer.<token>.command (git-interpret-trailers(1)),
 * init.templateDir (copies hooks into new repositories) and safe.directory (lets git run the hooks
 * of a repository owned by someone else; honoured from the command line); tar.<format>.command
 * (git-archive(1) CONFIGURATION: the shell command `git archive --format=<format>`, or `-o x.<format>`,
 * pipes its tar through; documented there only, not in git-config(1); round 21 review, B3);
 * hook.<name>.command (config-based hooks, git-config(1) "hook"), git-lfs's
 * lfs.customtransfer.<name>.path and lfs.extension.<name>.clean/smudge (git-lfs-config(5); round 28).
 */
const GIT_CODE_KEYS = /^(core\.(fsmonitor|pager|editor|sshcommand|askpass|hookspath|gitproxy|worktree|alternaterefscommand)|gpg\.ssh\.defaultkeycommand|guitool\..+\.cmd|instaweb\.(browser|httpd)|help\.browser|imap\.tunnel|trailer\..+\.(command|cmd)|init\.templatedir|safe\.directory|diff\.external|diff\..+\.(command|textconv)|difftool\..+\.(cmd|path)|mergetool\..+\.(cmd|path)|filter\..+\.(clean|smudge|process)|merge\..+\.driver|pager\..+|alias\..+|sequence\.editor|credential\.(.+\.)?helper|gpg\.(.+\.)?program|uploadpack\.packobjectshook|(man|browser)\..+\.(cmd|path)|web\.browser|interactive\.difffilter|remote\..+\.(uploadpack|receivepack|vcs)|protocol\..*allow|include\.path|includeif\..+\.path|submodule\..+\.update|sendemail\..+|ssh\.variant|tar\..+\.command|hook\..+\.command|lfs\.customtransfer\..+\.path|lfs\.extension\..+\.(clean|smudge))$/i;

/**
 * Round 31 (review R31-2): the keys that hand git's HTTP traffic, and the credential its helper adds
 * (`git push` sent the Authorization header from ~/.git-credentials to a proxy on 127.0.0.1 with
 * `-c http.sslVerify=false -c http.proxy=…`), to another party: `http.[<url>.]proxy` and
 * `remote.<name>.proxy` (a proxy the model started), `http.[<url>.]curloptResolve`
 * (`github.com:443:127.0.0.1`), and what git trusts, `http.[<url>.]sslVerify` (but `true`),
 * `sslCAInfo`, `sslCAPath`, `proxySSLCAInfo` (git-config(1) "http.*"). `interpreter`, no command:
 * asks under any allow rule, and `git config` setting one plants it (the built-in ask).
 */
const GIT_TRAFFIC_KEYS = /^(http\.(.+\.)?(sslverify|proxy|curloptresolve|sslcainfo|sslcapath|proxysslcainfo)|remote\..+\.proxy)$/i;

/**
 * git-config(1) keys whose value is a file git reads or writes (round 11, git 2.39, bash 5.2: `git
 * -c commit.template=F commit --allow-empty-message` made F's content the message, `-c
 * format.outputDirectory=D format-patch` wrote into D, `-c http.cookieFile=F -c http.saveCookies=1`
 * writes F). format.outputDirectory is taken from the cwd; the others from the working tree's top,
 * which is not known here: a relative one is a path not known.
 */
const GIT_PATH_KEYS: ReadonlyArray<[RegExp, Access]> = [
  [/^(format\.outputdirectory|trace2\.(normal|perf|event)target|http\.(.+\.)?cookiefile)$/i, 'write'],
  [/^(commit\.template|core\.(excludesfile|attributesfile)|mailmap\.file|blame\.ignorerevsfile|diff\.orderfile|http\.(.+\.)?(sslcert|sslkey|sslcainfo|proxysslcert|proxysslkey|proxysslcainfo)|gpg\.ssh\.(allowedsignersfile|revocationfile)|user\.signingkey|(fetch\.|receive\.)?fsck\.skiplist)$/i, 'read'],
];

type Effects = Pick<FileFacts, 'reasons' | 'nested'> & { paths?: CommandPath[] };

/**
 * The local repository a URL names, or null: a URL with a scheme other than `file://`, or git's
 * `host:path`, names none (git-fetch(1) GIT URLS). A word without `/` may be a remote's name
 * (`origin`): `bare` says so, and git takes it for a directory when no such remote is configured.
 */
export function localRepository(word: Word): { path: Word; bare: boolean } | null {
  if (!word.isStatic) return { path: word, bare: false };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(word.value) && !/^file:\/\//i.test(word.value)) return null;
  if (!/^file:/i.test(word.value) && /^[^/]*:/.test(word.value)) return null;
  const path = { ...word, value: word.value.replace(/^file:\/\//i, '') };
  return { path, bare: !/^(file:|\.\.?$)|\//i.test(word.value) };
}

/**
 * A repository a setting points a remote at (`remote.NAME.url`, `.pushurl`; `url.BASE.insteadOf`
 * makes BASE the URL): `git -c remote.x.url=/prot/repo fetch x` and `git -c
 * url./prot/.insteadOf=foo: fetch foo:repo` printed a file below Read(/prot/**) (git 2.39, round 12).
 */
function remoteSetting(key: string, value: Word | null): Word | null | undefined {
  if (/^remote\..+\.(url|pushurl)$/i.test(key)) return value;
  const base = /^url\.(.+)\.(insteadof|pushinsteadof)$/i.exec(key)?.[1];
  return base === undefined ? undefined : staticWord(base);
}

/**
 * One setting: KEY (null when not known statically) = VALUE (null when it comes from elsewhere).
 * A code key is an interpreter; its static value is a nested script (`alias.x=!cmd` runs cmd). A key
 * naming a file is that file read or written (an interpreter where the caller keeps no paths).
 */
export function gitSetting(key: string | null, value: Word | null, cwd: string | null, out: Effects): void {
  const remote = key === null ? undefined : remoteSetting(key, value);
  if (remote !== undefined) {
    // `url.B.insteadOf`/`pushInsteadOf` rewrite every URL starting with its value, the ones rules
    // and commands name among them, to B: fetches and pushes go to another host (round 28).
    if (/insteadof$/i.test(key!)) out.reasons.push('interpreter');
    const local = remote === null ? { path: unknownSetting(key!, null), bare: false } : localRepository(remote);
    if (local && !out.paths) return void out.reasons.push('interpreter');
    if (local) pushPath(out.paths!, repositoryRead(local, cwd));
    return;
  }
  if (key !== null && GIT_TRAFFIC_KEYS.test(key) && !(/sslverify$/i.test(key) && value?.isStatic && /^(true|yes|on|1)$/i.test(value.value))) out.reasons.push('interpreter');
  const file = key === null ? undefined : GIT_PATH_KEYS.find(([pattern]) => pattern.test(key));
  if (file) return settingFile(key!, value, file[1], cwd, out);
  if (key !== null && !GIT_CODE_KEYS.test(key)) return;
  out.reasons.push('interpreter');
  // Path-valued keys name code elsewhere (a hooks directory, an included file): nothing to parse.
  if (value?.isStatic && !/\.(path|hookspath|worktree|templatedir|directory)$/i.test(key ?? '')) out.nested.push({ kind: 'script', text: value.value.replace(/^!/, ''), cwd });
}

function settingFile(key: string, value: Word | null, access: Access, cwd: string | null, out: Effects): void {
  if (!out.paths) return void out.reasons.push('interpreter');
  if (value?.isStatic && value.value === '') return;
  // git expands `~/` in these values; a relative one other than format.outputDirectory's is read from the top.
  const fixed = value?.isStatic && (value.value.startsWith('/') || value.value.startsWith('~/') || /^format\./i.test(key));
  const path = pathOf(fixed ? value! : unknownSetting(key, value), access, cwd);
  // A directory (format.outputDirectory, a trace2 target) gets files of git's naming below it.
  if (path && access === 'write') path.tree = { content: true, follows: false };
  pushPath(out.paths, path);
}

const unknownSetting = (key: string, value: Word | null): Word => ({ ...staticWord(`<${key} ${value?.raw ?? 'from the environment'}>`), isStatic: false });

/** A local repository git reads (its objects: every file it ever held), walked as a recursive read. */
export function repositoryRead(local: { path: Word; bare: boolean }, cwd: string | null, access: Access = 'read'): CommandPath | null {
  const path = pathOf(local.path, access, cwd, local.bare ? GIT_REMOTE_NAME : RECURSIVE);
  if (path) path.tree = { content: true, follows: false };
  return path;
}

/** A `KEY=VALUE` word (`git -c`); `--config-env=KEY=ENVVAR` takes the value from the environment. */
export function gitSettingWord(setting: Word, cwd: string | null, out: Effects, fromEnvironment = false): void {
  if (!setting.isStatic) return gitSetting(null, null, cwd, out);
  const text = setting.value;
  const eq = text.indexOf('=');
  const key = eq === -1 ? text : text.slice(0, eq);
  gitSetting(key, eq === -1 || fromEnvironment ? null : staticWord(text.slice(eq + 1)), cwd, out);
}

const SPACE = /[ \t\n\r]/;

/**
 * git's `sq_dequote_step` (quote.c): a `'…'` string where `'\''` and `'\!'` continue it. Returns the
 * text and where it stopped (null at the end of the input), or null when the input is malformed.
 */
function dequoteStep(text: string, at: number): { value: string; next: number | null } | null {
  if (text[at] !== "'") return null;
  let value = '';
  for (let i = at + 1; ; i++) {
    const c = text[i];
    if (c === undefined) return null;
    if (c !== "'") {
      value += c;
      continue;
    }
    const after = text[i + 1];
    if (after === undefined) return { value, next: null };
    if (after === '\\' && (text[i + 2] === "'" || text[i + 2] === '!') && text[i + 3] === "'") {
      value += text[i + 2];
      i += 3;
      continue;
    }
    return { value, next: i + 1 };
  }
}

/**
 * `GIT_CONFIG_PARAMETERS` as git reads it (config.c `parse_config_env_list`): whitespace-separated
 * `'KEY'='VALUE'`, `'KEY'=` (a boolean) or old-style `'KEY=VALUE'` entries. Null when git would
 * refuse it ("bogus format"); git then runs nothing.
 */
export function configParameters(text: string): Array<{ key: string; value: string | null }> | null {
  const pairs: Array<{ key: string; value: string | null }> = [];
  let cur: number | null = 0;
  while (cur !== null && cur < text.length) {
    const key = dequoteStep(text, cur);
    if (!key) return null;
    cur = key.next;
    if (cur === null || SPACE.test(text[cur]!)) {
      // Old style: split at the first `=`, the key trimmed (git_config_parse_parameter).
      const eq = key.value.indexOf('=');
      pairs.push(eq === -1 ? { key: key.value.trim(), value: null } : { key: key.value.slice(0, eq).trim(), value: key.value.slice(eq + 1) });
    } else if (text[cur] === '=') {
      cur++;
      if (text[cur] === "'") {
        const value = dequoteStep(text, cur);
        if (!value || (value.next !== null && !SPACE.test(text[value.next]!))) return null;
        pairs.push({ key: key.value, value: value.value });
        cur = value.next;
      } else if (cur >= text.length || SPACE.test(text[cur]!)) {
        pairs.push({ key: key.value, value: null });
      } else {
        return null;
      }
    } else {
      return null;
    }
    while (cur !== null && cur < text.length && SPACE.test(text[cur]!)) cur++;
  }
  return pairs;
}

const PARAMETERS = /^GIT_CONFIG_PARAMETERS\+?=/;
const KEY = /^GIT_CONFIG_KEY_(\d+)\+?=/;
const VALUE = /^GIT_CONFIG_VALUE_(\d+)\+?=/;

/**
 * The git configuration in a list of `NAME=value` words (one command's assignments, or one
 * `export`/`declare`). `GIT_CONFIG_VALUE_<n>` is harmless only when every `GIT_CONFIG_KEY_<n>` in
 * the same list is a static harmless key; a key set elsewhere is unknown, so its value is code.
 * `+=` appends to a value not known here: the appended text is still decided as code.
 */
export function gitEnvironment(words: readonly Word[], cwd: string | null, out: Effects): void {
  const keys = new Map<string, Array<string | null>>();
  for (const word of words) {
    const key = KEY.exec(word.value);
    if (!key) continue;
    const known = word.isStatic && !word.value.includes('+=') ? word.value.slice(key[0].length) : null;
    keys.set(key[1]!, [...(keys.get(key[1]!) ?? []), known]);
  }
  for (const [n, names] of keys) {
    // The value may come from the environment: a code key asks even without one here.
    if (!words.some((word) => VALUE.exec(word.value)?.[1] === n)) for (const name of names) gitSetting(name, null, cwd, out);
  }
  for (const word of words) {
    const parameters = PARAMETERS.exec(word.value);
    const value = VALUE.exec(word.value);
    if (parameters) {
      const text = word.value.slice(parameters[0].length);
      const pairs = word.isStatic && !parameters[0].startsWith('GIT_CONFIG_PARAMETERS+') ? configParameters(text) : null;
      if (pairs === null) {
        // Unknown or malformed: never analysable, and its text is still decided as code.
        out.reasons.push('interpreter');
        if (word.isStatic) out.nested.push({ kind: 'script', text, cwd });
      } else {
        for (const pair of pairs) gitSetting(pair.key, pair.value === null ? null : staticWord(pair.value), cwd, out);
      }
    } else if (value) {
      const text = word.isStatic ? staticWord(word.value.slice(value[0].length)) : null;
      const names = keys.get(value[1]!) ?? [null];
      for (const name of new Set(names)) gitSetting(name, text, cwd, out);
    }
  }
}
