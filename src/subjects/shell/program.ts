import type { CommandPath, Segment, SegmentContext } from '../../policy/types.js';
import { BASH_SHELLS, CLIS, globalValueOptions, interpreterSpec, isPowerShell, PLAIN_PROGRAMS, PNPM_COMMANDS, RUNNERS, SHELLS, unreadOptions, type InterpreterSpec } from '../../programs.js';
import { ALWAYS_SAFE, isSafeCommand } from '../../policy/safe.js';
import { candidatePaths } from './candidates.js';
import type { Dialect } from './dialect.js';
import { fileFacts, modelsProgram, type Nested } from './files.js';
import { baseName, display, hasOption, HOME, optionValues, pathOf, pushPath, resolveDirectory, scanOptions, staticWord, type OptionSpec, type ScanResult, type Word } from './options.js';
import { subcommandIndex } from './signature.js';
import { testPaths } from './test-paths.js';
import { cliOperandPaths } from './cli-operands.js';
import { runtimeScript } from './script-paths.js';
import { buildWrites, changesLaterCommands, commandVariables, DECLARATIONS, fileVariables, gitLocations, gitWrites, isEnvironment } from './variables.js';
import { isWrapper } from './wrappers.js';
import { RUNNER_PROGRAMS, runnerCommand, type RunnerCommand } from './runners.js';
import { customToolchainWord, RUSTUP_PROXIES } from './rust-toolchains.js';
import { RUST_TOOLCHAIN_FILE } from '../project-files.js';
import { npmRunEnv } from './package-managers.js';
import { compilerRunsCode, isCompiler, isLinker } from './compilers.js';
import { psql } from './psql.js';
import { opensslLoadsCode } from './openssl.js';
import { gpg } from './gpg.js';
import { maven } from './maven.js';
import { cmakeRunsCode, ctestRunsCode } from './cmake.js';
import { emacsRunsCode } from './emacs.js';
import { secretStore, SECRET_STORE_PROGRAMS } from './secret-stores.js';
import { containerMounts } from './container-mounts.js';
import { sandboxMounts } from './sandbox-mounts.js';
import { awsCredentialProcess, kubectlCredentialCommand } from './credential-commands.js';
import { latexmkRunsCode, TEX_ENGINES, texRunsCode } from './tex.js';
import { pandocRunsCode } from './pandoc.js';
import { hgRunsCode, svnRunsCode } from './vcs.js';
import { BUNDLERS, bundlerRunsCode, terraformRunsCode } from './bundlers.js';
import { localPackagePaths, LOCAL_PACKAGE_PROGRAMS } from './local-packages.js';
import { changesTrust, TRUST_PROGRAMS } from './network-trust.js';
import { packedTrees, PACKING_PROGRAMS } from './packed-trees.js';
import { yqReads } from './jq-modules.js';
import { servedDirectories } from './directory-servers.js';
import { networkExec, NETWORK_EXEC_PROGRAMS } from './network-exec.js';
import { HOST_NETWORK_PROGRAMS, reachesHost } from './host-network.js';

/**
 * What one program does with its arguments, once wrappers and assignments are stripped: the paths
 * it touches (files.ts for file programs, candidates.ts for deny rules), the code it runs elsewhere
 * (`sh -c STRING`, `eval`, `trap`, `ssh host CMD`, `docker exec CTR CMD`, `watch`), how it changes
 * the shell (`cd`, `set -e`) and why it cannot be fully analysed.
 *
 *   bash -c 'rm -rf "$x"'   → reasons interpreter; nested script `rm -rf "$x"`
 */

export interface SegmentInput {
  /** Leading `NAME=value` words. */
  assignments: readonly Word[];
  /** The command's words, program first (wrappers included). */
  words: readonly Word[];
  context: SegmentContext;
  cwd: string | null;
  /** Static text on the command's stdin (heredoc, here-string, `echo …|`), for a shell reading it. */
  stdin: string | null;
  /** The shell running the command (its echo is that shell's); absent: bash. */
  shell?: Dialect;
}

export interface Built {
  segment: Segment;
  nested: Nested[];
  reasons: string[];
  /** The working directory after the command (`cd`, `pushd`); undefined when it does not change it. */
  cwdAfter?: string | null;
  /** `set -e` / `set +e`. */
  errexit?: boolean;
  /** Static text the command prints (`echo`, `printf`, `cat` passing stdin through), for the next pipeline stage. */
  stdout: string | null;
}

/** Builtins a runner cannot run (no such program), whose analysis would change the shell's own state. */
export const SHELL_STATE: ReadonlySet<string> = new Set(['cd', 'pushd', 'popd', 'export', 'alias', 'unalias', 'source', '.', 'set', 'unset', 'declare', 'typeset', 'local', 'readonly', 'eval', 'exec', 'shopt', 'trap', 'umask', 'hash', 'enable', 'builtin', 'command']);

/** Builtins that evaluate strings as arithmetic or array subscripts (`let 'a[$(id)]'` runs `id`). */
const ARITHMETIC_BUILTINS = new Set(['let', 'declare', 'typeset', 'local', 'export', 'readonly', 'printf', 'read', 'unset', 'test', '[', 'mapfile', 'readarray']);

/** What the program `name` does with `args`: into `built` (its segment's paths, nested code, reasons, cwd and stdout). */
export function describeProgram(name: string, args: readonly Word[], input: SegmentInput, built: Built): void {
  const { segment, reasons, nested } = built;
  const cwd = segment.cwd;
  const facts = fileFacts(name, args, cwd);
  if (facts) {
    // An assignment before git may set branch.autoSetupMerge (GIT_CONFIG_COUNT…): a new branch stays a config write (round 31).
    if (input.assignments.length > 0) for (const path of facts.paths) delete path.autoSetupMerge;
    segment.paths.push(...facts.paths);
    nested.push(...facts.nested);
    reasons.push(...facts.reasons);
    if (facts.alternatives) segment.alternatives = [...(segment.alternatives ?? []), ...facts.alternatives];
  }
  // `node --test PATH`, `deno test PATH`: the test files there are code read and run (round 27; test-paths.ts).
  if (name === 'node' || name === 'nodejs' || name === 'deno') segment.paths.push(...testPaths(name, args, cwd));
  // A CLI's commands that take local files as operands (`gh gist create .env`, `docker cp`, `pip install ./pkg`; round 28 review R28-4).
  segment.paths.push(...cliOperandPaths(name, args, cwd));
  // A package spec naming a local place (`npm install file:/x`, `pip install 'x @ file:///x'`): its code read (round 31 review R31-1).
  if (LOCAL_PACKAGE_PROGRAMS.has(name)) for (const path of localPackagePaths(name, args, cwd)) if (!segment.paths.some((known) => known.path === path.path && known.via === path.via)) segment.paths.push(path);
  // A container's bind mounts and host options: every file below the source, or below `/` (round 30 review R30-5).
  segment.paths.push(...containerMounts(name, args, cwd));
  // A sandbox's binds and new root: every file below the source, under another name (round 33 review F33-1).
  segment.paths.push(...sandboxMounts(name, args, cwd));
  // A CLI printing the secret it keeps (`aws configure get`, `gcloud auth print-access-token`, `pass show`; round 30 review R30-4).
  if (SECRET_STORE_PROGRAMS.has(name) || name.startsWith('docker-credential-')) secretStore(name, args, cwd, segment.paths);
  // A command planted for every later call to fetch a credential (kubectl's exec plugin, aws's credential_process; R30-6).
  if (name === 'kubectl') kubectlCredentialCommand(args, cwd, segment.paths, nested, reasons);
  if (name === 'aws') awsCredentialProcess(args, cwd, nested, reasons);
  // Every file below a directory packed or sent (`npm publish`, `docker build ~`, `aws s3 sync . s3://b`; R31-6).
  if (PACKING_PROGRAMS.has(name)) segment.paths.push(...packedTrees(name, args, cwd));
  // A proxy or a TLS trust the command picks: its requests and their token go to another party (R31-2).
  if (TRUST_PROGRAMS.has(name) && changesTrust(name, args)) reasons.push('interpreter');
  // yq's expression and jq options: the files and module directories it loads (R32-2; jq-modules.ts).
  if (name === 'yq') yqReads(args, cwd, segment.paths);
  // A web server handing out every file below its directory (`python3 -m http.server -d ~`; R32-8; directory-servers.ts).
  if (name.startsWith('p') || name === 'httpd' || name === 'serve' || name === 'http-server' || name === 'rsync') for (const path of servedDirectories(name, args, cwd)) pushPath(segment.paths, path);
  // socat's EXEC/SYSTEM addresses, netcat's and ncat's -e/-c: a command joined to a connection (R32-7; network-exec.ts).
  if (NETWORK_EXEC_PROGRAMS.has(name) && networkExec(name, args, cwd, nested)) reasons.push('interpreter');
  // A container on the host's network, a listener past loopback, a pod on a node's host (round 33; host-network.ts).
  if (HOST_NETWORK_PROGRAMS.has(name) && reachesHost(name, args)) reasons.push('interpreter');
  // Deny rules for every program: what an unknown program (or an interpreter's script) may read,
  // and each of an unknown program's words as a command it may run (`parallel rm ::: x`).
  const unknown = facts === null && !isKnownProgram(name, segment);
  // A CLI other than git (make, docker, cargo, pip…) reads files its options name too: `make -p
  // -f .env` prints .env's assignments (GNU make 4.3), so its option values are candidates.
  // Runners (runners.ts) model what their options write and load, not every file they read: all their words stay candidates.
  // So are a runner's (`poetry run cat ~/.ssh/id_rsa`, `uv run`, `bundle exec`): the command it runs is not analysed as one.
  const every = unknown || RUNNER_PROGRAMS.has(name) || runsCommand(name, args) || interpreterSpec(name) !== undefined || (Object.hasOwn(CLIS, name) && name !== 'git' ? 'option-values' : false);
  for (const candidate of candidatePaths(name, args, cwd, every)) {
    if (!segment.paths.some((path) => path.path === candidate.path)) segment.paths.push(candidate);
  }
  if (unknown) {
    const words = args.map(display);
    // Added to, not replaced: a runner's command (argv.ts describeRun) adds its own.
    segment.alternatives = [...(segment.alternatives ?? []), ...words.flatMap((word, i) => (word.startsWith('-') ? [] : [words.slice(i)])), ...commandsInWords(args)];
  }
  // rustup's proxies run the toolchain a first `+D` names, a directory's programs too (rust-toolchains.ts).
  if (RUSTUP_PROXIES.has(name) && customToolchainWord(args)) reasons.push('interpreter');
  // Without `+TOOLCHAIN`, the toolchain file above the working directory names it (round 29; inspect.ts reads it).
  else if (RUSTUP_PROXIES.has(name) && !(args[0]?.isStatic && args[0].value.startsWith('+'))) segment.paths.push({ path: '.', access: 'read', base: cwd, isStatic: true, via: RUST_TOOLCHAIN_FILE });
  // A compiler's or linker's own options that run or load code (`gcc -wrapper rm,-rf,v`; compilers.ts).
  if ((isCompiler(name) || isLinker(name)) && compilerRunsCode(args, isLinker(name), cwd, nested)) reasons.push('interpreter');
  if (ARITHMETIC_BUILTINS.has(name) && args.some((w) => w.isStatic && /\$\(|`/.test(w.value))) reasons.push('stored-substitution');
  // pnpm, yarn, bun: an option not known here may take the next word or not, so which word is the
  // command is not known (programs.ts unreadOptions; round 21 late review L5).
  if (Object.hasOwn(CLIS, name) && CLIS[name]!.flags && unreadOptions(name, args.map((w) => (w.isStatic ? w.value : '\u0000'))).length > 0) reasons.push('interpreter');
  // What a runner runs (`poetry run cp a ~/.bashrc`, `bun run NAME …`, pnpm's fallback): argv.ts
  // describeRun reads it as a command of its own, and its paths, code and reasons are the segment's.

  if (SHELLS.has(name)) return describeShell(name, args, input, built);
  if (isPowerShell(name)) {
    // PowerShell options are words (`-Command`, `-EncodedCommand`, `-File`), case-insensitive.
    const file = args.some((w) => w.isStatic && /^-(f|file)$/i.test(w.value));
    if (!file || args.some((w) => !w.isStatic || /^-(c|command|e|ec|encodedcommand)$/i.test(w.value))) reasons.push('interpreter');
  }
  const interpreter = interpreterSpec(name);
  if (interpreter) {
    const { mode, script } = interpreterMode(interpreter, args);
    if (mode === 'code' || mode === 'stdin') reasons.push('interpreter');
    // The script it runs is code read from that file, as a shell's (round 28; script-paths.ts).
    const run = runtimeScript(name, args, script, cwd);
    pushPath(segment.paths, run.path);
    if (run.remote) reasons.push('executor');
  }
  const fetches = Object.hasOwn(RUNNERS, name) ? RUNNERS[name]!.fetch : [];
  if (fetches.length > 0) {
    const statics = args.map((w) => (w.isStatic ? w.value : '\u0000'));
    const index = subcommandIndex(name, statics);
    if (fetches.includes('') || (index !== null && index >= 0 && (fetches.includes(statics[index]!) || initializes(name, statics, index)))) reasons.push('executor');
  }

  // `-f` exports or defines functions; `-n` makes a nameref, whose later assignments go to the name
  // it holds (`declare -n r=BASH_CMDS; r[ls]=/bin/sh`); a name known only at run time may be any.
  if (DECLARATIONS.has(name) && args.some((w) => isEnvironment(w) || (w.isStatic ? /^-\w*[fn]/.test(w.value) : !STATIC_NAME.test(w.raw)))) reasons.push('environment');
  if (assignsShellVariable(name, args)) reasons.push('environment');
  if (DECLARATIONS.has(name)) {
    commandVariables(args, cwd, reasons, nested);
    // `export CARGO_TARGET_DIR=D; cargo build`: the write of D, as before cargo (round 27).
    segment.paths.push(...gitLocations(args, cwd), ...gitWrites(args, cwd), ...fileVariables(args, cwd), ...buildWrites(args, cwd));
  }

  // Programs whose options run commands or load code (round 31: pandoc.ts, tex.ts, vcs.ts, bundlers.ts).
  if (TEX_ENGINES.has(name)) {
    if (texRunsCode(args, cwd, segment.paths)) reasons.push('interpreter');
    return;
  }
  if (BUNDLERS.has(name)) {
    if (bundlerRunsCode(name, args, cwd, segment.paths)) reasons.push('interpreter');
    return;
  }

  switch (name) {
    case 'latexmk':
      if (latexmkRunsCode(args, cwd, segment.paths, nested)) reasons.push('interpreter');
      return;
    case 'pandoc':
      if (pandocRunsCode(args, cwd, segment.paths, nested)) reasons.push('interpreter');
      return;
    case 'hg':
    case 'chg':
      if (hgRunsCode(args, cwd, segment.paths, nested)) reasons.push('interpreter');
      return;
    case 'svn':
      if (svnRunsCode(args, cwd, segment.paths, nested)) reasons.push('interpreter');
      return;
    case 'terraform':
    case 'tofu':
      if (terraformRunsCode(args, cwd, segment.paths)) reasons.push('interpreter');
      return;
    case 'lldb':
      // lldb runs the commands of -o/-O/-k, of -s/-S/-K files and, with stdin not a terminal, of
      // stdin (lldb 14 ran `platform shell` from each); `platform shell CMD` and `shell CMD` run CMD.
      if (!(args.length === 1 && args[0]!.isStatic && /^(--?version|--?help|-h|-v|-P|--python-path)$/.test(args[0]!.value))) reasons.push('interpreter');
      for (const text of optionTexts(args, /^(-o|--one-line|-O|--one-line-before-file|-k|--one-line-on-crash)$/)) embeddedCommand(text, /^\s*(?:platform\s+shell|shell)\s+(?:(?:-[hs]\s+\S+|-t\s+\d+|-h)\s+)*(?:--\s+)?/, cwd, built);
      return;
    case 'alias': {
      // Security: dash expands aliases in scripts; `alias ls='rm -rf /'` makes a later `ls` run rm.
      for (const word of args) {
        const eq = word.value.indexOf('=');
        if (eq <= 0) continue;
        reasons.push('interpreter');
        if (word.isStatic) nested.push({ kind: 'script', text: word.value.slice(eq + 1), cwd: null });
      }
      return;
    }
    case 'history': {
      // bash manual, "Bash History Builtins": -r/-n read FILE into the list (`history` prints it),
      // -a/-w write the list to FILE; without FILE, $HISTFILE (else ~/.history): not known here.
      const scan = scanOptions(args, 0, { short: 'd' });
      const accesses = [...(hasOption(scan, '-r', '-n') ? ['read' as const] : []), ...(hasOption(scan, '-a', '-w') ? ['write' as const] : [])];
      const file = scan.operands.length > 0 ? args[scan.operands[0]!]! : { value: '$HISTFILE', raw: '$HISTFILE', isStatic: false, ansi: false };
      for (const access of accesses) pushPath(segment.paths, pathOf(file, access, cwd));
      return;
    }
    case 'vim':
    case 'vi':
    case 'nvim':
    case 'view':
    case 'vimdiff':
    case 'rvim':
    case 'rview':
    case 'gvim':
    case 'vimx':
    case 'ex':
      return describeVim(name, args, built);
    case 'gdb':
      // gdb runs the commands of -ex/-x/--command and, with stdin not a terminal, of stdin; `shell CMD`
      // and `!CMD` run CMD (gdb manual, "Shell Commands"). Only --version/--help run nothing.
      if (!(args.length === 1 && args[0]!.isStatic && /^--?(version|help|v)$/.test(args[0]!.value))) reasons.push('interpreter');
      // `pipe GDBCMD | CMD` and `| GDBCMD | CMD` run CMD too (gdb manual, "Shell Commands").
      for (const text of optionTexts(args, /^--?(ex|eval-command|iex|init-eval-command)$/)) {
        embeddedCommand(text, /^\s*(shell\s|!)/, cwd, built);
        embeddedCommand(text, /^\s*(?:pipe\s+(?:-d\s+\S+\s+)?|\|)[^|]*\|/, cwd, built);
      }
      return;
    case 'at':
    case 'batch':
      // at(1): "at and batch read commands from standard input or a specified file which are to be
      // executed at a later time, using /bin/sh": piped text is a script, as for `| sh` (round 27
      // R27-17); `-f FILE`'s commands are not read here, nor a stdin whose text is not known here
      // (`at now < job.txt`, `cat job.txt | at now`: round 32 review R32-4), as `sh < job.txt`.
      // `-l`, `-r`, `-d`, `-c` list, remove or print jobs (atq, atrm) and read none.
      if (args.some((w) => w.isStatic && /^-[^-]*[lrdc]/.test(w.value) && !/^-[^-]*[qtf]/.test(w.value))) return;
      if (input.stdin === null || args.some((w) => !w.isStatic || /^-[^-]*f/.test(w.value))) reasons.push('interpreter');
      if (input.stdin !== null) built.nested.push({ kind: 'script', text: input.stdin, cwd });
      return;
    case 'crontab':
      return describeCrontab(args, input, built);
    case 'ed':
    case 'red':
      reasons.push('interpreter'); // its stdin is ed commands, and `!CMD` runs CMD (ed(1))
      return;
    case 'm4':
      return describeM4(args, input, built);
    case 'dc':
      // GNU dc(1): `!` runs the rest of the line as a system command, from -e, -f, a file or stdin.
      if (!isQuery(args)) reasons.push('interpreter');
      for (const text of [...optionTexts(args, /^(-e|--expression)$/), ...(input.stdin === null ? [] : [input.stdin])]) embeddedCommand(text.replace(/^[^!]*/gm, ''), /^!(?![<=>])/, cwd, built);
      return;
    case 'psql':
      return psql(args, input.stdin, cwd, segment.paths, nested, reasons);
    case 'openssl':
      // Engines and providers named by path, and configurations, are shared objects loaded (openssl.ts).
      if (opensslLoadsCode(args)) reasons.push('interpreter');
      return;
    case 'gpg':
    case 'gpg2':
      return gpg(args, cwd, segment.paths, nested, reasons);
    case 'mvn':
    case 'mvnw':
    case 'mvnd':
      // Goals and properties that run a program or load code (`exec:exec -Dexec.executable=…`; maven.ts).
      return maven(args, cwd, segment.paths, nested, reasons);
    case 'cmake': {
      // Scripts, toolchain files and programs a configure step runs (`-P`, `-C`, `-DCMAKE_TOOLCHAIN_FILE=`; cmake.ts).
      const programs: string[][] = [];
      if (cmakeRunsCode(args, cwd, segment.paths, programs)) reasons.push('interpreter');
      if (programs.length > 0) segment.alternatives = [...(segment.alternatives ?? []), ...programs];
      return;
    }
    case 'ctest':
      if (ctestRunsCode(args, cwd, nested)) reasons.push('interpreter');
      return;
    case 'emacs':
    case 'emacs-nox':
    case 'emacs-gtk':
    case 'emacs-lucid':
    case 'emacsclient':
      // `--eval`, `-l`, `-f`, `--daemon` run Lisp; emacsclient's `-e` in the running Emacs (emacs.ts).
      if (emacsRunsCode(args, name === 'emacsclient', cwd, segment.paths, nested)) reasons.push('interpreter');
      return;
    case 'sqlite3': {
      // sqlite3(1): `.shell`/`.system` run a command, `.output`/`.once`/`.read`/`.import`/`.load` and
      // readfile()/writefile() touch any file; with no SQL operand it reads them from stdin.
      // Its options take one dash or two (shell.c: `if( z[1]=='-' ) z++;`, `-help` lists `-init FILENAME`):
      // `-init F` was read as the letters i, n, i, t (round 29 review R29-2).
      const words = args.map((word) => (word.isStatic && /^-[a-z][a-z0-9]+$/.test(word.value) ? { ...word, value: `-${word.value}`, raw: `-${word.raw}` } : word));
      const scan = scanOptions(words, 0, { short: '', long: ['cmd', 'init', 'separator', 'newline', 'nullvalue', 'vfs', 'maxsize', 'mmap', 'pagecache', 'lookaside', 'heap', 'nonce', 'sorterref'] });
      const sql = scan.operands.slice(1).map((i) => words[i]!);
      const query = words.length === 1 && words[0]!.isStatic && /^--?(version|help)$/.test(words[0]!.value);
      if (!query && (sql.length === 0 || hasOption(scan, '-cmd', '--cmd', '-init', '--init') || sql.some((w) => !w.isStatic || /(^|\n)\s*\.|readfile|writefile|load_extension|\bedit\s*\(/i.test(w.value)))) reasons.push('interpreter');
      for (const word of [...sql, ...optionValues(scan, '-cmd', '--cmd')]) if (word.isStatic) embeddedCommand(word.value, /^\s*\.(shell|system)\s/, cwd, built);
      return;
    }
    case 'split': {
      // coreutils split --filter=COMMAND runs COMMAND with $SHELL -c for each chunk.
      const scan = scanOptions(args, 0, { short: 'abCeln', long: ['suffix-length', 'additional-suffix', 'bytes', 'line-bytes', 'lines', 'number', 'separator', 'filter'] });
      const filter = optionValues(scan, '--filter');
      if (filter.length > 0) shellString(filter, cwd, built);
      // `split [OPTION]… [FILE [PREFIX]]` writes PREFIX and a suffix: names the words do not give
      // (round 11 review, F19). A prefix given is a write of names known only at run time (asks);
      // without one, `x` in the working directory (round 13: coreutils 9.1 wrote xaa through a link
      // named xaa), unless --filter takes the output (docs/threat-model.md#split-default-prefix).
      const prefix = scan.operands[1];
      if (prefix !== undefined) pushPath(segment.paths, pathOf(unknownSuffix(args[prefix]!), 'write', cwd));
      else if (filter.length === 0) defaultPrefix('x', splitFirst(scan), segment.paths, cwd);
      return;
    }
    case 'csplit': {
      // csplit(1) `-f PREFIX` (default `xx`) writes PREFIX and a number (`-b FORMAT`).
      const scan = scanOptions(args, 0, { short: 'bfn', long: ['suffix-format', 'prefix', 'digits'] });
      const prefixes = optionValues(scan, '-f', '--prefix');
      for (const prefix of prefixes) pushPath(segment.paths, pathOf(unknownSuffix(prefix), 'write', cwd));
      // Without -f, `xx` and the suffix -b's format makes: a format that may hold a `/` leaves the directory.
      const format = optionValues(scan, '-b', '--suffix-format');
      if (prefixes.length === 0) {
        if (format.some((word) => !word.isStatic || word.value.includes('/'))) pushPath(segment.paths, pathOf(unknownSuffix(staticWord('xx')), 'write', cwd));
        else defaultPrefix('xx', format.length === 0 && !hasOption(scan, '-n', '--digits') ? 'xx00' : null, segment.paths, cwd);
      }
      return;
    }
    case 'tmux':
      return describeTmux(args, built);
    case 'sg': {
      // shadow's sg(1): `sg [-] GROUP [-c] COMMAND` runs COMMAND with /bin/sh -c; without one, a shell.
      const words = args.filter((w, i) => !(i === 0 && w.isStatic && w.value === '-'));
      const rest = words.slice(1).filter((w, i) => !(i === 0 && w.isStatic && w.value === '-c'));
      reasons.push('interpreter');
      shellString(rest, cwd, built);
      return;
    }
    case 'hash':
      if (args.some((w) => !w.isStatic || /^-\w*p/.test(w.value))) reasons.push('environment'); // hash -p /tmp/evil ls
      return;
    case 'script': {
      const scan = scanOptions(args, 0, { short: 'cEIOBTm', long: ['command', 'echo', 'log-in', 'log-out', 'log-io', 'log-timing', 'logging-format', 'output-limit'] });
      const command = optionValues(scan, '-c', '--command')[0];
      if (command) {
        shellString([command], cwd, built);
      } else if (scan.operands.length === 0 || args.length === scan.operands.length) {
        reasons.push('interpreter'); // an interactive shell
      }
      return;
    }
    case 'mapfile':
    case 'readarray': {
      const callback = optionValues(scanOptions(args, 0, { short: 'dnOsuCc' }), '-C')[0];
      if (callback) shellString([callback], cwd, built);
      return;
    }
    case 'enable':
      // `enable -n set`: the builtin is off, so a later `set -e` or `cd` runs a program of that name, or
      // fails (bash manual, "Bash Builtin Commands"); `enable -f lib.so` loads code.
      if (args.some((w) => !w.isStatic || /^-\w*[nd]/.test(w.value))) {
        reasons.push('environment');
        built.errexit = false;
      }
      if (args.some((w) => !w.isStatic || /^-\w*f/.test(w.value))) reasons.push('interpreter');
      return;
    case 'bind':
    case 'complete':
    case 'compgen':
      if (args.some((w) => !w.isStatic || /^-\w*[xCFf]/.test(w.value))) reasons.push('interpreter'); // bind -x, complete -C
      return;
    case 'fc':
      reasons.push('interpreter'); // re-runs history or opens an editor on it
      return;
    case 'parallel':
    case 'sem':
      reasons.push('executor'); // GNU parallel runs its arguments through a shell
      return;
    case 'cd':
    case 'pushd':
    case 'popd': {
      const scan = scanOptions(args, 0, {});
      const target = scan.operands.length > 0 ? args[scan.operands[0]!]! : null;
      if (name === 'popd') {
        built.cwdAfter = null;
      } else if (target === null) {
        built.cwdAfter = name === 'cd' ? HOME : null;
      } else {
        if (!(target.isStatic && target.value === '-')) pushPath(segment.paths, pathOf(target, 'read', cwd));
        // `pushd DIR` goes to DIR "as if it had been supplied as an argument to the cd builtin" (bash
        // manual, "Directory Stack Builtins"; round 33): not with `-n` (the stack only), nor `+N`/`-N`
        // (a rotation of a stack not known here). `cd -` goes to $OLDPWD, not followed: unknown.
        if (name === 'pushd' && hasOption(scan, '-n')) return; // the stack only: the cwd stays
        const moves = name === 'cd' || (!(target.isStatic && /^[+-]\d+$/.test(target.value)) && args.every((word) => word.isStatic));
        built.cwdAfter = moves && target.isStatic ? resolveDirectory(cwd, target.value) : null;
      }
      return;
    }
    case 'set':
      return describeSet(args, built);
    case 'shopt':
      return describeShopt(args, built);
    case 'eval': {
      reasons.push('interpreter');
      if (args.length > 0 && args.every((w) => w.isStatic)) nested.push({ kind: 'script', text: args.map((w) => w.value).join(' '), cwd });
      return;
    }
    case 'source':
    case '.':
      reasons.push('interpreter');
      return;
    case 'trap': {
      const scan = scanOptions(args, 0, {});
      if (scan.operands.length < 2) return; // `trap SIG`, `trap -p`: no action set
      const action = args[scan.operands[0]!]!;
      if (action.isStatic && (action.value === '' || action.value === '-')) return;
      reasons.push('interpreter');
      // Security: the action runs later (on the signal), in whatever directory the shell is then in.
      if (action.isStatic) nested.push({ kind: 'script', text: action.value, cwd: null });
      return;
    }
    case 'flock': {
      // `flock FILE -c CMD` (a command with a lock is a wrapper, see stripWrapper).
      const scan = scanOptions(args, 0, { short: 'wEc', long: ['timeout', 'wait', 'conflict-exit-code', 'command'] });
      const lock = scan.operands[0];
      if (lock !== undefined && !(args[lock]!.isStatic && /^\d+$/.test(args[lock]!.value))) pushPath(segment.paths, pathOf(args[lock]!, 'write', cwd));
      const command = optionValues(scan, '-c', '--command')[0];
      if (command) shellString([command], cwd, built);
      return;
    }
    case 'su':
    case 'runuser':
      return describeSu(name, args, cwd, built);
    case 'ssh':
      return describeSsh(args, cwd, built);
    case 'scp':
    case 'sftp':
    case 'ssh-copy-id':
    case 'sshfs':
      return describeSshClient(name, args, built);
    case 'watch': {
      const scan = scanOptions(args, 0, { short: 'nq', long: ['interval', 'equexit'], stopAtOperand: true });
      const rest = args.slice(scan.end);
      if (rest.length === 0) return;
      if (hasOption(scan, '-x', '--exec')) nested.push({ kind: 'argv', words: rest, cwd });
      else shellString(rest, cwd, built);
      return;
    }
    case 'docker':
    case 'podman':
    case 'docker-compose':
    case 'kubectl':
      return describeContainer(name, args, built);
    case 'echo':
      built.stdout = echoText(args, input.shell ?? 'bash');
      return;
    case 'printf':
      // Security: bash's `printf -v NAME` sets NAME, exported if it was: `printf -v PATH %s . && ls`
      // runs ./ls, `printf -v CDPATH %s ~ && cd .ssh` leaves the workspace.
      if (optionValues(scanOptions(args, 0, { short: 'v', stopAtOperand: true }), '-v').some((w) => !w.isStatic || changesLaterCommands(w.value))) reasons.push('environment');
      if (args.length === 1 && args[0]!.isStatic && !args[0]!.value.includes('%')) built.stdout = printfText(args[0]!.value);
      return;
    case 'cat':
      if (args.length === 0) built.stdout = input.stdin;
      return;
  }
}

/** A word that starts with a static variable name (and subscript): `x=$(id)`, `a[1]=$y`. */
const STATIC_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\[[^$`]*\])?(\+?=|$)/;

/**
 * Builtins that assign the variables they are given by name (bash manual, "Bash Builtin Commands"):
 * `read NAME… -a NAME`, `mapfile ARRAY`, `getopts OPTSTRING NAME`, `wait -p NAME`, `unset NAME`
 * (an unset PATH makes bash look for a program in the cwd). `printf -v` is read in its case. True
 * when one such name changes what later commands run, or is known only at run time.
 */
function assignsShellVariable(name: string, args: readonly Word[]): boolean {
  let names: Word[];
  if (name === 'read') {
    const scan = scanOptions(args, 0, { short: 'adinNptu' });
    names = [...scan.operands.map((n) => args[n]!), ...optionValues(scan, '-a')];
  } else if (name === 'mapfile' || name === 'readarray') {
    const scan = scanOptions(args, 0, { short: 'dnOsuCc' });
    names = scan.operands.map((n) => args[n]!);
  } else if (name === 'getopts') {
    names = scanOptions(args, 0, {}).operands.slice(1, 2).map((n) => args[n]!);
  } else if (name === 'wait') {
    names = optionValues(scanOptions(args, 0, { short: 'p' }), '-p');
  } else if (name === 'unset') {
    const scan = scanOptions(args, 0, {});
    names = scan.operands.map((n) => args[n]!);
  } else return false;
  return names.some((w) => !w.isStatic || changesLaterCommands(w.value));
}

/** `sh [-eux] [-o opt] -c STRING [$0 …]`, `bash script.sh`, or a shell reading stdin. */
function describeShell(name: string, args: readonly Word[], input: SegmentInput, built: Built): void {
  const { reasons, nested, segment } = built;
  let command = false;
  let stdin = false;
  let quiet = false;
  let errexit = false;
  let payload: Word | null = null;
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (!word.isStatic || v.length < 2 || (v[0] !== '-' && v[0] !== '+')) break;
    if (v === '--') {
      i++;
      break;
    }
    // bash's start-up file (bash(1) `--rcfile FILE`, `--init-file FILE`; bash reads its long options
    // with one dash too, shell.c parse_long_options): an interactive shell (`-i`) sources it before
    // its script or `-c` text. Code read from that file, as the script operand is (round 32 review R32-1).
    if (BASH_SHELLS.has(name) && /^--?(rcfile|init-file)$/.test(v)) {
      const file = args[++i];
      if (file !== undefined) pushPath(segment.paths, pathOf(file, 'read', segment.cwd));
      continue;
    }
    if (v.startsWith('--')) {
      const option = v.split('=')[0]!;
      if (name === 'fish' && (option === '--command' || option === '--init-command')) {
        command = true;
        payload = v.includes('=') ? { ...word, value: v.slice(v.indexOf('=') + 1) } : (args[++i] ?? null);
      } else if (option === '--version' || option === '--help') quiet = true;
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const ch = v[j]!;
      if (ch === 'c' || (name === 'fish' && ch === 'C')) {
        command = true;
        if (name === 'fish') {
          const rest = v.slice(j + 1);
          payload = rest !== '' ? { ...word, value: rest, raw: rest } : (args[++i] ?? null);
          break;
        }
      } else if (ch === 's') stdin = true;
      else if (ch === 'e' && v[0] === '-') errexit = true;
      else if (ch === 'o' || ch === 'O') {
        const option = args[++i];
        if (option?.isStatic && option.value === 'errexit' && v[0] === '-') errexit = true;
      }
    }
  }
  const operands = args.slice(i);
  if (operands[0]?.isStatic && operands[0].value === '-') stdin = true;
  if (command) {
    reasons.push('interpreter');
    payload ??= operands[0] ?? null;
    if (payload?.isStatic) nested.push({ kind: 'script', text: payload.value, cwd: segment.cwd, errexit, shell: shellDialect(name) });
    return;
  }
  if (!stdin && operands.length > 0) {
    pushPath(segment.paths, pathOf(operands[0]!, 'read', segment.cwd));
    return;
  }
  if (quiet) return;
  // Security: a shell without -c or a script runs whatever arrives on stdin (`curl … | sh`).
  reasons.push('interpreter');
  if (input.stdin !== null) nested.push({ kind: 'script', text: input.stdin, cwd: segment.cwd, errexit, shell: shellDialect(name) });
}

/** bash reads what `bash`/`rbash` run; any other shell's text is read as a `sh` that may be dash (dialect.ts). */
function shellDialect(name: string): Dialect {
  return BASH_SHELLS.has(name) ? 'bash' : 'sh';
}

type InterpreterMode = 'code' | 'script' | 'stdin' | 'quiet';

/** A debugger's `[HOST:]PORT` on this machine only. */
const LOOPBACK_DEBUGGER = /^((127\.0\.0\.1|localhost|\[::1\]):)?\d+$|^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/;

/** How an interpreter is given its code, and the index of the script it runs (-1 for none: code, stdin, a module). */
function interpreterMode(spec: InterpreterSpec, args: readonly Word[]): { mode: InterpreterMode; script: number } {
  const mode = (value: InterpreterMode, script = -1) => ({ mode: value, script });
  let quiet = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (!word.isStatic) return mode('script', i);
    if (v === '-') return mode('stdin');
    if (v === '--') return i + 1 < args.length ? mode('script', i + 1) : mode(quiet ? 'quiet' : 'stdin');
    if (spec.quiet?.includes(v)) quiet = true;
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const option = eq === -1 ? v : v.slice(0, eq);
      if (spec.codeLong?.includes(option)) return mode('code');
      // node(1) `--inspect=0.0.0.0:9229`: a debugger on every address (round 26 review S16, as bun's).
      if (spec.debugger?.includes(option) && eq !== -1 && !LOOPBACK_DEBUGGER.test(v.slice(eq + 1))) return mode('code');
      // A file of settings (`--env-file=F`) sets NODE_OPTIONS, read as the variable would be: not seen here (round 27).
      if (spec.settingsFile?.includes(option)) return mode('code');
      if (spec.urlValue?.includes(option) && urlIsCode(eq === -1 ? args[i + 1] : staticWord(v.slice(eq + 1)))) return mode('code');
      if (spec.valueLong?.includes(option) && eq === -1) i++;
      continue;
    }
    if (v.length < 2 || v[0] !== '-') return mode('script', i);
    // PowerShell-style single-dash words (`-Command`) are not clusters.
    for (let j = 1; j < v.length; j++) {
      const ch = v[j]!;
      if (spec.code.includes(ch)) return mode('code');
      if (spec.module === ch) return moduleIsCode(spec, j === v.length - 1 ? args[i + 1] : staticWord(v.slice(j + 1)), args.slice(i + 1)) ? mode('code') : mode('script');
      if (spec.urlValue?.includes(`-${ch}`) && urlIsCode(j === v.length - 1 ? args[i + 1] : staticWord(v.slice(j + 1)))) return mode('code');
      if (spec.value?.includes(ch)) {
        if (j === v.length - 1) i++;
        break;
      }
      // perlrun: `-MMODULE` is `use MODULE;` with the rest of the word inserted as program text.
      if (spec.moduleName?.includes(ch) && !PERL_MODULE.test(v.slice(j + 1))) return mode('code');
      if (spec.attached?.includes(ch)) break;
    }
  }
  if (quiet) return mode('quiet');
  return mode(spec.noStdin ? 'quiet' : 'stdin');
}

/**
 * A module specifier given to node's `--import`, `--loader`, `-r`: a URL other than `file:` or a
 * builtin's `node:` is code (`data:text/javascript,CODE` runs CODE); a word known only at run time
 * may be one (docs/threat-model.md#code-in-interpreter-options).
 */
function urlIsCode(word: Word | undefined): boolean {
  if (word === undefined) return false;
  if (!word.isStatic) return true;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(word.value);
  return scheme !== null && !/^(file|node)$/i.test(scheme[1]!);
}

/** perl's `-M`/`-m` value that perl.c reads as a module name, with an optional `=LIST` it quotes (`-M-warnings`, `-MO=Deparse`). */
const PERL_MODULE = /^-?[A-Za-z_]\w*(::\w+)*(=.*)?$/s;

/**
 * `python -m MODULE` where MODULE takes code in its operands, or is cProfile, profile or trace running
 * another module with `-m`/`--module` (which may be one); a name known only at run time may be any.
 */
function moduleIsCode(spec: InterpreterSpec, module: Word | undefined, rest: readonly Word[]): boolean {
  if (module === undefined || !spec.codeModules) return false;
  return !module.isStatic || spec.codeModules.has(module.value) || (rest.some((w) => !w.isStatic || w.value === '-m' || w.value === '--module') && /^(cProfile|profile|trace)$/.test(module.value));
}

/** `set`'s one-letter options and its `-o` names (bash manual, "The Set Builtin"). */
const SET_LETTERS = new Set('abefhkmnptuvxBCEHPT');
const SET_NAMES = new Set(['allexport', 'braceexpand', 'emacs', 'errexit', 'errtrace', 'functrace', 'hashall', 'histexpand', 'history', 'ignoreeof', 'interactive-comments', 'keyword', 'monitor', 'noclobber', 'noexec', 'noglob', 'nolog', 'notify', 'nounset', 'onecmd', 'physical', 'pipefail', 'posix', 'privileged', 'verbose', 'vi', 'xtrace']);

/**
 * `set -e`, `set -euo pipefail`, `set -o errexit`, `set +e`. errexit is taken as on only when every
 * option word is static and valid: bash sets nothing when one is invalid, and a word known only at
 * run time (`set +e$x`) may turn it off, so any doubt is taken as off (the walk then keeps both
 * cwds after a failing `cd`). `-k` (keyword) puts a NAME=value argument of every later command into
 * its environment, where the walk does not look: 'environment', as is an option word known only at
 * run time.
 */
function describeSet(args: readonly Word[], built: Built): void {
  let errexit: boolean | undefined;
  let doubt = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (!word.isStatic) {
      doubt = true;
      built.reasons.push('environment');
      break;
    }
    // Option processing ends at `--`, `-` or the first operand: the rest are positional parameters.
    if (v === '--' || v === '-' || !/^[-+]./.test(v)) break;
    const on = v[0] === '-';
    const letters = v.slice(1);
    if (letters.indexOf('o') !== letters.lastIndexOf('o')) doubt = true;
    for (const ch of letters) {
      if (!SET_LETTERS.has(ch) && ch !== 'o') doubt = true;
      if (ch === 'e') errexit = on;
      if (ch === 'k' && on) built.reasons.push('environment');
    }
    if (!letters.includes('o')) continue;
    const name = args[++i];
    if (name === undefined) continue; // `set -o` alone lists the options
    if (!name.isStatic || !SET_NAMES.has(name.value)) {
      doubt = true;
      if (!name.isStatic) built.reasons.push('environment');
      continue;
    }
    if (name.value === 'errexit') errexit = on;
    // `keyword`: see above; `posix` makes bash expand aliases (BASH_ALIASES, variables.ts ENVIRONMENT).
    if ((name.value === 'keyword' || name.value === 'posix') && on) built.reasons.push('environment');
  }
  if (doubt) built.errexit = false;
  else if (errexit !== undefined) built.errexit = errexit;
}

/**
 * `shopt -s cdable_vars` makes `cd NAME` go to $NAME, `lastpipe` runs a pipeline's last stage (and
 * its `cd`) in this shell, `dotglob` and the other glob options change what a pattern names, and
 * `-o` sets `set`'s options: any option set, or a word known only at run time, makes later
 * commands run differently from how the walk reads them ('environment'). `-o` may turn errexit off.
 */
function describeShopt(args: readonly Word[], built: Built): void {
  if (args.some((w) => !w.isStatic || /^-[a-z]*s/.test(w.value))) built.reasons.push('environment');
  if (args.some((w) => !w.isStatic || /^-[a-z]*o/.test(w.value))) {
    built.errexit = false;
    if (!built.reasons.includes('environment')) built.reasons.push('environment');
  }
}

/** `su [-] [-l] [user] -c CMD` runs CMD through the user's shell; without -c it starts one. */
function describeSu(name: string, args: readonly Word[], cwd: string | null, built: Built): void {
  built.reasons.push('interpreter');
  const words = args.filter((w) => !(w.isStatic && w.value === '-'));
  const scan = scanOptions(words, 0, { short: 'cgGsuw', long: ['command', 'session-command', 'group', 'supp-group', 'shell', 'user', 'whitelist-environment'] });
  const login = args.length !== words.length || hasOption(scan, '-l', '--login');
  const dir = login ? null : cwd;
  const command = optionValues(scan, '-c', '--command', '--session-command')[0];
  if (command) {
    if (command.isStatic) built.nested.push({ kind: 'script', text: command.value, cwd: dir });
    return;
  }
  // `runuser -u USER -- CMD ARGS`: an argv, run directly.
  if (name === 'runuser' && hasOption(scan, '-u', '--user')) {
    const rest = scan.operands.map((n) => words[n]!);
    if (rest.length > 0) built.nested.push({ kind: 'argv', words: rest, cwd: dir });
  }
}

/** `ssh [options] DEST [COMMAND…]`: the remote shell runs the joined words. */
/**
 * Security: ssh options that run a local command or load code (ssh_config(5)); sshfs(1) takes
 * `ssh_command` and `sftp_server` among its `-o` options.
 */
const SSH_RUNS = /^\s*(ProxyCommand|LocalCommand|PermitLocalCommand|KnownHostsCommand|Match|PKCS11Provider|SecurityKeyProvider|ssh_command|ssh_program|sftp_server)\b/i;

/**
 * scp, sftp, ssh-copy-id and sshfs pass `-o` to ssh unchanged (scp(1), sftp(1)): `scp -o
 * ProxyCommand='rm f' a x:y` removed f (round 11 review), so the same options are executors. sftp
 * runs a local shell for a `!command` of its batch file or standard input, and `-S`/`-D` programs:
 * it is one.
 */
function describeSshClient(name: string, args: readonly Word[], built: Built): void {
  if (name === 'sftp') {
    built.reasons.push('executor');
    return;
  }
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic || !/^-[A-Za-z0-9]*o/.test(word.value)) continue;
    const rest = word.value.slice(word.value.indexOf('o') + 1);
    const value = rest !== '' ? { ...word, value: rest } : args[i + 1];
    if (value !== undefined && (!value.isStatic || SSH_RUNS.test(value.value) || value.value.split(',').some((part) => SSH_RUNS.test(part)))) built.reasons.push('executor');
  }
}

function describeSsh(args: readonly Word[], cwd: string | null, built: Built): void {
  const scan = scanOptions(args, 0, { short: 'BbcDEeFIiJLlmOopQRSWw', stopAtOperand: true });
  for (const file of optionValues(scan, '-i', '-F')) pushPath(built.segment.paths, pathOf(file, 'read', cwd));
  for (const option of optionValues(scan, '-o')) {
    if (!option.isStatic || SSH_RUNS.test(option.value)) built.reasons.push('executor');
  }
  if (scan.end >= args.length) return;
  built.reasons.push('remote-command');
  shellString(args.slice(scan.end + 1), null, built, false);
}

/** `docker exec CTR CMD…`, `docker compose exec SVC CMD…`, `kubectl exec POD -- CMD…`: the command runs elsewhere. */
function describeContainer(name: string, args: readonly Word[], built: Built): void {
  const statics = args.map((w) => (w.isStatic ? w.value : '\u0000'));
  // Global options are skipped here even when they make the signature unrememberable (`docker -H`).
  let at = scanOptions(args, 0, { ...cliOptions(name), stopAtOperand: true }).end;
  if ((name === 'docker' || name === 'podman') && statics[at] === 'compose') {
    const next = scanOptions(args, at + 1, { short: 'fp', long: ['file', 'project-name', 'profile', 'env-file', 'project-directory', 'ansi', 'progress', 'parallel'], stopAtOperand: true });
    at = next.end;
  }
  if (statics[at] !== 'exec') return;
  if (name === 'kubectl') {
    const dashes = statics.indexOf('--', at);
    if (dashes === -1 || dashes + 1 >= args.length) built.reasons.push('executor');
    else built.nested.push({ kind: 'argv', words: args.slice(dashes + 1), cwd: null });
    return;
  }
  const scan = scanOptions(args, at + 1, { short: 'euw', long: ['env', 'env-file', 'user', 'workdir', 'detach-keys', 'index'], stopAtOperand: true });
  const rest = args.slice(scan.end + 1); // after the container / service
  if (rest.length > 0) built.nested.push({ kind: 'argv', words: rest, cwd: null });
}

/** A CLI's value-taking global options as an OptionSpec. */
function cliOptions(name: string): OptionSpec {
  const value = CLIS[name]?.value ?? [];
  const short = value.filter((o) => /^-\w$/.test(o)).map((o) => o[1]).join('');
  return { short, long: value.filter((o) => o.startsWith('--')).map((o) => o.slice(2)) };
}

/** Words a program joins with spaces and hands to `sh -c` (`watch`, `ssh`, `script -c`, `flock -c`, `mapfile -C`). */
/**
 * Deny rules for every program: a static word of an unknown program that holds a blank may be a
 * whole command it runs (`tmux new 'rm -f F'`, `--filter='rm …'`, `'.shell rm …'`, `'!rm …'`), so
 * its words, after an option name, a `+`/`!` or a `.shell`/`shell` prefix, are tried as a command
 * too (docs/threat-model.md, "Deny rules for every program").
 */
function commandsInWords(args: readonly Word[]): string[][] {
  const out: string[][] = [];
  for (const word of args) {
    if (!word.isStatic || !/\s/.test(word.value.trim())) continue;
    for (const line of word.value.split(/[\n;|&]+/)) {
      // After an option's `=` (`-XX:OnError=CMD`: java runs it, round 29 review R29-7), `!`, `\!`
      // (mysql's and psql's shell escape), `shell`/`system`/`.shell`.
      const text = line.replace(/^\s*(--?[\w:.-]+=)?\s*[+:]*\s*\\?!?\s*(\.?(shell|system)\s+)?/, '');
      const words = text.split(/\s+/).filter(Boolean);
      if (words.length > 0 && /^[\w./~-]+$/.test(words[0]!)) out.push(words);
    }
  }
  return out;
}

/** The static values of the options matching `name` (`-ex CMD`, `--ex=CMD`). */
function optionTexts(args: readonly Word[], name: RegExp): string[] {
  const out: string[] = [];
  args.forEach((word, i) => {
    if (!word.isStatic) return;
    const eq = word.value.indexOf('=');
    if (eq > 0 && name.test(word.value.slice(0, eq))) out.push(word.value.slice(eq + 1));
    else if (name.test(word.value) && args[i + 1]?.isStatic) out.push(args[i + 1]!.value);
  });
  return out;
}

/** A command in a program's own command language (`shell CMD`, `!CMD`, `.shell CMD`): a nested script. */
function embeddedCommand(text: string, prefix: RegExp, cwd: string | null, built: Built): void {
  for (const line of text.split('\n')) {
    const match = prefix.exec(line);
    if (match) built.nested.push({ kind: 'script', text: line.slice(match[0].length), cwd });
  }
}

/**
 * vim(1): `-c CMD`, `+CMD`, `--cmd CMD` run Ex commands (`:!CMD` runs CMD, `:e`/`:w` any file),
 * `-S`/`-u`/`-s` source a file, `-w`/`-W` write one, `-e`/`-E` and `ex` read Ex commands from stdin,
 * `--remote-send`/`--remote-expr` run them in another vim. Each is `interpreter`; `vim FILE` and
 * `vim +N FILE` are not.
 */
function describeVim(name: string, args: readonly Word[], built: Built): void {
  const code = name === 'ex' || args.some((w) => !w.isStatic || /^(-[A-Za-z]*[cSsuUeEwW]|--cmd$|--remote-(send|expr)|\+(?!\d*$))/.test(w.value));
  if (!code) return;
  built.reasons.push('interpreter');
  const texts = [...optionTexts(args, /^(-c|--cmd)$/), ...args.filter((w) => w.isStatic && /^\+./.test(w.value)).map((w) => w.value.slice(1))];
  for (const text of texts) embeddedCommand(text, /^\s*:*\s*!/, built.segment.cwd, built);
}

/** `PROGRAM --version` or `--help` alone: it runs nothing it reads. */
function isQuery(args: readonly Word[]): boolean {
  return args.length === 1 && args[0]!.isStatic && /^--?(version|help)$/.test(args[0]!.value);
}

/**
 * GNU m4 (m4 1.4.19, its info manual): `syscmd(CMD)`/`esyscmd(CMD)` run CMD with /bin/sh, `include`,
 * `sinclude`, `undivert(FILE)` read any file, from its operands or stdin (`echo 'syscmd(rm -f F)' |
 * m4` removed F under bash 5.2; round 11 review). Always `interpreter`; the commands of a static
 * stdin are nested scripts; `-F`/`--freeze-state` and `--debugfile` write, `-R`/`--reload-state` reads.
 */
function describeM4(args: readonly Word[], input: SegmentInput, built: Built): void {
  if (!isQuery(args)) built.reasons.push('interpreter');
  const scan = scanOptions(args, 0, { short: 'DUsILdtFRo', long: ['define', 'undefine', 'include', 'nesting-limit', 'debug', 'debuglen', 'trace', 'freeze-state', 'reload-state', 'error-output', 'word-regexp'] });
  for (const file of optionValues(scan, '-F', '--freeze-state', '-o', '--error-output')) pushPath(built.segment.paths, pathOf(file, 'write', built.segment.cwd));
  for (const option of scan.options) if (option.name.length > 3 && '--debugfile'.startsWith(option.name) && option.value) pushPath(built.segment.paths, pathOf(option.value, 'write', built.segment.cwd));
  for (const file of optionValues(scan, '-R', '--reload-state')) pushPath(built.segment.paths, pathOf(file, 'read', built.segment.cwd));
  for (const i of scan.operands) pushPath(built.segment.paths, pathOf(args[i]!, 'read', built.segment.cwd));
  const texts = [...(input.stdin === null ? [] : [input.stdin]), ...optionValues(scan, '-D', '--define').filter((w) => w.isStatic).map((w) => w.value)];
  for (const text of texts) for (const match of text.matchAll(/e?syscmd\(\s*\[?([^)\]]*)/g)) built.nested.push({ kind: 'script', text: match[1]!, cwd: built.segment.cwd });
}

/**
 * crontab(1) installs a table whose jobs cron runs later with /bin/sh in the home directory: from
 * FILE, or from stdin with `-` or no operand (`echo '* * * * * rm -rf v' | crontab -` was allowed
 * under `Bash(crontab:*)` past `Bash(rm *)`: round 32 review R32-4). A static stdin's jobs are
 * nested scripts (as `at`'s, R27-17); a file's, or a stdin not known here, are not read: interpreter.
 * Its variable lines (`SHELL=`, `PATH=`, `BASH_ENV=`) change how every job runs: interpreter too.
 * `-e` opens an editor on it. `-l`, `-r`, `-V`, `-T` (cronie's check) install nothing.
 */
function describeCrontab(args: readonly Word[], input: SegmentInput, built: Built): void {
  const scan = scanOptions(args, 0, { short: 'unsT' });
  if (args.some((w) => !w.isStatic) || hasOption(scan, '-e')) {
    built.reasons.push('interpreter');
    return;
  }
  if (hasOption(scan, '-l', '-r', '-V', '-T', '-c')) return;
  const file = scan.operands[0] === undefined ? null : args[scan.operands[0]]!;
  if (file !== null && file.value !== '-') {
    pushPath(built.segment.paths, pathOf(file, 'read', built.segment.cwd));
    built.reasons.push('interpreter');
    return;
  }
  if (input.stdin === null) {
    built.reasons.push('interpreter');
    return;
  }
  for (const line of input.stdin.split('\n')) {
    const text = line.trim();
    if (text === '' || text.startsWith('#')) continue;
    // `NAME=value` (an environment line) or a job: `@reboot CMD`, or five time fields and CMD;
    // an unescaped `%` ends the command (what follows is its stdin).
    const job = /^(?:@\w+|(?:\S+\s+){5})(.*)$/s.exec(text);
    if (/^[A-Za-z_][A-Za-z0-9_]*\s*=/.test(text) || job === null) {
      built.reasons.push('interpreter');
      continue;
    }
    const command = job[1]!.replace(/(?<!\\)%[^]*$/, '');
    if (job[1]!.includes('%')) built.reasons.push('interpreter');
    built.nested.push({ kind: 'script', text: command, cwd: HOME });
  }
}

/** tmux(1) commands that only list or query; any other (`new 'CMD'`, `run-shell`, `source-file`, `-f FILE`) runs code. */
const TMUX_QUERIES = new Set(['ls', 'list-sessions', 'list-windows', 'lsw', 'list-panes', 'lsp', 'has-session', 'has', 'list-clients', 'lsc', 'list-commands', 'lscm', 'list-keys', 'lsk', 'list-buffers', 'lsb', 'kill-server', 'kill-session', 'kill-window', 'killw', 'kill-pane', 'killp']);

function describeTmux(args: readonly Word[], built: Built): void {
  const scan = scanOptions(args, 0, { short: 'cLST', stopAtOperand: true });
  const first = args[scan.end];
  const query = (args.length === 1 && args[0]!.isStatic && args[0]!.value === '-V') || (first?.isStatic === true && TMUX_QUERIES.has(first.value) && !hasOption(scan, '-c', '-f') && args.every((w) => w.isStatic && !w.value.endsWith(';')));
  if (!query) built.reasons.push('interpreter');
}

function shellString(words: readonly Word[], cwd: string | null, built: Built, flag = true): void {
  if (words.length === 0) return;
  if (flag) built.reasons.push('interpreter');
  if (words.every((w) => w.isStatic)) built.nested.push({ kind: 'script', text: words.map((w) => w.value).join(' '), cwd });
}

/**
 * What echo prints, for a shell reading it next (`echo … | sh`); null when that is not known for
 * certain (docs/threat-model.md#what-echo-prints). bash's echo takes `-n`, `-e`, `-E` and decodes
 * backslash escapes only with `-e`; dash's takes only `-n` (`echo -e x` prints `-e x`) and always
 * decodes `\n`, `\c`, `\0NNN` (dash(1)); busybox's is bash's. So for a `sh`, a word with a backslash
 * or an option other than one leading `-n` gives null.
 */
function echoText(args: readonly Word[], shell: Dialect): string | null {
  let i = 0;
  let escapes = false;
  let newline = true;
  for (; i < args.length && args[i]!.isStatic && /^-[neE]+$/.test(args[i]!.value); i++) {
    const flags = args[i]!.value;
    if (shell === 'sh' && (flags !== '-n' || i > 0 || /^-/.test(args[i + 1]?.value ?? ''))) return null;
    if (flags.includes('n')) newline = false;
    for (const flag of flags.slice(1)) if (flag !== 'n') escapes = flag === 'e';
  }
  const rest = args.slice(i);
  if (!rest.every((w) => w.isStatic)) return null;
  const text = rest.map((w) => w.value).join(' ');
  if (text.includes('\\') && (shell === 'sh' || escapes)) return null;
  return newline ? `${text}\n` : text;
}

/** A printf format with no conversion: `\n`, `\t`, `\\` decoded as bash and dash both do; any other escape (`\x41` is bash's only) null. */
function printfText(format: string): string | null {
  if (format.replace(/\\[nt\\]/g, '').includes('\\')) return null;
  return format.replace(/\\([nt\\])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : '\\'));
}

/**
 * `npm init <initializer>` (npm-init(1): "an npm package named create-<initializer>, which will be
 * installed by npm-exec, and then have its main bin executed"; `npm create` is its alias) and
 * `yarn`/`pnpm`/`bun create <x>` fetch and run a package as `npm exec` does (round 21 review, B6).
 * Without an operand `npm init` only writes package.json.
 */
function initializes(name: string, statics: readonly string[], index: number): boolean {
  const sub = statics[index];
  if (name === 'npm' ? sub !== 'init' : sub !== 'create' || !['yarn', 'pnpm', 'bun'].includes(name)) return false;
  return statics.slice(index + 1).some((word) => word === '\u0000' || (!word.startsWith('-') && word !== ''));
}

/**
 * The command a runner runs (runners.ts runnerCommand: `uv run CMD`, `poetry run CMD`…), pnpm's and
 * bun's fallback to a program (below), or npm's built-in `env` script (package-managers.ts
 * npmRunEnv); 'unknown' when which command runs is not known, null for none.
 */
export function innerCommand(name: string, args: readonly Word[]): RunnerCommand | 'unknown' | null {
  return runnerCommand(name, args) ?? pnpmFallback(name, args) ?? bunRunFallback(name, args) ?? (name === 'npm' ? npmRunEnv(args) : null);
}

/**
 * What pnpm runs for a first word that is not one of its commands (programs.ts PNPM_COMMANDS): the
 * project's script of that name or, with none, that program with the words after it, as `pnpm exec`
 * runs it but never fetched (round 21 review, B7). Null for pnpm's own commands and other programs.
 */
function pnpmFallback(name: string, args: readonly Word[]): RunnerCommand | 'unknown' | null {
  if (name !== 'pnpm') return null;
  const values = globalValueOptions('pnpm');
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) return 'unknown';
    // After `--` the next word is the command, whatever it is (pnpm 9.15.9: `pnpm -- t` ran test,
    // `pnpm -- --silent t` looked for a program `--silent`; round 26 review S12).
    const ended = word.value === '--';
    const command = ended ? args[++i] : word;
    if (command === undefined) return null;
    if (!command.isStatic) return 'unknown';
    if (!ended && command.value.startsWith('-')) {
      if (values.has(command.value)) i++;
      continue;
    }
    return PNPM_COMMANDS.has(command.value) ? null : { name: baseName(command.value), args: args.slice(i + 1), moved: false };
  }
  return null;
}

/**
 * What `bun run NAME ARGS` runs when NAME is no file: the project's script of that name, a bin of
 * node_modules/.bin, or else the program NAME from PATH (bun 1.4.5: `bun run rm -rf victim` removed
 * victim, with and without a package.json; round 25 review R7). As pnpm's fallback, that program
 * with the words after it is described here, so its own checks and deny rules meet it (a script
 * of that name runs instead: the description is then of a program that did not run, which only
 * asks more). A NAME that looks like a file (a `/`, a JS or TS extension) is bun's to run. Null for
 * other commands and programs.
 */
function bunRunFallback(name: string, args: readonly Word[]): RunnerCommand | null {
  if (name !== 'bun') return null;
  const values = globalValueOptions('bun');
  let run = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) return null; // bunOptions: an option known only at run time is code already
    const v = word.value;
    if (v === '--') return null;
    if (v.startsWith('-') && v !== '-') {
      if (!v.includes('=') && values.has(v)) i++;
      continue;
    }
    if (!run) {
      if (v !== 'run') return null;
      run = true;
      continue;
    }
    if (v === '-' || v.includes('/') || /\.(m?[jt]sx?|c[jt]s|json|toml|sh)$/.test(v)) return null;
    return { name: baseName(v), args: args.slice(i + 1), moved: false };
  }
  return null;
}

/** True when a runner (programs.ts RUNNERS) is given the subcommand that runs a command (`uv run`, `npm exec`, `npx`). */
function runsCommand(name: string, args: readonly Word[]): boolean {
  if (!Object.hasOwn(RUNNERS, name)) return false;
  const runs = RUNNERS[name]!.run;
  if (runs.includes('')) return true;
  const statics = args.map((w) => (w.isStatic ? w.value : '\u0000'));
  const index = subcommandIndex(name, statics);
  return index !== null && index >= 0 && runs.includes(statics[index]!);
}

/**
 * True unless the program is one the analyser models that starts no other program with the
 * environment it is given (variables.ts movesConfig; round 24: `HOME=D ./build.sh` ran the
 * script's git with D/.gitconfig): a script or unknown program, a shell, an interpreter, a test
 * runner or runner, and the modelled CLIs that run git, plugins or helpers do; the file programs,
 * the read-only ones and the shell's builtins do not.
 */
export function startsOthers(name: string): boolean {
  if (SHELLS.has(name) || interpreterSpec(name) !== undefined || RUNNER_PROGRAMS.has(name) || Object.hasOwn(RUNNERS, name) || STARTS_OTHERS.has(name)) return true;
  return !(ALWAYS_SAFE.has(name) || modelsProgram(name) || (PLAIN_PROGRAMS.has(name) && !PLAIN_STARTS.has(name)));
}
/** Modelled programs that start others with their environment: find's -exec, awk's system(), sed's `e`, tar's compressors, rsync's shell, and the CLIs that run git or plugins. */
const STARTS_OTHERS: ReadonlySet<string> = new Set(['find', 'awk', 'gawk', 'mawk', 'nawk', 'sed', 'gsed', 'tar', 'gtar', 'bsdtar', 'rsync', 'xargs', 'parallel', 'cargo', 'go', 'gh', 'kubectl', 'helm', 'docker', 'podman', 'docker-compose']);
/** PLAIN_PROGRAMS that run a shell or a program with the environment (su -m, script -c, watch, man's pager, eval, source). */
const PLAIN_STARTS: ReadonlySet<string> = new Set(['su', 'runuser', 'script', 'watch', 'ssh', 'eval', 'source', '.', 'man', 'info', 'trap', 'fc', 'env']);

/** True when the analyser models what the program runs and reads, or it runs nothing it is given. */
function isKnownProgram(name: string, segment: Segment): boolean {
  return PLAIN_PROGRAMS.has(name) || isWrapper(name) || SHELLS.has(name) || interpreterSpec(name) !== undefined || isPowerShell(name) || Object.hasOwn(CLIS, name) || Object.hasOwn(RUNNERS, name) || isSafeCommand(segment);
}

/**
 * The outputs of split and csplit without a prefix given: every name starting with `prefix` in the
 * working directory (inspect.ts lists those there now: one may be a link to a protected file), and
 * `first`, the first name, when the options do not change it.
 */
function defaultPrefix(prefix: string, first: string | null, paths: CommandPath[], cwd: string | null): void {
  const named = pathOf(staticWord(prefix), 'write', cwd);
  if (named) named.prefix = true;
  pushPath(paths, named);
  if (first !== null) pushPath(paths, pathOf(staticWord(first), 'write', cwd));
}

/** split's first output without a prefix: `xaa`, `x00` with -d or -x; null when -a, --additional-suffix or a start (`-d=FROM`) changes it. */
function splitFirst(scan: ScanResult): string | null {
  if (hasOption(scan, '-a', '--suffix-length', '--additional-suffix') || scan.options.some((o) => /^--[nh]/.test(o.name) && (o.value !== null || o.name.includes('=')))) return null;
  return hasOption(scan, '-d', '-x', '--numeric-suffixes', '--hex-suffixes') ? 'x00' : 'xaa';
}

/** PREFIX followed by a suffix the program picks (split, csplit): a name known only at run time. */
function unknownSuffix(prefix: Word): Word {
  return { ...prefix, value: `${prefix.value}<suffix>`, raw: `${prefix.raw}<suffix>`, isStatic: false };
}
