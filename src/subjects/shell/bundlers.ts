import type { CommandPath } from '../../policy/types.js';
import { projectOrSystem } from './cmake.js';
import { pathOf, pushPath, type Word } from './options.js';

/**
 * Bundlers' and terraform's own command lines (round 31, review30r's leftovers; docs/threat-model.md
 * "Round 31: round 30's command-rule leftovers (rules31)"). A bundler's config file is a module it
 * imports and runs (vite's, webpack-cli's, rollup's `--config`; rollup's `--plugin` and
 * `--configPlugin` import a plugin by path), and a root directory given (`vite build D`) brings its
 * own config; terraform's `-chdir=D` runs D's configuration (its provisioners and `external` data
 * sources run programs: Terraform 1.11 ran a `local-exec` from `-chdir=D`), `-plugin-dir` holds the
 * providers it runs, `-from-module` copies a module in, `console` evaluates expressions whose
 * `file()` reads any file. In the project (a plain relative path) each is a read of that code,
 * as a runtime's script is (round 28); elsewhere `interpreter`. An output outside the project (`vite
 * --outDir`, webpack `--output-path`, rollup `--file`/`--dir`, esbuild `--outfile`/`--outdir`,
 * terraform `-out`/`-state-out`) is a write there; terraform's `-var-file` and `-backend-config`
 * files are reads. `vite build`, `webpack --config webpack.prod.js`, `rollup -c`, `terraform plan`,
 * `terraform -chdir=infra plan -var-file=prod.tfvars` stay allowed.
 */
export const BUNDLERS: ReadonlySet<string> = new Set(['vite', 'webpack', 'webpack-cli', 'rollup', 'esbuild']);

type Meaning = 'config' | 'root' | 'write' | 'read' | 'code';
/** Each bundler's options that matter here (kebab-case; cac and yargs also read camelCase). */
const OPTIONS: Readonly<Record<string, Readonly<Record<string, Meaning>>>> = {
  vite: { c: 'config', config: 'config', 'out-dir': 'write', root: 'root', 'config-loader': 'read' },
  webpack: { c: 'config', config: 'config', extends: 'config', o: 'write', 'output-path': 'write' },
  rollup: { c: 'config', config: 'config', p: 'code', plugin: 'code', 'config-plugin': 'code', o: 'write', file: 'write', d: 'write', dir: 'write' },
  esbuild: { outfile: 'write', outdir: 'write', metafile: 'write', tsconfig: 'read' },
};

/** A path spelled plainly in the project (relative, no `..`, `~` or `$`). */
const inProject = (value: string): boolean => !value.startsWith('/') && projectOrSystem(value);

/** True when a bundler's words load code from outside the project; its code files are reads, its outputs elsewhere writes. */
export function bundlerRunsCode(name: string, args: readonly Word[], cwd: string | null, paths: CommandPath[]): boolean {
  const table = OPTIONS[name === 'webpack-cli' ? 'webpack' : name]!;
  let code = false;
  let command = name !== 'vite';
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      if (!/^["']?[\w./]/.test(word.raw)) code = true; // an option known only at run time may be any of them
      continue;
    }
    const text = word.value;
    if (text === '--') break;
    if (!text.startsWith('-') || text === '-') {
      // vite's first word may be its command; a word after it (or in its place) is the root, with its own config.
      if (name === 'vite' && !command && /^(?:build|serve|dev|preview|optimize)$/.test(text)) command = true;
      else if (name === 'vite') {
        command = true;
        if (!inProject(text)) code = true;
        else pushPath(paths, pathOf(word, 'read', cwd));
      }
      continue;
    }
    const eq = text.search(/[=:]/);
    const raw = (eq > 0 ? text.slice(0, eq) : text).replace(/^--?/, '');
    const option = raw.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    const meaning = table[option];
    // esbuild takes values only with `=` (a next word is an entry point).
    if (meaning === undefined || (name === 'esbuild' && eq <= 0)) continue;
    const value = eq > 0 ? { ...word, value: text.slice(eq + 1), raw: text.slice(eq + 1) } : args[i + 1];
    // rollup's `-c` alone is rollup.config.js; a next word that is an option is not a value.
    if (value === undefined || (eq <= 0 && value.isStatic && value.value.startsWith('-'))) continue;
    if (eq <= 0) i++;
    if (!value.isStatic) {
      code = true;
      continue;
    }
    if (name === 'rollup' && meaning === 'config' && value.value.startsWith('node:')) continue; // a config package of the project's node_modules
    if (name === 'rollup' && meaning === 'code' && !/[/\\]|\.[cm]?[jt]s$/.test(value.value)) continue; // a plugin by package name: the project's node_modules
    if (meaning === 'write') {
      if (!inProject(value.value)) pushPath(paths, pathOf(value, 'write', cwd));
    } else if (meaning === 'read' && name === 'esbuild') pushPath(paths, pathOf(value, 'read', cwd));
    else if (meaning === 'read') continue;
    else if (!inProject(value.value)) code = true;
    else pushPath(paths, pathOf(value, 'read', cwd));
  }
  return code;
}

/** terraform's options by name (Go's flag package: one dash or two, `=` or the next word). */
const TERRAFORM: Readonly<Record<string, Meaning>> = { chdir: 'root', 'plugin-dir': 'root', 'from-module': 'code', 'var-file': 'read', 'backend-config': 'read', out: 'write', 'state-out': 'write', state: 'write', backup: 'write' };

/** True when terraform's words run a configuration or providers from outside the project; its files are reads and writes. */
export function terraformRunsCode(args: readonly Word[], cwd: string | null, paths: CommandPath[]): boolean {
  let code = false;
  let command: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      if (!/^["']?[\w./]/.test(word.raw)) code = true;
      continue;
    }
    const text = word.value;
    if (!text.startsWith('-')) {
      if (command === null) {
        command = text;
        if (text === 'console') code = true; // its expressions' file() reads any file
      }
      continue;
    }
    const eq = text.indexOf('=');
    const option = (eq > 0 ? text.slice(0, eq) : text).replace(/^--?/, '');
    const meaning = TERRAFORM[option];
    if (meaning === undefined) continue;
    const value = eq > 0 ? { ...word, value: text.slice(eq + 1), raw: text.slice(eq + 1) } : args[++i];
    if (value === undefined) continue;
    if (!value.isStatic) {
      code = true;
      continue;
    }
    if (meaning === 'code') code = true;
    else if (meaning === 'root') {
      if (!inProject(value.value)) code = true;
      else pushPath(paths, pathOf(value, 'read', cwd));
    } else if (meaning === 'read') {
      if (option !== 'backend-config' || !/^[\w.-]+=/.test(value.value)) pushPath(paths, pathOf(value, 'read', cwd));
    } else if (!inProject(value.value)) pushPath(paths, pathOf(value, 'write', cwd));
  }
  return code;
}
