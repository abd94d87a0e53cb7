import { execFileSync } from 'node:child_process';
import { readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { objectType, revisionType } from '../../src/subjects/git-objects.js';
import { tempDir } from '../helpers/gateway.js';

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
  test('replace refs or alternates: not known', () => {
    const { R, git } = repo('sha1');
    const head = git('rev-parse', 'HEAD');
    git('replace', '-f', head, git('rev-parse', 'HEAD~1'));
    expect(objectType(join(R, '.git'), head)).toBeNull();
  });
});
