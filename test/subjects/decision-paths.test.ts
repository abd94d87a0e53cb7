import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { inspectCall } from '../../src/subjects/inspect.js';
import { classifyTool } from '../../src/subjects/kind.js';
import { canonicalPath, DecisionPaths, type PathEnv } from '../../src/subjects/paths.js';
import { identifyServer } from '../../src/subjects/server-identity.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { rng } from '../helpers/random.js';

/**
 * One decision works out each path once (DecisionPaths): the lexical form of an absolute input
 * and the real path of each path walked. Nothing is kept across decisions: a link changed
 * between two calls is seen by the second.
 */

let root: string;
let env: PathEnv;

beforeAll(async () => {
  await initShellParser();
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-latch-dp-')));
  fs.mkdirSync(path.join(root, 'proj', 'src'), { recursive: true });
  fs.mkdirSync(path.join(root, 'outside'));
  fs.symlinkSync(path.join(root, 'outside'), path.join(root, 'proj', 'out'));
  // What a name below a directory already walked may be (walkFromParent): a file, links to a file,
  // to nowhere, up and to themselves, and a name on disk in NFD that a server opens for its NFC spelling.
  fs.writeFileSync(path.join(root, 'proj', 'f'), 'x');
  fs.symlinkSync('f', path.join(root, 'proj', 'tofile'));
  fs.symlinkSync(path.join(root, 'nowhere', 'x'), path.join(root, 'proj', 'dang'));
  fs.symlinkSync('..', path.join(root, 'proj', 'up'));
  fs.symlinkSync('loop', path.join(root, 'proj', 'loop'));
  fs.writeFileSync(path.join(root, 'proj', 'cafe\u0301'), 'x');
  env = { home: path.join(root, 'home'), platform: process.platform };
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** One decision's facts for mcp-server-commands' run_command, the workspace `proj`. */
function runCommand(command: string, workdir: string) {
  const identity = identifyServer({ command: 'npx', args: ['-y', 'mcp-server-commands'] }, root);
  const shell = classifyTool({ identity, tool: { name: 'run_command' } });
  return inspectCall('shell', 'run_command', { command, workdir }, shell, { workspace: [path.join(root, 'proj')], clientRoots: [], pathEnv: env });
}

describe('DecisionPaths', () => {
  test('gives what canonicalPath gives without it, for inputs met again with other bases', () => {
    const r = rng(7);
    // A process's own view in /proc (`/proc/<pid>/environ`) is a problem the walk reports, below /proc walked or not.
    const parts = ['proj', 'src', 'out', '..', '.', 'outside', 'missing', 'a.ts', '', '~', 'file:', 'f', 'tofile', 'dang', 'up', 'loop', 'caf\u00e9', String(process.pid), 'environ'];
    const bases = [null, root, `${root}/proj`, `${root}/proj/out/..`, `${root}/proj/up/proj`, 'relative', '/proc'];
    const inputs: string[] = [];
    for (let i = 0; i < 400; i++) {
      let p = r() < 0.6 ? root : '';
      const n = 1 + Math.floor(r() * 4);
      for (let k = 0; k < n; k++) p += (p === '' && k === 0 ? '' : '/') + parts[Math.floor(r() * parts.length)];
      inputs.push(p);
    }
    // 200 decisions of 50 paths, half of them one to three names below the path before (walkFromParent looks them up from there).
    let below = 0;
    let deeper = 0;
    for (let decision = 0; decision < 200; decision++) {
      const cache = new DecisionPaths();
      let input = '';
      let base: string | null = null;
      for (let i = 0; i < 50; i++) {
        const names = i > 0 && r() < 0.5 ? 1 + Math.floor(r() * 3) : 0;
        if (names === 0) [input, base] = [inputs[Math.floor(r() * inputs.length)]!, bases[Math.floor(r() * bases.length)]!];
        for (let k = 0; k < names; k++) input = `${input}/${parts[Math.floor(r() * parts.length)]}`;
        const walked = input.startsWith('/') ? input : `${base}/${input}`;
        if (cache.has(walked.slice(0, walked.lastIndexOf('/'))) && !cache.has(walked)) below++;
        else if (names > 1 && !cache.has(walked)) deeper++;
        const alone = canonicalPath(input, base, env);
        expect(canonicalPath(input, base, env, cache)).toEqual(alone);
        // A path expected on disk (a workdir) is looked up in another order, to the same end.
        expect(canonicalPath(input, base, env, undefined, false, true)).toEqual(alone);
      }
      expect(cache.lexical.size).toBeGreaterThan(5);
    }
    expect(below).toBeGreaterThan(250);
    expect(deeper).toBeGreaterThan(250);
  });

  test('the paths below a workdir are walked from it, each directory once: realpath(3) only for the workdir\'s directory', () => {
    const workdir = path.join(root, 'proj');
    fs.mkdirSync(path.join(workdir, 'src', 'lib'), { recursive: true });
    const realpath = vi.spyOn(fs.realpathSync, 'native');
    const stat = vi.spyOn(fs, 'statSync');
    try {
      const facts = runCommand('cat src/lib/a.ts src/lib/b.ts ./src/../f', workdir);
      expect(facts.subjects.flatMap((s) => (s.type === 'path' && s.access === 'read' ? [s.realPath] : []))).toEqual([workdir, ...['src/lib/a.ts', 'src/lib/b.ts', 'f'].map((name) => path.join(workdir, name))]);
      // The workdir is one lstat of its name and the realpath of its directory (fromParentRealpath).
      expect(realpath.mock.calls.map((call) => call[0])).toEqual([root]);
      // Nor the stat that sends a missing path to the walk: each name below is one lstat (DiskLookups).
      expect(stat.mock.calls.map((call) => String(call[0])).filter((p) => p.startsWith(workdir))).toEqual([]);
    } finally {
      realpath.mockRestore();
      stat.mockRestore();
    }
  });

  test('a workdir named as the base, the command cwd and a path is resolved once per decision, and again at the next', () => {
    const workdir = path.join(root, 'proj');
    const realpath = vi.spyOn(fs.realpathSync, 'native');
    try {
      const facts = runCommand('git status && npm run test', workdir);
      expect(facts.subjects.filter((s) => s.type === 'path').map((s) => s.type === 'path' && s.realPath)).toEqual([workdir]);
      // One realpath(3) for the one path the call touches, of its directory: glibc reads each component's link (one here for /tmp/…, more for deeper paths).
      expect(realpath.mock.calls.map((call) => call[0])).toEqual([root]);
      runCommand('git status && npm run test', workdir);
      expect(realpath).toHaveBeenCalledTimes(2);
    } finally {
      realpath.mockRestore();
    }
  });

  test('the first path of a decision: one lstat of its name, the realpath of its directory, and the read\'s stat (F32-5) answered from that lstat', () => {
    const file = path.join(root, 'proj', 'src', 'first.txt');
    fs.writeFileSync(file, 'x');
    fs.symlinkSync(path.join(root, 'proj', 'src'), path.join(root, 'proj', 'srclink'));
    const realpath = vi.spyOn(fs.realpathSync, 'native');
    const stat = vi.spyOn(fs, 'statSync');
    try {
      for (const spelled of [file, path.join(root, 'proj', 'srclink', 'first.txt'), `${root}/proj/out/../proj/src/first.txt`]) {
        realpath.mockClear();
        stat.mockClear();
        const cache = new DecisionPaths();
        const found = canonicalPath(spelled, null, env, cache);
        expect(realpath.mock.calls.map((call) => call[0])).toEqual([path.dirname(spelled)]);
        expect(stat.mock.calls).toEqual([]);
        expect(found).toEqual(canonicalPath(spelled, null, env));
        // Known from the lstat: removed now, the file is still the one the decision looked at.
        fs.unlinkSync(file);
        try {
          expect(cache.disk.stat(file)?.isFile()).toBe(true);
        } finally {
          fs.writeFileSync(file, 'x');
        }
      }
    } finally {
      realpath.mockRestore();
      stat.mockRestore();
    }
  });

  test('a workdir through a link retargeted between two decisions: a new name below it is decided against the new target', () => {
    const link = path.join(root, 'proj', 'here');
    fs.symlinkSync(path.join(root, 'proj', 'src'), link);
    const realOf = (name: string) => {
      const facts = runCommand(`npm run test -- --run ${name}`, link);
      return facts.subjects.flatMap((s) => (s.type === 'path' && s.input === name ? [s.realPath] : []));
    };
    expect(realOf('t1')).toContain(path.join(root, 'proj', 'src', 't1'));
    fs.unlinkSync(link);
    fs.symlinkSync(path.join(root, 'outside'), link);
    expect(realOf('t2')).toContain(path.join(root, 'outside', 't2'));
    expect(realOf('t1')).toContain(path.join(root, 'outside', 't1'));
  });

  test('a link changed between two decisions is seen by the second', () => {
    const link = path.join(root, 'proj', 'moving');
    fs.symlinkSync(path.join(root, 'proj', 'src'), link);
    const realOf = () => {
      const facts = runCommand('cat moving/a.ts', path.join(root, 'proj'));
      return facts.subjects.flatMap((s) => (s.type === 'path' && s.input.startsWith('moving') ? [s.realPath] : []));
    };
    expect(realOf()).toEqual([path.join(root, 'proj', 'src', 'a.ts')]);
    fs.unlinkSync(link);
    fs.symlinkSync(path.join(root, 'outside'), link);
    expect(realOf()).toEqual([path.join(root, 'outside', 'a.ts')]);
  });
});
