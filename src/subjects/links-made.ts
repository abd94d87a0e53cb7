import { lstatSync } from 'node:fs';
import { posix } from 'node:path';
import { GIT_REWRITE, INTO_DIRECTORY, LINK_TARGET, RECURSIVE } from '../policy/decide.js';
import type { PathSubject, Segment } from '../policy/types.js';

/**
 * Paths below a link that another command of the same text makes (docs/threat-model.md#links-made-by-the-text).
 * Paths are resolved before anything runs, so `ln -s keep k && rm -r k/deep` is decided as a removal
 * of `<cwd>/k/deep`, which does not exist yet, while bash removes `keep/deep`. Where such a link
 * leads is known only at run time: every path below it asks, and so does a write of the name itself
 * (`ln -s data/secret k && echo x > k` writes data/secret); a read of it is the link's own read.
 *
 * A name is made a link by `ln` (any form: its writes are the names it makes), `cp -s`, and `cp`,
 * `mv` or `rsync` of something that is a link (on disk, or made by an earlier command of the text) to
 * a destination. A directory holding links that is copied with them (`cp -r` without `-L`, `cp -a`,
 * `mv`, `rsync -a`) makes them again below the destination: `cp -r dir d2 && rm d2/link/x` removes
 * what dir/link points to. Each link its walk met (subjects/tree.ts, not followed) or that the text
 * made below it gives DEST/REL and DEST/PLACE/REL for each place the copy may put the source
 * (`placements`; whether DEST is a directory is known only at run time); a walk cut short at its
 * bound gives DEST itself.
 */

/** One command's path subjects: `own` its operands (in order), `all` with what its trees added. */
export interface SegmentPaths {
  segment: Segment;
  own: PathSubject[];
  all: PathSubject[];
}

/** Whether the command may make a link (only then are the paths of a text compared). */
export const makesLinks = (segment: Segment): boolean => segment.name === 'ln' || segment.name === 'cp' || segment.name === 'mv' || segment.name === 'rsync' || RENAMERS.has(segment.name ?? '') || isGit(segment);
/** rename moves a link, or (`-s`) re-points it: any name it writes may be a link (round 11 review, F20). */
const RENAMERS: ReadonlySet<string> = new Set(['rename.ul', 'rename', 'prename', 'file-rename', 'perl-rename']);
const isGit = (segment: Segment): boolean => segment.name === 'git' || segment.name?.startsWith('git-') === true;

export function markBelowLinksMade(commands: readonly SegmentPaths[]): void {
  const made: Array<{ by: number; name: string }> = [];
  commands.forEach((command, by) => {
    for (const name of namesMade(command, made.map((m) => m.name))) made.push({ by, name });
  });
  if (made.length === 0) return;
  commands.forEach((command, at) => {
    for (const subject of command.all) {
      const link = made.find(({ by, name }) => by !== at && [subject.path, subject.realPath].some((form) => form !== null && (form.startsWith(`${name.replace(/\/+$/, '')}/`) || (form === name && subject.access === 'write'))));
      if (link) subject.problem ??= `it is ${subject.path === link.name ? '' : 'below '}${link.name}, which the command makes a link: where it leads is known only when it runs`;
    }
  });
}

function namesMade({ segment, own: operands }: SegmentPaths, links: readonly string[]): string[] {
  const own = operands.filter((subject) => subject.via !== INTO_DIRECTORY);
  const forms = (subject: PathSubject | undefined): string[] => (subject === undefined ? [] : [subject.path, subject.realPath].filter((form): form is string => form !== null));
  // Where a symbolic link leads (LINK_TARGET) is not a name it makes.
  const writes = own.filter((subject) => subject.access === 'write' && subject.via !== LINK_TARGET);
  if (segment.name === 'ln' || RENAMERS.has(segment.name ?? '')) return writes.flatMap(forms);
  // A checkout may make tracked links anywhere in what it rewrites (`git checkout lnk && echo x >
  // l/secret` wrote through l -> /tmp/prot, git 2.39).
  if (isGit(segment)) return own.filter((subject) => subject.via === GIT_REWRITE).flatMap(forms);
  if (!makesLinks(segment)) return [];
  // rsync's `-t` keeps times; its destination is its last operand.
  const targetFirst = segment.name !== 'rsync' && segment.args.some((arg) => /^(-[A-Za-z]*t|--target-directory)/.test(arg));
  const destination = targetFirst ? writes[0] : writes.at(-1);
  if (destination === undefined) return [];
  const symbolic = segment.name === 'cp' && segment.args.some((arg) => /^-[A-Za-z]*s/.test(arg) || (arg.length > 2 && '--symbolic-link'.startsWith(arg))); // cp takes `--symb`
  const sources = own.filter((subject) => subject !== destination);
  if (symbolic || sources.some((source) => forms(source).some((form) => isLink(form) || links.some((link) => form === link || form.startsWith(`${link}/`))))) return forms(destination);
  return sources.flatMap((source) => {
    const held = heldLinks(source, links);
    const below = placements(source);
    return held.flatMap((rel) => forms(destination).flatMap((dest) => (rel === '' ? [dest] : ['', ...below].map((place) => posix.join(dest, place, rel)))));
  });
}

/**
 * Where a copy may put a source below its destination: its last name (`cp -r dir d2`), its whole
 * path as written (`cp -r --parents lk/dir d2` makes d2/lk/dir, cp(1)) and the part after a `/./`
 * (`rsync -R a/./dir d2` makes d2/dir, rsync(1)). All of them, whatever the options: a name too
 * many only asks for paths below it.
 */
function placements(source: PathSubject): string[] {
  const name = source.path?.replace(/\/+$/, '').split('/').at(-1);
  const whole = source.input.replace(/^\/+/, '').replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  const at = source.input.indexOf('/./');
  return [...(name ? [name] : []), whole, ...(at === -1 ? [] : [source.input.slice(at + 3).replace(/\/+$/, '')])].filter((place) => place !== '');
}

/**
 * The links below a source the command copies or moves as a tree, by their path below it: those its
 * walk met, and those the text made below it; '' (all of it) when the walk was cut short.
 */
function heldLinks(source: PathSubject, links: readonly string[]): string[] {
  if (source.via !== RECURSIVE) return [];
  if (source.tree?.complete === false) return [''];
  const made = [source.path, source.realPath].flatMap((form) => (form === null ? [] : links.filter((link) => link.startsWith(`${form}/`)).map((link) => link.slice(form.length + 1))));
  return [...(source.tree?.links ?? []), ...made];
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
