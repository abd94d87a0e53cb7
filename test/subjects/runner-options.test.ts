import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { fileFacts } from '../../src/subjects/shell/files.js';
import { staticWord } from '../../src/subjects/shell/options.js';
import { tempDir } from '../helpers/gateway.js';
import { rng } from '../helpers/random.js';

/**
 * The runner models (subjects/shell/make.ts, runners.ts) against the programs themselves: every
 * spelling a program takes for an option that runs code must be seen by the model. Each case is
 * run with the real program where it is installed; the assertion is one-way (the program ran the
 * text ⇒ the model says `interpreter`), so the model may be stricter than the program, never looser.
 */
const root = tempDir('runner-options-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const has = (program: string): boolean => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;
const reasons = (program: string, argv: readonly string[], cwd: string): string[] => fileFacts(program, argv.map(staticWord), cwd)?.reasons ?? [];

describe.skipIf(!has('make'))('GNU make: the model sees every option that makes it read other text', () => {
  const dir = join(root, 'make');
  mkdirSync(join(dir, 'other'), { recursive: true });
  writeFileSync(join(dir, 'Makefile'), 'all:\n\t@:\n-include extra.mk\n');
  writeFileSync(join(dir, 'other', 'Makefile'), '$(info OTHER-READ)\nall:\n\t@:\n');
  writeFileSync(join(dir, 'other', 'extra.mk'), '$(info OTHER-READ)\n');
  const TEXT = '$(info EVAL-$(strip RAN))'; // printed as EVAL-RAN only when evaluated
  /** What make did with argv: evaluated TEXT, or read a makefile of `other/`. */
  const run = (argv: readonly string[]): boolean => {
    const result = spawnSync('make', argv, { cwd: dir, encoding: 'utf8', timeout: 10_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    return /EVAL-RAN|OTHER-READ/.test(`${result.stdout}${result.stderr}`);
  };
  const FLAGS = 'bmBdeiknpqrRsSLtw';
  const cases: string[][] = [
    ['-E', TEXT], [`-E${TEXT}`], ['-sE', TEXT], [`-kE${TEXT}`], ['-bmE', TEXT], [`-wsE${TEXT}`],
    ...['e', 'ev', 'eva', 'eval'].flatMap((p) => [[`--${p}=${TEXT}`], [`--${p}`, TEXT]]),
    ['-j', '-E', TEXT], ['-j', '2', '-E', TEXT], ['-j2', '-E', TEXT], ['--jobs', '3', `-E${TEXT}`], ['-l', '.5', '-E', TEXT], ['-l', `-E${TEXT}`],
    ['-O', '-E', TEXT], ['-Oline', '-E', TEXT], ['--debug', '-E', TEXT], ['--debug=b', '-E', TEXT], ['-o', 'x', '-E', TEXT], ['-W', 'x', `-E${TEXT}`],
    ['all', '-E', TEXT], ['X=1', `-E${TEXT}`], ['--', `-E${TEXT}`], ['--no-s', '-E', TEXT], ['--sync-mutex=x', '-E', TEXT],
    ['-C', 'other'], ['-Cother'], ['-sC', 'other'], ['--dir=other'], ['--directory', 'other'], ['--di', 'other'],
    ['-f', 'other/Makefile'], ['-kfother/Makefile'], ['--fi=other/Makefile'], ['--mak', 'other/Makefile'], ['--file', 'other/Makefile'],
    ['-I', 'other'], ['-sIother'], ['--inc=other'], ['--include-dir', 'other'],
    [`X:=${TEXT}`], [`X!=echo EVAL-RAN >&2`],
  ];
  // Bundles of flags around -E, seeded (rng) so a failure replays.
  const random = rng(14);
  for (let n = 0; n < 60; n++) {
    const letters = Array.from({ length: 1 + Math.floor(random() * 4) }, () => FLAGS[Math.floor(random() * FLAGS.length)]!).join('');
    const at = Math.floor(random() * (letters.length + 1));
    const bundle = `-${letters.slice(0, at)}E${letters.slice(at)}`;
    cases.push(random() < 0.5 ? [bundle, TEXT] : [`${bundle}${TEXT}`]);
  }
  test.each(cases)('make %s …: ran the text ⇒ interpreter', (...argv) => {
    if (run(argv)) expect(reasons('make', argv, dir)).toContain('interpreter');
  });
  test('the cases reach make: each listed spelling of -E, -C, -f, -I and the assignments ran the text', () => {
    const ran = cases.slice(0, 50).filter((argv) => run(argv));
    expect(ran.length).toBeGreaterThan(40);
  });
  test.each([['test'], ['-j4', 'all'], ['-j', '4', 'all'], ['-sk', 'all'], ['-l', '2.5', '-j', '3'], ['-C', '.', 'all'], ['-f', 'Makefile'], ['--no-print-directory', '-s'], ['X=1', 'all'], ['--dry-run']])('make %s … stays plain', (...argv) => {
    expect(run(argv)).toBe(false);
    expect(reasons('make', argv, dir)).not.toContain('interpreter');
  });
  test('make refuses what the model does not know: an ambiguous or unknown option runs nothing', () => {
    for (const argv of [['--e=' + TEXT], ['--ma=x'], ['--foo', '-E', TEXT]]) {
      expect(execFileSync('sh', ['-c', 'make "$@" 2>&1; true', 'sh', ...argv], { cwd: dir, encoding: 'utf8' })).not.toMatch(/EVAL-RAN/);
      expect(reasons('make', argv, dir)).toContain('interpreter');
    }
  });
});

/** A program reads more arguments from `@FILE` (tsc's response files, pytest's argparse): what the file holds is not seen. */
describe('argument files: a word @FILE the program expands asks', () => {
  const dir = join(root, 'argfiles');
  mkdirSync(dir, { recursive: true });
  const written = join(dir, 'written');
  writeFileSync(join(dir, 'a.ts'), 'export const x = 1;\n');
  writeFileSync(join(dir, 'test_a.py'), 'def test_a():\n    assert True\n');
  writeFileSync(join(dir, 'tsc.txt'), `--outFile\n${written}\n--module\namd\na.ts\n`);
  writeFileSync(join(dir, 'py.txt'), `--junitxml=${written}\n`);
  const wrote = (program: string, argv: readonly string[]): boolean => {
    rmSync(written, { force: true });
    spawnSync(program, argv, { cwd: dir, timeout: 60_000, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
    return existsSync(written);
  };
  const tsc = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'tsc');
  test.each([['@tsc.txt'], ['--noEmit', 'false', '@tsc.txt']])('tsc %s …', (...argv) => {
    expect(wrote(tsc, argv)).toBe(true);
    expect(reasons('tsc', argv, dir)).toContain('interpreter');
  });
  // After `--` argparse still reads the file (pytest then takes its option for a test path: nothing written).
  test.skipIf(!has('pytest')).each([[true, '-q @py.txt test_a.py'], [true, '-q test_a.py @py.txt'], [false, '-q test_a.py -- @py.txt']])('pytest wrote %s: %s', (writes, line) => {
    const argv = line.split(' ');
    expect(wrote('pytest', argv)).toBe(writes);
    expect(reasons('pytest', argv, dir)).toContain('interpreter');
  });
});
