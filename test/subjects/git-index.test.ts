import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DiskLookups } from '../../src/subjects/disk-lookups.js';
import { trackedPaths } from '../../src/subjects/git-index.js';
import { tempDir } from '../helpers/gateway.js';

/**
 * The index read as git writes it (gitformat-index(5)): what `git ls-files` lists, for each index
 * version git 2.39 writes and both object formats; a split index is incomplete.
 */
describe('trackedPaths', () => {
  const repo = (version: string, format: string, split = false): string => {
    const R = realpathSync(tempDir('index-'));
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: R, GIT_CONFIG_NOSYSTEM: '1' };
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: R, env, encoding: 'utf8' });
    git('init', '-q', `--object-format=${format}`);
    for (const name of ['.env', 'a/b/c.txt', 'a/b/d.txt', 'a/bee.txt', 'é/ü.txt', `${'x'.repeat(200)}/${'y'.repeat(200)}/long.txt`]) {
      mkdirSync(join(R, name, '..'), { recursive: true });
      writeFileSync(join(R, name), name);
    }
    git('add', '-f', '.');
    git('update-index', `--index-version=${version}`, ...(split ? ['--split-index'] : []));
    return R;
  };
  const listed = (R: string): string[] => execFileSync('git', ['-c', 'core.quotePath=false', 'ls-files'], { cwd: R, encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const version of ['2', '3', '4']) {
    for (const format of ['sha1', 'sha256']) {
      test(`version ${version}, ${format}: the paths git ls-files lists`, () => {
        const R = repo(version, format);
        expect(trackedPaths(R, 1_000, new DiskLookups())).toEqual({ paths: listed(R), complete: true });
      });
    }
  }
  test('past max, or a split index: incomplete', () => {
    expect(trackedPaths(repo('2', 'sha1'), 3, new DiskLookups()).complete).toBe(false);
    expect(trackedPaths(repo('2', 'sha1', true), 1_000, new DiskLookups()).complete).toBe(false);
  });
});
