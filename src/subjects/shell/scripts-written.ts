import { posix } from 'node:path';
import type { CommandInfo, CommandPath, Segment } from '../../policy/types.js';
import { DENY_CANDIDATE, MANAGER_CONFIG_SETTING } from '../../policy/decide.js';
import { interpreterSpec, SHELLS } from '../../programs.js';
import { makefilesRead } from './make.js';
import { staticWord } from './options.js';

/**
 * A script the same call writes, then runs: `echo 'rm -f x' > a.sh && bash a.sh`, `./a.sh`,
 * `python a.py`, `make -f mk`. The file is read as a path, its content is not: code the analyser
 * never saw, as with `source a.sh` (round 11 review, F12; docs/threat-model.md#deny-rules-for-every-program).
 * Such a call is `interpreter`. Writes that change no content (`chmod +x a.sh && ./a.sh`) do not count.
 */
export function markScriptsWritten(info: CommandInfo): void {
  const writes: Write[] = [];
  for (const segment of info.segments) {
    if (segment.name !== null && METADATA_ONLY.has(segment.name)) continue;
    for (const path of segment.paths) if (path.access === 'write') writes.push({ segment, path, at: null });
  }
  if (writes.length === 0) return;
  for (const segment of info.segments) {
    const scripts = scriptsRun(segment);
    const config = configOf(segment.name);
    if (scripts.length === 0 && config === undefined) continue;
    // An interpreter's own operands are deny-rule candidates (written or read), not writes before it runs.
    // A setting `npm config set` writes is read by the analyser itself (its key and value: round 28 review R28-6).
    const before = writes.filter((write) => (write.segment !== segment || write.path.via !== DENY_CANDIDATE) && write.path.via !== MANAGER_CONFIG_SETTING);
    // A write whose name is known only at run time (ANY) may be any script.
    if (scripts.some((script) => before.some((write) => mayHold(placeOf(write), script))) || (config && before.some((write) => placeOf(write) === ANY || config.test(placeOf(write))))) {
      if (!info.unanalyzable.includes('interpreter')) info.unanalyzable.push('interpreter');
      return;
    }
  }
}

/** A write of one segment: where it lands is worked out only when a script or a config file is compared with it (most calls run none). */
interface Write {
  segment: Segment;
  path: CommandPath;
  at: string | null;
}

function placeOf(write: Write): string {
  return (write.at ??= write.path.isStatic ? absolute(write.path) : ANY);
}

/** Whether a write at `at` may be the script `script` or hold it. */
function mayHold(at: string, script: string): boolean {
  return at === ANY || script === ANY || script === at || script.startsWith(`${at}/`);
}

/** The files `name` reads that name what it runs (CONFIGS), `python3.11` as `python`. */
function configOf(name: string | null): RegExp | undefined {
  if (name === null) return undefined;
  const found = CONFIGS.get(name);
  if (found !== undefined) return found;
  const last = name.charCodeAt(name.length - 1);
  return (last >= 48 && last <= 57) || last === 46 ? CONFIGS.get(name.replace(/[\d.]+$/, '')) : undefined;
}

/**
 * Files a program reads from its directory or any above it (or home) that name what it runs:
 * npm's `.npmrc` (`script-shell=P`) and package.json scripts, cargo's `.cargo/config.toml`
 * (`build.rustc-wrapper`), Cargo.toml and build.rs, pip's setup.py and pyproject.toml, pytest's
 * conftest.py. Written by the same call, they are code the analyser never saw: `echo
 * script-shell=e.sh > .npmrc && npm test` ran e.sh (npm 11.19.1), `> .cargo/config.toml && cargo
 * build` the wrapper and `> build.rs && cargo build` build.rs (cargo 1.8x, bash 5.2). Any
 * directory counts: which one the program reads is known only at run time.
 */
const NODE_CONFIG = /\/(\.npmrc|package\.json|\.yarnrc(\.yml)?|\.pnpmfile\.c?js|pnpm-workspace\.yaml|bunfig\.toml|\.bunfig\.toml)$/;
const CARGO_CONFIG = /\/(\.cargo\/config(\.toml)?|Cargo\.toml|build\.rs|rust-toolchain(\.toml)?)$|\/\.cargo\/|^\.cargo(\/|$)/;
const PYTHON_CONFIG = /\/(setup\.py|setup\.cfg|pyproject\.toml|pip\.conf|conftest\.py|pytest\.ini|tox\.ini|sitecustomize\.py|usercustomize\.py)$/;
/**
 * And the modules an interpreter's script imports, the files make includes: `> helper.py && python3
 * a.py` (a.py imports helper), `> x.mk && make` (the Makefile includes x.mk), `> h.js && node m.js`
 * ran the new code (Python 3.11, GNU make 4.3, Node 20). A write of the language's files counts.
 */
const CONFIGS: ReadonlyMap<string, RegExp> = new Map([
  ...['python', 'pypy', 'pypy3'].map((name) => [name, /\.(py|pth)$|\/__pycache__\//] as const),
  ...['node', 'nodejs', 'deno', 'tsx', 'ts-node'].map((name) => [name, /\.([cm]?[jt]sx?|json|node)$/] as const),
  ['perl', /\.p[lm]$/],
  ['ruby', /\.rb$/],
  ['php', /\.(php|inc)$/],
  ...['make', 'gmake'].map((name) => [name, /\.mk$|\.make$|\/[^/]*[Mm]akefile[^/]*$/] as const),
  ...['npm', 'npx', 'pnpm', 'pnpx', 'yarn', 'yarnpkg', 'bun', 'bunx', 'corepack'].map((name) => [name, NODE_CONFIG] as const),
  ...['cargo', 'rustup'].map((name) => [name, CARGO_CONFIG] as const),
  ...['pip', 'pip3', 'pipx', 'pytest', 'py.test', 'tox', 'uv'].map((name) => [name, PYTHON_CONFIG] as const),
]);

/** Programs whose writes change a file's metadata, not what it holds. */
const METADATA_ONLY: ReadonlySet<string> = new Set(['chmod', 'chown', 'chgrp', 'touch', 'mkdir']);

const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];
/** A script not known before the run: any write may be it. */
const ANY = '';

/** The files whose code the segment runs, as absolute (or as-written) paths. */
function scriptsRun(segment: Segment): string[] {
  const scripts: string[] = [];
  const base = segment.cwd;
  const resolve = (path: string): string => absolute({ path, base } as CommandPath);
  // `./a.sh`, `d/tool`: the program itself is a file.
  if (segment.program !== null && segment.program.includes('/')) scripts.push(resolve(segment.program));
  const name = segment.name;
  if (name === null) return scripts;
  // A shell or an interpreter given a file: any path of its words may be the script.
  if (SHELLS.has(name) || interpreterSpec(name) !== undefined) scripts.push(...segment.paths.map(absolute));
  if (name === 'make' || name === 'gmake') {
    if (!segment.isStatic) return [ANY];
    // `-C DIR` moves make: its makefile is known only relative to DIR, so any write may be it.
    const files = makefilesRead(segment.args.map(staticWord));
    if (files === null) return [ANY];
    scripts.push(...(files.length > 0 ? files : MAKEFILES).map(resolve));
  }
  return scripts;
}

function absolute(path: Pick<CommandPath, 'path' | 'base'>): string {
  if (path.base === null || path.path.startsWith('~')) return posix.normalize(path.path);
  return posix.resolve(path.base, path.path);
}
