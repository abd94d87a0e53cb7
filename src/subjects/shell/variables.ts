import { SAFE_ASSIGNMENTS } from '../../policy/command-match.js';
import { DENY_CANDIDATE, RECURSIVE } from '../../policy/decide.js';
import type { CommandPath } from '../../policy/types.js';
import { GIT_CONFIG_NAMED, GIT_DIRECTORY_MADE } from '../git-dir.js';
import type { FileFacts, Nested } from './files.js';
import { bunOptions, NODE_GYP_CODE_KEYS, NODE_GYP_COMMAND_KEYS, NPM_CODE_KEYS, NPM_COMMAND_KEYS } from './package-managers.js';
import { lessOptions } from './less-options.js';
import { gitEnvironment } from './git-config.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';
import { isChannelName } from './rust-toolchains.js';
import { pytest } from './runners.js';

/**
 * Shell variables that change what later commands do: the ones that pick the program or what it
 * loads (`PATH`, `LD_PRELOAD`, `BASH_ENV`), and the ones whose value some program runs as a command
 * (`GIT_EXTERNAL_DIFF`, `PAGER`, git's configuration in the environment).
 */

/**
 * Variables a program reads as options given before its own (GNU tar manual, "TAR_OPTIONS"; zip(1)
 * ENVIRONMENT, `ZIPOPT` and `ZIP`; man(1) `MANOPT`; cp(1) `SIMPLE_BACKUP_SUFFIX` and `VERSION_CONTROL`, which name the
 * backups `cp -b` makes): `TAR_OPTIONS=--remove-files tar -cf a.tar data` removes data. Set for
 * one command they are environment the walk does not read, so that command is not analysed. The
 * compressors' are read (`isOptionEnvironment`).
 */
const OPTION_VARIABLES = /^(TAR_OPTIONS|ZIPOPT|ZIP|SIMPLE_BACKUP_SUFFIX|VERSION_CONTROL|MANOPT)\+?=/;

/**
 * The compressors' option variables, with the words each may hold that change no file it writes:
 * a level, quiet, verbose, threads. Anything else counts as options the walk does not see: `GZIP=-N
 * gunzip x.gz` writes the name stored in x.gz (gzip 1.12 takes only -N, -n, levels, -q, -v and
 * --rsyncable there), `BZIP2=-d bzip2 f.bz2` writes f, and bzip2 takes a word of BZIP2 or BZIP that is
 * not an option as a file to compress (bzip2.c `addFlagsFromEnvVar`); `XZ_OPT=-d` and `XZ_DEFAULTS`
 * (xz(1) ENVIRONMENT) the same; pigz reads `PIGZ` and `GZIP` (`PIGZ=-r pigz data` compressed below data),
 * lbzip2 `LBZIP2` before `BZIP2` and `BZIP`, lzop `LZOP` (`LZOP=-U` removes FILE) (docs/threat-model.md#deny-rules-for-every-program).
 */
const COMPRESSOR_VARIABLES: ReadonlyArray<[RegExp, RegExp]> = [
  [/^(GZIP|PIGZ)=/, /^(-[1-9nqv]+|--(fast|best|no-name|rsyncable|quiet|verbose))$/],
  [/^(BZIP2|BZIP|LBZIP2)=/, /^(-[1-9sqv]+|--(fast|best|small|quiet|verbose))$/],
  [/^LZOP=/, /^(-[1-9qv]+|--(fast|best|quiet|verbose))$/],
  [/^(XZ_OPT|XZ_DEFAULTS)=/, /^(-[0-9eqv]+|-T\d+|--(extreme|quiet|verbose|threads=\d+))$/],
];

/**
 * True when an assignment word gives a program options the walk does not see: one of
 * OPTION_VARIABLES, or a compressor's variable whose value is not static, is appended to (`GZIP+=N`
 * after `GZIP=-9` makes `-9N`), or holds a word beyond the harmless ones.
 */
export function isOptionEnvironment(word: Word): boolean {
  if (OPTION_VARIABLES.test(word.value) || flagsLoadCode(word)) return true;
  const variable = COMPRESSOR_VARIABLES.find(([name]) => name.test(word.value.replace(/^([A-Z0-9_]+)\+=/, '$1=')));
  if (variable === undefined) return false;
  if (!word.isStatic || /^[A-Z0-9_]+\+=/.test(word.value)) return true;
  return word.value.slice(word.value.indexOf('=') + 1).split(/[ \t\n]+/).some((option) => option !== '' && !variable[1].test(option));
}
/**
 * Compiler and linker flags a build hands to gcc or clang (GNU make's implicit rules: `$(CC)
 * $(CFLAGS) $(CPPFLAGS) -c`, `$(CC) $(LDFLAGS) … $(LDLIBS)`; the `cc` crate of cargo's build scripts,
 * pip's and configure's builds read them from the environment). Some make the compiler run code
 * (gcc(1): `-fplugin=` loads a plugin, `-specs=` rewrites the command lines it runs, `-B`/`--prefix`
 * picks the directory of cc1, as and ld, `-wrapper` runs each of them through a program, `@FILE`
 * reads more options; clang's `-fpass-plugin=`, `-Xclang -load`, `--ld-path=`; a linker `-plugin`;
 * `-include`/`-imacros` compile a header into every file). GNU Make 4.3 and gcc 12.2: `make
 * CFLAGS=-fplugin=./p.so x.o`, `CFLAGS=-B./d/`, `'CFLAGS=-wrapper ./w.sh'`, `CFLAGS=-specs=./s.specs`
 * each ran the named code (round 25). Round 26, from gcc(1) and clang's manual: a response file
 * handed on to the linker or assembler (`-Wl,@F`, `-Xlinker @F`: more options, `-plugin` among
 * them), clang's `--config=F` (a file of options), `--gcc-toolchain=D`/`--gcc-install-dir=D` and
 * `-ccc-install-dir` (where clang finds the linker and assembler it runs), LLVM's `-load` (through
 * `-mllvm`). Such a value, or one known only at run time, is options the walk does not see
 * (docs/threat-model.md "Round 26: …").
 */
// Round 26 (review26 S4): any `…FLAGS`/`…_FLAGS` (`ARFLAGS`, `CXX_FLAGS`), and the words make's built-in
// rules paste into the same compiler command (`make -p`: `$(TARGET_ARCH)`, `$(TARGET_MACH)`, `$(OUTPUT_OPTION)`;
// GNU Make 4.3 ran `make 'TARGET_ARCH=-wrapper ./w.sh' x.o`'s w.sh).
const FLAG_VARIABLES = /^((HOST_|TARGET_)?[A-Za-z0-9]*_?FLAGS(_[A-Za-z0-9_]+)?|LDLIBS|LOADLIBES|TARGET_ARCH|TARGET_MACH|OUTPUT_OPTION)(\+?)=/;
const CODE_FLAGS = /plugin|^@|^--?specs\b|^-B|^--prefix\b|^-wrapper\b|^-Xclang\b|^-fuse-ld=.*\/|^--ld-path\b|^-include\b|^-imacros\b|^-Wp,|^-W[al],(.*,)?@|^--config\b|^--gcc-(toolchain|install-dir)\b|^-ccc-|^-load\b/;
/**
 * Round 26: flags that build code from another place into the program, which the recipes then run
 * (`make test`): the directories headers, libraries and the system root are taken from (gcc(1)
 * "Options for Directory Search", "Options for Linking": `-I`, `-isystem`, `-idirafter`, `-iquote`,
 * `-iprefix`, `--sysroot`, `-isysroot`, `-L`; clang's `-F`, `-iframework`), the linker's run-time
 * search path and loader (`-Wl,-rpath,D`, `-R`, `--dynamic-linker`), and an object or library named
 * by path (`LDLIBS=/tmp/x.o`). A directory of the project (spelled plainly below the working
 * directory) or of the system (`/usr/…`, macOS's SDKs) stays plain; any other (absolute, `~`,
 * `..`) counts. `-D` stays plain: a macro switches the project's own code, and a value holding
 * shell syntax already asks (RECIPE_SYNTAX).
 */
const DIRECTORY_FLAGS = /^(-I|-isystem|-idirafter|-iquote|-iprefix|-isysroot|--sysroot|-L|-F|-iframework|--include-directory|--library-directory)=?(.*)$/s;
const LINKER_DIRECTORIES = /^(-L|-R|--?rpath(-link)?|--library-path|--?dynamic-linker|-I|--sysroot)=?(.*)$/s;
const SYSTEM_DIRECTORY = /^\/(usr|lib|lib32|lib64)(\/|$)|^\/Library\/Developer\/|^\/Applications\/Xcode[^/]*\.app\//;
/** A directory spelled neither plainly below the working directory nor in the system's (make.ts reads installation directories so too). */
export const elsewhere = (path: string): boolean => !PROJECT_ENTRY.test(path) && !SYSTEM_DIRECTORY.test(path);

/** True when compiler flags (a flag variable's words) run code at build time or build code from elsewhere into the program. */
function flagsBuildElsewhere(flags: readonly string[]): boolean {
  // Every word, the values of `-Xlinker` too (`-Xlinker -plugin`).
  if (flags.some((flag) => CODE_FLAGS.test(flag))) return true;
  const linker: string[] = [];
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i]!;
    if (flag.startsWith('-Wl,')) linker.push(...flag.slice(4).split(','));
    else if (flag === '-Xlinker') linker.push(flags[++i] ?? '');
    else {
      const directory = DIRECTORY_FLAGS.exec(flag);
      const named = directory ? (directory[2] !== '' ? directory[2] : flags[++i]) : !flag.startsWith('-') && PATH_LIKE.test(flag) ? flag : undefined;
      if (named !== undefined && elsewhere(named)) return true;
    }
  }
  for (let i = 0; i < linker.length; i++) {
    const option = linker[i]!;
    if (option.startsWith('@')) return true;
    const directory = LINKER_DIRECTORIES.exec(option);
    const named = directory ? (directory[3] !== '' ? directory[3] : linker[++i]) : !option.startsWith('-') && PATH_LIKE.test(option) ? option : undefined;
    if (named !== undefined && elsewhere(named)) return true;
  }
  return false;
}

/** True when a flag variable (FLAG_VARIABLES) holds a flag that makes the compiler or linker run code or build code from elsewhere in, or is known only at run time. */
export function flagsLoadCode(word: Word): boolean {
  const match = FLAG_VARIABLES.exec(word.value);
  if (!match) return false;
  return !word.isStatic || flagsBuildElsewhere(word.value.slice(match[0].length).split(/\s+/).filter((flag) => flag !== ''));
}

/**
 * Variables that make any program load code from where they say (ld.so(8): `LD_PRELOAD`,
 * `LD_LIBRARY_PATH`, `LD_AUDIT`; dyld's `DYLD_*`; iconv's `GCONV_PATH`; the PATH search). Set for
 * one command (`LD_PRELOAD=./x.so ls` ran x.so's constructor, glibc 2.36 under bash 5.2) the
 * command runs code the walk never sees: it is not a read-only `ls`. An interpreter's own variables
 * (`PYTHONPATH=src ls`) change only that interpreter (docs/threat-model.md#variables-that-load-code).
 */
// Round 29 (review R29-4): OpenSSL's configuration (its `engines`/`providers` sections load shared
// objects, config(5)) and the directories it loads engines and providers from, read by every
// program linked to it (`OPENSSL_CONF=F curl …` ran F's engine, curl 7.88.1, openssl-env(7)).
// Round 30: Kerberos' configuration, read by every program linked to libkrb5 (through GSSAPI: curl,
// git's https, psql, ssh), whose `[plugins]` section loads a shared object (krb5.conf(5) "plugins":
// `module = NAME:PATH`; KRB5_CONFIG in kerberos(7) ENVIRONMENT), as OPENSSL_CONF's engines do.
const LOADS_CODE = /^(LD_[A-Z_]+|DYLD_[A-Z_]+|GCONV_PATH|PATH|OPENSSL_(?:CONF|CONF_INCLUDE|ENGINES|MODULES)|KRB5_CONFIG)(\[.*\])?\+?=/s;
export const loadsCode = (word: Word): boolean => LOADS_CODE.test(word.value);

/** A word that assigns (or, after `export`, names) a variable that changes what later commands do, options included. */
export const isEnvironment = (word: Word): boolean => ENVIRONMENT.test(word.value) || isOptionEnvironment(word);

export const DECLARATIONS: ReadonlySet<string> = new Set(['export', 'declare', 'typeset', 'readonly', 'local']);

/**
 * Variables whose value is a command some program runs through a shell (git(1) ENVIRONMENT,
 * less(1) (`LESSGLOBALTAGS`, the tags command of `-t`; `LESSEDIT`, the editor of `v`), man(1); rsync(1) `RSYNC_RSH` as `-e`, `RSYNC_CONNECT_PROG` for an `rsync://` URL):
 * `GIT_EXTERNAL_DIFF='rm -rf x' git diff` runs rm. The value is a nested script, so
 * deny rules see it; `+=` appends to it. git's configuration variables are read as git reads them.
 */
const COMMAND_VARIABLES = /^(GIT_(EXTERNAL_DIFF|PAGER|EDITOR|SEQUENCE_EDITOR|SSH_COMMAND|SSH|ASKPASS|PROXY_COMMAND)|SSH_ASKPASS|PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|LESSGLOBALTAGS|LESSEDIT|PROMPT_COMMAND|PS4|SUDO_ASKPASS|RSYNC_RSH|RSYNC_CONNECT_PROG|GH_BROWSER|GH_EDITOR|GH_PAGER|BROWSER|KUBECTL_EXTERNAL_DIFF|KUBE_EDITOR|GOCACHEPROG)\+?=/;

/**
 * Variables naming the compiler, linker or tool a build runs (GNU make's "Variables Used by
 * Implicit Rules", `make -p`: `CC = cc`, `RM = rm -f`…; `go help environment`'s CC, CXX, FC, AR,
 * PKG_CONFIG, GCCGO for cgo; cargo's build scripts and node-gyp read CC, CXX, AR): `CC='rm -rf
 * victim' make x.o` ran rm (GNU Make 4.3; round 24). The value is a nested script, so deny rules
 * meet it and it is decided as a command of its own; one known only at run time is `interpreter`.
 * A bare name (`CC=gcc`, `CC=clang`) is a program from the PATH given the build's own words, as
 * before; a path or a command line (`CC=./cc.sh`, `CC='ccache gcc'`) is decided as a command.
 */
/** A program variable's value that names an installed program and nothing more (empty too). */
export const INSTALLED_PROGRAM = /^[\w.+-]*$/;
/**
 * A value as make runs it at the start of a recipe line (`$(CC) -c …`, `$(BUILDER) all`): GNU make
 * expands the line, then strips a leading run of `@`, `-`, `+` and blanks (job.c start_job_command:
 * silent, ignore errors, always run) before the shell reads it, so `make 'BUILDER=@rm -rf v' all`
 * ran `rm -rf v all` (GNU Make 4.3; round 28 review R28-2).
 */
export const recipeCommand = (value: string): string => value.replace(/^[@+\-\s]+/, '');
/**
 * Text that is shell syntax once make has put it into a recipe: make expands a variable into the
 * recipe's text and hands the line to the shell, so any variable a recipe names runs what its value
 * says (the built-in rule `$(CC) $(CFLAGS) … -c`: `make CFLAGS=';touch F;' x.o` ran touch, GNU
 * Make 4.3; round 25 review R1), not only the program variables. Quotes count too: one can turn the
 * recipe's own quoted text into commands. docs/threat-model.md "Round 25: the review of round 24".
 */
export const RECIPE_SYNTAX = /[;|&<>()`$\n\\'"]/;
/**
 * Round 26 (review26 S4): the implicit rules' whole command lines (`make -p`: `COMPILE.c = $(CC)
 * $(CFLAGS) … -c`, `LINK.o`, `PREPROCESS.S`, `YACC.y`, `LEX.l`, `LINT.c`…; GNU Make 4.3 ran `make
 * 'COMPILE.c=rm -rf victim --' x.o`'s rm) and `MAKE`, which every recursive makefile runs (GNU make
 * manual, "How the MAKE Variable Works"). A name with a `.` is given on make's command line or by `env`.
 */
export const PROGRAM_VARIABLES = /^(CC|CXX|CPP|FC|F77|OBJC|LD|AR|AS|LEX|YACC|RM|M2C|PC|CO|GET|LINT|MAKEINFO|TEX|TEXI2DVI|WEAVE|CWEAVE|TANGLE|CTANGLE|PKG_CONFIG|GCCGO|MAKE|(COMPILE|LINK|PREPROCESS|YACC|LEX|LINT)\.[A-Za-z]+)\+?=/;
/**
 * A makefile's own variables that by convention name a program it runs (GNU Coding Standards,
 * "Variables for Specifying Commands" and "Utilities in Makefiles": `$(INSTALL)`, `$(BISON)`,
 * `$(MKDIR_P)`…; the interpreters and tools projects run as `$(PYTHON) -m pytest`, `$(SPHINXBUILD)`;
 * any `…_PROGRAM`, `…_CMD`, `…_EXE`). A value given on make's command line overrides the makefile's
 * (`make PYTHON=./evil test` ran ./evil for `$(PYTHON) -c …`, GNU Make 4.3; round 25), so it is read
 * as PROGRAM_VARIABLES are. Which variables a makefile runs is not known here: a name outside the
 * list is not read as a program (docs/threat-model.md "Round 25").
 */
export const MAKEFILE_PROGRAMS = /^(PYTHON[0-9.]*|PERL|RUBY|NODE|NPM|NPX|YARN|PNPM|BUN|DENO|PHP|LUA|TCLSH|JAVA|JAVAC|JAR|GO|CARGO|RUSTC|SH|BASH|AWK|GAWK|SED|GREP|EGREP|FGREP|FIND|XARGS|INSTALL|INSTALL_DATA|INSTALL_SCRIPT|MKDIR|MKDIR_P|CP|MV|LN|LN_S|RMDIR|CHMOD|CHOWN|CHGRP|MKNOD|TAR|UNZIP|STRIP|RANLIB|NM|OBJCOPY|OBJDUMP|READELF|LDCONFIG|BISON|FLEX|M4|AUTOCONF|AUTOMAKE|AUTORECONF|LIBTOOL|CMAKE|NINJA|MESON|DOXYGEN|SPHINXBUILD|SPHINX_BUILD|PYTEST|PIP[0-9]*|UV|POETRY|TOX|DOCKER|PODMAN|KUBECTL|HELM|TERRAFORM|GIT|CURL|WGET|ECHO|PRINTF|CAT|TOUCH|PROTOC|NASM|YASM|GDB|VALGRIND|LATEXMK|PDFLATEX|XELATEX|LUALATEX|BIBTEX|PANDOC|MSGFMT|MSGMERGE|XGETTEXT|[A-Z0-9_]+_(PROGRAM|PROG|CMD|COMMAND|EXE|TOOL|RUNNER|INTERPRETER))\+?=/;

/**
 * Variables that make git run code from a place they name (git(1) ENVIRONMENT): `GIT_EXEC_PATH=D`
 * runs D/git-SUB (`GIT_EXEC_PATH=t git lg` ran t/git-lg), `GIT_TEMPLATE_DIR=D` copies D's hooks into
 * the repository `git init`/`clone` makes, and `git clone` then runs its post-checkout hook (git
 * 2.39); `GIT_ALLOW_PROTOCOL` with `ext` lets an `ext::CMD` URL run CMD
 * (docs/threat-model.md#files-and-settings-git-runs-code-from).
 */
const CODE_PLACES = /^(GIT_EXEC_PATH|GIT_TEMPLATE_DIR|GIT_ALLOW_PROTOCOL)\+?=/;

/**
 * Variables npm and cargo read as settings that name a program, code or more settings
 * (docs/threat-model.md#package-managers-run-what-their-words-name): npm reads `npm_config_KEY` in
 * any case with `_` for `-` (@npmcli/config), `script_shell` being the shell every script runs
 * with; cargo the wrapper, compilers, runners, linkers, flags (`-C linker=`), aliases, credential
 * providers and CARGO_HOME's config.toml (The Cargo Book, "Environment variables"). An interpreter
 * reason; the value of one naming a program is a nested script.
 */
const anyCase = (text: string): string => text.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`).replace(/[-_]/g, '[_-]');
/**
 * npm's and pnpm's settings by environment, the one home of their names (round 27, P6: round 26 had
 * written them here and again in SETTING_VARIABLES): `npm_config_KEY`, which npm (@npmcli/config,
 * any case, `_` for `-`), pnpm 9 (`npm_config_pnpmfile=F pnpm install` ran F) and yarn 1 read, and
 * pnpm 10's `pnpm_config_KEY` and 11's `PNPM_CONFIG_KEY` (@pnpm/config env.ts; round 26 review S2).
 * `env` passes a `-` in a name on, so either separator counts. Every such variable is a setting of
 * the package managers (SETTING_VARIABLES); those naming a program npm runs are command variables,
 * their value a nested script, and those naming code or more settings `interpreter` before any
 * program (package-managers.ts NPM_COMMAND_KEYS, NPM_CODE_KEYS, and node-gyp's, which npm hands on: NODE_GYP_*_KEYS).
 */
const MANAGER_PREFIXES = ['npm_config_', 'pnpm_config_'];
const MANAGER_CONFIG = `(${MANAGER_PREFIXES.map(anyCase).join('|')})`;
const MANAGER_CONFIG_VARIABLES = MANAGER_PREFIXES.map((prefix) => `${anyCase(prefix)}[A-Za-z0-9_-]+`).join('|');
const PACKAGE_MANAGER_PROGRAMS = new RegExp(`^(${MANAGER_CONFIG}(${anyCase([...NPM_COMMAND_KEYS, ...NODE_GYP_COMMAND_KEYS].join('|'))})|RUSTC|RUSTC_WRAPPER|RUSTC_WORKSPACE_WRAPPER|RUSTDOC|CARGO_BUILD_(RUSTC|RUSTC_WRAPPER|RUSTC_WORKSPACE_WRAPPER|RUSTDOC)|CARGO_TARGET_[A-Za-z0-9_]+_(RUNNER|LINKER)|CARGO_HOST_LINKER)\\+?=`);
const PACKAGE_MANAGER_SETTINGS = new RegExp(`^(${MANAGER_CONFIG}(${anyCase([...NPM_CODE_KEYS, ...NODE_GYP_CODE_KEYS].join('|'))})|RUSTFLAGS|RUSTDOCFLAGS|CARGO_ENCODED_RUSTFLAGS|CARGO_ENCODED_RUSTDOCFLAGS|CARGO_HOME|CARGO_BUILD_[A-Z0-9_]+|CARGO_TARGET_[A-Za-z0-9_]+_RUSTFLAGS|CARGO_HOST_[A-Z0-9_]+|CARGO_ALIAS_[A-Za-z0-9_]+|CARGO_REGISTR[A-Za-z0-9_]*_CREDENTIAL_PROVIDERS?|CARGO_REGISTR[A-Za-z0-9_]*_INDEX|CARGO_CREDENTIAL_ALIAS_[A-Za-z0-9_]+|CARGO_INSTALL_ROOT|CARGO_NET_GIT_FETCH_WITH_CLI|CARGO_DOC_BROWSER)\\+?=`);

/** The `NAME=` of a program variable (PROGRAM_VARIABLES, MAKEFILE_PROGRAMS), null for any other word: a command variable (`GIT_SSH_COMMAND`, `RUSTC_WRAPPER`) is read as one. */
export function programVariable(text: string): RegExpExecArray | null {
  if (COMMAND_VARIABLES.test(text) || PACKAGE_MANAGER_PROGRAMS.test(text)) return null;
  return PROGRAM_VARIABLES.exec(text) ?? MAKEFILE_PROGRAMS.exec(text);
}

/** `NAME=value` words whose value some program runs: an interpreter reason, and the value as a nested script. */
export function commandVariables(words: readonly Word[], cwd: string | null, reasons: string[], nested: Nested[]): void {
  for (const word of words) {
    const place = CODE_PLACES.exec(word.value);
    const named = place ? word.value.slice(place[0].length) : '';
    // An empty template directory copies nothing; only `ext` among the protocols runs a command.
    if (place && (!word.isStatic || (place[1] === 'GIT_ALLOW_PROTOCOL' ? named.split(':').includes('ext') : named !== ''))) reasons.push('interpreter');
    if (PACKAGE_MANAGER_SETTINGS.test(word.value)) reasons.push('interpreter');
    const build = programVariable(word.value);
    if (build) {
      const program = recipeCommand(word.value.slice(build[0].length));
      if (!word.isStatic || build[0].includes('+')) reasons.push('interpreter');
      else if (!INSTALLED_PROGRAM.test(program)) nested.push({ kind: 'script', text: program, cwd });
      continue;
    }
    const match = COMMAND_VARIABLES.exec(word.value) ?? PACKAGE_MANAGER_PROGRAMS.exec(word.value);
    if (!match) continue;
    reasons.push('interpreter');
    const value = word.value.slice(match[0].length).replace(/^\|?\s*/, ''); // LESSOPEN='|cmd %s'
    if (word.isStatic && value !== '') nested.push({ kind: 'script', text: value, cwd });
  }
  gitEnvironment(words, cwd, { reasons, nested });
}

/**
 * True when giving the variable `name` a value (`printf -v NAME`, as `export NAME=…` would) changes
 * which program later commands run, what they load, or what they run: `PATH`, `CDPATH`, `HOME` for
 * git's configuration, the settings movesConfig names (`export MAKEFLAGS=SHELL=./sh; make`), a
 * makefile's program variables (round 26: `printf -v PYTHON %s 'rm -rf x'; export PYTHON; make test`
 * ran rm for `$(PYTHON)`, the value unseen). `NAME[sub]` is NAME.
 */
export function changesLaterCommands(name: string): boolean {
  const base = name.replace(/\[.*$/s, '');
  const word = `${base}=`;
  // A file variable set where its value is not seen (`printf -v TZ %s ~/.ssh/id_rsa; date`, `read
  // TZ`: glibc opened the file, bash 5.2, TZ exported) is read by what runs next: fileVariables cannot meet it.
  return Object.hasOwn(FILE_VARIABLES, base) || /^LC_[A-Z]+$/.test(base) || ENVIRONMENT.test(word) || OPTION_VARIABLES.test(word) || FLAG_VARIABLES.test(word) || COMPRESSOR_VARIABLES.some(([variable]) => variable.test(word)) || GIT_LOCATION.test(word) || COMMAND_VARIABLES.test(word) || PACKAGE_MANAGER_PROGRAMS.test(word) || PACKAGE_MANAGER_SETTINGS.test(word) || MAKEFILE_PROGRAMS.test(word);
}

/** `NAME=value` and `NAME+=value` as a word. */
export const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

/**
 * Where git looks for code to run (git(1) ENVIRONMENT, git-config(1) FILES): `GIT_DIR=D` and
 * `GIT_COMMON_DIR=D` name a git directory (its config and hooks), `GIT_TEMPLATE_DIR=D` one whose
 * hooks `git init` copies, `GIT_CONFIG_GLOBAL`,
 * `GIT_CONFIG_SYSTEM` and `GIT_CONFIG` a configuration file, `HOME` and `XDG_CONFIG_HOME` the
 * directories of the global one. As paths with the `via` inspect.ts matches writes of the same call
 * against (`GIT_DIR=r git init && echo … > r/hooks/pre-commit`). A value only known at run time
 * (an expansion, or `+=` appending to a value not known here) is a path that is not static.
 */
export function gitLocations(words: readonly Word[], cwd: string | null): CommandPath[] {
  const paths: CommandPath[] = [];
  for (const word of words) {
    const match = GIT_LOCATION.exec(word.value);
    if (!match) continue;
    const value = word.value.slice(match[0].length);
    // `HOME=~+` is $PWD, `~-` $OLDPWD, `~name` a user's home: bash expands a tilde after the `=`
    // and after each `:` of an assignment (bash manual, "Tilde Expansion").
    if (!word.isStatic || match[2] === '+' || /(^|:)~(?!\/|:|$)/.test(value)) {
      // `HOME=$PWD`, `HOME+=x`: a location known only at run time (inspect.ts: any write of the
      // same call may be there).
      pushPath(paths, pathOf({ value: word.value, raw: word.value, isStatic: false, ansi: false }, 'write', cwd, GIT_CONFIG_NAMED));
      continue;
    }
    if (value === '') continue;
    const name = match[1]!;
    if (name === 'GIT_DIR' || name === 'GIT_COMMON_DIR' || name === 'GIT_TEMPLATE_DIR') pushPath(paths, pathOf(staticWord(value), 'write', cwd, GIT_DIRECTORY_MADE));
    const files = name === 'HOME' ? ['.gitconfig', '.config/git/config', '.config/git/attributes'] : name === 'XDG_CONFIG_HOME' ? ['git/config', 'git/attributes'] : name.startsWith('GIT_CONFIG') ? [''] : [];
    for (const file of files) pushPath(paths, pathOf(staticWord(file === '' ? value : `${value.replace(/\/+$/, '')}/${file}`), 'write', cwd, GIT_CONFIG_NAMED));
  }
  return paths;
}

/**
 * Files git writes where the environment says (git(1) ENVIRONMENT; round 11, git 2.39):
 * `GIT_TRACE=/abs/F` (and the other trace targets; a directory gets files) appended to F,
 * `GIT_INDEX_FILE=F git read-tree HEAD` replaced F (a relative F is taken from the working tree's
 * top, not known here), `GIT_OBJECT_DIRECTORY=D` writes objects below D; and the object
 * directories git reads from (`GIT_ALTERNATE_OBJECT_DIRECTORIES`).
 */
const GIT_WRITES = /^(GIT_TRACE[A-Z0-9_]*|GIT_INDEX_FILE|GIT_OBJECT_DIRECTORY)(\+?)=/;

export function gitWrites(words: readonly Word[], cwd: string | null): CommandPath[] {
  const paths: CommandPath[] = [];
  for (const word of words) {
    const match = GIT_WRITES.exec(word.value);
    if (!match) continue;
    const value = word.value.slice(match[0].length);
    // A trace target is a file only as an absolute path ("1", "2", "true", a descriptor number go to stderr).
    if (word.isStatic && match[2] === '' && (value === '' || (match[1]!.startsWith('GIT_TRACE') && !value.startsWith('/')))) continue;
    const known = word.isStatic && match[2] === '' && value.startsWith('/');
    const path = pathOf(known ? staticWord(value) : { value: word.value, raw: word.value, isStatic: false, ansi: false }, 'write', cwd);
    if (path) path.tree = { content: true, follows: false };
    pushPath(paths, path);
  }
  // `GIT_ALTERNATE_OBJECT_DIRECTORIES=/prot/repo/.git/objects git cat-file -p ID` printed a file of
  // that repository (git 2.39): each directory of the list is read with what is below it.
  for (const word of words) {
    const match = /^GIT_ALTERNATE_OBJECT_DIRECTORIES\+?=/.exec(word.value);
    if (!match) continue;
    const dirs = word.isStatic && !match[0].includes('+') ? word.value.slice(match[0].length).split(':').filter((dir) => dir !== '') : [null];
    for (const dir of dirs) {
      const path = pathOf(dir === null ? { value: word.value, raw: word.value, isStatic: false, ansi: false } : staticWord(dir), 'read', cwd);
      if (path) path.tree = { content: true, follows: false };
      pushPath(paths, path);
    }
  }
  return paths;
}

/**
 * cargo's `CARGO_TARGET_DIR` (The Cargo Book, "Environment variables"; `--target-dir` as an
 * option, runners.ts cargoPaths): the directory cargo fills with what it builds. cargo 1.95 wrote
 * `CARGO_TARGET_DIR=D cargo build`'s artifacts below D (round 25). Before cargo or any program that
 * may start it (argv.ts), D is written with what is below it; a value known only at run time is a
 * path that is not static.
 */
export function buildWrites(words: readonly Word[], cwd: string | null): CommandPath[] {
  const paths: CommandPath[] = [];
  for (const word of words) {
    const match = /^CARGO_TARGET_DIR(\+?)=/.exec(word.value);
    if (!match) continue;
    const value = word.value.slice(match[0].length);
    if (word.isStatic && match[1] === '' && value === '') continue;
    const path = pathOf(word.isStatic && match[1] === '' ? staticWord(value) : { value: word.value, raw: word.value, isStatic: false, ansi: false }, 'write', cwd);
    if (path) {
      path.tree = { content: true, follows: false };
      path.via = RECURSIVE;
    }
    pushPath(paths, path);
  }
  return paths;
}

/**
 * True when an assignment given to `name` points it at configuration the built-in rules do not
 * protect: git at another config file (`GIT_CONFIG_GLOBAL=F`, `GIT_CONFIG_SYSTEM=F`, `GIT_CONFIG=F`,
 * `HOME=D` or `XDG_CONFIG_HOME=D` for its global one), npm, pnpm and yarn at another home (its
 * `.npmrc`, `.yarnrc`, `.config/pnpm/rc`: `script-shell` runs every script). git runs the code such
 * a file names (core.fsmonitor, aliases): `GIT_CONFIG_GLOBAL=team.cfg git status` ran the fsmonitor
 * of a file an earlier call wrote, past deny rules in bypassPermissions (review-bypass21 B2), as
 * `git -c include.path=F` does, which is `interpreter` (git-config.ts). `/dev/null` names nothing.
 *
 * Round 23 (docs/threat-model.md "Round 23: settings by environment"): the other programs of the
 * command tables that read code or a program's name from a file or variable the environment picks
 * (CONFIG_BY_ENVIRONMENT), and the programs that run other programs with that environment (make's
 * recipes, the package managers' scripts: `HOME=D make` runs the recipe's `git` with D/.gitconfig),
 * which take every such variable of every program.
 */
export function movesConfig(name: string, assigned: readonly Word[], startsOthers: (name: string) => boolean): boolean {
  if (assigned.length === 0) return false;
  const own = Object.hasOwn(CONFIG_BY_ENVIRONMENT, name) ? CONFIG_BY_ENVIRONMENT[name]! : null;
  // Round 24: any program but those known to start none with this environment (a script, an
  // interpreter, a test runner, cargo's and go's git: `HOME=D ./build.sh` ran its git with
  // D/.gitconfig's fsmonitor) takes every such variable, as make's recipes do.
  const passes = passesEnvironment(name, startsOthers);
  if (own === null && !passes) return false;
  if (passes && assigned.some((word) => inRecipe(word, isGit(name)))) return true;
  return assigned.some((word) => {
    // `env` passes any name on: npm reads `npm_config_script-shell` as `script-shell` (@npmcli/config).
    const variable = /^([A-Za-z_][A-Za-z0-9_-]*)(\+?)=/.exec(word.value);
    if (!variable) return false;
    const value = word.value.slice(variable[0].length);
    const devNull = word.isStatic && variable[2] === '' && value === '/dev/null';
    if (passes) {
      const match = GIT_LOCATION.exec(word.value);
      if (match && !match[1]!.startsWith('GIT_DIR') && match[1] !== 'GIT_COMMON_DIR' && match[1] !== 'GIT_TEMPLATE_DIR' && !devNull) return true;
    }
    const read = (passes ? ANY_CONFIG_VARIABLE : own!).test(variable[1]!);
    if (!read || devNull) return false;
    // `MAKEFLAGS=-j4 make`: flags that change only how many jobs run and what is printed stay plain.
    if (variable[1] === 'NODE_OPTIONS' || variable[1] === 'BUN_OPTIONS') return !word.isStatic || variable[2] !== '' || runtimeLoadsCode(variable[1], value);
    // Round 25: an interpreter's module path inside the working directory names the project's own
    // code (as the script's own directory does); the switches that only warn or pick encodings stay plain.
    const plain = PLAIN_VALUES[variable[1]!];
    if (plain !== undefined) return !word.isStatic || variable[2] !== '' || !plain(value);
    // `RUSTUP_TOOLCHAIN=nightly` names an installed toolchain, as `cargo +nightly` does; a path, or a name a link may have made, is one to run (rust-toolchains.ts).
    if (variable[1] === 'RUSTUP_TOOLCHAIN' && word.isStatic && variable[2] === '' && isChannelName(value)) return false;
    if (/^(MAKEFLAGS|GNUMAKEFLAGS)$/.test(variable[1]!) && word.isStatic && variable[2] === '' && value.split(/\s+/).every((flag, i) => flag === '' || PLAIN_MAKEFLAGS.test(flag) || (i === 0 && /^[ksw]*j?\d*$/.test(flag)))) return false;
    return !HARMLESS_SETTINGS.test(variable[1]!) && !HARMLESS_BUNDLE.test(variable[1]!) && !HARMLESS_PYTHON_INSTALLERS.test(variable[1]!);
  });
}

/**
 * A variable given to a program that starts others (make, a script, a package manager that may run
 * make) whose value is shell syntax in a recipe (RECIPE_SYNTAX) or known only at run time. Given to
 * git (`toGit`), git's own variables are read as git reads them (gitEnvironment:
 * `GIT_CONFIG_PARAMETERS` is quoted words); given to make or a script, a `GIT_*` name is a variable
 * like any other a recipe may paste (round 27: `GIT_COMMIT=';touch F;' make` ran touch for a
 * makefile's `echo $(GIT_COMMIT)`, GNU Make 4.3).
 */
export const inRecipe = (word: Word, toGit = false): boolean => !(toGit && word.value.startsWith('GIT_')) && (!word.isStatic || RECIPE_SYNTAX.test(word.value.slice(word.value.indexOf('=') + 1)));

/** git itself, or one of its `git-*` programs: the program `inRecipe`'s `toGit` names. */
export const isGit = (name: string): boolean => name === 'git' || name.startsWith('git-');

/**
 * True for a program that starts others with the environment it was given (make's recipes, a
 * package's scripts, a script); git too: its hooks (husky's `npx lint-staged`), `!` aliases, editors
 * and credential helpers (`NODE_OPTIONS=--require=./x.js git commit` ran x.js in a pre-commit's
 * node; round 25 review R14).
 */
export function passesEnvironment(name: string, startsOthers: (name: string) => boolean): boolean {
  return name === 'git' || name.startsWith('git-') || RUNS_OTHERS.has(name) || startsOthers(name);
}

/** A group of setting variables: the names (alternatives of a regular expression) and the programs that read them. */
export interface SettingVariables {
  names: string;
  /** 'every': each program of the table; none: only a program that starts others (RUNS_OTHERS, a script) passes them on. */
  programs: 'every' | readonly string[];
}
const PACKAGE_MANAGERS = ['npm', 'npx', 'pnpm', 'pnpx', 'yarn', 'yarnpkg', 'bun', 'bunx', 'corepack'];
const RUST_PROGRAMS = ['cargo', 'rustc', 'rustup', 'rustdoc', 'rustfmt', 'cargo-fmt', 'cargo-clippy', 'clippy-driver'];
/**
 * Variables each program reads its settings from, or that name the file of them (each program's
 * documentation of its environment; round 23). A setting file names code: make's `MAKEFILES` are
 * read before the makefile and `MAKEFLAGS`/`GNUMAKEFLAGS` take `--eval=TEXT` and `SHELL=P`
 * (GNU Make 4.3: `MAKEFLAGS='SHELL=./sh' make` ran ./sh, `MAKEFILES=evil.mk make` its `$(shell …)`);
 * yarn (berry 4.18.1) takes every setting as `YARN_<SETTING>` (`YARN_YARN_PATH=./x.cjs yarn
 * --version` ran x.cjs) and `YARN_RC_FILENAME` names its rc file; bun's global `.bunfig.toml` is in
 * `$XDG_CONFIG_HOME` or `$HOME` (`preload`); cargo's config below `$CARGO_HOME`, by default
 * `$HOME/.cargo` (`build.rustc-wrapper`); go's `GOENV` file, by default below `$XDG_CONFIG_HOME`
 * or `$HOME/.config`, and `GOFLAGS` (`-toolexec`); kubectl's and helm's `KUBECONFIG` (exec
 * plugins), by default `$HOME/.kube/config`; docker's `DOCKER_CONFIG` (`cliPluginsExtraDirs`,
 * credential helpers), by default `$HOME/.docker`; gh's `GH_CONFIG_DIR` (`!` aliases run a shell).
 *
 * This table is the one list of these names: CONFIG_BY_ENVIRONMENT (per program), ANY_CONFIG_VARIABLE
 * and ENVIRONMENT's settings (exported, each changes later commands) are made from it; round 24's
 * review F6 was three hand-kept copies disagreeing (docs/threat-model.md "Round 24: the review of round 23").
 */
export const SETTING_VARIABLES: readonly SettingVariables[] = [
  { names: 'HOME|XDG_CONFIG_HOME', programs: 'every' },
  { names: 'MAKEFLAGS|GNUMAKEFLAGS|MAKEFILES|MFLAGS', programs: ['make', 'gmake'] },
  // berry lower-cases a name before it looks for `yarn_` (`yarn_yarn_path=./x.cjs yarn` ran x.cjs; round 24 review F9).
  { names: '[Yy][Aa][Rr][Nn]_[A-Za-z0-9_]+', programs: PACKAGE_MANAGERS },
  /*
   * corepack (the yarn and pnpm shims too) runs the release it finds below `COREPACK_HOME` with no
   * check (`COREPACK_HOME=D corepack yarn` ran D/v1/yarn/<version>/'s bin, corepack 0.34.6; round 25
   * review R5), fetches it from `COREPACK_NPM_REGISTRY`, reads `COREPACK_ENV_FILE`, pins with
   * `COREPACK_ENABLE_AUTO_PIN`: every `COREPACK_*` but the prompt and network switches (HARMLESS_SETTINGS).
   */
  { names: 'COREPACK_[A-Z_]+', programs: PACKAGE_MANAGERS },
  /*
   * rustup's proxies (cargo, rustc…) run the toolchain `RUSTUP_TOOLCHAIN` names, a directory too, or
   * the one below `RUSTUP_HOME` (rustup 1.29: `RUSTUP_TOOLCHAIN=D cargo --version` ran D/bin/cargo,
   * `RUSTUP_HOME=D cargo` D/toolchains/…/bin/cargo; round 24).
   */
  { names: 'CARGO_HOME|RUSTUP_TOOLCHAIN|RUSTUP_HOME', programs: RUST_PROGRAMS },
  /*
   * go's (`go help environment`; round 24, from the documentation): `GOROOT` (the toolchain whose
   * compile and link run), `GOPATH`/`GOMODCACHE` (module sources taken as they are there), `GOCACHE`
   * (compiled packages reused), `GOWORK` (a go.work replacing modules by directories), `GOPROXY`,
   * `GOSUMDB`, `GONOSUMDB`, `GONOSUMCHECK`, `GONOPROXY`, `GOPRIVATE`, `GOINSECURE`, `GOVCS` (where
   * modules come from and whether they are checked), `GOAUTH` (`command CMD`), `GOBIN`, `GOTOOLDIR`,
   * `CGO_*FLAGS` (the C compiler's and linker's flags: `-fplugin=`, `-B`).
   */
  { names: 'GOENV|GOFLAGS|GOTOOLCHAIN|GOROOT|GOPATH|GOMODCACHE|GOCACHE|GOWORK|GOPROXY|GONOSUMDB|GONOSUMCHECK|GONOPROXY|GOPRIVATE|GOSUMDB|GOINSECURE|GOAUTH|GOVCS|GOBIN|GOTOOLDIR|CGO_[A-Z]+FLAGS(_ALLOW)?', programs: ['go'] },
  { names: 'KUBECONFIG|HELM_[A-Z_]+', programs: ['kubectl', 'helm'] },
  { names: 'DOCKER_CONFIG', programs: ['docker', 'podman'] },
  { names: 'DOCKER_HOST|DOCKER_CONTEXT', programs: ['docker'] },
  { names: 'CONTAINERS_CONF|CONTAINERS_REGISTRIES_CONF', programs: ['podman'] },
  { names: 'GH_CONFIG_DIR', programs: ['gh'] },
  /*
   * less reads a lesskey source file (`$LESSKEYIN`, else `$XDG_CONFIG_HOME/lesskey` or
   * `$HOME/.lesskey`; `LESSKEY` a compiled one) whose `#env` section sets LESSOPEN, a command it runs
   * on every file (less(1) "INPUT PREPROCESSOR", lesskey(1); less 590 ran `LESSOPEN=|touch F; cat %s`
   * from each of the three; round 24).
   */
  { names: 'LESSKEYIN|LESSKEY|LESSKEYIN_SYSTEM|LESSKEY_SYSTEM', programs: ['less'] },
  /*
   * curl(1) "--config": `$CURL_HOME/.curlrc`, `$XDG_CONFIG_HOME/.curlrc`, `$HOME/.curlrc` (curl 7.88 wrote
   * where its `output = F` said under each; round 24); wget(1) "Startup File": `$WGETRC`, `$HOME/.wgetrc`
   * (`output_document`). Files they write that the command does not name.
   */
  { names: 'CURL_HOME', programs: ['curl'] },
  { names: 'WGETRC', programs: ['wget'] },
  // Every node and bun a program starts reads them (runtimeLoadsCode below).
  { names: 'NODE_OPTIONS|BUN_OPTIONS', programs: [] },
  /*
   * Round 25: the interpreters' start-up variables, read by every python, perl, ruby or node a
   * program starts, the interpreter itself included (it starts others). python(1) and `python3
   * --help-env`: `PYTHONPATH` (python 3.11 imported D/sitecustomize.py before the script),
   * `PYTHONHOME` (its site-packages' sitecustomize.py), `PYTHONUSERBASE` (the user site's `.pth`
   * files run their `import` lines), `PYTHONPYCACHEPREFIX` (a compiled module there ran in place of
   * its source), `PYTHONPLATLIBDIR` (where the standard library is found), `PYTHONSTARTUP` (run when
   * python reads commands interactively: `python3 -i`, not before a script), `PYTHONINSPECT` (as `-i`:
   * after the script python reads code from stdin; `python3 -i s.py` ran piped code, the variable
   * did not here, so it is from the documentation), `PYTHONEXECUTABLE`
   * (macOS: what multiprocessing starts); perlrun(1): `PERL5OPT` (`-Mevil`, `-I`, `-d`), `PERL5LIB`,
   * `PERLLIB`, `PERL5DB` and `PERLDB_OPTS` (the debugger's code, with `-d`); ruby(1): `RUBYOPT`
   * (`-r`, `-I`), `RUBYLIB`, `RUBYPATH` (with `-S`), and RubyGems' `GEM_HOME`/`GEM_PATH` (where
   * `require` finds gems); node(1) `NODE_PATH`. Each ran the named code with perl 5.36, ruby 3.1,
   * python 3.11 (round 25). PLAIN_VALUES below: what stays plain.
   */
  { names: 'PYTHONPATH|PYTHONHOME|PYTHONUSERBASE|PYTHONPYCACHEPREFIX|PYTHONPLATLIBDIR|PYTHONSTARTUP|PYTHONINSPECT|PYTHONEXECUTABLE|PERL5OPT|PERL5LIB|PERLLIB|PERL5DB|PERLDB_OPTS|RUBYOPT|RUBYLIB|RUBYPATH|GEM_HOME|GEM_PATH|NODE_PATH', programs: [] },
  /*
   * less(1) reads `LESS` as options given before its own: `-k F`, `--lesskey-file=F`,
   * `--lesskey-src=F` read a lesskey file whose `#env` sets LESSOPEN (less 590 ran it from each, in
   * `LESS` and on the command line; round 25); `+CMD` runs CMD at start, `-o F` writes F.
   */
  { names: 'LESS', programs: ['less'] },
  /*
   * Round 26. gcc(1) "Environment Variables Affecting GCC": `GCC_EXEC_PREFIX` is a prefix of the
   * subprograms gcc runs (cc1, as, collect2, as `-B` is) and `COMPILER_PATH` the directories it
   * looks for them in; clang's driver reads `COMPILER_PATH` too and `CCC_OVERRIDE_OPTIONS` edits its
   * command line (`+-fplugin=…`). `CPATH`, `C_INCLUDE_PATH`, `CPLUS_INCLUDE_PATH`,
   * `OBJC_INCLUDE_PATH` and `LIBRARY_PATH` are `-I`/`-L` given by environment (flagsLoadCode's
   * directories): read the same way, a directory of the project or below /usr stays plain (PLAIN_VALUES).
   */
  { names: 'GCC_EXEC_PREFIX|COMPILER_PATH|CCC_OVERRIDE_OPTIONS|CPATH|C_INCLUDE_PATH|CPLUS_INCLUDE_PATH|OBJC_INCLUDE_PATH|LIBRARY_PATH', programs: [] },
  /*
   * bundler reads each of its settings from `BUNDLE_<NAME>` (bundle-config(1) "Configuration keys"):
   * `BUNDLE_GEMFILE` (the Gemfile, ruby code bundler evaluates, and the gems it names),
   * `BUNDLE_APP_CONFIG` (the directory of its config file), `BUNDLE_PATH`/`BUNDLE_USER_HOME` (where
   * gems are installed and loaded from), `BUNDLE_BIN` (where binstubs are written), … Every one but
   * those that only tune the network, the output or which of the project's own groups install
   * (HARMLESS_SETTINGS); before bundle and any program that starts others (a binstub, rake, ruby
   * with `-rbundler/setup` read them).
   */
  { names: 'BUNDLE_[A-Z0-9_]+', programs: ['bundle', 'bundler'] },
  /*
   * pnpm 10 and 11 read every setting from `pnpm_config_<name>` and `PNPM_CONFIG_<NAME>`
   * (`pnpm_config_dir`, `_pnpmfile`, `_global_pnpmfile`, `_script_shell`, `_node_options`…), npm,
   * pnpm 9 and yarn 1 `npm_config_<name>` (MANAGER_CONFIG above). Every one but the output settings.
   */
  { names: MANAGER_CONFIG_VARIABLES, programs: PACKAGE_MANAGERS },
  /*
   * bun's caches and install directories (bun docs "Environment variables", "bun install"): the
   * transpiler's cache (`BUN_RUNTIME_TRANSPILER_CACHE_PATH`: transpiled modules bun runs in place of
   * their source), the package cache `bun install` copies from (`BUN_INSTALL_CACHE_DIR`), the global
   * directories (`BUN_INSTALL`, `BUN_INSTALL_BIN`, `BUN_INSTALL_GLOBAL_DIR`).
   */
  { names: 'BUN_RUNTIME_TRANSPILER_CACHE_PATH|BUN_INSTALL|BUN_INSTALL_[A-Z_]+', programs: ['bun', 'bunx'] },
  /*
   * Round 26 review S18: other runtimes' start-up variables, read by every JVM, vim, .NET, PHP or
   * Lua a program starts. `JAVA_TOOL_OPTIONS` (OpenJDK 17 ran `-javaagent:F`'s agent: "Picked up
   * JAVA_TOOL_OPTIONS"), `JDK_JAVA_OPTIONS`, `_JAVA_OPTIONS`, and the launchers' `MAVEN_OPTS`,
   * `MAVEN_ARGS`, `GRADLE_OPTS`, `JAVA_OPTS`; vim's `VIMINIT`/`EXINIT` (ex commands: `:!CMD` ran CMD,
   * vim 9), `MYVIMRC`, `GVIMINIT`; `DOTNET_STARTUP_HOOKS` (assemblies loaded first), `PHPRC` and
   * `PHP_INI_SCAN_DIR` (an ini's `auto_prepend_file`), `LUA_INIT` (`@F` runs F), `LUA_PATH`,
   * `LUA_CPATH` (the last four from their documentation). PLAIN_VALUES: the JVM's memory sizes.
   */
  { names: 'JAVA_TOOL_OPTIONS|JDK_JAVA_OPTIONS|_JAVA_OPTIONS|MAVEN_OPTS|MAVEN_ARGS|GRADLE_OPTS|JAVA_OPTS|VIMINIT|EXINIT|MYVIMRC|GVIMINIT|DOTNET_STARTUP_HOOKS|PHPRC|PHP_INI_SCAN_DIR|LUA_INIT(_5_[1-4])?|LUA_PATH(_5_[1-4])?|LUA_CPATH(_5_[1-4])?', programs: [] },
  // bun's `--inspect` by environment: `BUN_INSPECT=ws://0.0.0.0:6499/x bun w.js` listened on every address (bun 1.4.5; round 25 review R11).
  { names: 'BUN_INSPECT|BUN_INSPECT_CONNECT_TO|BUN_INSPECT_PRELOAD', programs: [] },
  /*
   * Round 30 (review29r's "Not listed there"): programs that load code or another configuration
   * from a variable. pytest (its "Environment variables" reference): `PYTEST_ADDOPTS` is options
   * given before its own (`-p MOD` imports a plugin, `-c F` another ini, `--rootdir`,
   * `--basetemp=D` removes D: pytest 9.0.3 ran `PYTEST_ADDOPTS='-p evil' pytest`'s evil.py; read
   * as pytest's own words, PLAIN_VALUES), `PYTEST_PLUGINS` modules imported as plugins. pip reads
   * every option as `PIP_<NAME>` ("Environment Variables" of its user guide) and its config from
   * `PIP_CONFIG_FILE`: an index or find-links place (`PIP_INDEX_URL`) is where the code it installs
   * and runs comes from; uv likewise (`UV_INDEX_URL`, `UV_CONFIG_FILE`, `UV_PYTHON`, the
   * interpreter it runs). psql(1) runs `PSQLRC`'s meta-commands (`\!` runs a shell command) at start.
   * gpg reads `$GNUPGHOME/gpg.conf`, whose lines are its long options (`agent-program F`,
   * `photo-viewer CMD`: R29-5's options). HARMLESS_SETTINGS: the output, prompt and network switches.
   */
  { names: 'PYTEST_ADDOPTS|PYTEST_PLUGINS', programs: ['pytest', 'py.test'] },
  { names: 'PIP_[A-Z0-9_]+', programs: ['pip', 'pip3', 'pipx'] },
  { names: 'UV_[A-Z0-9_]+', programs: ['uv', 'uvx'] },
  { names: 'PSQLRC', programs: ['psql'] },
  { names: 'GNUPGHOME', programs: ['gpg', 'gpg2', 'gpgv', 'gpg-agent', 'gpgconf'] },
  /*
   * Round 31 (review30r's leftovers): kpathsea reads any texmf.cnf value from the environment first
   * (`shell_escape=t pdflatex x.tex` lets `\write18` run commands, as `-shell-escape` does;
   * `openout_any=a` lets it write anywhere; `TEXMFCNF` names another texmf.cnf); Mercurial's
   * `HGRCPATH` (the config files read: hooks, extensions), `HGEDITOR`, `HGMERGE`; Subversion's
   * `SVN_EDITOR`, `SVN_SSH`; terraform's `TF_CLI_CONFIG_FILE` (provider_installation dev_overrides
   * name provider programs), `TF_CLI_ARGS`/`TF_CLI_ARGS_<cmd>` (options given before its own),
   * `TF_DATA_DIR` and `TF_PLUGIN_CACHE_DIR` (the providers it runs). From their manuals.
   */
  { names: 'shell_escape|shell_escape_commands|openout_any|openin_any|TEXMFCNF', programs: ['tex', 'etex', 'pdftex', 'xetex', 'luatex', 'luahbtex', 'latex', 'pdflatex', 'xelatex', 'lualatex', 'dvilualatex', 'latexmk', 'pandoc', 'context'] },
  { names: 'HGRCPATH|HGEDITOR|HGMERGE', programs: ['hg', 'chg'] },
  { names: 'SVN_EDITOR|SVN_SSH', programs: ['svn'] },
  { names: 'TF_CLI_CONFIG_FILE|TF_CLI_ARGS(_\\w+)?|TF_DATA_DIR|TF_PLUGIN_CACHE_DIR', programs: ['terraform', 'tofu'] },
  /*
   * Round 31 (review R31-2): what a program trusts for TLS, and the proxy its requests go through.
   * A CA the command names (`SSL_CERT_FILE`, `SSL_CERT_DIR`: OpenSSL's default store; node's
   * `NODE_EXTRA_CA_CERTS`; python requests' `REQUESTS_CA_BUNDLE`; `CURL_CA_BUNDLE`; `AWS_CA_BUNDLE`;
   * git's `GIT_SSL_CAINFO`, `GIT_SSL_CAPATH`; cargo's `CARGO_HTTP_CAINFO`; deno's `DENO_CERT`) or
   * verification off (`NODE_TLS_REJECT_UNAUTHORIZED=0`, `GIT_SSL_NO_VERIFY`), with a proxy the
   * command picks (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` in either case, cargo's
   * `CARGO_HTTP_PROXY`, node 24's `NODE_USE_ENV_PROXY`), hands its traffic, the credential its
   * helper or its rc file adds (git's credential helper, npm's `_authToken`, aws's signature), to
   * whoever runs the proxy: a program the model started. Before the programs that send such
   * requests themselves and any program that starts others. Round 32 (rules32): aws's
   * `AWS_ENDPOINT_URL` and `AWS_ENDPOINT_URL_<SERVICE>`, as its `--endpoint-url` (network-trust.ts).
   */
  { names: 'SSL_CERT_FILE|SSL_CERT_DIR|NODE_EXTRA_CA_CERTS|NODE_TLS_REJECT_UNAUTHORIZED|NODE_USE_ENV_PROXY|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|AWS_CA_BUNDLE|AWS_ENDPOINT_URL(_\\w+)?|GIT_SSL_NO_VERIFY|GIT_SSL_CAINFO|GIT_SSL_CAPATH|GIT_PROXY_SSL_CAINFO|CARGO_HTTP_CAINFO|CARGO_HTTP_PROXY|CARGO_HTTP_CHECK_REVOKE|DENO_CERT|DENO_TLS_CA_STORE|[Hh][Tt][Tt][Pp]_[Pp][Rr][Oo][Xx][Yy]|[Hh][Tt][Tt][Pp][Ss]_[Pp][Rr][Oo][Xx][Yy]|[Aa][Ll][Ll]_[Pp][Rr][Oo][Xx][Yy]', programs: ['curl', 'wget', 'git', 'aws', 'gcloud', 'az', 'kubectl', 'helm', 'gh', 'docker', 'podman', 'pip', 'pip3', 'pipx', 'uv', 'uvx', 'cargo', 'go', 'deno', 'http', 'https', 'xh', 'terraform', 'vault'] },
];
const SETTING_NAMES = SETTING_VARIABLES.map((row) => row.names).join('|');
const CONFIG_BY_ENVIRONMENT: Readonly<Record<string, RegExp>> = (() => {
  const programs = new Set(SETTING_VARIABLES.flatMap((row) => (row.programs === 'every' ? [] : row.programs)));
  const read = (program: string): RegExp => new RegExp(`^(${SETTING_VARIABLES.filter((row) => row.programs === 'every' || row.programs.includes(program)).map((row) => row.names).join('|')})$`);
  return Object.fromEntries([...programs].map((program) => [program, read(program)]));
})();
/** Every variable of SETTING_VARIABLES (the git ones are GIT_LOCATION). */
const ANY_CONFIG_VARIABLE = new RegExp(`^(${SETTING_NAMES})$`);

/**
 * Variables that change which program runs or what it loads; exporting one changes every later
 * command (a prefix assignment `PATH=… ls` is on its own segment, for the policy to judge). bash's
 * own (bash manual, "Bash Variables", "Bourne Shell Variables"): `PATH`, `CDPATH`, `ENV`, and every
 * `BASH_*` name, among them `BASH_CMDS` (its members are the command hash table: after
 * `BASH_CMDS[ls]=/bin/sh`, `ls -c CMD` runs sh) and `BASH_ALIASES` (the alias list, expanded in
 * POSIX mode, which `POSIXLY_CORRECT` turns on); `EXECIGNORE` hides programs from the PATH search;
 * `HISTFILE` names the file the `history` builtin reads and writes and `HISTFILESIZE` truncates;
 * `HOME` is what `~` and a bare `cd` expand to, while the analysis expands them with the gateway's
 * own home (round 15 review of paths, P8: `HOME=W/conf; cat ~/secret/key` read a Read-denied file
 * in bypassPermissions, the prompt naming `<home>/secret/key`).
 * A member of an array (`BASH_CMDS[ls]=…`, `PATH[0]=…`) is the variable
 * (docs/threat-model.md#where-bash-evaluates-text). Every variable of SETTING_VARIABLES is one too.
 */
const ENVIRONMENT_NAMES = 'GOCACHEPROG|KUBECTL_EXTERNAL_DIFF|KUBE_EDITOR|GH_BROWSER|GH_EDITOR|GH_PAGER|CC|CXX|CPP|FC|F77|OBJC|LD|AR|AS|LEX|YACC|RM|PKG_CONFIG|GCCGO|TAR_OPTIONS|ZIPOPT|ZIP|PATH|LD_[A-Z_]+|DYLD_[A-Z_]+|OPENSSL_CONF|OPENSSL_CONF_INCLUDE|OPENSSL_ENGINES|OPENSSL_MODULES|KRB5_CONFIG|BASH_[A-Z0-9_]*|ENV|IFS|PS4|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|GLOBIGNORE|CDPATH|POSIXLY_CORRECT|EXECIGNORE|HISTFILE|HISTFILESIZE|GIT_[A-Z_]+|PAGER|MANPAGER|MANOPT|BROWSER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|LESSGLOBALTAGS|LESSEDIT|RSYNC_RSH|RSYNC_CONNECT_PROG';
export const ENVIRONMENT = new RegExp(`^(${ENVIRONMENT_NAMES}|${SETTING_NAMES})(\\[.*\\])?(\\+?=|$)`, 's');
/**
 * node's and bun's options given in the environment (node(1) `NODE_OPTIONS`; bun 1.4.5 reads
 * `BUN_OPTIONS` as options before its own: `BUN_OPTIONS='--preload ./x.js' bun y.js` ran x.js, and
 * `NODE_OPTIONS='--require ./x.js' bun run nb` ran x.js in the script's node; round 24). Every node
 * a script, a test runner or a package manager starts reads them. NODE_OPTIONS' options that only
 * size memory, print or pick TLS and warnings stay plain (`--max-old-space-size=4096`); any other
 * (`--require`, `--import`, `--loader`, `--env-file`, `--inspect`…) counts. BUN_OPTIONS: bun's
 * options that load code (package-managers.ts bunOptions).
 */
const HARMLESS_NODE_OPTIONS = /^--(max-old-space-size|max-semi-space-size|stack-size|max-http-header-size|heapsnapshot-near-heap-limit|unhandled-rejections|dns-result-order|title|disable-warning)(=[\w.,:-]*)?$|^--(enable-source-maps|no-warnings|no-deprecation|throw-deprecation|pending-deprecation|trace-warnings|trace-deprecation|trace-uncaught|openssl-legacy-provider|experimental-vm-modules|experimental-strip-types|no-experimental-strip-types|experimental-require-module|no-experimental-require-module|no-experimental-fetch|expose-gc|use-openssl-ca|use-bundled-ca|use-system-ca|preserve-symlinks|preserve-symlinks-main|zero-fill-buffers|tls-min-v1\.[0-3]|tls-max-v1\.[23])$/;

const BUN_WRITES = /^--(redirect-warnings|(cpu|heap)-prof(-dir|-name|-md)?)(=|$)/;
function runtimeLoadsCode(name: string, value: string): boolean {
  const tokens = value.split(/\s+/).filter((token) => token !== '');
  // node and bun take quotes off any token, an option's name too (`NODE_OPTIONS='"--require" ./x.js'`
  // ran x.js; round 25 review R4): a token is read only as written plain, and every one must be harmless.
  if (tokens.some((token) => /["'\\]/.test(token))) return true;
  if (name === 'NODE_OPTIONS') return tokens.some((token) => !HARMLESS_NODE_OPTIONS.test(token));
  if (tokens.some((token) => !token.startsWith('-'))) return true;
  const facts: FileFacts = { paths: [], nested: [], reasons: [] };
  // Options that write files (`--redirect-warnings=F`, `--cpu-prof-dir=D`): from the environment the walk does not place them (round 26 review S11).
  if (tokens.some((token) => BUN_WRITES.test(token))) return true;
  bunOptions(tokens.map(staticWord), null, facts);
  return facts.reasons.length > 0;
}

/**
 * A module path entry below the working directory, spelled plainly (`src`, `./lib`, `.`): the
 * project's own code, as python's script directory or `-m`'s working directory already are.
 * Absolute, `~`, `..`, hidden or unusual spellings count (`PYTHONPATH=/tmp/x python3 s.py`).
 */
const PROJECT_ENTRY = /^(\.\/?|(\.\/)?[\w][\w.+-]*(\/[\w][\w.+-]*)*\/?)?$/;
const projectPath = (value: string): boolean => value.split(':').every((entry) => PROJECT_ENTRY.test(entry));
/** A compiler's search path by environment: each entry a directory of the project or of the system (flagsLoadCode's). */
const searchPath = (value: string): boolean => value.split(':').every((entry) => !elsewhere(entry));
/** perlrun(1) PERL5OPT: the switches that only warn, taint or pick the Unicode features (`-M`, `-m`, `-I`, `-d` load code). */
const PLAIN_PERL5OPT = /^-?([wWXtTU]|C[0-9A-Za-z]*|D[0-9A-Za-z]*)+$/;
/** ruby(1) RUBYOPT: warnings, encodings, verbosity and features (`-r`, `-I` load code). */
const PLAIN_RUBYOPT = /^(-[wvdU]+|-W(\d|:[\w-]+)?|-T\d?|-E[\w:-]+|-K\w|--(enable|disable)[=-][\w,-]+|--(debug|verbose|yjit|jit))$/;
/** Less's options in `LESS` that only change how it shows: no lesskey file (`k`), log (`o`, `O`), tag file (`t`, `T`), quote characters, start-up command (`+`) or option less does not know, read as less reads them (less-options.ts). */
const plainLess = (value: string): boolean => lessOptions(value).every((option) => !'koOtT"+?'.includes(option.name));
/** JVM options that only size memory and stacks or pick the file encoding (`-XX:OnError=CMD` runs CMD, `-javaagent:` loads code). */
const plainJvm = (value: string): boolean => value.split(/\s+/).every((word) => word === '' || /^-(Xm[sxn]\d+[kKmMgG]?|Xss\d+[kKmMgG]?|Dfile\.encoding=[\w-]+|Djava\.awt\.headless=(true|false))$/.test(word));
/**
 * `PYTEST_ADDOPTS` words pytest's own model (runners.ts pytest) finds nothing in: no option that loads
 * code, no file written, no test path (each a read of code). Quotes count (pytest splits the value
 * with shlex): any is read as not plain.
 */
const plainPytestOptions = (value: string): boolean => {
  if (/["'\\]/.test(value)) return false;
  const facts: FileFacts = { paths: [], nested: [], reasons: [] };
  pytest(value.split(/\s+/).filter((word) => word !== '').map(staticWord), null, facts);
  return facts.reasons.length === 0 && facts.paths.length === 0 && facts.nested.length === 0;
};
const PLAIN_VALUES: Readonly<Record<string, (value: string) => boolean>> = {
  PYTHONPATH: projectPath,
  PERL5LIB: projectPath,
  PERLLIB: projectPath,
  RUBYLIB: projectPath,
  NODE_PATH: projectPath,
  PYTHONINSPECT: (value) => value === '',
  PERL5OPT: (value) => value.split(/\s+/).every((word) => word === '' || PLAIN_PERL5OPT.test(word)),
  RUBYOPT: (value) => value.split(/\s+/).every((word) => word === '' || PLAIN_RUBYOPT.test(word)),
  LESS: plainLess,
  CPATH: searchPath,
  C_INCLUDE_PATH: searchPath,
  CPLUS_INCLUDE_PATH: searchPath,
  OBJC_INCLUDE_PATH: searchPath,
  LIBRARY_PATH: searchPath,
  PYTEST_ADDOPTS: plainPytestOptions,
  ...Object.fromEntries(['JAVA_TOOL_OPTIONS', 'JDK_JAVA_OPTIONS', '_JAVA_OPTIONS', 'MAVEN_OPTS', 'GRADLE_OPTS', 'JAVA_OPTS'].map((name) => [name, plainJvm])),
};

/** Programs that run other programs (a makefile's recipes, a package's scripts) with the environment they were given. */
const RUNS_OTHERS: ReadonlySet<string> = new Set(['make', 'gmake', ...PACKAGE_MANAGERS]);
/** yarn settings that change only what is printed (berry's `enable*` display settings), corepack's prompt and network switches. */
const HARMLESS_SETTINGS = /^YARN_(ENABLE_(PROGRESS_BARS|COLORS|HYPERLINKS|INLINE_BUILDS|MESSAGE_NAMES|TELEMETRY|TIMERS)|SILENT)$|^COREPACK_ENABLE_(DOWNLOAD_PROMPT|NETWORK)$|^(P?NPM)_CONFIG_(LOGLEVEL|PROGRESS|COLOR|FUND|AUDIT|UPDATE_NOTIFIER|UNICODE|REPORTER)$/i;
/** pip's and uv's settings that change only the output, prompts, timeouts and retries (round 30). */
const HARMLESS_PYTHON_INSTALLERS = /^PIP_(NO_INPUT|DISABLE_PIP_VERSION_CHECK|QUIET|VERBOSE|PROGRESS_BAR|NO_COLOR|TIMEOUT|DEFAULT_TIMEOUT|RETRIES|ROOT_USER_ACTION|NO_CACHE_DIR)$|^UV_(NO_PROGRESS|QUIET|VERBOSE|HTTP_TIMEOUT|REQUEST_TIMEOUT|CONCURRENT_(DOWNLOADS|BUILDS|INSTALLS)|NO_CACHE)$/;
/** bundler's settings that tune the network or the output, or pick groups of the project's own Gemfile (bundle-config(1)). */
const HARMLESS_BUNDLE = /^BUNDLE_(JOBS|RETRY|TIMEOUT|SILENCE_ROOT_WARNING|SILENCE_DEPRECATIONS|IGNORE_MESSAGES|DISABLE_VERSION_CHECK|FROZEN|DEPLOYMENT|WITH|WITHOUT|NO_PRUNE)$/;
/** GNU make flags that only change parallelism and output (make(1)). */
const PLAIN_MAKEFLAGS = /^(-[ksw]*j?\d*|-j\d*|--jobs(=\d+)?|-l\d*(\.\d+)?|--(no-)?print-directory|--silent|--quiet|--keep-going|--no-keep-going|-O\w*|--output-sync(=\w+)?)$/;

const GIT_LOCATION = /^(GIT_DIR|GIT_COMMON_DIR|GIT_TEMPLATE_DIR|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_CONFIG|HOME|XDG_CONFIG_HOME)(\+?)=/;

/**
 * True when some name in `text` is a variable `changesLaterCommands` names: an arithmetic context
 * assigns any name it meets (`(( PATH=0 ))`, `x='PATH=0'; (( x ))`, `[[ PATH=0 -eq 0 ]]`,
 * `${a[PATH=0]}`), and then `ls` runs ./0/ls (bash 5.2).
 */
export const namesShellVariable = (text: string): boolean => (text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).some(changesLaterCommands);

/**
 * Variables whose value names a file or directory that a program, or the C library under every
 * program, reads (round 12 left `TZ=~/.ssh/id_rsa date` allowed in bypassPermissions; glibc 2.36
 * and bash 5.2 opened the key, strace): tzset(3) `TZ` (`:` dropped; relative to `TZDIR`, default
 * /usr/share/zoneinfo, `..` kept), `TZDIR`; locale(7) `LOCPATH`, gettext's `LANGUAGE` (each entry
 * below /usr/share/locale), `LANG`/`LC_*` (below /usr/lib/locale); catopen(3) `NLSPATH` templates;
 * terminfo(5) `TERMINFO`, `TERMINFO_DIRS`, `TERMCAP` (a file when it starts with `/`); hostname(7)
 * `HOSTALIASES`; file(1) `MAGIC` (`MAGIC=~/.ssh/id_rsa file x` printed the key's first line in a
 * warning, file 5.44); readline's `INPUTRC`; iconv(3)'s `GCONV_PATH`; less(1) `LESSKEYIN`,
 * `LESSKEY`; wget(1) `WGETRC`; curl(1) `CURL_HOME`. A directory is read with what is below it. A value
 * `SAFE_ASSIGNMENTS` accepts stays below the system's directories and is not a path here. Any other
 * variable's value entries that look like paths (`/`, `~/`, `./`, a `/` inside) are candidates for
 * deny rules (`LD_PRELOAD=~/.ssh/id_rsa ls`: ld.so opens it). docs/threat-model.md#variables-that-name-files.
 */
export function fileVariables(words: readonly Word[], cwd: string | null): CommandPath[] {
  const paths: CommandPath[] = [];
  const tzdir = words.findLast((word) => word.isStatic && word.value.startsWith('TZDIR='))?.value.slice(6) || '/usr/share/zoneinfo';
  const add = (path: string | null, tree: boolean, word: Word): void => {
    // A value known only at run time is a path that is not static (it asks; deny rules meet its spelling).
    const named = path === null ? pathOf({ ...word, isStatic: false }, 'read', cwd) : pathOf(staticWord(path), 'read', cwd, tree ? RECURSIVE : 'environment');
    if (named === null) return;
    if (tree) named.tree = { content: true, follows: true };
    pushPath(paths, named);
  };
  for (const word of words) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)(\+?)=/.exec(word.value);
    if (!match) continue;
    const name = match[1]!;
    const value = word.value.slice(match[0].length);
    const known = FILE_VARIABLES[name] ?? (/^LC_[A-Z]+$/.test(name) ? FILE_VARIABLES.LANG : undefined);
    if (known === undefined) {
      if (word.isStatic) for (const entry of value.split(':')) if (PATH_LIKE.test(entry) && !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(entry)) pushCandidate(paths, entry, cwd);
      continue;
    }
    if (SAFE_ASSIGNMENTS.test(word.value)) continue;
    if (!word.isStatic || match[2] === '+') {
      add(null, false, word);
      continue;
    }
    for (const entry of known.list ? value.split(':') : [value]) {
      const path = known.place(entry, tzdir);
      if (path !== null && path !== '') add(path, known.tree, word);
    }
  }
  return paths;
}

/** What a file variable's value (or one entry of its `:` list) names: a path, or null for nothing. */
interface FileVariable {
  list: boolean;
  tree: boolean;
  place: (entry: string, tzdir: string) => string | null;
}
const itself = (entry: string): string | null => entry;
const FILE_VARIABLES: Record<string, FileVariable> = {
  TZ: { list: false, tree: false, place: (entry, tzdir) => {
    const file = entry.replace(/^:/, '');
    return file === '' ? null : file.startsWith('/') || file.startsWith('~/') ? file : `${tzdir.replace(/\/+$/, '')}/${file}`;
  } },
  TZDIR: { list: false, tree: true, place: itself },
  LOCPATH: { list: true, tree: true, place: itself },
  LANGUAGE: { list: true, tree: true, place: (entry) => (entry === '' ? null : `/usr/share/locale/${entry}`) },
  LANG: { list: false, tree: true, place: (entry) => (entry === '' ? null : `/usr/lib/locale/${entry}`) },
  // catopen(3): `%N` is the catalog's name, `%L` the locale…; the directory before the first `%` is read.
  NLSPATH: { list: true, tree: true, place: (entry) => (entry.includes('%') ? entry.slice(0, entry.indexOf('%')).replace(/[^/]*$/, '') || null : entry) },
  TERMINFO: { list: false, tree: true, place: itself },
  TERMINFO_DIRS: { list: true, tree: true, place: itself },
  TERMCAP: { list: false, tree: false, place: (entry) => (entry.startsWith('/') || entry.startsWith('~/') ? entry : null) },
  HOSTALIASES: { list: false, tree: false, place: itself },
  MAGIC: { list: true, tree: true, place: itself },
  INPUTRC: { list: false, tree: false, place: itself },
  GCONV_PATH: { list: true, tree: true, place: itself },
  LESSKEYIN: { list: false, tree: false, place: itself },
  LESSKEY: { list: false, tree: false, place: itself },
  WGETRC: { list: false, tree: false, place: itself },
  CURL_HOME: { list: false, tree: true, place: itself },
};
/** A value entry spelled as a path. */
const PATH_LIKE = /^(\/|~\/|\.\.?(\/|$))|.\//;

function pushCandidate(paths: CommandPath[], path: string, cwd: string | null): void {
  if (!paths.some((p) => p.path === path)) paths.push({ path, access: 'read', base: cwd, isStatic: true, via: DENY_CANDIDATE });
}
