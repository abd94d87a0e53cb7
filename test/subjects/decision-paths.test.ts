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
  env = { home: path.join(root, 'home'), platform: process.platform };
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('DecisionPaths', () => {
  test('gives what canonicalPath gives without it, for inputs met again with other bases', () => {
    const r = rng(7);
    const parts = ['proj', 'src', 'out', '..', '.', 'outside', 'missing', 'a.ts', '', '~', 'file:'];
    const bases = [null, root, `${root}/proj`, `${root}/proj/out/..`, 'relative'];
    const inputs: string[] = [];
    for (let i = 0; i < 400; i++) {
      let p = r() < 0.6 ? root : '';
      const n = 1 + Math.floor(r() * 4);
      for (let k = 0; k < n; k++) p += (p === '' && k === 0 ? '' : '/') + parts[Math.floor(r() * parts.length)];
      inputs.push(p);
    }
    const cache = new DecisionPaths();
    for (let i = 0; i < 2_000; i++) {
      const input = inputs[Math.floor(r() * inputs.length)]!;
      const base = bases[Math.floor(r() * bases.length)]!;
      expect(canonicalPath(input, base, env, cache)).toEqual(canonicalPath(input, base, env));
    }
    expect(cache.lexical.size).toBeGreaterThan(50);
  });

  test('a workdir named as the base, the command cwd and a path is resolved once per decision, and again at the next', () => {
    const identity = identifyServer({ command: 'npx', args: ['-y', 'mcp-server-commands'] }, root);
    const shell = classifyTool({ identity, tool: { name: 'run_command' } });
    const context = { workspace: [path.join(root, 'proj')], clientRoots: [], pathEnv: env };
    const workdir = path.join(root, 'proj');
    const realpath = vi.spyOn(fs.realpathSync, 'native');
    try {
      const facts = inspectCall('shell', 'run_command', { command: 'git status && npm run test', workdir }, shell, context);
      expect(facts.subjects.filter((s) => s.type === 'path').map((s) => s.type === 'path' && s.realPath)).toEqual([workdir]);
      // One realpath(3) for the one path the call touches: glibc reads each component's link (two here for /tmp/…, more for deeper paths).
      expect(realpath.mock.calls.map((call) => call[0])).toEqual([workdir]);
      inspectCall('shell', 'run_command', { command: 'git status && npm run test', workdir }, shell, context);
      expect(realpath).toHaveBeenCalledTimes(2);
    } finally {
      realpath.mockRestore();
    }
  });

  test('a link changed between two decisions is seen by the second', () => {
    const identity = identifyServer({ command: 'npx', args: ['-y', 'mcp-server-commands'] }, root);
    const shell = classifyTool({ identity, tool: { name: 'run_command' } });
    const context = { workspace: [path.join(root, 'proj')], clientRoots: [], pathEnv: env };
    const link = path.join(root, 'proj', 'moving');
    fs.symlinkSync(path.join(root, 'proj', 'src'), link);
    const realOf = () => {
      const facts = inspectCall('shell', 'run_command', { command: 'cat moving/a.ts', workdir: path.join(root, 'proj') }, shell, context);
      return facts.subjects.flatMap((s) => (s.type === 'path' && s.input.startsWith('moving') ? [s.realPath] : []));
    };
    expect(realOf()).toEqual([path.join(root, 'proj', 'src', 'a.ts')]);
    fs.unlinkSync(link);
    fs.symlinkSync(path.join(root, 'outside'), link);
    expect(realOf()).toEqual([path.join(root, 'outside', 'a.ts')]);
  });
});
