import { readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, normalize } from 'node:path';
import type { DiskLookups } from './disk-lookups.js';

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

/**
 * The part below the git directory that git runs code from (git-config(1), githooks(5), gitattributes(5)),
 * or that tells git where those are (gitrepository-layout(5): `commondir` moves config, hooks/ and
 * info/ to the directory it names; a linked worktree's `commondir` and `gitdir`), or where its objects
 * are (`objects/info/alternates`: another repository's objects, printed as this one's).
 */
const CODE_TAIL = /^(|config|config\.worktree|commondir|hooks(\/.*)?|info(\/attributes)?|objects\/info\/(http-)?alternates|worktrees\/[^/]+\/(config\.worktree|commondir|gitdir))$/;

/**
 * What makes a directory a git directory (setup.c is_git_directory: HEAD, objects/, refs/, or a
 * commondir naming where objects/ and refs/ are), and what in it is code. Writing one of the first
 * into a directory that already holds the second turns files written freely before into code (round
 * 13 review, A10: config and info/attributes planted in src/b, then src/b/HEAD).
 */
const ACTIVATES = /^(HEAD|objects|refs|commondir)(\/|$)/;
const CODE_MARKERS: ReadonlyArray<[string, boolean]> = [['config', false], ['config.worktree', false], ['commondir', false], ['hooks', true], ['info/attributes', false]];

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

/**
 * The `via` of the repository's own configuration file that `git config` writes a setting into that
 * runs code or redirects a URL (`core.pager`, `alias.x=!cmd`, `url.B.insteadOf`), or that `--edit`
 * and `--rename-section` change: found on disk as policy/decide.ts GIT_CONFIG_SETTING is, and decided
 * as a plain write of it, which the built-in ask on git's code files meets (round 28).
 */
export const GIT_CONFIG_CODE = 'repository configuration git config writes code into';

/**
 * The configuration files of the repository git finds from `dir` (a real path) that `git config`
 * writes (git-config(1) FILES: `$GIT_COMMON_DIR/config`; `--worktree`: `$GIT_DIR/config.worktree`
 * when extensions.worktreeConfig is on, else the common one, so both), or null when git finds none
 * (then git config stops and writes nothing). Throws when git would stop with an error.
 */
export function repositoryConfigFiles(dir: string, disk: DiskLookups, worktree: boolean): string[] | null {
  const found = repositoryFrom(dir, disk);
  if (found === null) return null;
  return worktree ? [`${found.gitDir}/config.worktree`, `${found.commonDir}/config`] : [`${found.commonDir}/config`];
}

/** The git directory of the repository git finds from `dir` (a real path), or null (repositoryConfigFiles' discovery). Throws when git would stop with an error. */
export function repositoryGitDirectory(dir: string, disk: DiskLookups): string | null {
  return repositoryFrom(dir, disk)?.gitDir ?? null;
}

/**
 * The `via` of the directory a git command runs in (files.ts): subjects/inspect.ts finds the
 * repository git finds from there (repositoryProblem) and asks when its code files are not ones the
 * built-in rules protect.
 */
export const GIT_REPOSITORY_FOUND = 'repository git finds from its working directory';

/**
 * Why git run in `dir` (a real path) may run code no rule saw, or null: the git directory and common
 * directory it finds there as setup.c does (setup_git_directory_gently: `.git` directory or `gitdir:`
 * file, else the directory itself when it is a git directory — a bare repository — walking up; its
 * common directory from `commondir`) are not ones whose config, hooks and info/attributes the
 * built-in rules protect by name (`<x>/.git`, `<x>.git`, `.git/modules/…`, `.git/worktrees/<id>`).
 * The protection of a git directory known only by its shape starts when it has that shape: files
 * written before (a config planted in src/b before src/b/HEAD), or in a directory a `commondir`
 * points at, were never asked about (round 13 review, A10, A14; docs/threat-model.md#files-and-settings-git-runs-code-from).
 */
export function repositoryProblem(dir: string, disk: DiskLookups): string | null {
  let found: Repository | null;
  try {
    found = repositoryFrom(dir, disk);
  } catch {
    return `the repository git finds from ${dir} cannot be read`;
  }
  if (found === null) return null;
  const { gitDir, commonDir } = found;
  const named = (path: string): boolean => basename(path).endsWith('.git') || MODULE.test(path);
  if (named(commonDir) && (gitDir === commonDir || named(gitDir) || WORKTREE.test(gitDir))) return null;
  const where = gitDir === commonDir ? gitDir : `${gitDir} (common directory ${commonDir})`;
  return `git finds its repository at ${where}: its config, hooks and info/attributes there are not in a .git directory the built-in rules protect, so what git runs from them was never decided`;
}

const MODULE = /\/\.git\/modules\/./;
const WORKTREE = /\.git\/worktrees\/[^/]+$/;

/**
 * Where a path a call writes (a real path) is code of the repository it is in: `hooks`, in the
 * hooks directory its `core.hooksPath` names (git-config(1); its local config, config.worktree, the
 * global and system files): a hook written there runs at the next `git commit` as one in
 * `.git/hooks` does (round 13 review, A5: `.husky/pre-commit` then `git commit`, husky's
 * `core.hooksPath=.husky`); `include`, a file one of those configs includes (`include.path`,
 * `includeIf.<condition>.path`): its settings are the repository's (`core.fsmonitor` runs at the next
 * `git status`). A relative hooks path is taken from the working tree's top (from the git directory
 * in a bare one); husky 9's `.husky/_` runs the scripts of its parent, so that counts too. Null when
 * none; the repository's directory when a config cannot be read (fails closed).
 */
export function hooksDirectoryOf(path: string, home: string, disk: DiskLookups): { dir: string; include: boolean } | null {
  let found: Repository | null;
  try {
    found = repositoryFrom(dirname(path), disk);
  } catch {
    return { dir: dirname(path), include: false };
  }
  if (found === null) return null;
  const { hooks: directories, includes } = hooksDirectories(found, home, disk);
  if (includes.includes(path)) return { dir: path, include: true };
  for (const hooks of directories) {
    if (hooks === null) return { dir: found.gitDir, include: false };
    if (path === hooks || path.startsWith(`${hooks}/`)) return { dir: hooks, include: false };
  }
  return null;
}

/**
 * The directories the `core.hooksPath` values of a repository's config files name (its local
 * config, config.worktree, the global and system files, and the files they include), each as named
 * and as real, in the order git reads the files; null where a file cannot be read (then the hooks
 * path is unknown). `includes`: the files included, as named and as real, there or not. Worked out
 * once per repository in a decision, however many paths it writes.
 */
function hooksDirectories(found: Repository, home: string, disk: DiskLookups): { hooks: Array<string | null>; includes: string[] } {
  return disk.once(`H${home}\0${found.gitDir}\0${found.commonDir}\0${found.top}`, () => {
    const out: Array<string | null> = [];
    const includes: string[] = [];
    const xdg = process.env.XDG_CONFIG_HOME || `${home}/.config`;
    const queue = [`${found.commonDir}/config`, `${found.gitDir}/config.worktree`, `${home}/.gitconfig`, `${xdg}/git/config`, '/etc/gitconfig'].map((file) => ({ file, depth: 0 }));
    for (let i = 0; i < queue.length; i++) {
      const { file, depth } = queue[i]!;
      let values: string[];
      try {
        const facts = configFactsIn(file);
        values = facts.hooks;
        // git-config(1) "Includes": a relative path from the including file's directory, `~/` from
        // the home; every condition taken as true (one git skips only adds a file). git stops past
        // 10 levels, and `%(prefix)/` is its install's: unknown, as an unreadable file.
        for (const value of facts.includes) {
          if (depth >= 10 || value.startsWith('%(')) throw new Error('include not followed');
          const named = normalize(value.startsWith('~/') ? `${home}${value.slice(1)}` : value.startsWith('/') ? value : `${dirname(file)}/${value}`);
          includes.push(named);
          try {
            includes.push(disk.realpath(named));
          } catch {
            // Not there yet: where its directory really is.
            try {
              includes.push(`${disk.realpath(dirname(named))}/${basename(named)}`);
            } catch {
              // Nor its directory: as named.
            }
          }
          queue.push({ file: named, depth: depth + 1 });
        }
      } catch {
        out.push(null);
        return { hooks: out, includes };
      }
      for (const value of values) {
        const named = value.startsWith('~/') ? `${home}${value.slice(1)}` : value.startsWith('/') ? value : `${found.top ?? found.gitDir}/${value}`;
        const dirs = [named.replace(/\/+$/, '')];
        if (basename(dirs[0]!) === '_') dirs.push(dirname(dirs[0]!));
        for (const dir of dirs) {
          let real = dir;
          try {
            real = disk.realpath(dir);
          } catch {
            // Not there yet: as named.
          }
          out.push(dir);
          if (real !== dir) out.push(real);
        }
      }
    }
    return { hooks: out, includes };
  });
}

interface ConfigFacts {
  hooks: string[];
  includes: string[];
}

/**
 * The `core.hooksPath` values and the included paths of a config file, kept while its inode, size,
 * mtime and ctime stay (a write changes ctime, which no one sets by hand): one `stat` per file and
 * write, not a read.
 */
function configFactsIn(file: string): ConfigFacts {
  const stat = statSync(file, { throwIfNoEntry: false, bigint: true });
  if (stat === undefined) return NO_FACTS;
  const key = `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
  const kept = configFactsKept.get(file);
  if (kept?.key === key) return kept.facts;
  const text = readFileSync(file, 'utf8');
  const facts = /path/i.test(text) ? configFacts(text) : NO_FACTS;
  if (configFactsKept.size > 64) configFactsKept.clear();
  configFactsKept.set(file, { key, facts });
  return facts;
}

const NO_FACTS: ConfigFacts = { hooks: [], includes: [] };
const configFactsKept = new Map<string, { key: string; facts: ConfigFacts }>();

/**
 * Every `core.hooksPath` value of a config file's text (any of them may be the one git takes: all
 * count), and every `path` of an `[include]` or `[includeIf "…"]` section. A value continued on the
 * next line or with escapes is not read here: it throws (the file counts as unreadable).
 */
function configFacts(text: string): ConfigFacts {
  const facts: ConfigFacts = { hooks: [], includes: [] };
  let section = '';
  for (const line of text.split('\n')) {
    let rest = line;
    const header = /^\s*\[\s*([^\]\s"]+)[^\]]*\]/.exec(rest);
    if (header) {
      section = header[1]!.toLowerCase();
      rest = rest.slice(header[0].length);
    }
    const entry = /^\s*(hookspath|path)\s*=\s*(.*)$/i.exec(rest);
    if (!entry) continue;
    const list = entry[1]!.toLowerCase() === 'hookspath' ? (section === 'core' ? facts.hooks : null) : /^include(if)?(\.|$)/.test(section) ? facts.includes : null;
    if (list === null) continue;
    let value = entry[2]!.replace(/\s[#;].*$/, '').trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (value.includes('\\') || value.includes('"')) throw new Error('a config value not read here');
    if (value !== '') list.push(value);
  }
  return facts;
}

/** A repository git finds: the real paths of its git directory and common directory, and the working tree's top (null for a bare one). */
interface Repository {
  gitDir: string;
  commonDir: string;
  top: string | null;
}

/**
 * setup.c's discovery from `dir`: the repository git finds, or null when it finds none. Throws when
 * git would stop with an error (the same error for every ask of the decision: DiskLookups.once).
 */
function repositoryFrom(dir: string, disk: DiskLookups): Repository | null {
  return disk.once(`R${dir}`, () => {
    for (let at = dir; ; at = dirname(at)) {
      const entry = `${at === '/' ? '' : at}/.git`;
      // `dir` is a real path: a `.git` that is no link is its own real path (one lookup less).
      const link = disk.lstat(entry);
      const stat = link?.isSymbolicLink() ? disk.stat(entry) : link;
      let gitDir: string | null = null;
      let common: string | null = null;
      if (stat?.isFile()) {
        // read_gitfile_gently: `gitdir: PATH`, relative to the file's directory; not a git directory and git stops.
        const text = disk.text(entry);
        if (!text.startsWith('gitdir: ')) throw new Error('invalid gitfile');
        const named = text.slice(8).replace(/[\r\n]+$/, '');
        gitDir = named.startsWith('/') ? named : `${dirname(entry)}/${named}`;
        common = repositoryCommon(gitDir, disk);
        if (common === null) throw new Error('gitfile names no repository');
      } else if (stat !== undefined && (common = repositoryCommon(entry, disk)) !== null) {
        gitDir = entry;
      } else if ((common = repositoryCommon(at, disk)) !== null) {
        gitDir = at;
      }
      if (gitDir === null || common === null) {
        if (at === '/') return null;
        continue;
      }
      const real = gitDir === at || (gitDir === entry && !link!.isSymbolicLink()) ? gitDir : disk.realpath(gitDir);
      return { gitDir: real, commonDir: common === gitDir ? real : disk.realpath(common), top: gitDir === at ? null : at };
    }
  });
}

/** setup.c is_git_directory: a valid HEAD, and objects/ and refs/ in the common directory; that directory, or null. */
function repositoryCommon(dir: string, disk: DiskLookups): string | null {
  if (!validHead(dir, disk)) return null;
  const common = commonDirectory(dir, disk);
  return disk.stat(`${common}/objects`) !== undefined && disk.stat(`${common}/refs`) !== undefined ? common : null;
}

/** True when `path` is one of the files git runs code from in the git directory `dir` (or `dir` itself). */
export function isGitCodeFile(dir: string, path: string): boolean {
  const rel = path === dir ? '' : path.startsWith(`${dir}/`) ? path.slice(dir.length + 1).replace(/\/+$/, '') : null;
  return rel !== null && CODE_TAIL.test(rel);
}

/**
 * The git directory `path` (absolute, POSIX) is a code file of, or null; also the directory a write
 * of `path` would make a git directory when it already holds code (ACTIVATES).
 */
export function gitDirectoryOf(path: string, disk: DiskLookups): string | null {
  let dir = path.replace(/\/+$/, '') || '/';
  for (let depth = 0; depth < MAX_DEPTH && dir !== '/'; depth++) {
    const tail = path.slice(dir.length + 1).replace(/\/+$/, '');
    if (CODE_TAIL.test(tail) && (basename(dir).endsWith('.git') || isGitDirectory(dir, disk))) return dir;
    if (ACTIVATES.test(tail) && holdsCode(dir, disk) && !isGitDirectory(dir, disk)) return dir;
    dir = dirname(dir);
  }
  return null;
}

function holdsCode(dir: string, disk: DiskLookups): boolean {
  return CODE_MARKERS.some(([name, directory]) => {
    try {
      const stat = disk.stat(`${dir}/${name}`);
      return stat !== undefined && (directory ? stat.isDirectory() : stat.isFile());
    } catch {
      return true;
    }
  });
}

/** The git directory `path` is in or is (its own name or an ancestor's ends in `.git`, or holds HEAD, objects/ and refs/), or null. */
export function gitDirectoryAbove(path: string | null, disk: DiskLookups): string | null {
  if (path === null) return null;
  let dir = path.replace(/\/+$/, '') || '/';
  for (let depth = 0; depth < MAX_DEPTH && dir !== '/'; depth++) {
    if (basename(dir).endsWith('.git') || isGitDirectory(dir, disk)) return dir;
    dir = dirname(dir);
  }
  return null;
}

function isGitDirectory(dir: string, disk: DiskLookups): boolean {
  // Without a thrown error for the usual answer, "not there" (docs/performance.md, "End of round 12").
  const isA = (path: string, directory: boolean): boolean => {
    const stat = disk.stat(path);
    return stat !== undefined && (directory ? stat.isDirectory() : stat.isFile());
  };
  try {
    if (!isA(`${dir}/HEAD`, false)) return false;
    if (isA(`${dir}/objects`, true) && isA(`${dir}/refs`, true)) return true;
    // A linked worktree's git directory, or one planted beside another's: objects/ and refs/ are where commondir says.
    const common = commonDirectory(dir, disk);
    return common !== dir && isA(`${common}/objects`, true) && isA(`${common}/refs`, true);
  } catch {
    return false;
  }
}

/**
 * The common directory of the git directory `dir` (setup.c get_common_dir_noenv): what its
 * `commondir` file names, trailing newlines cut, relative to `dir`; `dir` itself without one. Not
 * resolved through links (callers compare real paths of their own).
 */
function commonDirectory(dir: string, disk: DiskLookups): string {
  // Without a thrown error for the usual answer, "no commondir" (docs/performance.md, "End of round 12").
  const text = readIfThere(`${dir}/commondir`, disk);
  if (text === null) return dir;
  const named = text.replace(/[\r\n]+$/, '');
  return named.startsWith('/') ? named : `${dir}/${named}`;
}

/**
 * The top of the git working tree `dir` (a real path) is in: the nearest directory at or above it
 * holding `.git` (a directory, or a file `gitdir: …` for worktrees and submodules), as git's
 * discovery walks (git(1), setup.c). Null when there is none, or when `core.worktree` in the
 * repository's config moves the tree elsewhere (git-config(1)): then only git knows it.
 */
export function workTreeOf(dir: string, disk: DiskLookups): string | null {
  return disk.once(`W${dir}`, () => {
    for (let at = dir; ; at = dirname(at)) {
      const gitDir = gitDirectoryAt(`${at === '/' ? '' : at}/.git`, disk);
      if (gitDir !== undefined) return gitDir === null || movesWorkTree(gitDir, at, disk) ? null : at;
      if (at === '/') return null;
    }
  });
}

/** True when git finds no repository from `dir` (a real path): no `.git` at or above it, and it is not inside a git directory. */
export function outsideRepositories(dir: string, disk: DiskLookups): boolean {
  if (gitDirectoryAbove(dir, disk) !== null) return false;
  for (let at = dir; ; at = dirname(at)) {
    if (gitDirectoryAt(`${at === '/' ? '' : at}/.git`, disk) !== undefined) return false;
    if (at === '/') return true;
  }
}

/**
 * The `info/exclude` git reads for the working tree whose top is `top` (gitignore(5)): in the
 * common directory of its git directory. Null when there is no git directory or it cannot be read.
 */
export function excludeFileOf(top: string, disk: DiskLookups): string | null {
  const gitDir = gitDirectoryOfTree(top, disk);
  if (gitDir === null) return null;
  try {
    return `${commonDirectory(gitDir, disk)}/info/exclude`;
  } catch {
    return null;
  }
}

/** The git directory of the working tree whose top is `top` (its `.git`, or what a `.git` file names); null when none. */
export function gitDirectoryOfTree(top: string, disk: DiskLookups): string | null {
  return gitDirectoryAt(`${top === '/' ? '' : top}/.git`, disk) ?? null;
}

/**
 * The git directory a `.git` entry names: itself, the `gitdir:` of a `.git` file; null when unreadable;
 * undefined when absent, or a directory git does not take for one (setup.c: git then walks on up, so
 * `mkdir -p src/.git/x; cd src; git reset --hard` rewrote the outer tree: docs/threat-model.md#git-rewrites-tracked-files).
 */
function gitDirectoryAt(entry: string, disk: DiskLookups): string | null | undefined {
  try {
    const stat = disk.lstat(entry);
    if (stat === undefined) return undefined;
    if (stat.isDirectory()) return isGitDirectory(entry, disk) && validHead(entry, disk) ? entry : undefined;
    const named = /^gitdir: (.+)$/m.exec(disk.text(entry))?.[1]?.trim();
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
function validHead(dir: string, disk: DiskLookups): boolean {
  try {
    const stat = disk.lstat(`${dir}/HEAD`);
    if (stat === undefined) return false;
    if (stat.isSymbolicLink()) return disk.readlink(`${dir}/HEAD`).startsWith('refs/');
    // git reads at most 255 bytes of it.
    return /^(ref:\s*refs\/|[0-9a-f]{40})/i.test(disk.head(`${dir}/HEAD`));
  } catch {
    return false;
  }
}

/**
 * True when a config git reads for this git directory (its own, `config.worktree`, the common one)
 * sets core.worktree to another directory than `top` (a submodule's points back at itself); an
 * unreadable one counts.
 */
function movesWorkTree(gitDir: string, top: string, disk: DiskLookups): boolean {
  let files: string[];
  try {
    const common = commonDirectory(gitDir, disk);
    files = [`${gitDir}/config`, `${gitDir}/config.worktree`, ...(common === gitDir ? [] : [`${common}/config`])];
  } catch {
    return true;
  }
  return files.some((file) => {
    let text: string | null;
    try {
      text = readIfThere(file, disk);
    } catch {
      return true;
    }
    if (text === null) return false;
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

/**
 * A small file's text, or null when it is not there; other errors are thrown. Without a thrown
 * error for the usual answer, "not there" (docs/performance.md, "End of round 12").
 */
function readIfThere(path: string, disk: DiskLookups): string | null {
  return disk.stat(path) === undefined ? null : disk.text(path);
}
