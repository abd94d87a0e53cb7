import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { DiskLookups } from '../../src/subjects/disk-lookups.js';
import { ignoreRules } from '../../src/subjects/git-ignore.js';
import { walkTree } from '../../src/subjects/tree.js';
import { tempDir } from '../helpers/gateway.js';
import { rng } from '../helpers/random.js';

/**
 * What `git add` leaves out (gitignore(5)) against git itself: the files git lists as untracked and
 * not ignored (`git ls-files -o --exclude-standard`, what `git add -A` stores) must all be walked;
 * a file left out that git would add is a Read deny rule bypassed (round 13 review A2). Where the
 * model is sure, it must also leave out what git leaves out, or every `git add .` asks.
 */
const root = tempDir('git-ignore-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, XDG_CONFIG_HOME: join(root, 'xdg'), GIT_CONFIG_NOSYSTEM: '1' };

function repository(name: string, files: Record<string, string>): string {
  const top = join(root, name);
  execFileSync('git', ['init', '-q', top], { env: ENV });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(top, file, '..'), { recursive: true });
    writeFileSync(join(top, file), text);
  }
  return top;
}

/** What git adds below `dir`, and what the walk keeps, as paths below the top. */
function compare(top: string, dir = top): { git: string[]; walked: string[] } {
  const git = execFileSync('git', ['ls-files', '-z', '-o', '--exclude-standard', '--', '.'], { cwd: dir, env: ENV, encoding: 'utf8' }).split('\0').filter(Boolean);
  const prefix = dir === top ? '' : `${dir.slice(top.length + 1)}/`;
  const rules = ignoreRules(top, dir, new DiskLookups());
  const walk = walkTree(dir, false, { left: 100_000 }, 'linux', rules.ignored);
  // git stores a link as its target's name: the walk lists links apart.
  const walked = [...walk.entries.filter((entry) => entry.directory !== true).map((entry) => entry.rel), ...walk.links].map((rel) => prefix + rel);
  return { git: git.map((file) => prefix + file).sort(), walked: walked.sort() };
}

describe('gitignore(5) as git 2.39 applies it', () => {
  test('the documented forms: comments, escapes, negation, anchoring, directories only, **, sets', () => {
    const top = repository('forms', {
      '.gitignore': [
        '# comment', '\\#hash', 'node_modules/', '*.log', '!keep.log', '/anchored.txt', 'doc/*.txt', '!doc/keep.txt',
        '**/deep/target', 'a/**/z.md', 'build/**', '!build/keep', 'trailing\\ ', 'spaced   ', 'secret?', '[abc]x', '[!abc]y', '[a-c-e]r',
        'out/', '\\!bang', 'dironly/', 'Upper.Case', '',
      ].join('\n'),
      '#hash': '', 'node_modules/x/y.js': '', 'node_modules.txt': '', 'x.log': '', 'keep.log': '', 'sub/x.log': '', 'sub/keep.log': '',
      'anchored.txt': '', 'sub/anchored.txt': '', 'doc/a.txt': '', 'doc/keep.txt': '', 'doc/sub/a.txt': '',
      'deep/target': '', 'q/deep/target': '', 'q/deep/target2': '', 'a/z.md': '', 'a/b/c/z.md': '', 'b/a/z.md': '',
      'build/x': '', 'build/keep': '', 'build/sub/keep': '', 'trailing ': '', 'trailing': '', 'spaced': '', 'secret1': '', 'secret12': '',
      'ax': '', 'dx': '', 'ay': '', 'dy': '', 'ar': '', 'dr': '', '-r': '', 'er': '', 'out/f': '', 'sub/out/f': '', '!bang': '', 'dironly': '',
      'upper.case': '', 'Upper.Case': '', 'ünï.log': '', '.env': '', 'sub/.env': '',
      'sub/.gitignore': '!*.log\n/local.txt\nx/\n', 'sub/local.txt': '', 'sub/y/local.txt': '', 'sub/x/f': '', 'sub/x.log.d/f': '',
      'crlf/.gitignore': '\uFEFFa.txt\r\nb.txt  \r\n', 'crlf/a.txt': '', 'crlf/b.txt': '', 'crlf/c.txt': '',
    });
    writeFileSync(join(top, '.git', 'info', 'exclude'), 'excluded\n!x.log\n');
    writeFileSync(join(top, 'excluded'), '');
    const { git, walked } = compare(top);
    expect(walked).toEqual(git);
    expect(walked).toContain('.env');
    expect(walked).not.toContain('node_modules/x/y.js');
    // From a directory below the top, the top's anchored patterns still count.
    const below = compare(top, join(top, 'sub'));
    expect(below.walked).toEqual(below.git);
  });

  test('what is not modelled counts as not ignored (a superset of what git adds)', () => {
    const top = repository('doubts', {
      '.gitignore': '[[:punct:]]env\nd/foo**bar\n*.neg\n!Important.neg\nset*\n![s]et1\n',
      '.env': '', 'fooxbar': '', 'd/fooxbar': '', 'd/other': '', 'foo/x/bar': '', 'important.neg': '', 'a.neg': '', 'set1': '', 'set2': '',
    });
    const { git, walked } = compare(top);
    for (const file of git) expect(walked).toContain(file);
    // The last pattern is a doubt (a negated set), so no file of the list counts as ignored.
    expect(walked.filter((file) => !git.includes(file)).sort()).toEqual(['.env', 'a.neg', 'd/fooxbar', 'important.neg', 'set2']);
    // Without it, only the doubts themselves are read more than git adds.
    writeFileSync(join(top, '.gitignore'), '[[:punct:]]env\nd/foo**bar\n*.neg\n!Important.neg\n');
    const again = compare(top);
    expect(again.walked.filter((file) => !again.git.includes(file)).sort()).toEqual(['.env', 'd/fooxbar', 'important.neg']);
  });

  test('a .gitignore that is a link is not read, as git does not read it', () => {
    const top = repository('linked', { ignores: '.env\n', '.env': '' });
    execFileSync('ln', ['-s', 'ignores', join(top, '.gitignore')]);
    const { git, walked } = compare(top);
    expect(walked).toEqual(git);
    expect(walked).toContain('.env');
  });

  // Random patterns and trees, seeded: whatever git adds is walked.
  test.each(Array.from({ length: 40 }, (_, i) => i + 1))('random repository %i: every file git adds is walked', (seed) => {
    const random = rng(seed);
    const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const NAMES = ['a', 'b', '.env', 'x.log', 'A', 'ab', 'ba', 'a.b'];
    const DIRS = ['', 'd/', 'e/', 'd/e/', 'e/d/', 'd/d/', 'a/', 'a/b/'];
    const PARTS = ['a', 'b', '*', '?', '[ab]', '[!a]*', '**', 'd', 'e', '*.log', '.env', 'x*', 'a*b', '\\a', 'A'];
    const pattern = (): string => {
      const parts = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(PARTS));
      return `${random() < 0.25 ? '!' : ''}${random() < 0.25 ? '/' : ''}${parts.join('/')}${random() < 0.2 ? '/' : ''}`;
    };
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[pick(DIRS) + pick(NAMES)] = '';
    for (const dir of ['', 'd/', 'd/e/', 'a/']) if (random() < 0.8) files[`${dir}.gitignore`] = Array.from({ length: 1 + Math.floor(random() * 6) }, pattern).join('\n');
    // A name that is a file in one place is not a directory in another.
    for (const file of Object.keys(files)) for (const other of Object.keys(files)) if (other.startsWith(`${file}/`)) delete files[other];
    const top = repository(`random-${seed}`, files);
    const { git, walked } = compare(top);
    for (const file of git) expect(walked, `${file} (.gitignore files: ${JSON.stringify(Object.fromEntries(Object.entries(files).filter(([f]) => f.endsWith('.gitignore'))))})`).toContain(file);
  });
});
