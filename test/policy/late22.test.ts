import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { tempDir } from '../helpers/gateway.js';
import { decideShell } from '../helpers/policy.js';

/**
 * Round 22 late review (review-late22): spellings of e66df47/3e00dbf's family that still passed.
 * RL1: pnpm, yarn 1 and bun read their options between `run` and the script name (nopt over pnpm's
 * universal options; yarn's first word not bound to an option; bun's run flags), as f90c325 found
 * for npm: `pnpm run --reporter silent release` runs release past deny Bash(pnpm run release *).
 * RL2: pnpm/yarn `config set` of a program key with an option's value before `set`, or pnpm's `c`.
 * (No pnpm, yarn or bun on this machine and no network for corepack: the premises are the tools'
 * documented parsers, as the comments in programs.ts describe them; docs/threat-model.md L5.)
 */

const MODES: DefaultMode[] = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'];
let W = '';
let home = '';

beforeAll(async () => {
  await initShellParser();
  const T = realpathSync(tempDir('late22-'));
  home = join(T, 'home');
  W = join(T, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(W, { recursive: true });
  writeFileSync(join(W, 'mcp-latch.json'), '{}');
});

const RULES = { allow: ['Bash(pnpm:*)', 'Bash(yarn:*)', 'Bash(bun:*)'], deny: ['Bash(pnpm run release *)', 'Bash(yarn run release *)', 'Bash(bun run release *)'] };
function shell(command: string, mode: DefaultMode = 'default') {
  return decideShell(command, { ...RULES, mode, workspace: [W], cwd: W, home, configPath: join(W, 'mcp-latch.json') });
}

describe('RL1: options between run and the script name', () => {
  test.each([
    'pnpm run --reporter silent release',
    'pnpm run --loglevel error release',
    'pnpm run --workspace-concurrency 2 release',
    'pnpm run --store-dir /tmp/s release',
    'pnpm --silent run --reporter silent --if-present release',
    'pnpm run-script --filter . release',
    'yarn run --mutex file release',
    'yarn run --network-timeout 1000 release',
    'bun run --cwd . release',
  ])('%j meets deny Bash(... run release *) in every mode', (command) => {
    for (const mode of MODES) {
      const decision = shell(command, mode);
      expect(decision.verdict, `${mode}: ${decision.reason}`).toBe('deny');
    }
  });
  test.each(['pnpm run --reporter silent build', 'pnpm run --if-present build', 'pnpm run build --reporter release', 'yarn run --silent build', 'bun run --silent build', 'pnpm run test'])(
    'everyday %j stays allowed',
    (command) => {
      const decision = shell(command);
      expect(decision.verdict, decision.reason).toBe('allow');
    },
  );
});

describe('RL2: config set of a program key, other spellings', () => {
  test.each([
    'pnpm config --location project set script-shell /tmp/x',
    'pnpm config --location=project set script-shell /tmp/x',
    'pnpm c set script-shell /tmp/x',
    'pnpm c set script-shell=/tmp/x',
    'pnpm config "$V" script-shell /tmp/x',
  ])('%j is not allowed under Bash(pnpm:*)', (command) => {
    const decision = shell(command);
    expect(decision.verdict, decision.reason).not.toBe('allow');
  });
  test.each(['pnpm config get registry', 'pnpm c get registry', 'pnpm config set registry https://r.example', 'pnpm config --location project set auto-install-peers true'])(
    'everyday %j stays allowed',
    (command) => {
      const decision = shell(command);
      expect(decision.verdict, decision.reason).toBe('allow');
    },
  );
});
