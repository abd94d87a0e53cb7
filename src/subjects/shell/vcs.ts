import type { CommandPath } from '../../policy/types.js';
import type { Nested } from './files.js';
import { projectOrSystem } from './cmake.js';
import { pathOf, pushPath, type Word } from './options.js';

/**
 * Mercurial's and Subversion's own command lines (round 31, review30r's leftovers;
 * docs/threat-model.md "Round 31: round 30's command-rule leftovers (rules31)").
 *
 * hg (hg help config, Mercurial 6.3.2 ran each): `--config hooks.pre-status=CMD` runs CMD, and
 * `extensions.x=F` loads F's Python, `alias.x=!CMD`, `ui.editor`, `ui.merge`, `ui.ssh`, `pager.pager`,
 * `merge-tools.*` name programs; `--cwd D` and `-R D` make another repository's `.hg/hgrc` (its hooks)
 * the one read; `bisect --command CMD` runs CMD; `--tool T` (merge, resolve, rebase…) runs T unless it
 * is an internal `:merge`; `debugshell` reads Python. A `--config` outside the plain display, identity
 * and diff settings is `interpreter`, a directory outside the project too; the commands are nested.
 *
 * svn (svn help, Subversion 1.14): `--diff-cmd P`, `--diff3-cmd P` run the program P, `--editor-cmd
 * CMD` runs CMD with a shell; `--config-option FILE:SECTION:OPTION=V` sets any of the config's
 * helpers (`config:helpers:diff-cmd`) or tunnels (`config:tunnels:x=CMD`), `--config-dir D` reads a
 * config from D. The programs are nested commands; a config option outside the miscellany and
 * auto-props, and a config directory outside the project, are `interpreter`.
 */
/** Settings that change only output, identity, diff format and phases (hg help config). */
const HG_PLAIN_CONFIG = /^(?:ui\.(?:username|quiet|verbose|debug|color|paginate|interactive|traceback|tweakdefaults|statuscopies|relative-paths|report_untrusted|formatted|slash|timeout(?:\.warn)?)|color\.[\w.-]+|diff\.[\w-]+|phases\.[\w-]+|extensions\.[\w.]+)=/;
/** An extension enabled by name (`extensions.rebase=`) or disabled (`=!`): one of Mercurial's own, no file given. */
const HG_EXTENSION_BY_NAME = /^extensions\.[\w.]+=!?$/;
/** hg's global options that take a value (hg help -v). */
const HG_VALUES = /^(?:-R|--repository|--repo|--cwd|--config|--encoding|--encodingmode|--color|--pager)$/;

/** True when hg's words run a command or code of their own; what they run goes to `nested`. */
export function hgRunsCode(args: readonly Word[], cwd: string | null, paths: CommandPath[], nested: Nested[]): boolean {
  let code = false;
  let command: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      code = true; // a global option, a command or a setting known only at run time
      continue;
    }
    const text = word.value;
    const eq = text.indexOf('=');
    const name = text.startsWith('--') && eq > 0 ? text.slice(0, eq) : /^-R./.test(text) ? '-R' : text;
    const attached = name !== text ? (name === '-R' ? text.slice(2) : text.slice(eq + 1)) : null;
    if (HG_VALUES.test(name)) {
      const value = attached !== null ? { ...word, value: attached, raw: attached } : args[++i];
      if (value === undefined) continue;
      if (!value.isStatic) {
        code = true;
        continue;
      }
      if (name === '--config') {
        if (!HG_PLAIN_CONFIG.test(value.value) || (value.value.startsWith('extensions.') && !HG_EXTENSION_BY_NAME.test(value.value))) code = true;
        // `hooks.x=CMD`, `alias.x=!CMD`, `ui.editor=CMD`: the command deny rules meet.
        const setting = value.value.slice(value.value.indexOf('=') + 1);
        const runs = /^(?:hooks\.|ui\.(?:editor|merge|ssh)=|pager\.pager=|merge-tools\.[\w.-]+\.executable=|extdiff\.)/.test(value.value) || (value.value.startsWith('alias.') && setting.startsWith('!'));
        if (runs && setting.replace(/^!/, '').trim() !== '' && !setting.startsWith(':')) nested.push({ kind: 'script', text: setting.replace(/^!/, ''), cwd });
      } else if (name === '-R' || name === '--repository' || name === '--repo' || name === '--cwd') {
        // Another repository's .hg/hgrc (its hooks and extensions) is the one read.
        if (!projectOrSystem(value.value)) code = true;
        else pushPath(paths, pathOf(value, 'read', cwd));
      }
      continue;
    }
    if (text === '--debugger') code = true;
    if (text.startsWith('-')) {
      if (command === null) continue;
      // A command's own options (Python's getopt: a long name may be abbreviated).
      const long = text.startsWith('--') ? (eq > 0 ? text.slice(2, eq) : text.slice(2)) : '';
      const tool = /^-t/.test(text) && !text.startsWith('--') ? 'tool' : long.length >= 2 && 'tool'.startsWith(long) ? 'tool' : long.length >= 2 && 'command'.startsWith(long) && command === 'bisect' ? 'command' : /^-c/.test(text) && command === 'bisect' ? 'command' : null;
      if (tool === null) continue;
      const glued = text.startsWith('--') ? (eq > 0 ? text.slice(eq + 1) : null) : text.length > 2 ? text.slice(2) : null;
      const value = glued !== null ? { ...word, value: glued, raw: glued } : args[++i];
      if (value === undefined) continue;
      if (!value.isStatic) code = true;
      else if (tool === 'command') {
        code = true;
        nested.push({ kind: 'script', text: value.value, cwd });
      } else if (!value.value.startsWith(':')) nested.push({ kind: 'argv', words: [value], cwd }); // a merge tool by program
      continue;
    }
    if (command === null) {
      command = text;
      if (/^(?:debugshell|debugpython|dbsh)$/.test(text)) code = true; // Python read from stdin
    }
  }
  return code;
}

/** svn's config options that change only its miscellany and auto-props (svn help, `--config-option`). */
const SVN_PLAIN_CONFIG = /^config:(?:miscellany|auto-props):/;

/** True when svn's words run a program or set one for this call; the programs go to `nested`. */
export function svnRunsCode(args: readonly Word[], cwd: string | null, paths: CommandPath[], nested: Nested[]): boolean {
  let code = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      if (word.raw.startsWith('-') || /^["']?\$/.test(word.raw)) code = true;
      continue;
    }
    const text = word.value;
    const eq = text.indexOf('=');
    const name = text.startsWith('--') && eq > 0 ? text.slice(0, eq) : text;
    if (!/^--(?:diff-cmd|diff3-cmd|editor-cmd|config-option|config-dir)$/.test(name)) continue;
    const value = name !== text ? { ...word, value: text.slice(eq + 1), raw: text.slice(eq + 1) } : args[++i];
    if (value === undefined) continue;
    if (!value.isStatic) {
      code = true;
      continue;
    }
    if (name === '--editor-cmd') nested.push({ kind: 'script', text: value.value, cwd }); // run by a shell with the file after it
    else if (name === '--diff-cmd' || name === '--diff3-cmd') nested.push({ kind: 'argv', words: [value], cwd });
    else if (name === '--config-option') {
      if (!SVN_PLAIN_CONFIG.test(value.value)) code = true;
      const setting = /^config:(?:helpers|tunnels):[^=]*=(.*)$/s.exec(value.value)?.[1];
      if (setting !== undefined && setting.trim() !== '') nested.push({ kind: 'script', text: setting, cwd });
    } else if (!projectOrSystem(value.value)) code = true;
    else pushPath(paths, pathOf(value, 'read', cwd));
  }
  return code;
}
