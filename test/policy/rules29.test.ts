import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { freshPremisePlace, MODES, premiseEnv, refused, runs, workspaceShell, type Rules } from '../helpers/policy.js';

/**
 * Round 29 (rules29): round 28's known rule leftovers (docs/threat-model.md "Round 29: round 28's
 * rule leftovers (rules29)"). Each row was allowed before its fix in the modes it names; premises run
 * the real programs (GNU Make 4.3, npm 11, git 2.39, gh 2.23, rustup 1.29…) and skip, saying which,
 * when one is absent.
 */

const place = workspaceShell('rules29-');
const { shell } = place;

const expectVerdict = (verdict: string, commands: readonly string[], mode: DefaultMode, rules: Rules): void => {
  for (const command of commands) {
    const decision = shell(command, mode, rules);
    expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).toBe(verdict);
  }
};

describe('R28-10 a variable given to a program that may run make is read as make reads it', () => {
  const RULES: Rules = { allow: ['Bash(npm run:*)', 'Bash(npm:*)', 'Bash(yarn:*)', 'Bash(git:*)', 'Bash(cargo:*)', 'Bash(pip:*)', 'Bash(make:*)', 'Bash(./build.sh)'], deny: ['Bash(rm *)'] };
  const DENIED = [
    "BUILDER='rm -rf v' npm run build",
    "export BUILDER='rm -rf v'; npm run build",
    "npm run build; export BUILDER='rm -rf v'",
    "BUILDER='@rm -rf v' yarn build",
    "BUILDER='rm -rf v' ./build.sh",
    "export BUILDER='rm -rf v'; git commit -m x",
    "BUILDER='rm -rf v' cargo build",
    "BUILDER='rm -rf v' pip install .",
    "BUILDER='rm -rf v' npx node-gyp rebuild",
    // make's own MAKEFLAGS words: its variables and --eval (GNU Make 4.3 ran both)
    "export MAKEFLAGS='BUILDER=rm\\ -rf\\ v'; npm run build",
    "MAKEFLAGS='--eval=$(shell rm -rf v)' npm run build",
    "MAKEFLAGS='--eval=$(shell rm -rf v)' make",
    "MAKEFLAGS='BUILDER=rm\\ -rf\\ v' make",
    "GNUMAKEFLAGS='--eval=$(shell rm -rf v)' npm run build",
  ];
  test.each(MODES)('%s: denied by the deny rule on the command make would run', (mode) => {
    expectVerdict('deny', DENIED, mode, RULES);
  });
  test('an installation directory or a makefile given so meets Edit and Read deny rules', () => {
    for (const mode of MODES) {
      expectVerdict('deny', ['PREFIX=/usr npm run build', 'export DESTDIR=/usr; npm run build'], mode, { allow: ['Bash(npm:*)'], deny: ['Edit(/usr/**)'] });
      expectVerdict('deny', ['MAKEFILES=/tmp/evil.mk npm run build', 'MAKEFILES=/tmp/evil.mk make'], mode, { allow: ['Bash(npm:*)', 'Bash(make:*)'], deny: ['Read(/tmp/evil.mk)'] });
    }
  });
  test('ordinary commands stay as they were', () => {
    expectVerdict('allow', ['NODE_ENV=production npm run build', 'npm run build', 'make -j4', 'CI=true git commit -m x'], 'default', RULES);
    expectVerdict('allow', ["OUT=./dist npm run build", 'export NODE_ENV=production; npm run build', 'MAKEFLAGS=-j4 npm run build', 'V=1 make'], 'bypassPermissions', RULES);
    expectVerdict('allow', ['MAKEFLAGS=-j4 make', "MAKEFLAGS='-j4 --no-print-directory' make", 'MAKEFLAGS=k make'], 'bypassPermissions', { allow: ['Bash(make:*)'], deny: ['Bash(rm *)'] });
  });
  test('premise: npm runs a script that runs make with the variables it was given (npm, GNU make)', (context) => {
    if (!runs('make', ['--version']) || !runs('npm', ['--version'])) return context.skip('needs GNU make and npm');
    const premise = freshPremisePlace(place.root, 'npm-make');
    writeFileSync(join(premise.dir, 'Makefile'), '.PHONY: all\nall:\n\t$(BUILDER)\n');
    writeFileSync(join(premise.dir, 'package.json'), '{"name":"p","version":"1.0.0","scripts":{"build":"make all"}}\n');
    const env = premiseEnv(premise.dir, /^(MAKE|GNUMAKE|MFLAGS|BUILDER|npm_)/);
    const build = (extra: NodeJS.ProcessEnv) => spawnSync('npm', ['run', 'build'], { cwd: premise.dir, stdio: 'ignore', timeout: 60_000, env: { ...env, ...extra } });
    for (const extra of [{ BUILDER: `touch ${premise.marker}` }, { MAKEFLAGS: `BUILDER=touch\\ ${premise.marker}` }, { MAKEFLAGS: `--eval=$(shell touch ${premise.marker})` }]) {
      build(extra);
      expect(premise.ran(), JSON.stringify(extra)).toBe(true);
    }
  }, 120_000);
});
