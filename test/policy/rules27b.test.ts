import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES, refused, runs } from '../helpers/policy.js';

/**
 * Round 27 (rules27b): the command rules round 26 left (docs/threat-model.md "Round 27: rules left by
 * round 26 (rules27b)"). Each was allowed under a prefix rule (`Bash(gh:*)`, `Bash(rustup:*)`,
 * `Bash(npm:*)`…), or by bypassPermissions past deny rules, and ran code nobody allowed:
 *
 *   S17: gh's aliases, program settings and extensions (`gh alias set --shell x CMD; gh x` ran CMD).
 *
 * Premises run the real tools when present (gh 2.23 from Debian, rustup 1.29, npm 11, yarn 1.22.22
 * from `YARN1_BIN`) and skip, saying so, when one is absent. CI runs with CI=true, no stdin and no
 * SHELL: each premise sets what it relies on.
 */

let T = '';
let W = '';
let home = '';

beforeAll(async () => {
  ({ root: T, work: W, home } = await commandWorkspace('rules27b-'));
});

type Rules = { allow?: string[]; ask?: string[]; deny?: string[] };
const shell = (command: string, mode: DefaultMode, rules: Rules) => decideInWorkspace(command, mode, rules, W, home);

/** A directory for a premise, with a marker file each attack touches. */
function place(name: string): { dir: string; marker: string; ran: () => boolean } {
  const dir = join(T, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const marker = join(dir, 'RAN');
  return {
    dir,
    marker,
    ran: () => {
      const was = existsSync(marker);
      rmSync(marker, { force: true });
      return was;
    },
  };
}

/** An executable shell script at `path` that touches `marker`. */
function toucher(path: string, marker: string): void {
  writeFileSync(path, `#!/bin/sh\ntouch '${marker}'\n`);
  chmodSync(path, 0o755);
}

/** Each command is not allowed (ask, or deny where the mode refuses what it would ask) in `mode`. */
function expectRefused(commands: readonly string[], mode: DefaultMode, rules: Rules): void {
  for (const command of commands) expect(shell(command, mode, rules).verdict, command).toBe(refused(mode));
}

function expectAllowed(commands: readonly string[], mode: DefaultMode, rules: Rules): void {
  for (const command of commands) expect(shell(command, mode, rules).verdict, command).toBe('allow');
}

const hasGh = runs('gh', ['--version']);

describe('S17. gh: aliases, program settings and extensions run code in later gh commands', () => {
  const RULES: Rules = { allow: ['Bash(gh:*)'], deny: ['Bash(rm *)'] };
  /** gh with its config and data below `dir`, a token so no command stops to log in, no prompts. */
  const gh = (dir: string, args: string[], cwd = dir) =>
    spawnSync('gh', args, { cwd, input: '', timeout: 30_000, env: { ...process.env, GH_CONFIG_DIR: join(dir, 'cfg'), XDG_DATA_HOME: join(dir, 'data'), GH_TOKEN: 'unused', GH_NO_UPDATE_NOTIFIER: '1', GH_PROMPT_DISABLED: '1', SHELL: '/bin/sh', BROWSER: '' } });

  test.skipIf(!hasGh)('premise: gh alias set --shell NAME CMD (or a ! expansion), then gh NAME, runs CMD', () => {
    const p = place('s17-alias');
    gh(p.dir, ['alias', 'set', '--shell', 'sx', `touch '${p.marker}'`]);
    gh(p.dir, ['sx']);
    expect(p.ran()).toBe(true);
    gh(p.dir, ['alias', 'set', 'bx', `!touch '${p.marker}'`]);
    gh(p.dir, ['bx']);
    expect(p.ran()).toBe(true);
  });
  test.skipIf(!hasGh)('premise: gh config set browser P, then gh browse, runs P', () => {
    const p = place('s17-browser');
    mkdirSync(join(p.dir, 'repo'));
    spawnSync('git', ['init', '-q', '.'], { cwd: join(p.dir, 'repo') });
    spawnSync('git', ['remote', 'add', 'origin', 'https://github.com/o/r.git'], { cwd: join(p.dir, 'repo') });
    toucher(join(p.dir, 'x'), p.marker);
    gh(p.dir, ['config', 'set', 'browser', join(p.dir, 'x')]);
    expect(readFileSync(join(p.dir, 'cfg', 'config.yml'), 'utf8')).toContain(join(p.dir, 'x'));
    gh(p.dir, ['browse'], join(p.dir, 'repo'));
    expect(p.ran()).toBe(true);
  });
  test.skipIf(!hasGh)('premise: gh extension install DIR, then gh NAME, runs DIR/gh-NAME', () => {
    const p = place('s17-ext');
    mkdirSync(join(p.dir, 'gh-r27x'));
    toucher(join(p.dir, 'gh-r27x', 'gh-r27x'), p.marker);
    gh(p.dir, ['extension', 'install', '.'], join(p.dir, 'gh-r27x'));
    gh(p.dir, ['r27x']);
    expect(p.ran()).toBe(true);
  });

  test.each(MODES)('%s: writing an alias, a program setting or installing an extension is not allowed under Bash(gh:*)', (mode) => {
    expectRefused([
      "gh alias set --shell x 'touch F'",
      "gh alias set x '!touch F'",
      "gh alias set -s x 'touch F'",
      "gh alias set --clobber x '!./evil.sh'",
      "gh alias set co 'pr checkout'",
      'gh alias set x -',
      'gh alias set x "$CMD"',
      'gh alias import aliases.yml',
      'gh config set editor ./x',
      "gh config set pager 'less -R'",
      'gh config set browser ./x',
      'gh config set -h github.com browser ./x',
      'gh config set --host=github.com editor ./x',
      'gh config set http_unix_socket /tmp/s',
      'gh config set other value',
      'gh config set "$K" ./x',
      'gh extension install owner/gh-x',
      'gh ext install .',
      'gh extensions upgrade --all',
      'gh extension create x',
      'gh "$GROUP" set x ./y',
    ], mode, RULES);
  });
  test.each(MODES)('%s: a shell alias\'s command meets deny rules', (mode) => {
    for (const command of ["gh alias set x '!rm -rf victim'", "gh alias set --shell x 'rm -rf victim'"]) expect(shell(command, mode, RULES).verdict, command).toBe('deny');
  });
  test.each(MODES)('%s: gh\'s ordinary commands stay allowed', (mode) => {
    expectAllowed(['gh pr view 12', 'gh pr create --fill', 'gh issue list --label bug', 'gh api repos/o/r', 'gh config set git_protocol ssh', 'gh config set prompt disabled', 'gh config get editor', 'gh config list', 'gh alias list', 'gh alias delete co', 'gh extension list', 'gh extension remove x', 'gh repo view --web'], mode, RULES);
  });
});
