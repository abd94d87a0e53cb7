import { realpathSync } from 'node:fs';
import { basename, dirname, join, posix } from 'node:path';
import { zodIssues } from '../config/load.js';
import { initCopiesIn } from '../clients/backup.js';
import { backupsDir, codeCacheDirectory, httpSecretFile, legacyBackupsDir, manifestPath, pageOpenerDir, pageStateFile, pinsFileFor, stateKeyPath } from '../config/locate.js';
import { parseConfigFile, type ConfigFile } from '../config/schema.js';
import type { StartFiles } from '../config/servers.js';
import { LatchError, type ConfigIssue } from '../errors.js';
import { BUILD_CACHE_LIMIT, BuildCache } from './build-cache.js';
import type { PolicyState } from './decide.js';
import { RuleSet, type MatchEnv } from './match.js';
import { parseRule, type Rule } from './rule.js';
import type { DefaultMode, RuleList, RuleText } from './types.js';

/**
 * From the config's `permissions` block to a PolicyState: rule strings parsed once per load, every
 * bad rule reported with its key path, then indexed against the workspace roots.
 */
export interface PermissionsInput {
  defaultMode: DefaultMode;
  allow: RuleText[];
  ask: RuleText[];
  deny: RuleText[];
}

const LISTS: RuleList[] = ['deny', 'ask', 'allow'];

/**
 * Rules parsed by earlier loads, by list and text: a rule is a function of these two alone
 * (build-cache.ts). Frozen, as every policy holding one shares it; the same object each time, so
 * RuleSet keeps what it made of it (match.ts placements).
 */
const parsed: Record<RuleList, BuildCache<string, Rule>> = { allow: new BuildCache(BUILD_CACHE_LIMIT), ask: new BuildCache(BUILD_CACHE_LIMIT), deny: new BuildCache(BUILD_CACHE_LIMIT) };

function parseRuleOnce(text: RuleText, list: RuleList): Rule {
  if (typeof text !== 'string') return parseRule(text, list);
  return parsed[list].get(text, () => {
    const rule = parseRule(text, list);
    if (rule.type === 'command' && rule.words !== null) Object.freeze(rule.words);
    return Object.freeze(rule);
  });
}

/** Parses every rule; returns the rules and one issue per bad rule (`permissions.allow[2]: …`). */
export function parseRules(permissions: Pick<PermissionsInput, RuleList> & { defaultMode?: unknown }, where = 'permissions'): { rules: Rule[]; issues: ConfigIssue[] } {
  const rules: Rule[] = [];
  const issues: ConfigIssue[] = [];
  for (const list of LISTS) {
    permissions[list].forEach((text, index) => {
      try {
        rules.push(parseRuleOnce(text, list));
      } catch (error) {
        const message = error instanceof LatchError ? error.message : String(error);
        issues.push({ path: `${where}.${list}[${index}]`, message });
      }
    });
  }
  return { rules, issues };
}

/** Rule issues of a schema-valid config: what `loadConfig` adds to the schema's own checks. */
export function ruleIssues(file: ConfigFile): ConfigIssue[] {
  const overlays = Object.entries(file.users).flatMap(([user, overlay]) => parseRules(overlay.permissions, `users.${user}.permissions`).issues);
  return [...parseRules(file.permissions).issues, ...overlays];
}

/** Issues of rules added to the list at `where` (`permissions.allow`, `users.U.permissions.allow`) from index `first` on (store/rules-file.ts KnownValid). */
export function addedRuleIssues(list: RuleList, texts: RuleText[], where: string, first: number): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  texts.forEach((text, index) => {
    try {
      parseRuleOnce(text, list);
    } catch (error) {
      issues.push({ path: `${where}[${first + index}]`, message: error instanceof LatchError ? error.message : String(error) });
    }
  });
  return issues;
}

/** Every issue of a config given as parsed JSON: schema, then rules. Empty when the config is valid. */
export function configIssues(data: unknown): ConfigIssue[] {
  const parsed = parseConfigFile(data);
  if (!parsed.success) return zodIssues(parsed.error.issues, data);
  return ruleIssues(parsed.data);
}

/**
 * Rules no config can remove: the model must not be able to edit the rules that bind it (the config
 * file, the temporary file of an atomic write, the audit), nor the code that applies them (the
 * code cache the next gateway runs), nor read or write the gateway's secrets (the config itself,
 * the approval page's token, the state key, `secretFiles`), nor add rules through the CLI from a shell tool.
 */
export function builtInRules(configPath: string, auditPath: string | null, cacheDirectory: string = codeCacheDirectory(), start: StartFiles = NO_START_FILES, secretFiles: readonly string[] = []): Rule[] {
  // The config and the audit. The physical targets too: the files may be reached through a symlinked
  // directory or be links themselves (a write subject's real path is walked in kernel order).
  const rules: Rule[] = [];
  for (const file of new Set([configPath, ...(auditPath ? [auditPath] : [])].flatMap((each) => [each, ...physicalForms(each)]))) {
    for (const pattern of [literal(file), ...siblingPatterns(file)]) rules.push({ type: 'path', list: 'deny', access: 'write', pattern, text: `built-in protection of ${file}` });
  }
  // The approval page's state file holds the page's secret token, the state key signs paused
  // calls, and the HTTP gateway's secret is the credential of its `local` user: a model that read
  // one could answer its own call on the page or forge one (round 11 review). The config holds the
  // servers' `env` and `headers` secrets and a team's `store.url`, whose Redis password let a
  // member's model answer other members' calls (round 12 review, F1); `init`'s manifest and its
  // backups of client files hold the same tokens (round 18 review, L12); the lock file names each
  // server by its command line or URL, and a model that wrote it could accept a changed tool
  // itself (round 18 review, L14); `secretFiles` are the
  // caller's others (a team's audit, the Redis password file). Neither read nor written by a tool
  // (docs/threat-model.md).
  const secrets = [configPath, manifestPath(configPath), pinsFileFor(configPath), pageStateFile(configPath), stateKeyPath(configPath), httpSecretFile(configPath), ...secretFiles];
  for (const file of new Set(secrets.flatMap((each) => [each, ...physicalForms(each)]))) {
    for (const pattern of [literal(file), ...siblingPatterns(file)]) {
      for (const access of ['read', 'write'] as const) rules.push({ type: 'path', list: 'deny', access, pattern, text: `built-in protection of ${file} (a secret of the gateway)` });
    }
  }
  // Before round 20 init kept them in `backups/`, which a project may have of its own (round 19
  // review, F-backups): of that folder only init's copies are protected, each where the manifest
  // names it; all of it when it cannot be listed.
  const legacy = legacyBackupsDir(configPath);
  const copies = initCopiesIn(legacy);
  const folders = copies === null ? [backupsDir(configPath), legacy] : [backupsDir(configPath)];
  for (const directory of new Set(folders.flatMap((each) => [each, ...physicalForms(each)]))) {
    for (const pattern of [literal(directory), `${literal(directory)}/**`]) {
      for (const access of ['read', 'write'] as const) rules.push({ type: 'path', list: 'deny', access, pattern, text: `built-in protection of ${directory} (init's copies of client files, tokens included)` });
    }
  }
  for (const file of new Set((copies ?? []).flatMap((each) => [each, ...physicalForms(each)]))) {
    for (const access of ['read', 'write'] as const) rules.push({ type: 'path', list: 'deny', access, pattern: literal(file), text: `built-in protection of ${file} (init's copy of a client file, tokens included)` });
  }
  // The files that lead a browser to the approval page each hold a one-time link (round 18 review, L1).
  const openers = pageOpenerDir(configPath);
  for (const directory of new Set([openers, ...physicalForms(openers)])) {
    for (const pattern of [literal(directory), `${literal(directory)}/**`]) {
      for (const access of ['read', 'write'] as const) rules.push({ type: 'path', list: 'deny', access, pattern, text: `built-in protection of ${directory} (one-time links to the approval page)` });
    }
  }
  for (const directory of new Set([cacheDirectory, ...physicalForms(cacheDirectory)])) {
    for (const each of [literal(directory), `${literal(directory)}/**`]) rules.push({ type: 'path', list: 'deny', access: 'write', pattern: each, text: `built-in protection of ${directory} (the gateway's code cache)` });
  }
  // `tools` accepts changed tool definitions (`--accept`): the user's decision, like a rule; `page`
  // prints a link that opens an approving page session and `token` makes a member's credential
  // (round 18 review, L13): a model holding either answers its own calls.
  for (const sub of ['allow', 'deny', 'init', 'tools', 'page', 'token']) {
    rules.push({ type: 'command', list: 'deny', words: ['mcp-latch', sub], prefix: true, text: `built-in: only the user runs mcp-latch ${sub}` });
  }
  // What a server is started from (config/servers.ts serverStartFiles): its envFile holds the
  // same secrets as the config's `env`, so it is denied like the config, read and write (a
  // member's model read the team servers' credentials from it: round 16 review T3); a script it
  // runs asks even under an Edit allow rule, as git's code files do.
  for (const file of new Set(start.envFiles.flatMap((each) => [each, ...physicalForms(each)]))) {
    for (const access of ['read', 'write'] as const) rules.push({ type: 'path', list: 'deny', access, pattern: literal(file), text: `built-in protection of ${file} (a server's envFile)` });
  }
  for (const file of new Set(start.programs.flatMap((each) => [each, ...physicalForms(each)]))) {
    rules.push({ type: 'path', list: 'ask', access: 'write', pattern: literal(file), text: `built-in: the gateway starts a server from ${file}`, codeFile: true });
  }
  // Security: a configuration file a server's env points git or hg at runs code its settings name,
  // as ~/.gitconfig does; written by a tool, the shell server's next `git status` runs it (round 32).
  for (const entry of new Set(start.configFiles ?? [])) {
    const directory = entry.endsWith('/');
    const file = directory ? entry.slice(0, -1) : entry;
    const anywhere = file.startsWith('**/');
    for (const form of anywhere ? [file.slice(3)] : new Set([file, ...physicalForms(file)])) {
      const pattern = `${anywhere ? '**/' : ''}${literal(form)}${directory ? '/**' : ''}`;
      rules.push({ type: 'path', list: 'ask', access: 'write', pattern, text: `built-in: a server's environment points git or Mercurial at ${file} (GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM, XDG_CONFIG_HOME, HGRCPATH), which run code its settings name`, codeFile: true });
    }
  }
  rules.push(...ancestorRules(rules));
  for (const pattern of [...CLIENT_FILES, ...clientDataFiles()]) rules.push({ type: 'path', list: 'ask', access: 'write', pattern, text: `built-in: an MCP client starts the servers ${pattern} names`, codeFile: true });
  for (const pattern of GIT_CODE_FILES) rules.push({ type: 'path', list: 'ask', access: 'write', pattern, text: `built-in: git runs code named in ${pattern}`, codeFile: true });
  for (const pattern of GIT_REF_FILES) rules.push({ type: 'path', list: 'ask', access: 'write', pattern, text: `built-in: git reads refs, their logs and the index from ${pattern}`, codeFile: true });
  for (const pattern of RUNNER_PROGRAM_FILES) rules.push({ type: 'path', list: 'ask', access: 'write', pattern, text: `built-in: a package manager runs the program ${pattern} names`, codeFile: true });
  for (const pattern of PROGRAM_START_FILES) rules.push({ type: 'path', list: 'ask', access: 'write', pattern, text: `built-in: a program runs code or a command ${pattern} names at its next start`, codeFile: true });
  for (const pattern of REQUEST_SETTING_FILES) rules.push({ type: 'path', list: 'ask', access: 'write', pattern, text: `built-in: a program sends its requests, and the credentials it adds, where ${pattern} says at its next run`, codeFile: true });
  for (const pattern of LOGIN_START_FILES) rules.push({ type: 'path', list: 'ask', access: 'write', pattern, text: `built-in: a shell or ssh runs the commands ${pattern} holds at its next start`, codeFile: true });
  for (const pattern of HOOK_FRAMEWORK_FILES) rules.push({ type: 'path', list: 'ask', access: 'write', pattern, text: `built-in: a git hook framework runs the commands ${pattern} names`, codeFile: true });
  // Removing it asks too: Desktop Commander keeps the old config in memory while mcp-latch, finding no file, would take $SHELL for its shell.
  rules.push({ type: 'path', list: 'ask', access: 'write', pattern: DESKTOP_COMMANDER_CONFIG, text: `built-in: Desktop Commander runs commands in the shell and directories ${DESKTOP_COMMANDER_CONFIG} names` });
  return rules;
}

/**
 * A write of a directory above a file the rules above protect by name moves, removes or replaces the
 * file with it (`move_file .latch l2`, a write of l2/mcp-latch.json, `move_file l2 .latch` rewrote
 * the config and the gateway reloaded it with no rules; round 14 review T1): each such rule also
 * holds for every ancestor of its file, lexical and physical (the file list holds both forms), for
 * writes only (docs/threat-model.md#moving-a-directory-moves-what-is-below-it).
 */
function ancestorRules(rules: readonly Rule[]): Rule[] {
  const out: Rule[] = [];
  const seen = new Set<string>();
  for (const rule of rules) {
    // A server's start script (an ask, codeFile) is planted by a move back, which the arrivals below the destination meet.
    if (rule.type !== 'path' || rule.access !== 'write' || rule.pattern === null || rule.holds !== undefined || rule.codeFile) continue;
    const file = unliteral(rule.pattern);
    if (file === null) continue; // the code cache's `dir/**`: its own directory is a literal rule too
    for (let dir = posix.dirname(file), below = file; dir !== below && dir !== '.'; below = dir, dir = posix.dirname(dir)) {
      const key = `${rule.list}\0${dir}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ type: 'path', list: rule.list, access: 'write', pattern: literal(dir), text: `${rule.text}, which a write of ${dir} moves or removes`, holds: file });
    }
  }
  return out;
}

/** The path a literal() pattern names; null for a glob. */
function unliteral(pattern: string): string | null {
  if (/(?<!\\)[*?[\]{}()!]/.test(pattern)) return null;
  return pattern.replace(/\\([*?[\]{}()!])/g, '$1');
}

const NO_START_FILES: StartFiles = { envFiles: [], programs: [] };

/**
 * The MCP clients' server lists and settings (clients/discover.ts): a server added there, or a
 * client told to start every project server (`.claude/settings.local.json`
 * `enableAllProjectMcpServers`), runs at the client's next start, outside the gateway.
 */
const CLIENT_FILES: readonly string[] = [
  '**/.mcp.json',
  '**/.cursor/mcp.json',
  '**/.vscode/mcp.json',
  '**/.vscode/settings.json',
  '**/.claude/settings.json',
  '**/.claude/settings.local.json',
  '~/.claude.json',
  '~/.codeium/windsurf/mcp_config.json',
];

/**
 * The clients' per-user files below the application data folder clients/discover.ts reads them from
 * (appDataDir: `~/Library/Application Support` on macOS, `%APPDATA%` on Windows, `$XDG_CONFIG_HOME`
 * or `~/.config` elsewhere): each platform's default, and the folder the environment names. Until
 * round 21 only `~/.config` and Claude's macOS folder were named, so VS Code's user `mcp.json` on
 * macOS or Windows, or below a `$XDG_CONFIG_HOME` of its own, was written with no ask (review-bypass21).
 */
function clientDataFiles(): string[] {
  const dirs = new Set(['~/.config', '~/Library/Application Support', '~/AppData/Roaming']);
  for (const value of [process.env.XDG_CONFIG_HOME, process.env.APPDATA]) {
    if (value && (value.startsWith('/') || /^[A-Za-z]:[\\/]/.test(value))) dirs.add(literal(value.replace(/[\\/]+$/, '')));
  }
  return [...dirs].flatMap((dir) => ['Claude/claude_desktop_config.json', 'Code/User/mcp.json', 'Code/User/settings.json'].map((file) => `${dir}/${file}`));
}

/**
 * Desktop Commander's config (subjects/desktop-commander.ts): its defaultShell is the shell every
 * start_process runs in, and its allowedDirectories and blockedCommands its own sandbox (round 14
 * review T6; its set_config_value asks on its own: profiles.ts configAsks). A server given another
 * HOME keeps it elsewhere, which this rule does not name (docs/threat-model.md#desktop-commanders-shell).
 */
const DESKTOP_COMMANDER_CONFIG = '~/.claude-server-commander/config.json';

/**
 * Files git runs code from (git-config(1): core.fsmonitor, core.hooksPath, core.pager, diff.external,
 * filter.<driver>.clean, alias.x=!cmd, include.path …; githooks(5); gitattributes(5): the filter,
 * diff and merge drivers a path uses): writing one is asked about even under an `Edit` allow rule,
 * since the next `git status` runs what it names. The `.git` directory itself too (`mv evil .git`),
 * and the files that tell git where the others are (gitrepository-layout(5): `commondir` moves
 * config, hooks/ and info/ to the directory it names; `.git/commondir` = `../evil` made evil/config
 * the repository's, round 13 review A14), or where its objects are (`objects/info/alternates`).
 */
const GIT_CODE_FILES: readonly string[] = [
  '**/.git',
  '**/.git/config',
  '**/.git/config.worktree',
  '**/.git/commondir',
  '**/.git/hooks/**',
  '**/.git/info/attributes',
  '**/.git/objects/info/alternates',
  '**/.git/objects/info/http-alternates',
  '**/.git/worktrees/*/config.worktree',
  '**/.git/worktrees/*/commondir',
  '**/.git/worktrees/*/gitdir',
  '**/.git/modules/**/config',
  '**/.git/modules/**/config.worktree',
  '**/.git/modules/**/commondir',
  '**/.git/modules/**/hooks/**',
  '**/.git/modules/**/info/attributes',
  '**/.gitattributes',
  '~/.gitconfig',
  '~/.config/git/config',
  '~/.config/git/attributes',
];

/**
 * Files git takes for refs, reflogs and the index (gitrepository-layout(5); any one-level name in
 * the git directory is a ref for `git show NAME`, git-objects.ts readRef). What `git show NAME`
 * prints is decided from them (docs/threat-model.md#what-git-prints): a ref written as a file
 * (`echo C > .git/refs/heads/x`) names any object, a reflog line (`>> .git/logs/HEAD`) makes a
 * commit `git commit-tree` made around a stored blob one a ref named, an index written whole holds
 * any blob under any name; then `git show x` printed an ignored .env (git 2.39, round 17). git's
 * own updates are not writes the rules see. Removing them plants nothing (`codeFile`).
 */
const GIT_REF_FILES: readonly string[] = [
  '**/.git/*',
  '**/.git/refs/**',
  '**/.git/logs/**',
  '**/.git/worktrees/*/*',
  '**/.git/worktrees/*/refs/**',
  '**/.git/worktrees/*/logs/**',
  '**/.git/modules/**/HEAD',
  '**/.git/modules/**/packed-refs',
  '**/.git/modules/**/index',
  '**/.git/modules/**/refs/**',
  '**/.git/modules/**/logs/**',
];

/**
 * Settings that make a package manager start a program they name on every run, not the project's
 * code: npm's `.npmrc` (`script-shell`, `node-gyp`, `git`…), yarn's `.yarnrc` (`yarn-path`) and
 * `.yarnrc.yml` (`yarnPath`), pnpm's `.pnpmfile.cjs` (run at every install), bun's `bunfig.toml`
 * (`preload`), cargo's `.cargo/config.toml` (`build.rustc-wrapper`, `target.*.runner`, `linker`).
 * Written by an earlier call, the next `npm run lint` or `cargo check` ran it (npm 11.19.1, bash 5.2;
 * round 13): asked as git's code files are. The files a runner imports as project code
 * (`conftest.py`, tests, `build.rs`) are not: docs/threat-model.md#runners-run-what-earlier-calls-wrote.
 */
const RUNNER_PROGRAM_FILES: readonly string[] = [
  ...['.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', 'bunfig.toml', '.bunfig.toml', '.cargo/config', '.cargo/config.toml'].map((file) => `**/${file}`),
  ...['.npmrc', '.yarnrc', '.yarnrc.yml', '.bunfig.toml', '.cargo/config', '.cargo/config.toml'].map((file) => `~/${file}`),
];

/**
 * Files other programs read code or a command from at every run (round 31, review30r's leftovers;
 * docs/threat-model.md "Round 31: round 30's command-rule leftovers (rules31)"): Mercurial's hgrc
 * (`[hooks]`, `[extensions]`: Mercurial 6.3 ran a repository's `.hg/hgrc` hook on `hg status`),
 * Subversion's config (its helpers and tunnels), latexmk's rc files (Perl it runs: latexmk 4.79
 * read `./latexmkrc`), Maven's `.mvn/jvm.config` (its own JVM's options, `-javaagent:`),
 * `.mvn/maven.config` (its options, `-Dexec.executable=`…) and `~/.mavenrc` (a shell script its
 * `mvn` sources), lldb's and gdb's init files, pandoc's user data directory (its `init.lua`, filters
 * and defaults), terraform's CLI config (provider overrides) and the providers `init` installed.
 * Written by one call, the next `hg status`, `latexmk`, `mvn test` or `terraform plan` allowed by
 * its own rule runs them: asked as git's code files are. Round 32 (rules32): the rest of the files
 * `hg help config` lists on Unix (`.hg/hgrc-not-shared`, `/etc/mercurial/hgrc`, `hgrc.d/*.rc`),
 * Subversion's system config, Maven's `.mvn/extensions.xml` (core extensions: jars Maven 3.8
 * fetches and loads before the pom is read) and pandoc's legacy data directory `~/.pandoc`.
 */
const PROGRAM_START_FILES: readonly string[] = [
  '**/.hg/hgrc',
  '**/.hg/hgrc-not-shared',
  '~/.hgrc',
  '~/.config/hg/hgrc',
  '/etc/mercurial/hgrc',
  '/etc/mercurial/hgrc.d/**',
  '~/.subversion/config',
  '~/.subversion/servers',
  '/etc/subversion/config',
  '/etc/subversion/servers',
  '**/latexmkrc',
  '**/.latexmkrc',
  '~/.latexmkrc',
  '~/.config/latexmk/latexmkrc',
  '**/.mvn/jvm.config',
  '**/.mvn/maven.config',
  '**/.mvn/extensions.xml',
  '~/.mavenrc',
  '~/.lldbinit',
  '~/.gdbinit',
  '~/.config/gdb/gdbinit',
  '~/.local/share/pandoc/init.lua',
  '~/.local/share/pandoc/filters/**',
  '~/.local/share/pandoc/defaults/**',
  '~/.pandoc/init.lua',
  '~/.pandoc/filters/**',
  '~/.pandoc/defaults/**',
  '~/.terraformrc',
  '~/.terraform.d/plugins/**',
  '**/.terraform/providers/**',
];

/**
 * Files that choose where a program's requests go and what TLS it trusts at every run (round 32,
 * rules32; docs/threat-model.md "Round 32: round 31's command-rule leftovers (rules32)"): pip's
 * site config in a virtual environment (`<venv>/pip.conf`: pip 23.2's `pip config debug` lists it
 * as `site`) and its user and global ones (`proxy`, `index-url`, `cert`, `trusted-host`), curl's
 * `.curlrc` (`proxy`, `insecure`, `netrc`) and wget's `.wgetrc` (`https_proxy`, `check_certificate`;
 * wget sends ~/.netrc's passwords unasked). Written by one call, the next `pip install` or `curl`
 * allowed by its own rule hands its requests and their credentials to the proxy, or installs code
 * from the index, the file names: asked as the package managers' `.npmrc` (round 13) is.
 */
const REQUEST_SETTING_FILES: readonly string[] = ['**/pip.conf', '~/.pip/pip.conf', '~/.config/pip/pip.conf', '/etc/pip.conf', '/etc/xdg/pip/pip.conf', '~/.curlrc', '~/.config/.curlrc', '~/.wgetrc', '/etc/wgetrc'];

/**
 * Files a shell sources at its start (bash(1) INVOCATION: `~/.bashrc` for `bash -i`, `~/.profile`,
 * `~/.bash_profile`, `~/.bash_login` for a login shell (`bash -l`, `sh -l`), `~/.bash_logout`; zsh(1)
 * STARTUP/SHUTDOWN FILES: `~/.zshenv` for every zsh, `-c` included; fish's `config.fish` and
 * `conf.d/`; ksh's, mksh's and csh's), and ssh's own configuration (ssh_config(5): `ProxyCommand`,
 * `LocalCommand`, `Match exec`, `KnownHostsCommand` run at the next `ssh`, `git push` or `scp` to a
 * host it matches; sshd(8) runs `~/.ssh/rc` at each login here). Written by one call, the next
 * `bash -i ./x.sh` (bash 5.2 ran ~/.bashrc's line), `zsh -c …` or `git fetch` over ssh runs them,
 * past the deny rules that would meet the same command written out: asked as git's code files are
 * (round 32 review R32-5).
 */
const LOGIN_START_FILES: readonly string[] = [
  ...['.bashrc', '.bash_profile', '.bash_login', '.profile', '.bash_logout', '.zshenv', '.zprofile', '.zshrc', '.zlogin', '.zlogout', '.kshrc', '.mkshrc', '.cshrc', '.tcshrc', '.login', '.logout'].map((file) => `~/${file}`),
  '~/.config/fish/config.fish',
  '~/.config/fish/conf.d/**',
  '~/.config/fish/functions/**',
  '~/.ssh/config',
  '~/.ssh/config.d/**',
  '~/.ssh/rc',
];

/**
 * What git hook frameworks run at the next `git commit` once installed (`pre-commit install`,
 * `lefthook install`, husky's `prepare`): pre-commit's `.pre-commit-config.yaml` (a `repo: local`
 * hook's `entry` is any command), lefthook's `lefthook.yml` and its variants, husky's `.husky/`
 * scripts. Written by one call, a `git commit` allowed by `Bash(git commit:*)` in the next runs
 * them, as a `.git/hooks` file: asked as git's code files are (docs/threat-model.md#hook-frameworks).
 */
const HOOK_FRAMEWORK_FILES: readonly string[] = [
  ...['.pre-commit-config.yaml', '.pre-commit-config.yml', 'lefthook.yml', 'lefthook.yaml', '.lefthook.yml', '.lefthook.yaml', 'lefthook-local.yml', 'lefthook-local.yaml', '.lefthook-local.yml', '.lefthook-local.yaml'].map((file) => `**/${file}`),
  '**/.husky/**',
];

/** The policy a loaded config gives: built-in protections first, then the user's rules. Throws RULE_INVALID on a bad rule (never drops it). */
export function policyFor(permissions: PermissionsInput, configPath: string, auditPath: string | null, env: MatchEnv, start: StartFiles = NO_START_FILES, secretFiles: readonly string[] = []): PolicyState {
  const { rules, issues } = parseRules(permissions);
  // Fail closed: a config loaded without the rule check must not lose its bad deny rules silently.
  if (issues.length > 0) throw new LatchError('RULE_INVALID', `invalid rules: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`);
  return { mode: permissions.defaultMode, rules: new RuleSet([...builtInRules(configPath, auditPath, codeCacheDirectory(), start, secretFiles), ...rules], env) };
}

/**
 * The names a protected file's copies take beside it: the atomic writes' temporary files
 * (`F.mcp-latch-tmp-PID`, `F.PID.tmp`, `.F.PID-N.tmp`) hold the same text while they exist, a
 * rotated or saved copy (`F.1`, `F.bak`) holds the text before (round 18 review, L12), and so do an
 * editor's backup and auto-save files: Emacs's `F~` (first save of a session; vim's with `backup`)
 * and `#F#` (while the buffer is modified), vim's swap `.F.swp` (round 19 review, F-sib).
 */
function siblingPatterns(file: string): string[] {
  const slashed = file.replace(/\\/g, '/');
  const dir = literal(posix.dirname(slashed));
  const name = literal(posix.basename(slashed));
  return [`${literal(slashed)}.*`, `${dir}/.${name}.*`, `${literal(slashed)}~`, `${dir}/#${name}#`];
}

/** A path as a rule pattern that matches only it. */
function literal(path: string): string {
  return path.replace(/\\/g, '/').replace(/[*?[\]{}()!]/g, '\\$&');
}

/** The file in its real directory, and its own target when it is a link. */
function physicalForms(file: string): string[] {
  const forms: string[] = [];
  for (const resolve of [() => join(realpathSync.native(dirname(file)), basename(file)), () => realpathSync.native(file)]) {
    try {
      forms.push(resolve());
    } catch {
      // Not there (yet): the named form stands.
    }
  }
  return forms;
}
