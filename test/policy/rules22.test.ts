import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { tempDir } from '../helpers/gateway.js';
import { decideShell } from '../helpers/policy.js';

/**
 * Round 22 (rules22): what the round 21 late review (review-late21 "Notes") and review-bypass21 left low.
 *
 *   N1: npm reads its options wherever they stand before `--` (nopt reads the whole line), not only
 *       before the command word: `npm run --cache D deploy` runs deploy, `npm pkg --json true set
 *       scripts.t=CMD` sets the script.
 */

const MODES: DefaultMode[] = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'];

let T = '';
let W = '';
let home = '';

beforeAll(async () => {
  await initShellParser();
  T = realpathSync(tempDir('rules22-'));
  home = join(T, 'home');
  W = join(T, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(W, { recursive: true });
  writeFileSync(join(W, 'mcp-latch.json'), '{}');
});

function shell(command: string, mode: DefaultMode, rules: { allow?: string[]; ask?: string[]; deny?: string[] }) {
  return decideShell(command, { ...rules, mode, workspace: [W], cwd: W, home, configPath: join(W, 'mcp-latch.json') });
}

const hasNpm = ((): boolean => {
  try {
    execFileSync('npm', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('N1. npm reads an option after the command word as it reads one before it', () => {
  test.skipIf(!hasNpm)('premise: npm run --cache D deploy runs deploy; npm pkg --regis URL set scripts.u=CMD writes the script', () => {
    const dir = join(T, 'n1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'n1', version: '1.0.0', scripts: { deploy: 'touch deployed' } }));
    const env = { ...process.env, npm_config_update_notifier: 'false' };
    execFileSync('npm', ['run', '--cache', join(T, 'c'), 'deploy'], { cwd: dir, env, stdio: 'ignore' });
    expect(readFileSync(join(dir, 'deployed'), 'utf8')).toBe('');
    execFileSync('npm', ['pkg', '--regis', 'http://127.0.0.1:9', 'set', 'scripts.u=touch u-ran'], { cwd: dir, env, stdio: 'ignore' });
    expect((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.u).toBe('touch u-ran');
  });
  const RULES = { allow: ['Bash(npm:*)'], deny: ['Bash(npm run deploy *)'] };
  test.each(MODES)('%s: deny Bash(npm run deploy *) meets npm run --cache D deploy, npm run -C D deploy, npm rum --otp 1 deploy', (mode) => {
    for (const command of ['npm run --cache /tmp/c deploy', 'npm run -C /tmp/p deploy', 'npm rum --otp 1 deploy', 'npm run --tag x deploy --prod']) {
      const decision = shell(command, mode, RULES);
      expect({ verdict: decision.verdict, rule: decision.rule }, `${command}: ${decision.reason}`).toEqual({ verdict: 'deny', rule: 'Bash(npm run deploy *)' });
    }
  });
  test.each([
    'npm pkg --json true set scripts.test="rm -rf victim"',
    'npm pkg --regis http://r set scripts.test="rm -rf victim"',
    'npm config --json true set script-shell /tmp/e.sh',
    'npm run --foo x deploy',
  ])('default, Bash(npm:*): %j is not allowed (nopt may read the words otherwise)', (command) => {
    const decision = shell(command, 'default', { allow: ['Bash(npm:*)'] });
    expect(decision.verdict, decision.reason).toBe('ask');
  });
  test.each(['npm run test', 'npm run build --silent', 'npm i -D vitest', 'npm ls --depth 0', 'npm version patch -m "v%s"', 'npm test -- --coverage x'])('default, Bash(npm:*): everyday %j stays allowed', (command) => {
    const decision = shell(command, 'default', { allow: ['Bash(npm:*)'], deny: ['Bash(npm run deploy *)'] });
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});
