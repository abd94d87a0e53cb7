import { lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * Files git runs code from inside any git directory, not only `<worktree>/.git` (which the built-in
 * rules match by name): a bare repository (`repo.git/config`, `repo.git/hooks/*`), a `--git-dir` /
 * `GIT_DIR` elsewhere, the target of a `.git` file (`gitdir: …`, submodules and worktrees). A
 * directory is a git directory when its name ends in `.git`, or when it holds what git itself looks
 * for (setup.c `is_git_directory`): a `HEAD` file and `objects/` and `refs/` directories — checked on
 * disk at decision time, and only for paths whose tail names such a file (at most 3 stat calls for
 * each ancestor tried, 4 ancestors).
 *
 *   /srv/repo.git/hooks/post-update   → /srv/repo.git
 *   /w/vendor/x/config                → /w/vendor/x, when it holds HEAD, objects/ and refs/
 */

/** The part below the git directory that git runs code from (git-config(1), githooks(5), gitattributes(5)). */
const CODE_TAIL = /^(|config|config\.worktree|hooks(\/.*)?|info(\/attributes)?|worktrees\/[^/]+\/config\.worktree)$/;

const MAX_DEPTH = 4;

/**
 * The `via` of a directory the command itself makes a git directory (`git init --bare r`, `git clone
 * --mirror URL m`, `--separate-git-dir D`): not on disk when the call is decided, so writes to its
 * code files in the same call are matched against it (subjects/inspect.ts).
 */
export const GIT_DIRECTORY_MADE = 'git directory made by the command';

/**
 * The `via` of a word git takes for a remote's name or, when no remote has that name, for a local
 * repository (`git fetch prot HEAD` read ./prot, git 2.39): a recursive read when it is a
 * directory on disk, nothing otherwise (subjects/inspect.ts).
 */
export const GIT_REMOTE_NAME = 'remote name or local repository';

/**
 * The `via` of a configuration file a command points git at (`GIT_CONFIG_GLOBAL=F`, `HOME=D` for
 * D/.gitconfig, `XDG_CONFIG_HOME=D` for D/git/config): a write of it in the same call asks the same way.
 */
export const GIT_CONFIG_NAMED = 'git configuration named by the command';

/** True when `path` is one of the files git runs code from in the git directory `dir` (or `dir` itself). */
export function isGitCodeFile(dir: string, path: string): boolean {
  const rel = path === dir ? '' : path.startsWith(`${dir}/`) ? path.slice(dir.length + 1).replace(/\/+$/, '') : null;
  return rel !== null && CODE_TAIL.test(rel);
}

/** The git directory `path` (absolute, POSIX) is a code file of, or null. */
export function gitDirectoryOf(path: string): string | null {
  let dir = path.replace(/\/+$/, '') || '/';
  for (let depth = 0; depth < MAX_DEPTH && dir !== '/'; depth++) {
    const tail = path.slice(dir.length + 1).replace(/\/+$/, '');
    if (CODE_TAIL.test(tail) && (basename(dir).endsWith('.git') || isGitDirectory(dir))) return dir;
    dir = dirname(dir);
  }
  return null;
}

/** The git directory `path` is in or is (its own name or an ancestor's ends in `.git`, or holds HEAD, objects/ and refs/), or null. */
export function gitDirectoryAbove(path: string | null): string | null {
  if (path === null) return null;
  let dir = path.replace(/\/+$/, '') || '/';
  for (let depth = 0; depth < MAX_DEPTH && dir !== '/'; depth++) {
    if (basename(dir).endsWith('.git') || isGitDirectory(dir)) return dir;
    dir = dirname(dir);
  }
  return null;
}

function isGitDirectory(dir: string): boolean {
  // Without a thrown error for the usual answer, "not there" (docs/performance.md, "End of round 12").
  const isA = (path: string, directory: boolean): boolean => {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat !== undefined && (directory ? stat.isDirectory() : stat.isFile());
  };
  try {
    return isA(`${dir}/HEAD`, false) && isA(`${dir}/objects`, true) && isA(`${dir}/refs`, true);
  } catch {
    return false;
  }
}

/**
 * The top of the git working tree `dir` (a real path) is in: the nearest directory at or above it
 * holding `.git` (a directory, or a file `gitdir: …` for worktrees and submodules), as git's
 * discovery walks (git(1), setup.c). Null when there is none, or when `core.worktree` in the
 * repository's config moves the tree elsewhere (git-config(1)): then only git knows it.
 */
export function workTreeOf(dir: string): string | null {
  for (let at = dir; ; at = dirname(at)) {
    const gitDir = gitDirectoryAt(`${at === '/' ? '' : at}/.git`);
    if (gitDir !== undefined) return gitDir === null || movesWorkTree(gitDir, at) ? null : at;
    if (at === '/') return null;
  }
}

/** True when git finds no repository from `dir` (a real path): no `.git` at or above it, and it is not inside a git directory. */
export function outsideRepositories(dir: string): boolean {
  if (gitDirectoryAbove(dir) !== null) return false;
  for (let at = dir; ; at = dirname(at)) {
    if (gitDirectoryAt(`${at === '/' ? '' : at}/.git`) !== undefined) return false;
    if (at === '/') return true;
  }
}

/** The git directory of the working tree whose top is `top` (its `.git`, or what a `.git` file names); null when none. */
export function gitDirectoryOfTree(top: string): string | null {
  return gitDirectoryAt(`${top === '/' ? '' : top}/.git`) ?? null;
}

/**
 * The git directory a `.git` entry names: itself, the `gitdir:` of a `.git` file; null when unreadable;
 * undefined when absent, or a directory git does not take for one (setup.c: git then walks on up, so
 * `mkdir -p src/.git/x; cd src; git reset --hard` rewrote the outer tree: docs/threat-model.md#git-rewrites-tracked-files).
 */
function gitDirectoryAt(entry: string): string | null | undefined {
  try {
    if (lstatSync(entry).isDirectory()) return isGitDirectory(entry) && validHead(entry) ? entry : undefined;
    const named = /^gitdir: (.+)$/m.exec(readFileSync(entry, 'utf8'))?.[1]?.trim();
    return named === undefined ? null : named.startsWith('/') ? named : `${dirname(entry)}/${named}`;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? undefined : null;
  }
}

/**
 * setup.c validate_headref: HEAD a link into `refs/`, or a file holding `ref: refs/…` or an object
 * id. Anything else and git skips the directory; taking fewer for valid only moves the top up, over
 * more of the tree.
 */
function validHead(dir: string): boolean {
  try {
    if (lstatSync(`${dir}/HEAD`).isSymbolicLink()) return readlinkSync(`${dir}/HEAD`).startsWith('refs/');
    return /^(ref:\s*refs\/|[0-9a-f]{40})/.test(readFileSync(`${dir}/HEAD`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * True when a config git reads for this git directory (its own, `config.worktree`, the common one)
 * sets core.worktree to another directory than `top` (a submodule's points back at itself); an
 * unreadable one counts.
 */
function movesWorkTree(gitDir: string, top: string): boolean {
  const files = [`${gitDir}/config`, `${gitDir}/config.worktree`];
  try {
    files.push(`${gitDir}/${readFileSync(`${gitDir}/commondir`, 'utf8').trim()}/config`);
  } catch {
    // No commondir: a main working tree.
  }
  return files.some((file) => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      return (error as NodeJS.ErrnoException).code !== 'ENOENT';
    }
    // Any `worktree` key, also on a section's line (`[core] worktree = X`, git accepts it); a value
    // git would unquote or cut at a comment counts as elsewhere.
    return [...text.matchAll(/(?:^|\])[ \t]*worktree[ \t]*(?:=[ \t]*(.*?))?[ \t]*$/gim)].some(([, value]) => {
      if (value === undefined || /["\\;#]/.test(value)) return true;
      try {
        return realpathSync(value!.startsWith('/') ? value! : `${gitDir}/${value}`) !== top;
      } catch {
        return true;
      }
    });
  });
}
