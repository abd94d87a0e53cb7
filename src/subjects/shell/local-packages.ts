import { RECURSIVE } from '../../policy/decide.js';
import type { CommandPath } from '../../policy/types.js';
import { npmCommand } from './npm-commands.js';
import { npmCommandAt } from './package-managers.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';

/**
 * A package manager's package spec naming a local place (round 31 review R31-1; docs/rules.md
 * "Round 31"): the manager reads the package there and runs its lifecycle scripts or build, so the
 * place is a read of that code, as `pip install ./pkg` has been since round 28 (cli-operands.ts),
 * and deny rules on it meet the command. npm 11.19.1 ran `preinstall` of /tmp/evil/pkg for `npm
 * install /tmp/evil/pkg`, `npm install file:/tmp/evil/pkg` and `npm install git+file:///tmp/evil/g`
 * under `Bash(npm:*)` while `Read(/tmp/evil/**)` was a deny rule; pip 23.2 ran setup.py for
 * `pip install 'x @ file:///tmp/evil/p'` and `pip install git+file:///tmp/evil/g`.
 *
 *   npm|pnpm|yarn|bun install|add|link|pack|publish [NAME@]SPEC   SPEC a path (`./x`, `/x`, `~/x`, a
 *     tarball `x.tgz`), `file:P`, `link:P`, `portal:P`, `git+file://P` (npm-package-arg, pnpm, berry)
 *   poetry|pdm add PATH; poetry -C|--directory|-P|--project D, pdm -p|--project D (poetry's CLI docs:
 *     "--directory: the working directory", "--project: another path as the project root")
 *   any word of pip, uv, pipx, poetry, pdm, hatch holding `file:` or `VCS+file:` (PEP 508 `NAME @ URL`,
 *     `-e git+file:///P#egg=x`, `--find-links=file:///P`)
 *
 * A VCS URL's `@REV` and any `#fragment` are not part of the place; the place with a last `@…` kept
 * is read too (a directory named so).
 */

const NODE_MANAGERS: ReadonlySet<string> = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const PYTHON_MANAGERS: ReadonlySet<string> = new Set(['pip', 'pip3', 'pipx', 'uv', 'uvx', 'poetry', 'pdm', 'hatch']);
export const LOCAL_PACKAGE_PROGRAMS: ReadonlySet<string> = new Set([...NODE_MANAGERS, ...PYTHON_MANAGERS]);

/** The node managers' commands that fetch a spec they are given (npm through its aliases and abbreviations). */
const NODE_FETCHES: ReadonlySet<string> = new Set(['install', 'install-test', 'add', 'a', 'i', 'link', 'ln', 'pack', 'publish', 'update', 'up', 'upgrade']);

/** A `file:` URL (or `VCS+file:`) in a word, after its start, an `@` or a blank: the path it names. */
const FILE_URL = /(?:^|[@\s])(?:(?:git|hg|svn|bzr)\+)?file:(?:\/\/(?:localhost)?)?([^#\s]*)/i;
/** pnpm's and berry's own local protocols. */
const LOCAL_PROTOCOL = /(?:^|@)(?:link|portal):([^#\s]*)/i;
/** npm-package-arg's file specs: a path (`.`, `/`, `~/`) or a tarball by its extension. */
const NODE_PATH = /^(?:\.{1,2}(?:\/|$)|\/|~(?:\/|$))|\.(?:tgz|tar\.gz|tar)$/;

export function localPackagePaths(name: string, args: readonly Word[], cwd: string | null): CommandPath[] {
  const paths: CommandPath[] = [];
  const read = (place: string): void => {
    if (place === '') return;
    const path = pathOf(staticWord(place), 'read', cwd, RECURSIVE);
    if (path) path.tree = { content: true, follows: false };
    pushPath(paths, path);
  };
  const readPlace = (place: string, vcs: boolean): void => {
    const decoded = safeDecode(place);
    read(decoded);
    // `git+file:///P@v1`: the revision is not part of the place.
    const at = decoded.lastIndexOf('@');
    if (vcs && at > decoded.lastIndexOf('/')) read(decoded.slice(0, at));
  };
  const fetches = NODE_MANAGERS.has(name) && nodeFetches(name, args);
  const adds = args.find((w) => !w.isStatic || !w.value.startsWith('-'))?.value === 'add';
  for (const [i, word] of args.entries()) {
    if (!word.isStatic) continue;
    const v = word.value;
    // poetry's `-C D`/`--directory D`/`-P D`/`--project D`, pdm's `-p D`/`--project D`: D's project
    // is the one installed, built and run (its pyproject.toml, build backend and plugins).
    const project = name === 'poetry' ? /^(?:-C|--directory|-P|--project)(?:=(.*))?$/.exec(v) : name === 'pdm' ? /^(?:-p|--project)(?:=(.*))?$/.exec(v) : null;
    if (project) {
      const place = project[1] !== undefined ? staticWord(project[1]) : args[i + 1];
      const path = place === undefined ? null : pathOf(place, 'read', cwd, RECURSIVE);
      if (path) path.tree = { content: true, follows: false };
      pushPath(paths, path);
    }
    const url = FILE_URL.exec(v);
    if (url) readPlace(url[1]!, /\+file:/i.test(v));
    // `poetry add PATH`, `pdm add PATH` (a directory or an archive): pip's operands are cli-operands.ts's.
    if ((name === 'poetry' || name === 'pdm') && adds && !v.startsWith('-') && NODE_PATH.test(v)) read(v);
    if (!NODE_MANAGERS.has(name)) continue;
    const local = LOCAL_PROTOCOL.exec(v);
    if (local) readPlace(local[1]!, false);
    if (!fetches || v.startsWith('-') || url || local) continue;
    // `NAME@SPEC` (a scoped `@s/n@SPEC` too): the spec after the name's `@`.
    const spec = /^(?:@[^/@]+\/)?[^@/]+@(.+)$/.exec(v)?.[1] ?? v;
    if (NODE_PATH.test(spec)) read(spec);
  }
  return paths;
}

/** Whether the node manager's command is one that fetches the specs it is given. */
function nodeFetches(name: string, args: readonly Word[]): boolean {
  if (name === 'npm') {
    const at = npmCommandAt(args);
    const word = at >= 0 ? args[at]! : undefined;
    // A command word known only at run time may be any.
    if (word === undefined) return at === -1 && args.some((w) => !w.isStatic);
    return !word.isStatic || NODE_FETCHES.has(npmCommand(word.value) ?? '');
  }
  // pnpm, yarn, bun: the first operand (their options before it take no spec that is a path).
  const first = args.find((w) => !w.isStatic || !w.value.startsWith('-'));
  return first === undefined ? false : !first.isStatic || NODE_FETCHES.has(first.value);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
