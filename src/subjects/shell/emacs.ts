import type { CommandPath } from '../../policy/types.js';
import type { Nested } from './files.js';
import { pathOf, pushPath, type Word } from './options.js';

/**
 * Emacs and emacsclient (round 30 review R30-3; docs/threat-model.md "Round 30: the review of round
 * 29"). emacs(1) and startup.el's command-line-1: `--eval`/`--execute` evaluate Lisp, `-l`/`--load`,
 * `--script`, `-x` load a file, `-f`/`--funcall`/`-e` call a function, `-u`/`--user` and
 * `--init-directory` load another init file, `-L`/`--directory` add to the load path, `--daemon`
 * starts a server any emacsclient drives; a long option takes one dash or two and any unambiguous
 * abbreviation (Emacs 28.2 ran `(shell-command …)` from `--eval`, `-eval`, `--ev`, `-l ./x.el`).
 * emacsclient(1) `-e`/`--eval` evaluates Lisp in the running Emacs and `-a`/`--alternate-editor`
 * runs a command when none runs. So an emacs option outside the editing ones (files, `+LINE`, `-nw`,
 * `-Q`, display options) is `interpreter`, and the shell commands of a static `(shell-command "…")`
 * are nested scripts deny rules meet, as vim's `-c '!CMD'` are. A file loaded by name (`-l ./x.el`,
 * `--script F`, `-L DIR`) is code read from there, as a runtime's script is (round 28: outside the
 * workspace it asks); a library by name (`-l ert`) and the batch drivers (`-f batch-byte-compile`,
 * `-f ert-run-tests-batch-and-exit`) stay allowed.
 */
/** emacs's options that run nothing: the terminal, display, init-skipping and help ones (emacs --help). */
const EMACS_PLAIN = /^(?:-nw|--?no-window-system|-q|--?no-init-file|-Q|--?quick|--?no-site-file|--?no-site-lisp|--?no-splash|--?no-desktop|--?no-x-resources|--?no-loadup|--?no-build-details|-D|--?basic-display|--?debug-init|--?version|--?help|-batch|--batch|-t|--?terminal(?:=.*)?|-d|--?display(?:=.*)?|-fs|--?fullscreen|-mm|--?maximized|-fh|--?fullheight|-fw|--?fullwidth|-nbc|--?no-blinking-cursor|-nbi|--?no-bitmap-icon|-iconic|--?iconic|-rv|--?reverse-video|-fn|--?font(?:=.*)?|-fg|--?foreground-color(?:=.*)?|-bg|--?background-color(?:=.*)?|-g|--?geometry(?:=.*)?|-T|--?title(?:=.*)?|--?name(?:=.*)?|-bd|-bw|-ib|-lsp|-vb|--?vertical-scroll-bars|--?line-spacing(?:=.*)?|--?border-width(?:=.*)?|--?internal-border(?:=.*)?|--?border-color(?:=.*)?|--?color(?:=.*)?|--?cursor-color(?:=.*)?|--?mouse-color(?:=.*)?|-xrm|--?xrm(?:=.*)?|--?parent-id(?:=.*)?|--?dump-file(?:=.*)?|--?seccomp(?:=.*)?)$/;
/** Options of those that take the next word. */
const EMACS_VALUES = /^(?:-t|--?terminal|-d|--?display|-fn|--?font|-fg|--?foreground-color|-bg|--?background-color|-g|--?geometry|-T|--?title|--?name|-bd|-bw|-ib|-lsp|--?line-spacing|--?border-width|--?internal-border|--?border-color|--?color|--?cursor-color|--?mouse-color|-xrm|--?xrm|--?parent-id)$/;
/** emacsclient's options that run nothing in the server: visiting files, frames, the socket. */
const CLIENT_PLAIN = /^(?:-n|--no-wait|-c|--create-frame|-r|--reuse-frame|-t|-nw|--tty|-q|--quiet|-u|--suppress-output|-V|--version|-H|--help|-d|--display(?:=.*)?|-s|--socket-name(?:=.*)?|-f|--server-file(?:=.*)?|-w|--timeout(?:=.*)?|-F|--frame-parameters(?:=.*)?|-T|--tramp(?:=.*)?)$/;
const CLIENT_VALUES = /^(?:-d|--display|-s|--socket-name|-f|--server-file|-w|--timeout|-F|--frame-parameters|-T|--tramp)$/;

/** Options loading a file (or, `-L`, a directory of them), and the functions `-f` may call that run no command of their own. */
const EMACS_LOADS = /^(?:-l|--?load|--?script|-x|-L|--?directory)$/;
const BATCH_FUNCTIONS = /^(?:batch-[\w-]+|ert-run-tests-batch(?:-and-exit)?|kill-emacs|package-lint-batch-and-exit|checkdoc-file)$/;

/** True when emacs's (or, `client`, emacsclient's) words evaluate Lisp or load code; shell commands of static Lisp go to `nested`, files loaded to `paths`. */
export function emacsRunsCode(args: readonly Word[], client: boolean, cwd: string | null, paths: CommandPath[], nested: Nested[]): boolean {
  let code = false;
  let operands = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      if (!operands) code = true; // an option known only at run time may be any of them
      continue;
    }
    const value = word.value;
    if (operands || !value.startsWith('-') || value === '-') continue; // a file (options are read after files too)
    if (value === '--') {
      operands = true; // startup.el: the rest are files
      continue;
    }
    if (!client) {
      const [name, attached] = value.startsWith('--') && value.includes('=') ? [value.slice(0, value.indexOf('=')), value.slice(value.indexOf('=') + 1)] : [value, undefined];
      const operand = attached !== undefined ? { ...word, value: attached, raw: attached } : args[i + 1];
      if (EMACS_LOADS.test(name) || /^(?:-f|--?funcall|-e)$/.test(name)) {
        if (attached === undefined) i++;
        if (operand === undefined || !operand.isStatic) code = true;
        else if (/^(?:-f|--?funcall|-e)$/.test(name)) code ||= !BATCH_FUNCTIONS.test(operand.value);
        else if (/^(?:-L|--?directory)$/.test(name) || /[/.]/.test(operand.value) || /^--?script$|^-x$/.test(name)) pushPath(paths, pathOf(operand, 'read', cwd));
        continue;
      }
    }
    if (client ? CLIENT_PLAIN.test(value) : EMACS_PLAIN.test(value)) {
      if ((client ? CLIENT_VALUES : EMACS_VALUES).test(value)) i++;
      continue;
    }
    code = true;
  }
  if (code) for (const word of args) if (word.isStatic) shellCommands(word.value, cwd, nested);
  if (client) alternateEditor(args, cwd, nested);
  return code;
}

/** `(shell-command "CMD")`, `(async-shell-command "CMD")`, `(shell-command-to-string "CMD")`, `(call-process-shell-command "CMD")`. */
function shellCommands(text: string, cwd: string | null, nested: Nested[]): void {
  for (const match of text.matchAll(/\((?:async-)?(?:shell-command(?:-to-string)?|call-process-shell-command|process-lines-ignore-status|start-process-shell-command\s+"(?:[^"\\]|\\.)*"\s+\S+)\s+"((?:[^"\\]|\\.)*)"/g)) {
    nested.push({ kind: 'script', text: match[1]!.replace(/\\(.)/g, '$1'), cwd });
  }
}

/** emacsclient `-a CMD`/`--alternate-editor=CMD`: the command run when no server answers. */
function alternateEditor(args: readonly Word[], cwd: string | null, nested: Nested[]): void {
  args.forEach((word, i) => {
    if (!word.isStatic) return;
    const value = word.value === '-a' || word.value === '--alternate-editor' ? args[i + 1] : word.value.startsWith('--alternate-editor=') ? { ...word, value: word.value.slice(19) } : word.value.startsWith('-a') && word.value.length > 2 ? { ...word, value: word.value.slice(2) } : undefined;
    if (value?.isStatic && value.value !== '') nested.push({ kind: 'script', text: value.value, cwd });
  });
}
