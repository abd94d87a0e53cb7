import { RECURSIVE } from '../../policy/decide.js';
import type { CommandPath, TreeRead } from '../../policy/types.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';

/**
 * The host directories a sandbox or a new root shows its command under other names (round 33
 * review F33-1; docs/threat-model.md "Round 33: the review of round 32 (file tools' paths)"), as
 * container-mounts.ts does for docker: `bwrap --bind conf /x cat /x/secret/db.txt`, `proot -b
 * conf:/x …`, `systemd-nspawn --bind=conf:/x …`, `firejail --bind=conf,/x …`, `chroot conf cat
 * /secret/db.txt` (also `unshare -R`, `nsenter -r`, `sudo -R`, `proot -r`, `firejail --chroot`):
 * the command's own paths name the file elsewhere, so a deny rule on conf/secret/** never met them.
 * Each such source is every file below it, read (a deny or ask rule on a file there makes it ask,
 * as for `cp -r`); a writable bind is also a write of every file below it (the Edit rules there
 * count, git's code files too: a hook planted through `/x/.git/hooks`). A source known only at run
 * time (`--bind-fd`, `--args FD`, a word with an expansion) is a place not known: it asks.
 */

const READ_TREE: TreeRead = { content: true, follows: true };
const WRITE_TREE: TreeRead = { content: true, follows: true, plants: true };
const unknownPlace: Word = { value: '<a directory known only at run time>', raw: '<a directory known only at run time>', isStatic: false, ansi: false };

/** Every file below `word`: read, and written too for a writable mount. */
function mounted(paths: CommandPath[], word: Word, cwd: string | null, writable: boolean): void {
  const read = pathOf(word, 'read', cwd, RECURSIVE);
  if (read) read.tree = READ_TREE;
  pushPath(paths, read);
  if (!writable) return;
  const write = pathOf(word, 'write', cwd, RECURSIVE);
  if (write) write.tree = WRITE_TREE;
  pushPath(paths, write);
}

/**
 * A bind that shows its source at the same path (`bwrap --ro-bind / /`, `proot -b /dev`, a
 * `--bind=SRC` with no destination) names no file anew: the command's own paths are the host's, and
 * its words are decided as such. Only a static absolute source equal to its destination is one.
 */
function samePlace(source: Word, dest: string | undefined): boolean {
  if (!source.isStatic) return false;
  const trim = (path: string): string => path.replace(/\/+$/, '') || '/';
  return dest === undefined ? true : source.value.startsWith('/') && trim(source.value) === trim(dest);
}

/** bwrap(1)'s options and how many words each takes; a bind's source is the first. */
const BWRAP_ARGS: Record<string, number> = {
  '--args': 1, '--argv0': 1, '--userns': 1, '--userns2': 1, '--pidns': 1, '--uid': 1, '--gid': 1, '--hostname': 1, '--chdir': 1,
  '--setenv': 2, '--unsetenv': 1, '--lock-file': 1, '--sync-fd': 1, '--remount-ro': 1, '--exec-label': 1, '--file-label': 1,
  '--proc': 1, '--dev': 1, '--tmpfs': 1, '--mqueue': 1, '--dir': 1, '--file': 2, '--bind-data': 2, '--ro-bind-data': 2,
  '--symlink': 2, '--seccomp': 1, '--add-seccomp-fd': 1, '--block-fd': 1, '--userns-block-fd': 1, '--info-fd': 1,
  '--json-status-fd': 1, '--cap-add': 1, '--cap-drop': 1, '--perms': 1, '--size': 1, '--chmod': 2, '--overlay-src': 1,
  '--overlay': 3, '--tmp-overlay': 1, '--ro-overlay': 1, '--level-prefix': 0,
  '--bind': 2, '--bind-try': 2, '--dev-bind': 2, '--dev-bind-try': 2, '--ro-bind': 2, '--ro-bind-try': 2, '--bind-fd': 2, '--ro-bind-fd': 2,
};

function bwrap(args: readonly Word[], cwd: string | null, paths: CommandPath[]): void {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) return mounted(paths, unknownPlace, cwd, true);
    const option = word.value;
    if (option === '--') return;
    if (!option.startsWith('--')) return; // the command
    const source = args[i + 1];
    const dest = args[i + 2];
    const binds = /^--(?:dev-)?bind(?:-try)?$|^--ro-bind(?:-try)?$/.test(option);
    if ((binds || option === '--overlay-src') && source && !(binds && dest?.isStatic && samePlace(source, dest.value))) mounted(paths, source, cwd, !/^--ro-|^--overlay-src$/.test(option));
    // A descriptor's directory, or more options read from one: not known here.
    if (/^--(?:ro-)?bind-fd$|^--args$/.test(option)) mounted(paths, unknownPlace, cwd, true);
    i += BWRAP_ARGS[option] ?? 0;
  }
}

/** proot(1): `-b`/`-m`/`--bind`/`--mount` HOST[:GUEST], `-r`/`--rootfs` DIR; `-R`/`-S` DIR also bind the home and /tmp, /run… */
function proot(args: readonly Word[], cwd: string | null, paths: CommandPath[]): void {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) return mounted(paths, unknownPlace, cwd, true);
    const match = /^(-[bmrRSwkqiv]|--(?:bind|mount|rootfs|pwd|cwd|kernel-release|qemu|change-id|verbose))(?:=(.*))?$|^(-[bmrRS])(.+)$/s.exec(word.value);
    if (match === null) {
      if (word.value === '--' || !word.value.startsWith('-')) return;
      continue;
    }
    const name = match[1] ?? match[3]!;
    const inline = match[2] ?? match[4];
    const value = inline !== undefined ? staticWord(inline) : args[++i];
    if (value === undefined) return;
    if (/^(?:-[bm]|--bind|--mount)$/.test(name)) {
      // HOST[:GUEST] (GUEST the same path when absent); a HOST known only at run time asks.
      const [host, ...guest] = value.value.split(':');
      const source = value.isStatic ? staticWord(host!) : value;
      if (!samePlace(source, guest.length > 0 ? guest.join(':') : undefined)) mounted(paths, source, cwd, true);
    } else if (/^(?:-[rRS]|--rootfs)$/.test(name)) {
      mounted(paths, value, cwd, true);
      if (name === '-R' || name === '-S') mounted(paths, staticWord('/'), cwd, true); // the host's home, /tmp, /run, /dev… (proot -R)
    }
  }
}

/** systemd-nspawn(1): `--bind[-ro]=SRC[:DST[:OPTS]]`, `-D`/`--directory`, `--template`, `--overlay[-ro]=LOWER:…:DST`. */
function nspawn(args: readonly Word[], cwd: string | null, paths: CommandPath[]): void {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) return mounted(paths, unknownPlace, cwd, true);
    const match = /^(-D|--directory|--template|--bind|--bind-ro|--overlay|--overlay-ro)(?:=(.*))?$|^(-D)(.+)$/s.exec(word.value);
    if (match === null) {
      if (word.value === '--' || !word.value.startsWith('-')) return;
      // Options taking the next word (systemd-nspawn --help): skipped with it.
      if (/^-[iMuESnp]$|^--(?:image|machine|user|setenv|chdir|pivot-root|uuid|slice|property|register|keep-unit|network-[\w-]+|private-users|capability|drop-capability|tmpfs|inaccessible|link-journal|resolv-conf|timezone|console|kill-signal|notify-ready|personality|hostname|oci-bundle|rlimit|oom-score-adjust|cpu-affinity|system-call-filter|port|volatile|load-credential|set-credential|settings|root-hash|root-hash-sig|verity-data|bind-user|suppress-sync)$/.test(word.value)) i++;
      continue;
    }
    const name = match[1] ?? match[3]!;
    const inline = match[2] ?? match[4];
    const value = inline !== undefined ? staticWord(inline) : args[++i];
    if (value === undefined) return;
    if (!value.isStatic) {
      mounted(paths, value, cwd, true);
      continue;
    }
    const writable = !name.endsWith('-ro');
    if (name === '--bind' || name === '--bind-ro') {
      // A source starting with `+` is below the container's own directory (-D, decided itself).
      const [source, dest] = value.value.split(':');
      if (!source!.startsWith('+') && !samePlace(staticWord(source!), dest)) mounted(paths, staticWord(source!), cwd, writable);
    } else if (name === '--overlay' || name === '--overlay-ro') {
      const parts = value.value.split(':');
      for (const part of parts.slice(0, -1)) if (part !== '' && !part.startsWith('+')) mounted(paths, staticWord(part), cwd, writable);
    } else mounted(paths, value, cwd, true);
  }
}

/** bwrap, proot and systemd-nspawn: programs the analyser does not otherwise know (their command's words stay candidates). */
export function sandboxMounts(name: string, args: readonly Word[], cwd: string | null): CommandPath[] {
  if (name !== 'bwrap' && name !== 'proot' && name !== 'systemd-nspawn') return [];
  const paths: CommandPath[] = [];
  if (name === 'bwrap') bwrap(args, cwd, paths);
  else if (name === 'proot') proot(args, cwd, paths);
  else nspawn(args, cwd, paths);
  return paths;
}

/**
 * A wrapper's new root or binds (wrappers.ts): `chroot DIR`, `unshare -R DIR`, `nsenter -r DIR`,
 * `sudo -R DIR` (`roots`, each a root the command runs under) and firejail's `--bind=A,B`,
 * `--chroot=DIR`, `--private=DIR` (its home), `--overlay-named` aside (words between the wrapper and its command).
 */
export function wrapperMounts(name: string, roots: readonly Word[], words: readonly Word[], cwd: string | null, paths: CommandPath[]): void {
  for (const root of roots) mounted(paths, root, cwd, true);
  if (name !== 'firejail') return;
  for (const word of words) {
    if (!word.isStatic) continue;
    const match = /^--(bind|chroot|private)=(.*)$/s.exec(word.value);
    if (match === null) continue;
    const [source, dest] = match[1] === 'bind' ? match[2]!.split(',') : [match[2]!];
    if (match[1] !== 'bind' || !samePlace(staticWord(source!), dest ?? '')) mounted(paths, staticWord(source!), cwd, true);
  }
}
