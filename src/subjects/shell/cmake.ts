import type { CommandPath } from '../../policy/types.js';
import type { Nested } from './files.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';

/**
 * CMake's and CTest's own command line (round 30 review R30-2; docs/threat-model.md "Round 30: the
 * review of round 29"). cmake(1): `-P FILE` processes a script, `-C FILE` pre-loads one, `--toolchain
 * F`/`-DCMAKE_TOOLCHAIN_FILE=F` and `CMAKE_PROJECT_INCLUDE`-like variables include one into the
 * project; each is CMake code, and `execute_process()` runs any command (cmake 3.25.1 ran `touch`
 * from each of `-P`, `-C`, the toolchain file and `CMAKE_PROJECT_INCLUDE`). So do the search paths
 * `find_package()` and `include()` load modules from (`CMAKE_MODULE_PATH`, `CMAKE_PREFIX_PATH`,
 * `<Pkg>_DIR`, `<Pkg>_ROOT`) and the programs a build runs (`CMAKE_<LANG>_COMPILER`, `…_LAUNCHER`,
 * `CMAKE_<LANG>_CLANG_TIDY`, `CMAKE_CROSSCOMPILING_EMULATOR`, `CMAKE_MAKE_PROGRAM`…); `--build DIR
 * -- ARGS` hands ARGS to the native build tool. ctest(1): `-S`/`-SP`/`-SR` run a dashboard script,
 * `--build-and-test` and `--test-command` a command. `-P`, `-C`, ctest's scripts and commands, and
 * code files, search paths and programs spelled outside the project and the system are
 * `interpreter`; the same in the project, and the source or build tree (`-S`, `cmake ..`, `--build
 * D`), are reads of that code (outside the workspace they ask, as a runtime's script does, round
 * 28); a launcher's words are a command deny rules meet, ctest's test command a nested one.
 * `cmake -E` (its file commands) is met as an unknown program's words are. `cmake -S . -B build
 * -DCMAKE_BUILD_TYPE=Release`, `-DCMAKE_C_COMPILER=clang`, `cmake --build build -j4`, `ctest
 * --test-dir build` stay.
 */
const VALUE_OPTIONS = /^-[SBCDUGTAP]$|^--(?:toolchain|install-prefix|preset|build|install|open|graphviz|trace-source|trace-redirect|log-level|component|config|target|parallel|prefix|default-directory-permissions)$/;
/** Cache variables naming CMake code the project includes, or where find_package()/include() load it from. */
const CODE_VARIABLES = /^(?:CMAKE_TOOLCHAIN_FILE|CMAKE_PROJECT_(?:\w+_)?INCLUDE(?:_BEFORE)?|CMAKE_PROJECT_TOP_LEVEL_INCLUDES|CMAKE_USER_MAKE_RULES_OVERRIDE(?:_\w+)?)$/;
const SEARCH_VARIABLES = /^(?:CMAKE_MODULE_PATH|CMAKE_PREFIX_PATH|CMAKE_FIND_ROOT_PATH|CMAKE_SYSROOT|CMAKE_FRAMEWORK_PATH|CMAKE_PROGRAM_PATH|CMAKE_\w+_COMPILER_EXTERNAL_TOOLCHAIN|\w+_DIR|\w+_ROOT)$/;
/** Cache variables naming a program the build runs; `<Pkg>_EXECUTABLE` and the like are find_program() results a find module runs at configure time (round 31: FindGit ran `-DGIT_EXECUTABLE=F`'s F for its version). */
const PROGRAM_VARIABLES = /^(?:CMAKE_\w+_(?:COMPILER|COMPILER_LAUNCHER|LINKER_LAUNCHER|CLANG_TIDY|CPPCHECK|CPPLINT|INCLUDE_WHAT_YOU_USE|LINK_WHAT_YOU_USE)|CMAKE_CROSSCOMPILING_EMULATOR|CMAKE_MAKE_PROGRAM|CMAKE_LINKER|CMAKE_AR|CMAKE_RANLIB|CMAKE_NM|CMAKE_OBJCOPY|CMAKE_OBJDUMP|CMAKE_STRIP|CMAKE_ADDR2LINE|CMAKE_READELF|CMAKE_DLLTOOL|CMAKE_MT|CMAKE_RC_COMPILER|CMAKE_TEST_LAUNCHER|\w+_(?:EXECUTABLE|PROGRAM|COMMAND|BINARY))$/;

/** A path spelled plainly in the project (no `..`, `~`, `$`, absolute start) or under the system's directories. */
export const projectOrSystem = (path: string): boolean => path !== '' && (/^\/(?:usr|lib|lib64|bin|opt\/homebrew|Library\/Developer|Applications\/Xcode[^/]*\.app)\//.test(path) ? !/(^|\/)\.\.(\/|$)/.test(path) : !/^[/~$]|(^|\/)\.\.(\/|$)/.test(path));

/** True when cmake's words run or load code from outside what the project's own CMakeLists.txt runs; the programs named go to `alternatives` (deny rules meet them). */
export function cmakeRunsCode(args: readonly Word[], cwd: string | null, paths: CommandPath[], alternatives: string[][]): boolean {
  let code = false;
  let buildArgs = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      if (!buildArgs || word.raw.startsWith('-')) code = true; // an option or a directory known only at run time
      continue;
    }
    const value = word.value;
    if (buildArgs) {
      // The native tool's words (`cmake --build b -- -j4`): make's and ninja's jobs and keep-going only.
      if (!/^-(?:j\d*|k\d*|l\d+|v)$/.test(value) && !/^\d+$/.test(value)) code = true;
      continue;
    }
    if (value === '-E') return false; // command mode: its commands are an unknown program's words (deny rules meet them)
    if (value === '--' && args.slice(0, i).some((w) => w.isStatic && /^--build(=|$)/.test(w.value))) {
      buildArgs = true;
      continue;
    }
    const [name, attached] = splitOption(value);
    if (!VALUE_OPTIONS.test(name) && !/^-[SBCDUGTAP]./.test(value)) {
      if (!value.startsWith('-')) pushPath(paths, pathOf(word, 'read', cwd)); // `cmake ..`: the source (or build) tree
      continue;
    }
    const option = /^-[SBCDUGTAP]./.test(value) && !value.startsWith('--') ? value.slice(0, 2) : name;
    const operandWord = /^-[SBCDUGTAP]./.test(value) && !value.startsWith('--') ? { ...word, value: value.slice(2), raw: value.slice(2) } : attached !== undefined ? { ...word, value: attached, raw: attached } : args[++i];
    if (operandWord === undefined) continue;
    if (!operandWord.isStatic) {
      if (option !== '-B' && option !== '-G' && option !== '--target' && option !== '--config') code = true;
      continue;
    }
    const operand = operandWord.value;
    if (option === '-P' || option === '-C') code = true;
    else if (option === '-S' || option === '--build' || option === '--install' || option === '--open' || option === '--toolchain') {
      pushPath(paths, pathOf(operandWord, 'read', cwd));
      if (option === '--toolchain' && !projectOrSystem(operand)) code = true;
    } else if (option === '-D') code = cacheEntryRunsCode(operand, cwd, paths, alternatives) || code;
  }
  return code;
}

/** `-D NAME[:TYPE]=VALUE`. */
function cacheEntryRunsCode(entry: string, cwd: string | null, paths: CommandPath[], alternatives: string[][]): boolean {
  const eq = entry.indexOf('=');
  if (eq === -1) return false;
  const name = entry.slice(0, eq).replace(/:\w+$/, '');
  const value = entry.slice(eq + 1);
  const items = value.split(';').filter(Boolean);
  if (CODE_VARIABLES.test(name) || SEARCH_VARIABLES.test(name)) {
    for (const item of items) pushPath(paths, pathOf(staticWord(item), 'read', cwd));
    return items.some((item) => !projectOrSystem(item));
  }
  if (!PROGRAM_VARIABLES.test(name)) return false;
  // A launcher or tool is a CMake list: the program and its arguments (`ccache`, `clang-tidy;-checks=*`),
  // a command deny rules meet (an allow rule need not name it: the build runs it as the project says).
  if (items.length > 0) alternatives.push(items);
  return items.some((item, index) => (index === 0 ? item.includes('/') && !projectOrSystem(item) : !/^-[\w=,*.:+-]*$/.test(item)));
}

/** ctest's own words that run a script or a command. */
export function ctestRunsCode(args: readonly Word[], cwd: string | null, nested: Nested[]): boolean {
  let code = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      if (word.raw.startsWith('-') || word.raw.startsWith('"-')) code = true;
      continue;
    }
    const value = word.value;
    if (/^-S[PR]?(?:$|[^\w-])|^-S[PR]?\S|^--script(?:-new-process)?(?:=|$)|^--build-and-test$|^--build-options$|^--extra-submit(?:=|$)|^--resource-spec-file(?:=|$)/.test(value)) code = true;
    if (value === '--test-command') {
      code = true;
      const rest = args.slice(i + 1).filter((w) => w.isStatic);
      if (rest.length > 0) nested.push({ kind: 'argv', words: [...rest], cwd });
      break;
    }
    if ((value === '--test-dir' || value.startsWith('--test-dir=')) && !projectOrSystem(value.includes('=') ? value.slice(value.indexOf('=') + 1) : (args[i + 1]?.value ?? ''))) code = true;
  }
  return code;
}

function splitOption(text: string): [string, string | undefined] {
  const eq = text.indexOf('=');
  return text.startsWith('--') && eq > 0 ? [text.slice(0, eq), text.slice(eq + 1)] : [text, undefined];
}
