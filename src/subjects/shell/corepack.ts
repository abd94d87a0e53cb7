import type { FileFacts } from './files.js';
import { COREPACK_MANIFEST } from '../project-files.js';
import { hasOption, optionValues, pathOf, pushPath, scanOptions, staticWord, type Word } from './options.js';

/**
 * corepack's own commands (corepack 0.34.6, sources/commands; docs/threat-model.md "Round 28: rules
 * left by round 27 (rules28a)", C1). `corepack MANAGER[@VERSION] …` is that manager's command
 * (programs.ts managerAlias, argv.ts analysedAs), not read here.
 *
 *   enable|disable [--install-directory D] [NAME…]
 *       write (remove) the shims of NAME (default yarn and pnpm: yarn, yarnpkg, pnpm, pnpx; npm:
 *       npm, npx) in D, by default the directory of `corepack` on PATH, beside node: each D/BIN is
 *       a write; without D a place known only at run time, as a global install's prefix.
 *   install -g|--global [SPEC|FILE.tgz…] (not --cache-only), prepare|hydrate --activate
 *       make the release the default every shim runs outside a project (lastKnownGood): the same
 *       place known only at run time; a `.tgz` (hydrate's FILE) is read.
 *   pack [-o F], prepare -o[=F]
 *       write F (default ./corepack.tgz).
 *   use PATTERN, up
 *       set the project's package.json `packageManager` (COREPACK_MANIFEST: maybe one above the cwd) and run that manager's `install` (its
 *       lifecycle scripts; corepack's `commands.use`): a write of ./package.json and a nested
 *       `MANAGER install`; `up` (the manager package.json names) and a pattern not a plain
 *       `NAME[@VERSION]` are `interpreter`.
 *   install (the project's), cache clean: corepack's cache only: plain.
 */

/** Where the shims and the default releases are: known only at run time. */
const SHIMS: Word = { value: '<corepack install directory>', raw: "<corepack's install directory, beside node on PATH>", isStatic: false, ansi: false };

/** The shims each package manager has (corepack's config.json `bin` of each range). */
const BINS: Record<string, readonly string[]> = { npm: ['npm', 'npx'], pnpm: ['pnpm', 'pnpx'], yarn: ['yarn', 'yarnpkg'] };

export function corepack(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  const scan = scanOptions(args, 0, { short: 'o', long: ['install-directory', 'output'] });
  const operands = scan.operands.map((i) => args[i]!);
  const command = operands[0];
  if (command === undefined) return;
  if (!command.isStatic) return void out.reasons.push('interpreter');
  const rest = operands.slice(1);
  const code = (): void => void out.reasons.push('interpreter');
  switch (command.value) {
    case 'enable':
    case 'disable': {
      const dirs = optionValues(scan, '--install-directory');
      if (dirs.length === 0) return pushPath(out.paths, pathOf(SHIMS, 'write', null));
      const names = rest.length === 0 ? ['yarn', 'pnpm'] : rest.map((word) => (word.isStatic ? word.value : '\u0000'));
      for (const dir of dirs) {
        for (const name of names) {
          const bins = BINS[name];
          // A name known only at run time, or none corepack knows (it refuses those): the directory.
          if (bins === undefined || !dir.isStatic) pushPath(out.paths, pathOf(dir, 'write', cwd));
          else for (const bin of bins) pushPath(out.paths, pathOf(staticWord(`${dir.value.replace(/\/+$/, '')}/${bin}`), 'write', cwd));
        }
      }
      return;
    }
    case 'install':
      if (hasOption(scan, '-g', '--global') && !hasOption(scan, '--cache-only')) pushPath(out.paths, pathOf(SHIMS, 'write', null));
      for (const word of rest) if (!word.isStatic || word.value.endsWith('.tgz')) pushPath(out.paths, pathOf(word, 'read', cwd));
      return;
    case 'hydrate':
      for (const word of rest) pushPath(out.paths, pathOf(word, 'read', cwd));
      if (hasOption(scan, '--activate')) pushPath(out.paths, pathOf(SHIMS, 'write', null));
      return;
    case 'prepare':
    case 'pack': {
      if (command.value === 'prepare' && hasOption(scan, '--activate')) pushPath(out.paths, pathOf(SHIMS, 'write', null));
      const outputs = optionValues(scan, '-o', '--output');
      // prepare's `-o` may stand alone (clipanion tolerateBoolean): corepack.tgz, the next word a spec.
      const bare = args.some((word) => word.isStatic && (word.value === '-o' || word.value === '--output'));
      if (command.value === 'pack' ? outputs.length === 0 : bare) pushPath(out.paths, pathOf(staticWord('corepack.tgz'), 'write', cwd));
      for (const output of outputs) pushPath(out.paths, pathOf(output, 'write', cwd));
      return;
    }
    case 'use':
    case 'up': {
      // The package.json corepack picks above the working directory, found on disk (inspect.ts corepackManifest; round 29).
      pushPath(out.paths, pathOf(staticWord('package.json'), 'write', cwd, COREPACK_MANIFEST));
      const pattern = rest[0];
      const name = command.value === 'use' && pattern?.isStatic ? /^(npm|pnpm|yarn)(?:@[\w.+^~<>=*-]+)?$/.exec(pattern.value)?.[1] : undefined;
      if (name === undefined) return code();
      out.nested.push({ kind: 'script', text: `${name} install`, cwd });
      return;
    }
    default:
      return;
  }
}
