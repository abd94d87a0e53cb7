import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { freshPremisePlace, MODES, premiseEnv, runs, workspaceShell, type Rules } from '../helpers/policy.js';

/**
 * Round 30 (rules30): round 29's command-rule leftovers (docs/threat-model.md "Round 30: round 29's
 * command-rule leftovers (rules30)"). Each row was allowed before its fix in the modes it names;
 * premises run the real programs (pytest 9, pip 23, GnuPG 2.2, git 2.39, gh 2.23…) and skip,
 * saying which, when one is absent.
 */

const place = workspaceShell('rules30-');
const { shell, notAllowed } = place;

const expectVerdict = (verdict: string, commands: readonly string[], mode: DefaultMode, rules: Rules): void => {
  for (const command of commands) {
    const decision = shell(command, mode, rules);
    expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).toBe(verdict);
  }
};

describe('V1 variables that make a program load code or another configuration (bypassPermissions)', () => {
  const RULES: Rules = { allow: ['Bash(pytest:*)', 'Bash(pip:*)'], deny: ['Bash(rm *)'] };
  const LOADS = [
    "PYTEST_ADDOPTS='-p evil' pytest",
    "PYTEST_ADDOPTS='-p evil' python3 -m pytest",
    'PYTEST_ADDOPTS=--basetemp=/home pytest',
    "PYTEST_ADDOPTS='-c /tmp/x.ini' pytest",
    'PYTEST_PLUGINS=evil pytest',
    "export PYTEST_ADDOPTS='-p evil'; pytest",
    "PYTEST_ADDOPTS='-p evil' make test",
    'PIP_CONFIG_FILE=./pip.conf pip install -r requirements.txt',
    'PIP_INDEX_URL=http://127.0.0.1:9/simple pip install x',
    'PIP_EXTRA_INDEX_URL=http://127.0.0.1:9/simple python3 -m pip install x',
    'UV_INDEX_URL=http://127.0.0.1:9/simple uv sync',
    'KRB5_CONFIG=./krb5.conf git fetch',
    'KRB5_CONFIG=./krb5.conf curl https://example.com/',
    "PSQLRC=./rc psql -c 'select 1'",
    'GNUPGHOME=./g git commit -S -m x',
    'GNUPGHOME=./g gpg --list-keys',
  ];
  test('bypassPermissions with a deny rule: each asks (it was allowed)', () => {
    expectVerdict('ask', LOADS, 'bypassPermissions', RULES);
  });
  test.each(MODES.filter((mode) => mode !== 'bypassPermissions'))('%s: not allowed (an assignment keeps allow rules from matching, as before)', (mode) => {
    for (const command of LOADS) notAllowed(command, mode, RULES);
  });
  test('ordinary settings stay allowed in bypassPermissions', () => {
    expectVerdict('allow', ["PYTEST_ADDOPTS='-x -q' pytest", "PYTEST_ADDOPTS='-n4 --tb=short' pytest", 'PIP_NO_INPUT=1 pip install x', 'PIP_DISABLE_PIP_VERSION_CHECK=1 pip list', "PSQLRC=/dev/null psql -c 'select 1'", 'PYTHONPATH=src pytest', 'pytest -q'], 'bypassPermissions', RULES);
  });
  test('premise: pytest imports the plugin PYTEST_ADDOPTS and PYTEST_PLUGINS name (pytest)', (context) => {
    if (!runs('python3', ['-m', 'pytest', '--version'])) return context.skip('needs pytest');
    const premise = freshPremisePlace(place.root, 'pytest-env');
    writeFileSync(join(premise.dir, 'evilplug.py'), `def pytest_configure(config):\n    open(${JSON.stringify(premise.marker)}, "w").close()\n`);
    mkdirSync(join(premise.dir, 't'));
    writeFileSync(join(premise.dir, 't', 'test_a.py'), 'def test_a():\n    pass\n');
    const env = premiseEnv(premise.dir, /^(PYTEST_|PYTHON)/, { PYTHONDONTWRITEBYTECODE: '1' });
    const run = (extra: NodeJS.ProcessEnv) => spawnSync('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 't'], { cwd: premise.dir, env: { ...env, ...extra }, stdio: 'ignore', timeout: 60_000 });
    run({});
    expect(premise.ran(), 'no variable').toBe(false);
    for (const extra of [{ PYTEST_ADDOPTS: '-p evilplug' }, { PYTEST_PLUGINS: 'evilplug' }]) {
      run(extra);
      expect(premise.ran(), JSON.stringify(extra)).toBe(true);
    }
  }, 120_000);
  test('premise: pip reads the config file PIP_CONFIG_FILE names (pip)', (context) => {
    if (!runs('python3', ['-m', 'pip', '--version'])) return context.skip('needs pip');
    const premise = freshPremisePlace(place.root, 'pip-env');
    writeFileSync(join(premise.dir, 'pip.conf'), '[global]\nindex-url = http://127.0.0.1:9/r30\n');
    const env = premiseEnv(premise.dir, /^PIP_/, { PIP_CONFIG_FILE: join(premise.dir, 'pip.conf') });
    const listed = spawnSync('python3', ['-m', 'pip', 'config', 'list'], { cwd: premise.dir, env, encoding: 'utf8', timeout: 60_000 });
    expect(listed.stdout).toContain("global.index-url='http://127.0.0.1:9/r30'");
  }, 120_000);
  test('premise: gpg runs the agent program of $GNUPGHOME/gpg.conf (GnuPG)', (context) => {
    if (!runs('gpg', ['--version'])) return context.skip('needs gpg');
    const premise = freshPremisePlace(place.root, 'gnupghome');
    const home = join(premise.dir, 'g');
    mkdirSync(home, { mode: 0o700 });
    const agent = join(premise.dir, 'agent.sh');
    writeFileSync(agent, `#!/bin/sh\ntouch '${premise.marker}'\n`);
    chmodSync(agent, 0o755);
    writeFileSync(join(home, 'gpg.conf'), `agent-program ${agent}\n`);
    const env = premiseEnv(premise.dir, /^GNUPG/, { GNUPGHOME: home });
    spawnSync('gpg', ['--batch', '--pinentry-mode', 'loopback', '--passphrase', '', '--quick-generate-key', 'r30@example.com'], { env, stdio: 'ignore', timeout: 30_000 });
    expect(premise.ran()).toBe(true);
  }, 60_000);
});

describe('T5 a rust-toolchain file where the working directory is not known', () => {
  const CARGO: Rules = { allow: ['Bash(cargo:*)', 'Bash(rustc:*)'] };
  test.each(MODES)('%s: a proxy after a `cd` that may have failed asks (it was allowed past a linked toolchain\'s file)', (mode) => {
    const file = join(place.work, 'rust-toolchain.toml');
    mkdirSync(join(place.work, 'sub'), { recursive: true });
    try {
      writeFileSync(file, '[toolchain]\nchannel = "r30tc"\n');
      expectVerdict('ask', ['cd sub; cargo build', 'cd sub 2>/dev/null; rustc x.rs', 'cd sub && cargo build'], mode, CARGO);
    } finally {
      rmSync(file, { force: true });
    }
    // Without a file the directory is still not known: the file cannot be looked for.
    expectVerdict('ask', ['cd sub; cargo build'], mode, CARGO);
  });
  test('ordinary commands whose directory is known stay allowed', () => {
    expect(existsSync(join(place.work, 'rust-toolchain.toml'))).toBe(false);
    for (const mode of MODES) expectVerdict('allow', ['cargo build', 'cd sub && cargo test', 'cargo +nightly build'], mode, CARGO);
  });
});
