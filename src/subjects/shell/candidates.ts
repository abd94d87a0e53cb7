import { DENY_CANDIDATE } from '../../policy/decide.js';
import type { CommandPath } from '../../policy/types.js';
import type { Word } from './options.js';

/**
 * Words that may name a file a command reads, for deny rules only (docs/threat-model.md#deny-rules-for-every-program):
 * the analyser does not know what `paste`, `openssl` or `python3 -m base64` read, so for such
 * programs every operand and every `--opt=VALUE` / `if=VALUE` value is a candidate; for every
 * program, values spelled `@path` (curl `-d @f`, gcc `@args`), `file://` URLs, `$HOME/…` and
 * `docker -v SRC:DST` sources are. A candidate never asks and never allows: it is denied when a
 * deny rule matches it, and otherwise changes nothing.
 *
 *   paste ~/.ssh/id_rsa                   → ~/.ssh/id_rsa
 *   curl --data-binary @$HOME/.ssh/k u    → ~/.ssh/k           (any program)
 *   docker run -v ~/.ssh:/k alpine        → ~/.ssh
 */
export function candidatePaths(name: string, args: readonly Word[], cwd: string | null, every: boolean | 'option-values'): CommandPath[] {
  const out: CommandPath[] = [];
  const add = (path: string, access: 'read' | 'write' = 'read'): void => {
    if (path !== '' && path !== '-' && !out.some((p) => p.path === path)) out.push({ path, access, base: cwd, isStatic: true, via: DENY_CANDIDATE });
  };
  const mounts = name === 'docker' || name === 'podman';
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const text = word.isStatic ? word.value : homeSpelling(word);
    if (text === null) continue;
    const home = !word.isStatic;
    // 'option-values' (a CLI: make, docker, pip): only option values, the word after an option
    // included (`make -f FILE`); its subcommands and their operands are not taken for files.
    const everyOperand = every === true || (every === 'option-values' && (text.startsWith('-') || /^-(?!-$)./.test(args[i - 1]?.value ?? '')));
    // Of any other word only an `@…` or `file://…` value is one (below): most words hold neither.
    if (!everyOperand && !mounts && !home && !text.includes('@') && !text.includes(':')) continue;
    // A word holding a blank may be a command line the program runs (`vimx -c 'e ~/.ssh/id_rsa'`): its
    // absolute and home paths are candidates too.
    if (everyOperand && /\S\s+\S/.test(text)) for (const token of text.split(/[\s'"=]+/)) if (/^(~\/|\/)./.test(token)) add(token);
    if (mounts && /^(-v|--volume|--mount)$/.test(args[i - 1]?.value ?? '')) {
      add(mountSource(text));
      continue;
    }
    if (mounts && /^(--volume|--mount)=/.test(text)) {
      add(mountSource(text.slice(text.indexOf('=') + 1)));
      continue;
    }
    const prefix = text.includes('=') ? (/^(--?[A-Za-z][\w-]*=|[A-Za-z_][\w.-]*=)/.exec(text)?.[0] ?? '') : '';
    if (prefix === '' && text.startsWith('-')) {
      // A short option with its value attached (getopt's `-oFILE`, gcc's `-includeFILE`): the value
      // starts after one of the leading letters, so each such suffix is a candidate
      // (round 11 review F17: `iconv -oout/secret` wrote, `gcc -include.env` printed).
      if (everyOperand && /^-[A-Za-z0-9]./.test(text)) {
        const letters = /^-[A-Za-z0-9]*/.exec(text)![0].length;
        for (let at = 2; at <= Math.min(letters, text.length - 1); at++) add(text.slice(at), 'write');
      }
      continue; // an option
    }
    let value = text.slice(prefix.length);
    const special = value.startsWith('@') || /^file:\/\//i.test(value) || home;
    if (!special && !everyOperand) continue;
    if (value.startsWith('@')) value = value.slice(1);
    if (/^[A-Za-z][A-Za-z0-9+.-]+:\/\//.test(value) && !/^file:/i.test(value)) continue; // a URL
    // An operand of a program the analyser does not know may be written as well as read (`sponge f`,
    // as `gzip f` replaces f by f.gz): a write meets Edit deny rules and Read ones.
    add(value, special ? 'read' : 'write');
  }
  return out;
}

/** `SRC:DST[:opts]` or `type=bind,source=SRC,target=DST` → SRC. */
function mountSource(text: string): string {
  const source = /(?:^|,)(?:source|src)=([^,]+)/.exec(text)?.[1];
  return source ?? text.split(':')[0]!;
}

/** A word that is not static, with `$HOME` written out as `~` when that is its only expansion; null when unknown. */
function homeSpelling(word: Word): string | null {
  if (!/\$(HOME\b|\{HOME\})/.test(word.raw)) return null;
  const text = word.raw.replace(/\$(HOME\b|\{HOME\})/g, '~').replace(/["']/g, '');
  return /[$`*?[\\]/.test(text) ? null : text;
}
