import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DiskLookups } from '../../src/subjects/disk-lookups.js';
import { excludeFileOf, gitDirectoryAbove, gitDirectoryOf, gitDirectoryOfTree, hooksDirectoryOf, outsideRepositories, repositoryProblem, workTreeOf } from '../../src/subjects/git-dir.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { tempDir } from '../helpers/gateway.js';
import { shellDecider } from '../helpers/policy.js';
import { rng } from '../helpers/random.js';

/**
 * One decision looks each path up in git's directories once (DiskLookups, docs/performance.md
 * "Round 14: decision time"): what it answers is what the lookup itself answers, errors included,
 * and the git checks that share it answer as they do alone, on the repositories that are found in
 * other ways than a plain `.git` directory. Nothing is kept across decisions.
 */

let T = '';
let home = '';
const gitEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GIT_CONFIG_NOSYSTEM: '1' });
const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd, env: gitEnv() }).toString().trim();

function repository(dir: string): void {
  fs.mkdirSync(join(dir, 'src'), { recursive: true });
  fs.writeFileSync(join(dir, 'README'), 'hi\n');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', 'README');
  git(dir, 'commit', '-qm', 'i');
}

beforeAll(async () => {
  await initShellParser();
  T = tempDir('mcp-latch-disk-');
  home = join(T, 'home');
  fs.mkdirSync(home);
  // A plain repository, with a linked worktree (found through a `.git` file and its commondir) and
  // a submodule-style `.git` file with a relative gitdir.
  repository(join(T, 'plain'));
  git(join(T, 'plain'), 'worktree', 'add', '-q', join(T, 'linked'));
  fs.mkdirSync(join(T, 'sub', 'src'), { recursive: true });
  fs.writeFileSync(join(T, 'sub', '.git'), 'gitdir: ../plain/.git\n');
  // commondir naming a directory outside any .git (round 13 review, A14).
  repository(join(T, 'moved'));
  fs.mkdirSync(join(T, 'moved', 'evil', 'objects'), { recursive: true });
  fs.mkdirSync(join(T, 'moved', 'evil', 'refs'), { recursive: true });
  fs.writeFileSync(join(T, 'moved', 'evil', 'config'), '[core]\n\thooksPath = .husky\n');
  fs.writeFileSync(join(T, 'moved', '.git', 'commondir'), '../evil\n');
  // core.hooksPath in the repository's config (husky 9: `.husky/_` runs its parent's scripts too).
  repository(join(T, 'husky'));
  fs.mkdirSync(join(T, 'husky', '.husky', '_'), { recursive: true });
  git(join(T, 'husky'), 'config', 'core.hooksPath', '.husky/_');
  // A bare repository by shape, planted in src/b (round 13 review, A10).
  repository(join(T, 'planted'));
  fs.mkdirSync(join(T, 'planted', 'src', 'b', 'objects'), { recursive: true });
  fs.mkdirSync(join(T, 'planted', 'src', 'b', 'refs'), { recursive: true });
  fs.writeFileSync(join(T, 'planted', 'src', 'b', 'config'), '[core]\n');
  fs.writeFileSync(join(T, 'planted', 'src', 'b', 'HEAD'), 'ref: refs/heads/main\n');
  // `.git` entries that cannot be read: a link to itself (ELOOP), a file that names nothing, a link to a directory.
  for (const name of ['loop', 'badfile', 'linkdir']) fs.mkdirSync(join(T, name, 'src'), { recursive: true });
  fs.symlinkSync('.git', join(T, 'loop', '.git'));
  fs.writeFileSync(join(T, 'badfile', '.git'), 'not a gitdir line\n');
  fs.symlinkSync(join(T, 'plain', '.git'), join(T, 'linkdir', '.git'));
  // No repository at all below T (the walk goes on to /).
  fs.mkdirSync(join(T, 'none', 'src'), { recursive: true });
  // Entries for the lookups themselves: a file, links to a file, a directory, nowhere and themselves.
  fs.writeFileSync(join(T, 'none', 'f'), 'ref: refs/heads/main\n');
  fs.symlinkSync('f', join(T, 'none', 'tofile'));
  fs.symlinkSync('src', join(T, 'none', 'todir'));
  fs.symlinkSync(join(T, 'nowhere'), join(T, 'none', 'dang'));
  fs.symlinkSync('self', join(T, 'none', 'self'));
});

afterAll(() => fs.rmSync(T, { recursive: true, force: true }));

type Outcome = string;

/** What a lookup gave, in a form to compare: the entry's inode and type, a text, undefined, or the error's code. */
function outcome(look: () => unknown): Outcome {
  try {
    const value = look();
    if (value instanceof fs.Stats) return `stats ${value.ino} ${value.mode}`;
    return JSON.stringify(value) ?? 'undefined';
  } catch (error) {
    return `error ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
}

type Lookup = 'lstat' | 'stat' | 'text' | 'readlink' | 'realpath' | 'head';
const direct: Record<Lookup, (path: string) => unknown> = {
  lstat: (path) => fs.lstatSync(path, { throwIfNoEntry: false }),
  stat: (path) => fs.statSync(path, { throwIfNoEntry: false }),
  text: (path) => fs.readFileSync(path, 'utf8'),
  readlink: (path) => fs.readlinkSync(path),
  realpath: (path) => fs.realpathSync.native(path),
  head: (path) => fs.readFileSync(path, 'latin1').slice(0, 255),
};

describe('DiskLookups', () => {
  test('answers each lookup as the lookup itself does, in any order, below files, links and names not there', () => {
    const names = ['f', 'tofile', 'todir', 'dang', 'self', 'src', 'missing'];
    const paths: string[] = [];
    for (const a of names) {
      paths.push(join(T, 'none', a));
      for (const b of [...names, 'HEAD']) paths.push(join(T, 'none', a, b));
    }
    const ops = Object.keys(direct) as Lookup[];
    const expected = new Map<string, Outcome>();
    for (const path of paths) for (const op of ops) expected.set(`${op} ${path}`, outcome(() => direct[op](path)));
    // Lookups asked in random orders, each several times, by one DiskLookups per round (one decision).
    const r = rng(14);
    let inferred = 0;
    for (let round = 0; round < 40; round++) {
      const disk = new DiskLookups();
      const asked = new Set<string>();
      for (let i = 0; i < 400; i++) {
        const path = paths[Math.floor(r() * paths.length)]!;
        const op = ops[Math.floor(r() * ops.length)]!;
        // stat after an lstat of the path or of its directory is answered from them.
        if (op === 'stat' && !asked.has(`stat ${path}`) && (asked.has(`lstat ${path}`) || asked.has(`lstat ${path.slice(0, path.lastIndexOf('/'))}`))) inferred++;
        asked.add(`${op} ${path}`);
        expect(outcome(() => disk[op](path)), `${op} ${path}`).toBe(expected.get(`${op} ${path}`));
      }
    }
    expect(inferred).toBeGreaterThan(100);
  });

  test('a lookup answered once is answered the same for the rest of the decision', () => {
    const disk = new DiskLookups();
    const file = join(T, 'none', 'changing');
    expect(disk.lstat(file)).toBeUndefined();
    fs.writeFileSync(file, 'x');
    try {
      expect(disk.lstat(file)).toBeUndefined();
      expect(disk.stat(file)).toBeUndefined();
      expect(new DiskLookups().lstat(file)?.isFile()).toBe(true);
    } finally {
      fs.rmSync(file);
    }
  });
});

describe('the git checks with one DiskLookups per decision', () => {
  test('answer as each does alone, asked in any order, on repositories found through .git files, commondir, hooksPath and unreadable .git entries', () => {
    const tops = ['plain', 'linked', 'sub', 'moved', 'husky', 'planted', 'loop', 'badfile', 'linkdir', 'none'].map((name) => join(T, name));
    const dirs = tops.flatMap((top) => [top, join(top, 'src'), join(top, '.git'), join(top, 'src', 'b'), join(top, 'evil'), join(top, '.husky', '_')]);
    const paths = dirs.flatMap((dir) => [join(dir, 'new.ts'), join(dir, 'pre-commit'), join(dir, 'config'), join(dir, 'HEAD'), join(dir, 'hooks', 'pre-push'), join(dir, 'objects')]);
    const checks: Array<[string, (disk: DiskLookups) => unknown]> = [
      ...dirs.flatMap((dir): Array<[string, (disk: DiskLookups) => unknown]> => [
        [`repositoryProblem ${dir}`, (disk) => repositoryProblem(dir, disk)],
        [`workTreeOf ${dir}`, (disk) => workTreeOf(dir, disk)],
        [`outsideRepositories ${dir}`, (disk) => outsideRepositories(dir, disk)],
        [`gitDirectoryOfTree ${dir}`, (disk) => gitDirectoryOfTree(dir, disk)],
        [`gitDirectoryAbove ${dir}`, (disk) => gitDirectoryAbove(dir, disk)],
        [`excludeFileOf ${dir}`, (disk) => excludeFileOf(dir, disk)],
      ]),
      ...paths.flatMap((path): Array<[string, (disk: DiskLookups) => unknown]> => [
        [`hooksDirectoryOf ${path}`, (disk) => hooksDirectoryOf(path, home, disk)],
        [`gitDirectoryOf ${path}`, (disk) => gitDirectoryOf(path, disk)],
      ]),
    ];
    const alone = new Map(checks.map(([name, check]) => [name, outcome(() => check(new DiskLookups()))]));
    // Not vacuous: each kind of repository gives its own answer.
    expect(alone.get(`repositoryProblem ${join(T, 'plain', 'src')}`)).toBe('null');
    expect(alone.get(`repositoryProblem ${join(T, 'linked')}`)).toBe('null');
    expect(alone.get(`repositoryProblem ${join(T, 'sub', 'src')}`)).toBe('null');
    expect(alone.get(`repositoryProblem ${join(T, 'moved')}`)).toContain('common directory');
    expect(alone.get(`repositoryProblem ${join(T, 'planted', 'src', 'b')}`)).toContain('git finds its repository at');
    expect(alone.get(`repositoryProblem ${join(T, 'loop', 'src')}`)).toContain('cannot be read');
    expect(alone.get(`repositoryProblem ${join(T, 'badfile')}`)).toContain('cannot be read');
    expect(alone.get(`repositoryProblem ${join(T, 'none', 'src')}`)).toBe('null');
    expect(alone.get(`hooksDirectoryOf ${join(T, 'husky', '.husky', '_', 'pre-commit')}`)).toBe(JSON.stringify({ dir: join(T, 'husky', '.husky', '_'), include: false }));
    expect(alone.get(`hooksDirectoryOf ${join(T, 'husky', 'src', 'pre-commit')}`)).toBe('null');
    expect(alone.get(`hooksDirectoryOf ${join(T, 'loop', 'src', 'new.ts')}`)).toBe(JSON.stringify({ dir: join(T, 'loop', 'src'), include: false }));
    expect(alone.get(`workTreeOf ${join(T, 'linked', 'src')}`)).toBe(JSON.stringify(join(T, 'linked')));
    expect(alone.get(`workTreeOf ${join(T, 'linkdir', 'src')}`)).toBe('null');
    expect(alone.get(`gitDirectoryOfTree ${join(T, 'sub')}`)).toBe(JSON.stringify(`${T}/sub/../plain/.git`));
    expect(alone.get(`gitDirectoryOf ${join(T, 'planted', 'src', 'b', 'config')}`)).toBe(JSON.stringify(join(T, 'planted', 'src', 'b')));
    expect(alone.get(`outsideRepositories ${join(T, 'none', 'src')}`)).toBe('true');
    expect(alone.get(`excludeFileOf ${join(T, 'moved')}`)).toBe(JSON.stringify(`${T}/moved/.git/../evil/info/exclude`));
    // The same checks sharing one DiskLookups in random orders, each asked twice or more.
    const r = rng(15);
    for (let round = 0; round < 30; round++) {
      const disk = new DiskLookups();
      for (let i = 0; i < 300; i++) {
        const [name, check] = checks[Math.floor(r() * checks.length)]!;
        expect(outcome(() => check(disk)), name).toBe(alone.get(name));
      }
    }
  });

  test('a deny-only candidate is decided by the rules alone, in a hooks directory or a git directory as elsewhere (no git lookup is made for it)', () => {
    const repo = join(T, 'husky');
    const decideIn = shellDecider({ allow: ['Bash(frob *)', 'Bash(echo *)'], mode: 'acceptEdits', workspace: [repo], cwd: repo, home });
    for (const name of ['.husky/_/pre-commit', '.git/config', '.git/hooks/pre-commit', 'src/x']) expect(decideIn(`frob ${name}`).verdict, name).toBe('allow');
    // A write the command makes is still a write into the hooks directory.
    expect(decideIn('echo x > .husky/_/pre-commit').verdict).toBe('ask');
    const denied = shellDecider({ allow: ['Bash(frob *)'], deny: ['Edit(.husky/**)'], mode: 'acceptEdits', workspace: [repo], cwd: repo, home });
    expect(denied('frob .husky/_/pre-commit').verdict).toBe('deny');
  });

  test('nothing is kept across decisions: a commondir or a hooksPath written between two calls is seen by the second', () => {
    const repo = join(T, 'between');
    repository(repo);
    fs.mkdirSync(join(repo, 'elsewhere', 'objects'), { recursive: true });
    fs.mkdirSync(join(repo, 'elsewhere', 'refs'), { recursive: true });
    const decideIn = shellDecider({ allow: ['Bash(git *)', 'Bash(echo *)'], mode: 'acceptEdits', workspace: [repo], cwd: repo, home });
    expect(decideIn('git log -p').verdict).toBe('allow');
    expect(decideIn('echo x > tools/pre-commit').verdict).toBe('allow');
    fs.writeFileSync(join(repo, '.git', 'commondir'), '../elsewhere\n');
    expect(decideIn('git log -p').verdict).not.toBe('allow');
    fs.rmSync(join(repo, '.git', 'commondir'));
    expect(decideIn('git log -p').verdict).toBe('allow');
    git(repo, 'config', 'core.hooksPath', 'tools');
    expect(decideIn('echo x > tools/pre-commit').verdict).toBe('ask');
  });
});
