import type { Nested } from './files.js';
import { gitEnvironment } from './git-config.js';
import type { Word } from './options.js';

/**
 * Shell variables that change what later commands do: the ones that pick the program or what it
 * loads (`PATH`, `LD_PRELOAD`, `BASH_ENV`), and the ones whose value some program runs as a command
 * (`GIT_EXTERNAL_DIFF`, `PAGER`, git's configuration in the environment).
 */

/**
 * Variables that change which program runs or what it loads; exporting one changes every later
 * command (a prefix assignment `PATH=… ls` is on its own segment, for the policy to judge).
 */
export const ENVIRONMENT = /^(PATH|LD_[A-Z_]+|DYLD_[A-Z_]+|BASH_ENV|ENV|IFS|PS4|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|GLOBIGNORE|CDPATH|GIT_[A-Z_]+|PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PERL5OPT|PERL5LIB|RUBYOPT|RUBYLIB)(\+?=|$)/;
export const DECLARATIONS: ReadonlySet<string> = new Set(['export', 'declare', 'typeset', 'readonly', 'local']);

/**
 * Variables whose value is a command some program runs through a shell (git(1) ENVIRONMENT,
 * less(1), man(1)): `GIT_EXTERNAL_DIFF='rm -rf x' git diff` runs rm. The value is a nested script, so
 * deny rules see it; `+=` appends to it. git's configuration variables are read as git reads them.
 */
const COMMAND_VARIABLES = /^(GIT_(EXTERNAL_DIFF|PAGER|EDITOR|SEQUENCE_EDITOR|SSH_COMMAND|SSH|ASKPASS|PROXY_COMMAND)|SSH_ASKPASS|PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|PROMPT_COMMAND|PS4|SUDO_ASKPASS)\+?=/;

/** `NAME=value` words whose value some program runs: an interpreter reason, and the value as a nested script. */
export function commandVariables(words: readonly Word[], cwd: string | null, reasons: string[], nested: Nested[]): void {
  for (const word of words) {
    const match = COMMAND_VARIABLES.exec(word.value);
    if (!match) continue;
    reasons.push('interpreter');
    const value = word.value.slice(match[0].length).replace(/^\|?\s*/, ''); // LESSOPEN='|cmd %s'
    if (word.isStatic && value !== '') nested.push({ kind: 'script', text: value, cwd });
  }
  gitEnvironment(words, cwd, { reasons, nested });
}

/** `NAME=value` and `NAME+=value` as a word. */
export const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
