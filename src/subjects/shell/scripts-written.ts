import { posix } from 'node:path';
import type { CommandInfo, CommandPath, Segment } from '../../policy/types.js';
import { DENY_CANDIDATE } from '../../policy/decide.js';
import { interpreterSpec, SHELLS } from '../../programs.js';

/**
 * A script the same call writes, then runs: `echo 'rm -f x' > a.sh && bash a.sh`, `./a.sh`,
 * `python a.py`, `make -f mk`. The file is read as a path, its content is not: code the analyser
 * never saw, as with `source a.sh` (round 11 review, F12; docs/threat-model.md#deny-rules-for-every-program).
 * Such a call is `interpreter`. Writes that change no content (`chmod +x a.sh && ./a.sh`) do not count.
 */
export function markScriptsWritten(info: CommandInfo): void {
  const writes = info.segments
    .filter((segment) => segment.name === null || !METADATA_ONLY.has(segment.name))
    .flatMap((segment) => segment.paths.filter((path) => path.access === 'write').map((path) => ({ segment, path, at: path.isStatic ? absolute(path) : ANY })));
  if (writes.length === 0) return;
  for (const segment of info.segments) {
    const scripts = scriptsRun(segment);
    // An interpreter's own operands are deny-rule candidates (written or read), not writes before it runs.
    const before = writes.filter((write) => write.segment !== segment || write.path.via !== DENY_CANDIDATE);
    // A write whose name is known only at run time (ANY) may be any script.
    if (scripts.some((script) => before.some(({ at }) => at === ANY || script === ANY || script === at || script.startsWith(`${at}/`)))) {
      if (!info.unanalyzable.includes('interpreter')) info.unanalyzable.push('interpreter');
      return;
    }
  }
}

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
    const files: string[] = [];
    const args = segment.args;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      // `-C DIR` moves make: its makefile is known only relative to DIR, so any write may be it.
      if (/^(-C|--directory)/.test(arg)) return [ANY];
      const long = /^--(?:file|makefile)=(.*)$/.exec(arg);
      if (long) files.push(long[1]!);
      else if (arg === '-f' || arg === '--file' || arg === '--makefile') files.push(args[++i] ?? '');
      else if (/^-f./.test(arg)) files.push(arg.slice(2));
    }
    scripts.push(...(files.length > 0 ? files : MAKEFILES).map(resolve));
  }
  return scripts;
}

function absolute(path: Pick<CommandPath, 'path' | 'base'>): string {
  if (path.base === null || path.path.startsWith('~')) return posix.normalize(path.path);
  return posix.resolve(path.base, path.path);
}
