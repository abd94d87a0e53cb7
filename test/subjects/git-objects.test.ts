import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { objectType, revisionType } from '../../src/subjects/git-objects.js';
import { ROOT, tempDir } from '../helpers/gateway.js';

/**
 * Object types read from the store as git stores them (gitformat-pack(5), gitformat-loose(5)): for
 * every object `git cat-file --batch-all-objects` lists, loose and after an aggressive gc (deltas
 * against deltas), SHA-1 and SHA-256, the type `git cat-file -t` prints.
 */
describe('objectType', () => {
  const repo = (format: string): { R: string; git: (...args: string[]) => string } => {
    const R = realpathSync(tempDir('objects-'));
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: R, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: R, env, encoding: 'utf8' }).trim();
    git('init', '-q', `--object-format=${format}`);
    for (let i = 1; i <= 25; i++) {
      writeFileSync(join(R, 'f.txt'), `${Array.from({ length: 200 + i }, (_, n) => `line ${n}`).join('\n')}\n`);
      git('add', 'f.txt');
      git('commit', '-qm', `c${i}`);
    }
    git('tag', '-a', 'v1', '-m', 'v1');
    return { R, git };
  };
  const compare = (R: string, git: (...args: string[]) => string): void => {
    const all = git('cat-file', '--batch-all-objects', '--batch-check').split('\n').map((line) => line.split(' ') as [string, string]);
    expect(all.length).toBeGreaterThan(70);
    for (const [id, type] of all) expect(objectType(join(R, '.git'), id), id).toBe(type);
  };
  for (const format of ['sha1', 'sha256']) {
    test(`${format}: loose, then packed with deltas`, () => {
      const { R, git } = repo(format);
      compare(R, git);
      git('gc', '-q', '--aggressive');
      expect(git('count-objects', '-v')).toMatch(/^count: 0$/m);
      const packs = join(R, '.git', 'objects', 'pack');
      expect(git('verify-pack', '-v', join(packs, readdirSync(packs).find((name) => name.endsWith('.idx'))!))).toMatch(/^chain length = [1-9]/m); // deltas there are
      compare(R, git);
      // An abbreviation: the object when one matches, nothing when none does.
      const head = git('rev-parse', 'HEAD');
      expect(objectType(join(R, '.git'), head.slice(0, 12))).toBe('commit');
      expect(revisionType(join(R, '.git'), head.slice(0, 12).toUpperCase(), R)).toBe('commit'); // git reads A-F as a-f (round 14 review G1)
      expect(revisionType(join(R, '.git'), 'v1', R)).toBe('tag');
      expect(revisionType(join(R, '.git'), 'f.txt', R)).toBe('path');
      expect(revisionType(join(R, '.git'), 'nothing', R)).toBe('none'); // git stops: unknown revision or path
      expect(revisionType(join(R, '.git'), 'HEAD@{1}', R)).toBeNull(); // a revision's syntax the reader does not follow
      expect(revisionType(join(R, '.git'), `v1-3-g${head.slice(0, 9)}`, R)).toBe('commit'); // git-describe(1) output
    });
  }
  // A pack index git refuses is no answer (round 14 review G5: a 1,072-byte index whose fan-out
  // table ran past its object count made the reader loop ~4 billion times on the gateway's thread).
  // git 2.39 checks the table and the size (packfile.c check_packed_git_idx); so does the reader.
  describe('a pack index git refuses: not known', () => {
    const packed = (): { R: string; git: (...args: string[]) => string; idx: string; head: string } => {
      const { R, git } = repo('sha1');
      git('gc', '-q');
      const packs = join(R, '.git', 'objects', 'pack');
      return { R, git, idx: join(packs, readdirSync(packs).find((name) => name.endsWith('.idx'))!), head: git('rev-parse', 'HEAD') };
    };
    const refused = (git: (...args: string[]) => string, id: string): void => {
      expect(() => git('cat-file', '-t', id)).toThrow();
    };
    test('a fan-out table that decreases', () => {
      const { R, git, idx, head } = packed();
      expect(objectType(join(R, '.git'), head)).toBe('commit');
      const bytes = readFileSync(idx);
      bytes.writeUInt32BE(bytes.readUInt32BE(8 + 255 * 4), 8); // the first entry as the last: "non-monotonic index"
      writeFileSync(idx, bytes);
      refused(git, head);
      expect(objectType(join(R, '.git'), head)).toBeNull();
      expect(objectType(join(R, '.git'), head.slice(0, 7))).toBeNull();
    });
    test('a last entry other than the object count', () => {
      const { R, git, idx, head } = packed();
      const bytes = readFileSync(idx);
      bytes.writeUInt32BE(bytes.readUInt32BE(8 + 255 * 4) + 1, 8 + 255 * 4); // "wrong index v2 file size"
      writeFileSync(idx, bytes);
      refused(git, head);
      expect(objectType(join(R, '.git'), head)).toBeNull();
    });
    test("the review's 1,072-byte index, beside a pack: answered at once (run in a process of its own, so a loop cannot hold the test)", () => {
      const { R, idx } = packed();
      const fanout = Array.from({ length: 256 }, (_, i) => (i >= 0xab && i < 255 ? 0xffffffff : 0));
      const bytes = Buffer.alloc(8 + 1024 + 40);
      bytes.writeUInt32BE(0xff744f63, 0);
      bytes.writeUInt32BE(2, 4);
      fanout.forEach((value, i) => bytes.writeUInt32BE(value, 8 + i * 4));
      writeFileSync(idx, bytes);
      const script = `import { revisionType } from ${JSON.stringify(join(ROOT, 'dist/subjects/git-objects.js'))}; console.log(String(revisionType(${JSON.stringify(join(R, '.git'))}, 'abcd', null)));`;
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
      expect(run.signal, 'still looping after 20 s').toBeNull();
      expect(run.stdout.trim()).toBe('null');
    });
  });
  test('replace refs or alternates: not known', () => {
    const { R, git } = repo('sha1');
    const head = git('rev-parse', 'HEAD');
    git('replace', '-f', head, git('rev-parse', 'HEAD~1'));
    expect(objectType(join(R, '.git'), head)).toBeNull();
  });
});
