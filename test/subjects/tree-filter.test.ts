import { describe, expect, test } from 'vitest';
import type { TreeFilter } from '../../src/policy/types.js';
import { globMatches, grepFilters, skippedByFilters } from '../../src/subjects/tree-filter.js';
import { rng } from '../helpers/random.js';

/**
 * grep(1) --include/--exclude/--exclude-dir: a file counts as not read only when GNU grep (base
 * name, last match wins, first --include excludes the rest), BSD grep (whole path or base name)
 * and busybox grep (exclude first) all skip it, whatever fnmatch flags they use.
 */
const f = (...pairs: Array<[TreeFilter['kind'], string]>): TreeFilter[] => pairs.map(([kind, glob]) => ({ kind, glob }));

describe('files grep skips', () => {
  test.each<[string, TreeFilter[], string, boolean]>([
    ['an include that does not match', f(['include', '*.ts']), 'conf/.env', true],
    ['an include that matches', f(['include', '*.ts']), 'src/a.ts', false],
    ['a later include that matches everything', f(['include', '*.ts'], ['include', '*']), 'conf/.env', false],
    ['an include matching the whole path (BSD)', f(['include', '*conf*']), 'conf/.env', false],
    ['an exclude of the base name', f(['exclude', '.env']), 'conf/.env', true],
    ['an exclude whose wildcard meets a leading dot (FNM_PERIOD may refuse it)', f(['exclude', '*env']), 'conf/.env', false],
    ['an exclude then an include of the same file', f(['exclude', '.env'], ['include', '.env']), '.env', false],
    ['no filter matches and the first is an include', f(['include', '*.ts'], ['exclude', '*.ts']), '.env', true],
    ['no filter matches and the first is an exclude', f(['exclude', '*.ts']), '.env', false],
    ['a bracket set', f(['include', '*.[tj]s']), 'x.js', false],
    ['a negated bracket set', f(['include', '[!.]*']), '.env', true],
    ['a directory excluded on the way', f(['exclude-dir', 'conf']), 'conf/deep/.env', true],
    ['a directory that only ends like one', f(['exclude-dir', 'conf']), 'myconf/.env', false],
  ])('%s', (_, filters, rel, skipped) => {
    expect(skippedByFilters(filters, '.', rel, false)).toBe(skipped);
  });
  test('directories are skipped only by --exclude-dir', () => {
    expect(skippedByFilters(f(['include', '*.ts']), '.', 'conf', true)).toBe(false);
    expect(skippedByFilters(f(['exclude-dir', 'c*']), '.', 'conf', true)).toBe(true);
  });
});

describe('filters read from the options', () => {
  const word = (value: string, isStatic = true) => ({ value, isStatic });
  test('in order, with the kinds grep has', () => {
    expect(grepFilters([{ name: '-r', value: null }, { name: '--include', value: word('*.ts') }, { name: '--exclude-dir', value: word('node_modules') }])).toEqual(f(['include', '*.ts'], ['exclude-dir', 'node_modules']));
  });
  test.each([
    ['a value with an expansion', [{ name: '--include', value: word('$P', false) }]],
    ['a character class', [{ name: '--include', value: word('[[:alpha:]]*') }]],
    ['an unterminated set', [{ name: '--exclude', value: word('[a') }]],
    ['patterns from a file', [{ name: '--exclude-from', value: word('list') }, { name: '--include', value: word('*.ts') }]],
  ])('none when one cannot be read exactly: %s', (_, options) => {
    expect(grepFilters(options)).toBeNull();
  });
});

describe('the glob matcher', () => {
  /** The matcher as a regular expression (what it was before it walked the name itself): exact, but it backtracks over every `*`. */
  function reference(glob: string, name: string, strict: boolean): boolean {
    let source = '';
    const any = strict ? '[^/]' : '[^]';
    for (let i = 0; i < glob.length; i++) {
      const ch = glob[i]!;
      const atStart = i === 0 || glob[i - 1] === '/';
      if (ch === '*' || ch === '?') source += (strict && atStart ? '(?![.])' : '') + (ch === '*' ? `${any}*` : any);
      else if (ch === '[') {
        const end = glob.indexOf(']', i + 2);
        const body = glob.slice(i + 1, end);
        const negated = body[0] === '!' || body[0] === '^';
        const set = (negated ? body.slice(1) : body).replace(/[\]^\\]/g, '\\$&');
        source += (strict && atStart ? '(?![.])' : '') + (negated ? `[^${set}${strict ? '/' : ''}]` : `[${set}]`);
        i = end;
      } else source += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
    return new RegExp(`^${source}$`).test(name);
  }

  test('on 20,000 seeded globs and names it agrees with the regular expression, strict and lenient', () => {
    const r = rng(4242);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
    const GLOB = ['*', '*', '?', 'a', 'b', '.', 'e', '[ab]', '[!a]', '[a-c]', '-', '/'];
    const NAME = ['a', 'b', 'c', '.', 'e', '-', '/', 'x'];
    let matched = 0;
    for (let n = 0; n < 20_000; n++) {
      const glob = Array.from({ length: 1 + Math.floor(r() * 6) }, () => pick(GLOB)).join('');
      const name = Array.from({ length: Math.floor(r() * 8) }, () => pick(NAME)).join('');
      for (const strict of [false, true]) {
        // Strict matching is used on single names only (a base name, a directory's name).
        if (strict && name.includes('/')) continue;
        const got = globMatches(glob, name, strict);
        if (got !== reference(glob, name, strict)) expect.fail(`${strict ? 'strict' : 'lenient'} ${JSON.stringify(glob)} on ${JSON.stringify(name)}: ${got}`);
        if (got) matched++;
      }
    }
    expect(matched).toBeGreaterThan(2_000);
  });

  test('many stars on a long name that almost matches are decided (a regular expression took seconds for nine stars on 40 characters)', () => {
    const glob = 'a*'.repeat(30) + 'b';
    expect(globMatches(glob, 'a'.repeat(4096), false)).toBe(false);
    expect(globMatches(glob, 'a'.repeat(4095) + 'b', false)).toBe(true);
    expect(globMatches(glob, 'a'.repeat(255), true)).toBe(false);
  });
});
