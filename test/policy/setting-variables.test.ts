import { beforeAll, describe, expect, test } from 'vitest';
import { staticWord } from '../../src/subjects/shell/options.js';
import { changesLaterCommands, isEnvironment, movesConfig, SETTING_VARIABLES } from '../../src/subjects/shell/variables.js';
import { commandWorkspace, decideInWorkspace } from '../helpers/policy.js';

/**
 * variables.ts's settings by environment (docs/threat-model.md "Round 23: … settings by environment"):
 * SETTING_VARIABLES is the one list, and what is made from it agrees — each name, before each program
 * the table says reads it and before any program that starts others, moves that program's settings
 * (CONFIG_BY_ENVIRONMENT, ANY_CONFIG_VARIABLE), and exported or set alone it changes later commands
 * (ENVIRONMENT). Round 24's review F6 was a drift between three hand-kept copies (podman's names were
 * not `environment`); less's, curl's and wget's (round 24) were missing from ENVIRONMENT the same way.
 */

// One name of each alternative: a class stands for its first character (`[Yy]…` → Y, `[A-Z_]+` → A), an optional group for nothing.
const sample = (names: string): string[] => names.split('|').map((name) => name.replace(/\[(.)[^\]]*\][+*]?/g, '$1').replace(/\([^)]*\)\?/g, ''));
const PROGRAMS = [...new Set(SETTING_VARIABLES.flatMap((row) => (row.programs === 'every' ? [] : row.programs)))];
// A value each program takes as code: not a flag MAKEFLAGS or NODE_OPTIONS leave plain, not a toolchain's name.
const VALUE = '--require=./x.js';
const cases = SETTING_VARIABLES.flatMap((row) => sample(row.names).map((name) => ({ name, programs: row.programs === 'every' ? PROGRAMS : row.programs })));

describe('SETTING_VARIABLES and the forms made from it agree', () => {
  test('the samples are names', () => {
    expect(cases.length).toBeGreaterThan(40);
    for (const { name } of cases) expect(name).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
  });
  test.each(cases)('$name: moves the settings of the programs that read it and of those that start others', ({ name, programs }) => {
    const assigned = [staticWord(`${name}=${VALUE}`)];
    for (const program of programs) expect(movesConfig(program, assigned, () => false), program).toBe(true);
    expect(movesConfig('make', assigned, () => false), 'make').toBe(true);
    expect(movesConfig('./build.sh', assigned, () => true), './build.sh').toBe(true);
    expect(movesConfig('true', assigned, () => false), 'true').toBe(false);
  });
  test.each(cases)('$name: exported or set alone changes later commands', ({ name }) => {
    expect(isEnvironment(staticWord(`${name}=${VALUE}`))).toBe(true);
    expect(isEnvironment(staticWord(name))).toBe(true);
    expect(changesLaterCommands(name)).toBe(true);
  });
});

describe('settings by environment, decided', () => {
  let W = '';
  let home = '';
  beforeAll(async () => {
    ({ work: W, home } = await commandWorkspace('setting-variables-'));
  });
  const decided = (command: string) => decideInWorkspace(command, 'bypassPermissions', { deny: ['Bash(rm *)'] }, W, home);
  test.each(cases)('bypassPermissions with deny rules: $name before its program, exported or not, is not allowed', ({ name, programs }) => {
    for (const program of [...programs, './build.sh']) {
      for (const command of [`${name}=${VALUE} ${program} x`, `export ${name}=${VALUE}; ${program} x`, `${name}=${VALUE}; export ${name}; ${program} x`]) {
        const decision = decided(command);
        expect(decision.verdict, `${command}: ${decision.reason}`).not.toBe('allow');
      }
    }
  });
  // Missing from ENVIRONMENT until its names were made from the table (round 25): allowed at 802ec3e.
  test.each(['export LESSKEYIN=./notes.txt; less f.txt', 'export LESSKEY=./k.bin; less f.txt', 'export CURL_HOME=./d; curl https://example.com', 'export WGETRC=./w; wget https://example.com'])(
    'bypassPermissions with deny rules: %j is not allowed',
    (command) => {
      const decision = decided(command);
      expect(decision.verdict, decision.reason).not.toBe('allow');
    },
  );
  test.each(['less f.txt', 'curl https://example.com', 'HOME=/dev/null less f.txt'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    expect(decided(command).verdict).toBe('allow');
  });
});
