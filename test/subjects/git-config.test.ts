import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { configParameters } from '../../src/subjects/shell/git-config.js';
import { tempDir } from '../helpers/gateway.js';

/**
 * `GIT_CONFIG_PARAMETERS` read as git reads it (config.c `parse_config_env_list`, quote.c
 * `sq_dequote_step`). The truth is the installed git itself: what `git config --list` reports for
 * the same variable, and what git writes into it for `git -c`.
 */

const dir = tempDir('git-config-');
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };

/** The command-line settings git reads from the variable, or null when git refuses it. */
function gitReads(parameters: string): Array<{ key: string; value: string | null }> | null {
  const run = spawnSync('git', ['config', '--list', '-z'], { cwd: dir, env: { ...env, GIT_CONFIG_PARAMETERS: parameters }, encoding: 'utf8' });
  if (run.status !== 0) return null;
  return run.stdout
    .split('\0')
    .filter((entry) => entry !== '')
    .map((entry) => (entry.includes('\n') ? { key: entry.slice(0, entry.indexOf('\n')), value: entry.slice(entry.indexOf('\n') + 1) } : { key: entry, value: null }));
}

/** Keys as git reports them: section and variable name lower-cased, the subsection kept. */
const canonical = (pairs: Array<{ key: string; value: string | null }> | null) =>
  pairs?.map(({ key, value }) => {
    const first = key.indexOf('.');
    const last = key.lastIndexOf('.');
    return { key: `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}${key.slice(last).toLowerCase()}`, value };
  }) ?? null;

describe('configParameters agrees with git', () => {
  test.each([
    ["'core.fsmonitor'='rm -rf x'"],
    ["'core.fsmonitor=rm -rf x'"], // old style: split at the first `=`
    ["'color.ui'='always' 'core.pager'='less -R'"],
    ["'color.ui'='always'\t\n 'core.pager'='x'  "], // any run of whitespace between, and after
    ["'a.b'="], // a boolean, new style
    ["'a.b'"], // a boolean, old style
    ["'a.b'= 'c.d'='e'"],
    ["'alias.x'='!rm '\\''-rf'\\'' x'"], // `'\''` continues the string
    ["'alias.x'='a'\\!'b'"], // so does `'\!'`
    ["'a.b'='x'\\''"], // …only when a quote follows
    ["' a.b =c'"], // old style: the key is trimmed
    ["'Core.FSMonitor'='x'"],
    ["'filter.My Driver.clean'='x'"],
    ["'a.b'='=c=d'"],
    ["'a.b=c=d'"],
    [''],
    // Refused by git ("bogus format"): then git runs nothing.
    [" 'a.b'='c'"],
    ["'a.b'='c''d.e'='f'"],
    ["'a.b'=c"],
    ["'a.b'='c"],
    ["'a.b'x"],
    ['a.b=c'],
    ["'a.b'='c'x"],
  ])('%j', (parameters) => {
    expect(canonical(configParameters(parameters))).toEqual(gitReads(parameters));
  });
});

test('what git itself writes for `git -c` reads back as the same settings', () => {
  const settings = ['core.fsmonitor=rm -rf x', "alias.x=!echo 'it''s' \\ \"q\"", 'a.b', 'a.b=', 'x.y=a=b', 'filter.d r.clean=tr a b'];
  const args = settings.flatMap((setting) => ['-c', setting]);
  // An alias run through the shell sees the variable git exported for its -c settings.
  const written = execFileSync('git', [...args, '-c', 'alias.dump=!printf %s "$GIT_CONFIG_PARAMETERS"', 'dump'], { cwd: dir, env, encoding: 'utf8' });
  const pairs = configParameters(written);
  expect(pairs).not.toBeNull();
  expect(pairs!.slice(0, settings.length)).toEqual([
    { key: 'core.fsmonitor', value: 'rm -rf x' },
    { key: 'alias.x', value: "!echo 'it''s' \\ \"q\"" },
    { key: 'a.b', value: null },
    { key: 'a.b', value: '' },
    { key: 'x.y', value: 'a=b' },
    { key: 'filter.d r.clean', value: 'tr a b' },
  ]);
});
