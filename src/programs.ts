/**
 * What mcp-latch knows about programs, by name: which are shells, interpreters, runners of other
 * commands, wrappers in front of a command (and which of them are harmless), builtins that run none
 * of their words, and which global options come before a CLI's subcommand. One home
 * for these facts: the shell analyser (subjects/) and the rule matching (policy/) both read them,
 * so a program the analyser treats as a shell is a shell for the deny rules too. Imports nothing.
 */

/** Shells: `NAME -c STRING` runs STRING; without a script they run stdin. */
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'csh', 'tcsh', 'fish', 'rbash']);

/**
 * Shells whose language the bash grammar and the model's bash semantics describe (their command
 * strings can be analysed): bash, and the POSIX shells. These are not a subset of bash: dash reads
 * `$'…'`, `((…))`, `[[…]]`, `&>` and more otherwise, so a text for any but BASH_SHELLS is checked for
 * those forms (subjects/shell/dialect.ts, docs/threat-model.md#the-shell-that-reads-the-text). zsh, ksh,
 * mksh and yash are not: each adds its own ways to run code the model does not read (zsh:
 * `printf -v 'functions[ls]' …` defines a function, `commands[ls]=/bin/rm` is its hash table, `=rm`
 * expands to /usr/bin/rm, `emulate sh -c CMD`; ksh93 expands aliases in scripts and autoloads
 * functions from FPATH). Text for them is code in another language (docs/threat-model.md#where-bash-evaluates-text).
 */
export const POSIX_SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'ash', 'posh', 'rbash']);

/** The POSIX_SHELLS that are bash: the text they run is read by bash itself; any other may be dash. */
export const BASH_SHELLS: ReadonlySet<string> = new Set(['bash', 'rbash']);

/** How an interpreter takes code on its command line. */
export interface InterpreterSpec {
  /** Short options whose value is code (`python -c`, `node -e`, `perl -e`). */
  code: string;
  codeLong?: readonly string[];
  /** Short options taking a value (attached or the next word). */
  value?: string;
  valueLong?: readonly string[];
  /** Short options whose value is attached only (`perl -Ilib`, `perl -i.bak`). */
  attached?: string;
  /** Short option naming a module to run: the rest belongs to the module (`python -m pytest`). */
  module?: string;
  /** Modules run with `module` whose operands or options are code (`python -m timeit 'CODE'`). */
  codeModules?: ReadonlySet<string>;
  /** Options whose value is a module to load: a URL there (`data:text/javascript,CODE`) is code. */
  urlValue?: readonly string[];
  /** Attached-value letters whose value is a module name, code if it is anything more (perl `-M'strict;CODE'`). */
  moduleName?: string;
  /** Flags after which it neither runs code nor reads stdin (`--version`, `node --test`). */
  quiet?: readonly string[];
  /** Without a script it prints help instead of reading stdin (`bun`). */
  noStdin?: boolean;
  /** Options opening a debugger at a host (`--inspect=HOST:PORT`): whoever connects runs code, so one past loopback is code. */
  debugger?: readonly string[];
  /**
   * Options naming a file of environment settings the interpreter reads before it starts
   * (`node --env-file=F`): its `NODE_OPTIONS=--require …` loads code, as the variable does.
   */
  settingsFile?: readonly string[];
}

// timeit's statements and `-s SETUP`, pdb's `-c` commands, the REPLs of code and asyncio, IPython's
// `-c` (docs/threat-model.md#code-in-interpreter-options).
const PYTHON_CODE_MODULES: ReadonlySet<string> = new Set(['timeit', 'pdb', 'code', 'asyncio', 'IPython']);
const PYTHON: InterpreterSpec = { code: 'c', value: 'WXQ', module: 'm', codeModules: PYTHON_CODE_MODULES, quiet: ['-V', '--version', '-h', '--help'] };
const NODE: InterpreterSpec = {
  code: 'ep',
  codeLong: ['--eval', '--print'],
  value: 'rC',
  valueLong: ['--require', '--import', '--loader', '--experimental-loader', '--conditions', '--input-type', '--title', '--inspect-port', '--watch-path', '--test-name-pattern', '--test-reporter', '--test-reporter-destination', '--run', '--env-file', '--env-file-if-exists'],
  urlValue: ['-r', '--require', '--import', '--loader', '--experimental-loader'],
  quiet: ['-v', '--version', '-h', '--help', '--test', '-c', '--check', '--run'],
  debugger: ['--inspect', '--inspect-brk', '--inspect-wait', '--inspect-port', '--debug-port'],
  // node(1) `--env-file=F` (20.6), `--env-file-if-exists=F` (20.19, 22.9): node 20.20 ran the
  // `--require` of F's `NODE_OPTIONS` (round 27), as either spelling, `--env-file F` too.
  // Round 33 (rules33): node's configuration file (node 23.10+; `--experimental-config-file` without
  // `=F` and `--experimental-default-config-file` read `node.config.json` of the working directory),
  // whose `nodeOptions` are NODE_OPTIONS' flags (`import`, `require`): not read here, as --env-file's.
  settingsFile: ['--env-file', '--env-file-if-exists', '--experimental-config-file', '--experimental-default-config-file'],
};

const INTERPRETERS: Record<string, InterpreterSpec> = {
  node: NODE,
  nodejs: NODE,
  bun: { code: 'ep', codeLong: ['--eval', '--print'], noStdin: true },
  deno: { code: '', noStdin: true },
  perl: { code: 'eE', attached: 'IMmlx0CdDiF', moduleName: 'Mm', quiet: ['-v', '-V', '--version', '-h', '--help'] },
  ruby: { code: 'e', value: 'IrCE', attached: 'xFW0l', quiet: ['-v', '--version', '-h', '--help'] },
  php: { code: 'rBRE', value: 'cdzt', module: 'f', quiet: ['-v', '--version', '-h', '--help', '-m', '-i'] },
  lua: { code: 'e', value: 'l', quiet: ['-v'] },
  luajit: { code: 'e', value: 'lj', quiet: ['-v'] },
  osascript: { code: 'e', value: 'ls' },
  Rscript: { code: 'e', quiet: ['--version'] },
  R: { code: 'e', module: 'f', quiet: ['--version'] },
  tclsh: { code: '' },
  wish: { code: '' },
  expect: { code: 'c', module: 'f' },
  irb: { code: '' },
  jshell: { code: '' },
};

/** The interpreter spec of a program name (`python3.12` and `pypy3` included); undefined for others. */
export function interpreterSpec(name: string): InterpreterSpec | undefined {
  return Object.hasOwn(INTERPRETERS, name) ? INTERPRETERS[name] : name.startsWith('p') && /^(python[\d.]*|pypy[\d.]*)$/.test(name) ? PYTHON : undefined;
}

/** PowerShell: its options are words (`-Command`), so it has no InterpreterSpec. */
export const isPowerShell = (name: string): boolean => (name.startsWith('p') || name.startsWith('P')) && /^(pwsh|powershell)(\.exe)?$/i.test(name);

/** Shells, interpreters and PowerShell: text given to them on stdin is code. */
export function runsCode(name: string): boolean {
  return SHELLS.has(name) || interpreterSpec(name) !== undefined || isPowerShell(name);
}

/** Programs whose "Always allow" signature includes the script they run (`node scripts/build.js`). */
export function isScriptRunner(name: string): boolean {
  return POSIX_SHELLS.has(name) || /^(node|nodejs|deno|python[\d.]*|pypy[\d.]*|ruby|perl|php)$/.test(name);
}

/**
 * Programs that run a command named in their own arguments, by the subcommand that does so
 * ('' = the program itself). `fetch`: the subcommands that may download the code they run
 * (never auto-allowed); `run`: the ones that run a local command (deny rules look through them).
 */
export const RUNNERS: Record<string, { run: readonly string[]; fetch: readonly string[] }> = {
  npx: { run: [''], fetch: [''] },
  pnpx: { run: [''], fetch: [''] },
  bunx: { run: [''], fetch: [''] },
  uvx: { run: [''], fetch: [''] },
  'nix-shell': { run: [''], fetch: [''] },
  npm: { run: ['exec', 'x'], fetch: ['exec', 'x'] },
  pnpm: { run: ['exec', 'dlx'], fetch: ['exec', 'dlx'] },
  yarn: { run: ['exec', 'dlx'], fetch: ['exec', 'dlx'] },
  bun: { run: ['x'], fetch: ['x'] },
  uv: { run: ['run', 'tool'], fetch: ['tool'] },
  pipx: { run: ['run'], fetch: ['run'] },
  poetry: { run: ['run'], fetch: [] },
  pipenv: { run: ['run'], fetch: [] },
  pdm: { run: ['run'], fetch: [] },
  hatch: { run: ['run'], fetch: [] },
  rye: { run: ['run'], fetch: [] },
  bundle: { run: ['exec'], fetch: [] },
  devbox: { run: ['run'], fetch: ['run'] },
  mise: { run: ['exec', 'x'], fetch: ['exec', 'x'] },
  rtx: { run: ['exec', 'x'], fetch: ['exec', 'x'] },
  direnv: { run: ['exec'], fetch: ['exec'] },
  rustup: { run: ['run'], fetch: [] },
  nix: { run: ['run', 'shell', 'develop'], fetch: ['run', 'shell', 'develop'] },
  deno: { run: [], fetch: ['eval', 'repl'] },
};

/**
 * A program that runs another command after its own options (`sudo -u root CMD`, `timeout 5 CMD`):
 * the shell analyser strips it to find the command. The option fields are an OptionSpec.
 */
export interface WrapperSpec {
  /** Short options that take a value, attached or as the next word. */
  short?: string;
  /** Short options whose value can only be attached. */
  attached?: string;
  /** Long options (without `--`) that take a value. */
  long?: readonly string[];
  /** Operands of the wrapper before the command (`timeout DURATION`, `chroot DIR`). */
  positionals?: number;
  /** Options after which no command follows: the wrapper is the program (`command -v`, `sudo -l`). */
  query?: readonly string[];
  /** `NAME=value` words may follow the options (`env`, `sudo`). */
  assignments?: boolean;
  /** Options whose value is the command's working directory. */
  chdir?: readonly string[];
  /** The command runs under another root (paths and cwd unknown). */
  newRoot?: readonly string[] | true;
  /** The command runs in a directory not known here (`sudo -i CMD`: the target user's home). */
  elsewhere?: readonly string[];
  reads?: readonly string[];
  writes?: readonly string[];
  /** Run with no command, it starts an interactive shell reading stdin (`sudo -i`, `chroot DIR`). */
  bareShell?: readonly string[] | true;
  /** Options whose value is split into words and run (`env -S 'cmd args'`). */
  split?: readonly string[];
  /** Options whose value is a program the wrapper runs or a library it loads (`fakeroot --faked BIN`, `-l LIB`). */
  code?: readonly string[];
}

export const WRAPPERS: Record<string, WrapperSpec> = {
  timeout: { short: 'sk', long: ['signal', 'kill-after'], positionals: 1 },
  // bash's `time` keyword takes assignments after it (`time x=1 cd ~` runs cd in this shell).
  time: { short: 'fo', long: ['format', 'output'], writes: ['-o', '--output'], assignments: true },
  nice: { short: 'n', long: ['adjustment'] },
  nohup: {},
  stdbuf: { short: 'ioe', long: ['input', 'output', 'error'] },
  command: { query: ['-v', '-V'] },
  builtin: {},
  exec: { short: 'a' },
  coproc: {},
  noglob: {},
  busybox: {},
  toybox: {},
  // uutils' multi-call `coreutils rm -rf x` (`--coreutils-prog=rm`: wrappers.ts).
  coreutils: {},
  eatmydata: {},
  nocache: {},
  'dumb-init': { short: 'r', long: ['rewrite'] },
  // tini(1) usage: `-p SIGNAL`, `-e EXIT_CODE` take a value; -s -v -w -g are flags, -l prints the license.
  tini: { short: 'pe', query: ['-h', '--version', '-l'] },
  // systemd-run starts the command as a unit: in `/` unless --same-dir, `--shell` is an interactive shell.
  'systemd-run': {
    short: 'pEMHu',
    long: ['unit', 'property', 'description', 'slice', 'uid', 'gid', 'nice', 'working-directory', 'setenv', 'machine', 'host', 'service-type', 'on-active', 'on-boot', 'on-startup', 'on-unit-active', 'on-unit-inactive', 'on-calendar', 'path-property', 'socket-property', 'timer-property'],
    query: ['-h', '--help', '--version'],
    newRoot: true,
    bareShell: ['-S', '--shell'],
  },
  prlimit: { short: 'p', query: ['-p', '--pid'] },
  setpriv: { long: ['reuid', 'regid', 'groups', 'inh-caps', 'ambient-caps', 'bounding-set', 'securebits', 'pdeathsig', 'selinux-label', 'apparmor-profile', 'landlock-access', 'landlock-rule'], query: ['-d', '--dump'] },
  // numactl(8): `-l`/`--localalloc`, `-a`, `-b` take no value (as a value they hid the command, round 11 F10).
  numactl: {
    short: 'imCNpPwLoMISf',
    long: ['interleave', 'membind', 'cpunodebind', 'cpubind', 'physcpubind', 'preferred', 'preferred-many', 'weighted-interleave', 'length', 'offset', 'shmmode', 'shmid', 'shm', 'file'],
    query: ['-s', '--show', '-H', '--hardware'],
  },
  'xvfb-run': { short: 'fnpsew', long: ['auth-file', 'server-num', 'xauth-protocol', 'server-args', 'error-file', 'wait'] },
  trickle: { short: 'udwtln' },
  sudo: {
    short: 'ugChpDrtTUR',
    long: ['user', 'group', 'close-from', 'host', 'prompt', 'chdir', 'role', 'type', 'command-timeout', 'other-user', 'chroot'],
    query: ['-l', '--list', '-v', '--validate', '-K', '--remove-timestamp', '-e', '--edit', '-V', '--version', '--help'],
    assignments: true,
    chdir: ['-D', '--chdir'],
    newRoot: ['-R', '--chroot'],
    // sudo(8) -i: "attempts to change to that user's home directory before running the shell".
    elsewhere: ['-i', '--login'],
    bareShell: ['-i', '--login', '-s', '--shell'],
  },
  doas: { short: 'uC', query: ['-C'], bareShell: ['-s'] },
  pkexec: { long: ['user'], bareShell: true },
  env: {
    short: 'uCSPa',
    long: ['unset', 'chdir', 'split-string', 'argv0'],
    assignments: true,
    chdir: ['-C', '--chdir'],
    split: ['-S', '--split-string'],
  },
  xargs: {
    short: 'adEILnPs',
    attached: 'eil',
    long: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
    reads: ['-a', '--arg-file'],
  },
  setsid: {},
  ionice: { short: 'cnpPu', long: ['class', 'classdata', 'pid', 'pgid', 'uid'], query: ['-p', '--pid', '-P', '--pgid', '-u', '--uid'] },
  flock: { short: 'wE', long: ['timeout', 'wait', 'conflict-exit-code'], positionals: 1 },
  chrt: { short: 'TPD', long: ['sched-runtime', 'sched-period', 'sched-deadline'], positionals: 1, query: ['-p', '--pid', '-m', '--max'] },
  taskset: { positionals: 1, query: ['-p', '--pid'] },
  unshare: {
    short: 'SGRw',
    long: ['setuid', 'setgid', 'root', 'wd', 'propagation', 'setgroups', 'map-user', 'map-group', 'map-users', 'map-groups'],
    chdir: ['-w', '--wd'],
    newRoot: ['-R', '--root'],
    bareShell: true,
  },
  nsenter: { short: 'tSG', attached: 'rw', long: ['target', 'setuid', 'setgid', 'env'], chdir: ['-w', '--wd'], newRoot: ['-r', '--root'], bareShell: true },
  chroot: { long: ['userspec', 'groups'], positionals: 1, newRoot: true, bareShell: true },
  strace: { short: 'abeEIoOpPsSuUX', long: ['output', 'trace', 'signal', 'status', 'string-limit', 'user', 'env', 'attach', 'trace-path'], writes: ['-o', '--output'] },
  // ltrace(1): -S (system calls), -b -c -C -f -i -L -r -t -T are flags.
  ltrace: { short: 'aADeFlnopsuwx', long: ['output', 'library', 'indent', 'align', 'config', 'where', 'debug'], writes: ['-o', '--output'], reads: ['-F', '--config'] },
  caffeinate: { short: 'tw' },
  // Programs that only change how their command's I/O, network or privileges look (a known
  // Claude Code bypass: each exec-ing program outside the strip list hid its command from deny rules).
  unbuffer: {},
  // fakeroot(1) (its getopt string `l:f:i:s:ub:vh`): -s writes the save file, -i reads the load
  // file, -f/--faked runs a program as the daemon and -l/--lib preloads a library into the command.
  fakeroot: {
    short: 'lfsib',
    long: ['lib', 'faked', 'fd-base'],
    query: ['-h', '--help', '-v', '--version'],
    writes: ['-s'],
    reads: ['-i'],
    code: ['-l', '--lib', '-f', '--faked'],
  },
  torsocks: { short: 'upaP', long: ['user', 'pass', 'address', 'port'], query: ['-h', '--help', '--version'] },
  proxychains: { short: 'f' },
  proxychains4: { short: 'f' },
  catchsegv: {},
  'dbus-run-session': { long: ['config-file', 'dbus-daemon'] },
  firejail: {},
  // bash manual, "Job Control Builtins": `jobs -x COMMAND [ARGS]` runs COMMAND (jobspecs replaced);
  // without -x it runs nothing (wrappers.ts).
  jobs: {},
};

/** Builtins and programs that never run one of their words as a command (beyond what the analyser models). */
export const PLAIN_PROGRAMS: ReadonlySet<string> = new Set([
  'echo', 'printf', 'cd', 'pushd', 'popd', 'dirs', 'set', 'unset', 'shift', 'export', 'declare', 'typeset', 'local', 'readonly', 'let',
  'read', 'mapfile', 'readarray', 'getopts', 'exit', 'return', 'break', 'continue', 'wait', 'kill', 'jobs', 'fg', 'bg', 'disown', 'umask',
  'ulimit', 'shopt', 'type', 'help', 'history', 'caller', 'times', 'true', 'false', ':', 'test', '[', '[[', 'alias', 'unalias', 'hash',
  'trap', 'eval', 'source', '.', 'fc', 'bind', 'complete', 'compgen', 'enable', 'script', 'su', 'runuser', 'ssh', 'watch', 'mkdir', 'ln',
  'chmod', 'chown', 'touch', 'which', 'whereis', 'man', 'info', 'id', 'groups', 'hostname', 'env', 'printenv', 'pwd', 'basename', 'dirname',
]);

/** Wrappers an allow rule and the read-only list may look through: they change when or how a command runs, not what runs. */
export const SAFE_WRAPPERS: ReadonlySet<string> = new Set(['timeout', 'time', 'nice', 'nohup', 'stdbuf']);

/** A CLI's options before its subcommand. */
export interface CliSpec {
  /** Global options that take a value (skipped with it). */
  value?: readonly string[];
  /** Global options that change what runs (`git -c core.pager=…`): no signature. Listed in `value` too when they take one. */
  danger?: readonly string[];
  /** Subcommands followed by a second word that belongs to the signature (`run <script>`, `pr <verb>`). */
  groups?: readonly string[];
  /** Options of a group that take a value, skipped before its second word (`docker compose -f x up`). */
  groupValue?: readonly string[];
  /** The first word may be a `+toolchain` (cargo). */
  toolchain?: boolean;
  /**
   * Global options known to take no word. With this list, any other option before the command word
   * that is followed by a word may take it (unreadOptions): the package managers whose whole option
   * table is not carried here.
   */
  flags?: readonly string[];
}

const RUN_VERBS = ['run', 'run-script', 'rum', 'urn', 'exec', 'x', 'dlx'];
const COMPOSE_VALUE = ['-f', '--file', '-p', '--project-name', '--profile', '--env-file', '--project-directory', '--ansi', '--progress', '--parallel'];
const DOCKER: CliSpec = {
  value: ['--context', '-c', '--config', '-l', '--log-level', '--tlscacert', '--tlscert', '--tlskey', '-H', '--host'],
  danger: ['-H', '--host'],
  groups: ['compose', 'container', 'image', 'network', 'volume', 'system', 'builder', 'buildx', 'context', 'plugin', 'secret', 'service', 'stack', 'swarm', 'node', 'config', 'trust', 'manifest'],
  groupValue: COMPOSE_VALUE,
};
const PIP: CliSpec = { value: ['--log', '--proxy', '--retries', '--timeout', '--exists-action', '--trusted-host', '--cert', '--client-cert', '--cache-dir'] };
const MAKE: CliSpec = { value: ['-C', '--directory', '-f', '--file', '--makefile', '-I', '--include-dir', '-o', '--old-file', '-W', '--what-if', '--new-file', '-l', '--load-average'] };

/**
 * npm 11.19.1's options (@npmcli/config definitions and shorthands) as nopt reads them: every key
 * whose type is not Boolean takes the next word (`npm --cache DIR exec …`: exec is the command), a
 * Boolean key a following `true`/`false` (and `null` for the keys typed [null, Boolean]). Until the
 * round 21 late review (L1) only five were known, so the analyser and the rules took `DIR` for the
 * command and `exec`, `publish`, `run` went unseen (subjects/shell/npm-commands.ts npmOptionWords).
 */
export const NPM_OPTIONS = {
  value: new Set(
    (
      '_auth access allow-directory allow-file allow-git allow-remote allow-scripts also audit-level auth-type before browser ca cache ' +
      'cache-max cache-min cafile call cert cidr cpu depth diff diff-dst-prefix diff-src-prefix diff-unified editor expect-result-count ' +
      'expires fetch-retries fetch-retry-factor fetch-retry-maxtimeout fetch-retry-mintimeout fetch-timeout git globalconfig heading ' +
      'https-proxy include init-author-email init-author-name init-author-url init-license init-module init-type init-version ' +
      'init.author.email init.author.name init.author.url init.license init.module init.version install-strategy key libc ' +
      'local-address location lockfile-version loglevel logs-dir logs-max name maxsockets message min-release-age ' +
      'min-release-age-exclude node-gyp node-options noproxy omit only orgs os otp package pack-destination packages prefix preid ' +
      'provenance-file proxy registry replace-registry-host save-prefix sbom-format sbom-type scope scopes ' +
      'packages-and-scopes-permission orgs-permission password token-description script-shell searchexclude searchlimit searchopts ' +
      'searchstaleness shell tag tag-version-prefix umask user-agent userconfig viewer which workspace'
    ).split(' '),
  ),
  boolean: new Set(
    (
      'all allow-same-version audit bin-links bypass-2fa commit-hooks dangerously-allow-all-scripts description dev ' +
      'diff-ignore-all-space diff-name-only diff-no-prefix diff-text dry-run engine-strict force foreground-scripts ' +
      'format-package-lock fund git-tag-version global global-style if-present ignore-scripts include-staged include-workspace-root ' +
      'include-attestations init-private install-links json legacy-bundling legacy-peer-deps link long offline ' +
      'omit-lockfile-registry-resolved package-lock package-lock-only parseable allow-scripts-pending allow-scripts-pin prefer-dedupe ' +
      'prefer-offline prefer-online progress provenance read-only rebuild-bundle save save-bundle save-dev save-exact save-optional ' +
      'save-peer save-prod packages-all shrinkwrap sign-git-commit sign-git-tag strict-peer-deps strict-allow-scripts strict-ssl ' +
      'timing unicode update-notifier usage version versions workspaces-update'
    ).split(' '),
  ),
  /** Typed [null, Boolean]: a following `null` is taken too. */
  nullable: new Set(['yes', 'workspaces', 'optional', 'production', 'expect-results']),
  /** Shorthands (`-g`, `--reg`) and the key each stands for; '' for the ones that carry their own value (`-s` is `--loglevel silent`). */
  short: {
    a: 'all', c: 'call', f: 'force', g: 'global', l: 'long', p: 'parseable', C: 'prefix', S: 'save', B: 'save-bundle', D: 'save-dev',
    E: 'save-exact', O: 'save-optional', P: 'save-prod', L: 'location', m: 'message', w: 'workspace', y: 'yes', v: 'version',
    '?': 'usage', H: 'usage', h: 'usage', help: 'usage', n: 'yes', no: 'yes', local: 'global', porcelain: 'parseable', readonly: 'read-only',
    reg: 'registry', desc: 'description', 'enjoy-by': 'before', iwr: 'include-workspace-root', ws: 'workspaces',
    d: '', dd: '', ddd: '', q: '', quiet: '', s: '', silent: '', verbose: '',
  } as Readonly<Record<string, string>>,
};

/**
 * npm's one-letter shorthands: nopt reads a word made only of them as each in turn, with one dash or
 * two (`--yC DIR` is `--yes --prefix DIR`; nopt-lib.js resolveShort; round 24 review F1).
 */
export const NPM_SINGLES: ReadonlySet<string> = new Set(Object.keys(NPM_OPTIONS.short).filter((name) => name.length === 1));

/**
 * pnpm 9.15.9's shorthands (lib/shorthands.js, the universal ones, and the commands' own: `run`'s
 * `--parallel` is `--recursive`, exec's `-c`, audit's `-D`/`-P`, patch's `-d`) and the key each stands
 * for. pnpm reads its options with nopt as npm does (round 25 review R9): `--sC DIR` is `-s -C DIR`.
 */
export const PNPM_SHORTHANDS: Readonly<Record<string, string>> = {
  s: 'reporter', d: 'loglevel', dd: 'loglevel', ddd: 'loglevel', L: 'latest', r: 'recursive', silent: 'reporter', verbose: 'loglevel',
  quiet: 'loglevel', q: 'loglevel', h: 'help', H: 'help', '?': 'help', usage: 'help', v: 'version', f: 'force', local: 'global', l: 'long',
  p: 'parseable', porcelain: 'parseable', prod: 'production', development: 'dev', g: 'global', S: 'save', D: 'save-dev', P: 'save-prod',
  E: 'save-exact', O: 'save-optional', C: 'dir', w: 'workspace-root', i: 'interactive', F: 'filter', c: 'shell-mode', parallel: 'recursive',
  sequential: 'workspace-concurrency',
};

/**
 * The keys nopt may read an option word as (npm 11.19.1's nopt-lib.js parse and resolveShort; pnpm
 * 9.15.9 bundles the same reading): every leading dash is stripped, one or three alike (`---prefix
 * D`, `-prefix=D`, `--C D` are `--prefix D`, `-C D`; round 25 review R15), the part before `=` is the
 * key; then an exact shorthand, a word made only of one-letter shorthands (each in turn), or a
 * prefix of a shorthand stands for its key; any number of `no-` is dropped. Every reading is given
 * (the key itself too): the caller asks when any of them is one it minds.
 */
export function noptKeys(word: string, shorthands: Readonly<Record<string, string>>): string[] {
  let key = word.replace(/^-+/, '');
  const eq = key.indexOf('=');
  if (eq !== -1) key = key.slice(0, eq);
  const keys = [key, key.replace(/^(no-)+/i, '')];
  for (const k of keys.slice()) if (Object.hasOwn(shorthands, k)) keys.push(shorthands[k]!);
  if (key !== '' && [...key].every((letter) => letter.length === 1 && Object.hasOwn(shorthands, letter))) for (const letter of key) keys.push(shorthands[letter]!);
  if (key.length >= 2) for (const [short, long] of Object.entries(shorthands)) if (short.length > key.length && short.startsWith(key)) keys.push(long);
  return keys.filter((k) => k !== '');
}

/** Package managers corepack runs by name (`corepack yarn@4.1.0 install`; corepack's README). */
const COREPACK_MANAGERS: ReadonlySet<string> = new Set(['npm', 'npx', 'pnpm', 'pnpx', 'yarn', 'yarnpkg']);

/**
 * A package manager run under another name (round 24 review F8: yarn's and pnpm's checks met
 * neither spelling): `yarnpkg`, yarn's second name (berry's bin and Debian's package), and
 * `corepack MANAGER[@VERSION] …`. Its name, how many of the arguments the other name took, and the
 * version corepack was asked for; null for any other program.
 */
export function managerAlias(name: string, args: readonly string[]): { name: string; skip: number; version?: string } | null {
  if (name === 'yarnpkg') return { name: 'yarn', skip: 0 };
  if (name !== 'corepack' || args[0] === undefined) return null;
  const [manager, version] = args[0].split(/@(.*)/s) as [string, string | undefined];
  if (!COREPACK_MANAGERS.has(manager)) return null;
  return { name: manager === 'yarnpkg' ? 'yarn' : manager, skip: 1, ...(version === undefined ? {} : { version }) };
}

/**
 * pnpm 9.15.9's options before the command word (parse-cli-args reads them with nopt over its
 * universal options and `add`'s and `install`'s, which hold npm's keys): the universal ones typed
 * String take the next word (each checked: `pnpm --reporter silent exec touch F` ran touch), the
 * Booleans below take none (`pnpm --stream x exec …` ran x) but a following `true`/`false`. An
 * install key (`--store-dir D`, `--registry URL`) takes it too, and the command then refuses or
 * accepts it: not listed, so either reading is tried (unreadOptions; round 21 late review L5).
 */
const PNPM_VALUE = ['-C', '--dir', '--filter', '-F', '--filter-prod', '--loglevel', '--prefix', '--reporter', '--test-pattern', '--changed-files-ignore-pattern', '--workspace-packages'];
const PNPM_FLAGS = ['-r', '--recursive', '-w', '--workspace-root', '-s', '--silent', '--stream', '--parallel', '--aggregate-output', '--use-stderr', '--ignore-workspace', '--include-workspace-root', '--fail-if-no-match', '--parseable', '--color', '--no-color', '-h', '--help', '-v', '--version'];
/**
 * yarn 1.22.22's global options (`yarn --help`; commander): `<value>` and `[value]` ones take the
 * next word, an optional one whatever it is (`yarn --emoji exec touch F` ran no exec); an option
 * commander does not know takes none (`yarn --foo bar` runs the script bar).
 */
const YARN_VALUE = ['--cwd', '--cache-folder', '--global-folder', '--https-proxy', '--link-folder', '--modules-folder', '--mutex', '--network-concurrency', '--network-timeout', '--otp', '--preferred-cache-folder', '--proxy', '--registry', '--use-yarnrc', '--emoji', '--prod', '--production', '--scripts-prepend-node-path'];
const YARN_FLAGS = [
  '--check-files', '--disable-pnp', '--enable-pnp', '--pnp', '--flat', '--focus', '--force', '--frozen-lockfile', '--har', '--ignore-engines', '--ignore-optional', '--ignore-platform', '--ignore-scripts', '--json',
  '--link-duplicates', '--no-bin-links', '--no-default-rc', '--no-lockfile', '--non-interactive', '--no-node-version-check', '--no-progress', '--offline', '--prefer-offline', '--pure-lockfile', '-s', '--silent',
  '--skip-integrity-check', '--strict-semver', '--update-checksums', '-v', '--version', '--verbose', '-h', '--help',
];

/**
 * bun 1.4.5's own options (`bun --help`, `bun run --help`: the runtime's, read before a file or a
 * script's name). Each `=<val>` one takes the next word (each ran `bun OPT VALUE y.js`), but
 * `--inspect`, `--inspect-wait`, `--inspect-brk` and `-c`/`--config` take a value only after `=`
 * (`bun -c b.toml y.js` ran b.toml as the program): as words on their own they are flags here.
 * Which of them load code: package-managers.ts bunOptions.
 */
const BUN_VALUE = [
  '--conditions', '--console-depth', '--cpu-prof-dir', '--cpu-prof-interval', '--cpu-prof-name', '--cron-period', '--cron-title', '--cwd', '--define', '--disable-warning',
  '--dns-result-order', '--drop', '--elide-lines', '--env-file', '--eval', '--extension-order', '--feature', '--fetch-preconnect', '--filter', '--heap-prof-dir',
  '--heap-prof-interval', '--heap-prof-name', '--import', '--install', '--jsx-factory', '--jsx-fragment', '--jsx-import-source', '--jsx-runtime', '--loader', '--main-fields',
  '--max-http-header-size', '--port', '--preload', '--print', '--redirect-warnings', '--require', '--shell', '--title', '--tsconfig-override', '--unhandled-rejections',
  '--user-agent', '--watch-kill-signal', '-F', '-d', '-e', '-l', '-p', '-r',
];
const BUN_FLAGS = [
  '--bun', '--check', '--config', '--cpu-prof', '--cpu-prof-md', '--experimental-http2-fetch', '--experimental-http3-fetch', '--experimental-stream-iter', '--expose-gc', '--heap-prof',
  '--heap-prof-md', '--help', '--hot', '--if-present', '--ignore-dce-annotations', '--insecure-http-parser', '--inspect', '--inspect-brk', '--inspect-wait', '--interactive',
  '--jsx-side-effects', '--no-addons', '--no-clear-screen', '--no-deprecation', '--no-env-file', '--no-exit-on-error', '--no-ffi-cc', '--no-install', '--no-macros', '--no-orphans',
  '--no-warnings', '--parallel', '--pending-deprecation', '--prefer-latest', '--prefer-offline', '--preserve-symlinks', '--preserve-symlinks-main', '--redis-preconnect', '--revision', '--sequential',
  '--silent', '--smol', '--sql-preconnect', '--throw-deprecation', '--tls-max-v1.2', '--tls-max-v1.3', '--tls-min-v1.0', '--tls-min-v1.1', '--tls-min-v1.2', '--tls-min-v1.3',
  '--trace-deprecation', '--trace-warnings', '--use-bundled-ca', '--use-openssl-ca', '--use-system-ca', '--version', '--watch', '--workspaces', '--zero-fill-buffers', '-b', '-c', '-h', '-i', '-v',
];

/** The npm options that take the next word, as the CLIS table spells them (`--cache`, `-C`, `--reg`). */
function npmValueOptions(): string[] {
  const out = [...NPM_OPTIONS.value].map((key) => `--${key}`);
  for (const [short, key] of Object.entries(NPM_OPTIONS.short)) if (NPM_OPTIONS.value.has(key)) out.push(short.length === 1 ? `-${short}` : `--${short}`);
  return out;
}

/** Global options of the CLIs whose subcommand matters (for signatures, deny rules and the analyser). */
export const CLIS: Record<string, CliSpec> = {
  git: {
    value: ['-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--attr-source', '-c', '--config-env'],
    danger: ['-c', '--config-env', '--exec-path'],
  },
  npm: { value: npmValueOptions(), groups: RUN_VERBS },
  pnpm: { value: PNPM_VALUE, flags: PNPM_FLAGS, groups: RUN_VERBS },
  yarn: { value: YARN_VALUE, flags: YARN_FLAGS, groups: [...RUN_VERBS, 'workspace'] },
  bun: { value: BUN_VALUE, flags: BUN_FLAGS, groups: RUN_VERBS },
  docker: DOCKER,
  podman: { ...DOCKER, value: ['-c', '--connection', '--url', '--identity', '--root', '--runroot', '--storage-driver', '--log-level'], danger: [] },
  'docker-compose': { value: COMPOSE_VALUE },
  kubectl: {
    value: ['-n', '--namespace', '--context', '--kubeconfig', '--cluster', '--user', '-s', '--server', '--as', '--as-group', '--token', '--request-timeout', '-v'],
    groups: ['config', 'rollout', 'auth', 'certificate', 'top', 'set', 'plugin', 'create'],
  },
  gh: {
    value: ['-R', '--repo', '--hostname'],
    groups: ['pr', 'issue', 'repo', 'release', 'run', 'workflow', 'gist', 'auth', 'config', 'secret', 'variable', 'label', 'codespace', 'cache', 'extension', 'ext', 'project', 'ruleset', 'search', 'ssh-key', 'gpg-key', 'org', 'alias', 'attestation'],
  },
  cargo: { value: ['--color', '-Z', '-C', '--config'], danger: ['--config'], toolchain: true },
  go: { groups: ['mod', 'work', 'tool'] },
  uv: { value: ['--directory', '--project', '--cache-dir', '--color', '--python', '-p'], groups: ['pip', 'tool', 'python', 'cache', 'self', 'run'], groupValue: ['--with', '--python', '-p', '--package', '--env-file', '--extra', '--group', '--directory', '--project', '--index', '--index-url'] },
  pip: PIP,
  pip3: PIP,
  pipx: PIP,
  make: MAKE,
  gmake: MAKE,
  // The gateway's own CLI: `mcp-latch -c FILE allow …` is still `allow`.
  'mcp-latch': { value: ['-c', '--config', '--log-level'] },
};

/** Global options of `name` that take a value (before the subcommand); empty for unknown programs. */
export function globalValueOptions(name: string): ReadonlySet<string> {
  let set = valueOptionSets.get(name);
  if (!set) {
    const spec = Object.hasOwn(CLIS, name) ? CLIS[name]! : {};
    set = new Set(spec.value ?? []);
    valueOptionSets.set(name, set);
  }
  return set;
}
const valueOptionSets = new Map<string, ReadonlySet<string>>();

/** Words nopt gives a Boolean key (`--stream true`), and pnpm's `--color` its choices (`--color always`). */
const FLAG_VALUES: ReadonlySet<string> = new Set(['true', 'false', 'always', 'auto', 'never']);

/**
 * For a program with a `flags` list (pnpm, yarn, bun): each option before its command word that is
 * neither a value option nor a flag known here, or a flag followed by `true`/`false` (nopt takes
 * it; FLAG_VALUES), and is followed by a word (read on past it): that word may be the option's
 * value or the command, so the command word is not known (round 21 late review L5: `pnpm --reporter silent dlx cowsay` was read
 * as the program `silent`). Their indexes; empty for other programs.
 */
export function unreadOptions(name: string, args: readonly string[]): number[] {
  const spec = Object.hasOwn(CLIS, name) ? CLIS[name]! : null;
  if (!spec?.flags) return [];
  const values = globalValueOptions(name);
  const out: number[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--' || !arg.startsWith('-') || arg === '-') break;
    if (arg.includes('=')) continue;
    if (values.has(arg)) {
      i++;
      continue;
    }
    const next = args[i + 1];
    if (next === undefined || (next.startsWith('-') && next !== '-')) continue;
    const known = spec.flags.includes(arg) || (/^-[A-Za-z]{2,}$/.test(arg) && [...arg.slice(1)].every((letter) => spec.flags!.includes(`-${letter}`)));
    if (known && !FLAG_VALUES.has(next)) continue;
    // Read on as its value: a later option may be another such one. Read as the command, nothing after it counts.
    out.push(i);
    i++;
  }
  return out;
}

/**
 * The readings of `args` that unreadOptions leaves open, beside the one as written (where each such
 * option takes no word): the first k of them taking theirs, for k = 1…n. The first option whose
 * word is the command ends a reading, so these n + 1 are all there are.
 */
export function optionReadings(name: string, args: readonly string[]): string[][] {
  const unread = unreadOptions(name, args);
  return unread.map((_, k) => args.filter((_, j) => !unread.slice(0, k + 1).some((at) => j === at + 1)));
}

/**
 * git's own commands (git 2.39.5 `git --list-cmds=main`, with the commands later versions added:
 * `replay`, `refs`, `backfill`, `last-modified`, `repo`). Any other word is run as an alias, a
 * `git-<word>` program, or the command `help.autocorrect` picks (git.c run_argv, help.c
 * help_unknown_cmd): it may be any of these (round 21 review, B1; policy/command-match.ts otherGitCommand).
 */
export const GIT_COMMANDS: ReadonlySet<string> = new Set(
  (
    'add add--interactive am annotate apply archive bisect bisect--helper blame branch bugreport bundle cat-file check-attr ' +
    'check-ignore check-mailmap check-ref-format checkout checkout--worker checkout-index cherry cherry-pick clean clone column ' +
    'commit commit-graph commit-tree config count-objects credential credential-cache credential-cache--daemon credential-store ' +
    'daemon describe diagnose diff diff-files diff-index diff-tree difftool difftool--helper env--helper fast-export fast-import ' +
    'fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects fsmonitor--daemon gc ' +
    'get-tar-commit-id grep hash-object help hook http-backend http-fetch http-push imap-send index-pack init init-db instaweb ' +
    'interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-index ' +
    'merge-octopus merge-one-file merge-ours merge-recursive merge-recursive-ours merge-recursive-theirs merge-resolve ' +
    'merge-subtree merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs ' +
    'patch-id pickaxe prune prune-packed pull push quiltimport range-diff read-tree rebase receive-pack reflog remote remote-ext ' +
    'remote-fd remote-ftp remote-ftps remote-http remote-https repack replace request-pull rerere reset restore rev-list rev-parse ' +
    'revert rm send-pack sh-i18n--envsubst shell shortlog show show-branch show-index show-ref sparse-checkout stage stash status ' +
    'stripspace submodule submodule--helper subtree switch symbolic-ref tag unpack-file unpack-objects update-index update-ref ' +
    'update-server-info upload-archive upload-archive--writer upload-pack var verify-commit verify-pack verify-tag version ' +
    'web--browse whatchanged worktree write-tree replay refs backfill last-modified repo'
  ).split(' '),
);

/**
 * The commands of GIT_COMMANDS that git 2.39 does not have (replay 2.44, refs 2.46, backfill 2.49,
 * last-modified and repo later). An older git runs such a word as any other unknown word:
 * `git -c help.autocorrect=immediate replay` ran `git replace` on git 2.39.5 (round 21 late review
 * note). So deny and ask rules naming git meet them as they meet an unknown word (command-match.ts otherGitCommand).
 */
export const GIT_LATER_COMMANDS: ReadonlySet<string> = new Set(['replay', 'refs', 'backfill', 'last-modified', 'repo']);

/**
 * gh's own commands (cli/cli pkg/cmd/root/root.go and each group's, with cobra's aliases `ls`, `new`,
 * `remove`, `cs`, `at`, `rs`, `ext`, `extensions`; later releases' `agent-task`, `preview`, `pr
 * revert`, `release verify`, `repo autolink`): a group maps to its commands, and a group below a
 * group is keyed by both words. Every other top-level word runs an alias from gh's config or an
 * extension (`gh-NAME`), and since gh 2.31 a word under a group (`gh pr co`) runs an alias nested
 * there (pkg/cmd/alias/shared ValidAliasNameFunc: below a command that is not runnable). `copilot` is
 * left out: an extension until gh 2.8x, then a command that fetches GitHub's Copilot CLI and runs it.
 * command-match.ts otherGhCommand; docs/rules.md.
 */
const GH_LIST = 'list ls';
const GH_CREATE = 'create new';
const GH_GROUPS: Record<string, string> = {
  'agent-task': 'create list view',
  alias: `delete import set ${GH_LIST}`,
  attestation: 'download inspect trusted-root tuf-root-verify verify',
  auth: 'git-credential login logout refresh setup-git status switch token',
  cache: `delete ${GH_LIST}`,
  codespace: `code cp ${GH_CREATE} delete edit jupyter logs ports rebuild select ssh stop view ${GH_LIST}`,
  config: `clear-cache get set ${GH_LIST}`,
  extension: `browse create exec install remove search upgrade ${GH_LIST}`,
  gist: `clone ${GH_CREATE} delete edit rename view ${GH_LIST}`,
  'gpg-key': `add delete ${GH_LIST}`,
  issue: `close comment ${GH_CREATE} delete develop edit lock pin reopen status transfer unlock unpin view ${GH_LIST}`,
  label: `clone create delete edit ${GH_LIST}`,
  org: GH_LIST,
  pr: `checkout checks close comment ${GH_CREATE} diff edit lock merge ready reopen revert review status unlock update-branch view ${GH_LIST}`,
  preview: 'prompter',
  project: `close copy create delete edit field-create field-delete field-list item-add item-archive item-create item-delete item-edit item-list link mark-template unlink view ${GH_LIST}`,
  release: `${GH_CREATE} delete delete-asset download edit upload verify verify-asset view ${GH_LIST}`,
  repo: `archive autolink clone ${GH_CREATE} credits delete deploy-key edit fork garden gitignore license rename set-default sync unarchive view ${GH_LIST}`,
  'repo autolink': `create delete view ${GH_LIST}`,
  'repo deploy-key': `add delete ${GH_LIST}`,
  'repo gitignore': `view ${GH_LIST}`,
  'repo license': `view ${GH_LIST}`,
  ruleset: `check view ${GH_LIST}`,
  run: `cancel delete download rerun view watch ${GH_LIST}`,
  search: 'code commits issues prs repos',
  secret: `delete remove set ${GH_LIST}`,
  'ssh-key': `add delete ${GH_LIST}`,
  variable: `delete get remove set ${GH_LIST}`,
  workflow: `disable enable run view ${GH_LIST}`,
};
const GH_GROUP_ALIASES: Record<string, string> = { cs: 'codespace', at: 'attestation', rs: 'ruleset', ext: 'extension', extensions: 'extension' };
/** gh's commands that run themselves (no alias can be nested below them), and its help topics. */
const GH_RUNNABLE: ReadonlySet<string> = new Set(['api', 'browse', 'completion', 'credits', 'help', 'status', 'version', 'actions', 'accessibility', 'environment', 'exit-codes', 'formatting', 'mintty', 'reference']);
const GH_COMMANDS: ReadonlyMap<string, ReadonlySet<string>> = new Map(Object.entries(GH_GROUPS).map(([group, commands]) => [group, new Set(commands.split(' '))]));

/**
 * The indices of gh's command words in `args` (`gh release -t T create v1 F` → release, create), as
 * cobra's Command.Find takes them (spf13/cobra stripFlags): at each level a flag written without
 * `=` — `--name`, or `-x` alone — takes the next word as its value unless it is a Boolean of that
 * level (`--help`/`-h`, the top's `--version`), known or not: a command's own flags may come before
 * its name (gh 2.23 uploaded F for `gh release -t list create v1 F` and `gh -d x gist create F`; round
 * 30), so `-t list` is no `list`. Bundled letters (`-abc`) and `--name=v` take none. Words after the
 * last command word (or `--`) are not looked at. A word known only at run time is NUL in `args`.
 */
export function ghCommandPath(args: readonly string[]): number[] {
  const path: number[] = [];
  let group = '';
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--') return path;
    if (word.startsWith('-') && word !== '-') {
      const bool = word === '--help' || word === '-h' || (group === '' && word === '--version');
      if (!word.includes('=') && (word.startsWith('--') || word.length === 2) && !bool) i++;
      continue;
    }
    path.push(i);
    const found = ghCommand(group, word);
    if (found === null || found === 'run') return path;
    group = found.group;
  }
  return path;
}

/** What gh's command word `word` is below `group` ('' for the top): a group's key, `run` for a command of gh's own, or null for any other (an alias or extension). */
export function ghCommand(group: string, word: string): { group: string } | 'run' | null {
  if (group === '') {
    const name = Object.hasOwn(GH_GROUP_ALIASES, word) ? GH_GROUP_ALIASES[word]! : word;
    if (GH_COMMANDS.has(name)) return { group: name };
    return GH_RUNNABLE.has(word) ? 'run' : null;
  }
  if (!GH_COMMANDS.get(group)?.has(word)) return null;
  return GH_COMMANDS.has(`${group} ${word}`) ? { group: `${group} ${word}` } : 'run';
}

/**
 * pnpm 9's own commands and their aliases, and the npm commands it passes on to npm (pnpm 9.15.9
 * `pnpm help`; each printed its own help). Any other first word pnpm runs as the project's script of
 * that name or, with none, as a program (pnpm 6.6.1: "When pnpm is executed with an unknown command,
 * it is considered a shell command"): `pnpm sh -c 'rm -rf victim'` removed victim (round 21 review, B7).
 */
export const PNPM_COMMANDS: ReadonlySet<string> = new Set(
  (
    'add audit bin c cat-file cat-index completion config create dedupe deploy dlx doctor env exec fetch find-hash get help ' +
    'i import init install install-completion install-test it la licenses link list ll ln ls m multi outdated pack patch ' +
    'patch-commit patch-remove prune publish rb rebuild recursive remove restart rm root run run-script self-update server set ' +
    'setup start store t test tst un uni uninstall unlink up update upgrade why ' +
    'access adduser bugs deprecate dist-tag docs edit home info issues login logout owner ping prefix profile pkg repo s se ' +
    'search set-script show star stars team token unpublish unstar v version view whoami xmas'
  ).split(' '),
);

/**
 * yarn's commands: 1.22.22's (its `commands` table and aliases) and berry's (4.x `yarn help`). Any
 * other first word yarn runs as the project's script of that name or a bin of its dependencies
 * (`yarn deploy` is `yarn run deploy`); bun (1.x `bun --help`) likewise. Either may run such a word
 * where the other version has a command of that name: deny and ask rules try both.
 */
const YARN_COMMANDS: ReadonlySet<string> = new Set(
  (
    'access add audit autoclean bin cache check config create dedupe exec generate-lock-entry generateLockEntry global help import ' +
    'info init install licenses link lockfile login logout list node outdated owner pack policies prune publish remove run tag team ' +
    'unplug unlink upgrade upgrade-interactive upgradeInteractive version versions why workspaces workspace ' +
    'constraints dlx explain npm patch patch-commit plugin rebuild search set sdks stage up'
  ).split(' '),
);
const BUN_COMMANDS: ReadonlySet<string> = new Set(
  'run test x repl exec install i add a remove rm update up outdated audit link unlink publish patch patch-commit pm info why build init create c upgrade completions discord help'.split(' '),
);

/**
 * pnpm's and bun's other names for their commands (round 25 review R13): pnpm 9.15.9's `commandNames`
 * (dist/pnpm.cjs; `pnpm t`, `pnpm run-script release` ran those scripts), bun 1.4.5's (`bun --help`:
 * "install (bun i)", "add (bun a)", "remove (bun rm)", "create (bun c)"; `bun r --help`, `bun
 * uninstall --help` and `bun ci --help` print remove's and install's usage; `bun up --help` update's,
 * round 26 review S7). pnpm's `recursive`,
 * `multi` and `m` are its `-r` before the next command word (parse-cli-args RECURSIVE_CMDS).
 */
export const COMMAND_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  pnpm: {
    'run-script': 'run', t: 'test', tst: 'test', i: 'install', it: 'install-test', rm: 'remove', uninstall: 'remove', un: 'remove', uni: 'remove',
    rb: 'rebuild', up: 'update', upgrade: 'update', ln: 'link', ls: 'list', la: 'll', c: 'config', 'clean-install': 'ci', ic: 'ci', 'install-clean': 'ci',
    dislink: 'unlink', recursive: '-r', multi: '-r', m: '-r',
  },
  bun: { i: 'install', ci: 'install', a: 'add', rm: 'remove', r: 'remove', uninstall: 'remove', c: 'create', up: 'update' },
};

/** The commands of the package managers that run any other first word as a script or program (command-match.ts scriptRunsWord). */
export const MANAGER_COMMANDS: Readonly<Record<string, ReadonlySet<string>>> = { pnpm: PNPM_COMMANDS, yarn: YARN_COMMANDS, bun: BUN_COMMANDS };

/** Programs and wrappers that run a command as another user. */
export const PRIVILEGE: ReadonlySet<string> = new Set(['sudo', 'doas', 'su', 'pkexec', 'runas']);

/** Programs that delete or destroy file contents. */
export const DELETERS: ReadonlySet<string> = new Set(['rm', 'rmdir', 'unlink', 'shred', 'truncate', 'dd', 'mkfs', 'wipefs']);

/** Programs that reach the network by themselves. */
export const NETWORK_PROGRAMS: ReadonlySet<string> = new Set(['curl', 'wget', 'ssh', 'scp', 'sftp', 'rsync', 'nc', 'ncat', 'netcat', 'telnet', 'ftp', 'http', 'https', 'aria2c']);

/** Subcommands that reach the network (`git push`, `npm publish`). */
export const NETWORK_SUBCOMMANDS: Record<string, ReadonlySet<string>> = {
  git: new Set(['push', 'pull', 'fetch', 'clone', 'remote', 'submodule']),
  npm: new Set(['install', 'i', 'ci', 'publish', 'update']),
  pnpm: new Set(['install', 'i', 'add', 'publish', 'update']),
  yarn: new Set(['install', 'add', 'publish']),
  pip: new Set(['install', 'download']),
  pip3: new Set(['install', 'download']),
  cargo: new Set(['install', 'publish', 'fetch']),
  gh: new Set(['pr', 'issue', 'release', 'repo', 'api']),
  docker: new Set(['push', 'pull', 'run', 'login']),
};
