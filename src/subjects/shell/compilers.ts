import type { Nested } from './files.js';
import type { Word } from './options.js';

/**
 * A C compiler's or linker's own words that run or load code (round 29 review R29-1; docs/threat-model.md
 * "Round 29: the review of round 28"). Rounds 25 and 26 read these flags where a build hands them on
 * (variables.ts flagsLoadCode: `CFLAGS=-wrapper ./w.sh make x.o`); the compiler's own command line,
 * under its own allow rule (`Bash(gcc:*)`), was an unknown program's words, so `gcc -wrapper rm,-rf,v
 * x.c` ran rm past `Bash(rm *)` (gcc 12.2: `gcc -wrapper ./x.sh -c x.c` ran x.sh, then cc1 and as).
 *
 * From gcc(1) and clang's manual: `-wrapper PROG,ARG…` runs every subprogram through PROG,
 * `-fplugin=`/`-fpass-plugin=`/`-iplugindir=` load plugins, `-B` and `--prefix`, `--gcc-toolchain`,
 * `--gcc-install-dir`, `-ccc-install-dir` pick the directory of cc1, as and ld, `-specs=` a spec file
 * (the programs gcc runs), `@FILE` more options, `-Xclang`/`-mllvm` with `-load`, `--config=F`,
 * `-fuse-ld=PATH`/`--ld-path=`, `-Wp,` (options of the preprocessor), and the linker's `-plugin` and
 * `@FILE` (given as `-Wl,…`, `-Xlinker …`, or to ld itself). Reading headers and libraries
 * (`-I`, `-include`, `-L`) is not running them: a direct call leaves those to its read subjects.
 */
const COMPILERS = /^(?:[\w.+-]+-)?(?:gcc|g\+\+|cc|c\+\+|cpp|clang|clang\+\+|clang-cpp|gfortran|gccgo|gdc)(?:-[\d.]+)?$/;
const LINKERS = /^(?:[\w.+-]+-)?(?:ld|ld\.bfd|ld\.gold|ld\.lld|lld|mold)(?:-[\d.]+)?$/;
const CODE_OPTIONS = /^(?:-f(?:pass-)?plugin\b|-iplugindir\b|@|--?specs\b|-B|--prefix\b|-wrapper\b|-Xclang$|-mllvm$|-load\b|-fuse-ld=.*\/|--ld-path\b|--config\b|--gcc-(?:toolchain|install-dir)\b|-ccc-|-Wp,|-W[al],(?:.*,)?@)/;
const LINKER_CODE = /^(?:--?plugin\b|@)/;

export const isCompiler = (name: string): boolean => COMPILERS.test(name);
export const isLinker = (name: string): boolean => LINKERS.test(name);

/**
 * True when a compiler's (or, `linker`, ld's) static words run or load code; `-wrapper`'s command is
 * pushed to `nested` so deny rules meet it. A word known only at run time keeps any allow rule from
 * matching already (command-match.ts isNarrowEligible).
 */
export function compilerRunsCode(args: readonly Word[], linker: boolean, cwd: string | null, nested: Nested[]): boolean {
  let runs = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) continue;
    const value = word.value;
    if (linker) {
      if (LINKER_CODE.test(value)) runs = true;
      continue;
    }
    if (value === '-Xlinker' && args[i + 1]?.isStatic && LINKER_CODE.test(args[i + 1]!.value)) runs = true;
    if (value.startsWith('-Wl,') && value.slice(4).split(',').some((option) => LINKER_CODE.test(option))) runs = true;
    if (!CODE_OPTIONS.test(value)) continue;
    runs = true;
    // `-wrapper PROG,ARG…`: the next word (gcc's option is `Separate`), the command each subprogram runs under.
    if (value === '-wrapper' && args[i + 1]?.isStatic) nested.push({ kind: 'script', text: args[i + 1]!.value.split(',').map(quote).join(' '), cwd });
  }
  return runs;
}

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
