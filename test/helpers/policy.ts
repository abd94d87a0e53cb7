import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect } from 'vitest';
import { decide, type Grants } from '../../src/policy/decide.js';
import { RuleSet, type MatchEnv } from '../../src/policy/match.js';
import { builtInRules, parseRules } from '../../src/policy/policy.js';
import { parseRule } from '../../src/policy/rule.js';
import { rememberRules } from '../../src/latch/remember.js';
import type { Decision, DefaultMode } from '../../src/policy/types.js';
import { inspectCall } from '../../src/subjects/inspect.js';
import { classifyTool, type ToolClass } from '../../src/subjects/kind.js';
import { identifyServer } from '../../src/subjects/server-identity.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { tempDir } from './gateway.js';
import type { PathEnv } from '../../src/subjects/paths.js';

/**
 * In-process policy harness: the same inspect → decide the gateway runs, for table-driven tests.
 * Call `initShellParser()` first (beforeAll) when deciding shell commands.
 */
export interface PolicyCase {
  allow?: string[];
  ask?: string[];
  deny?: string[];
  mode?: DefaultMode;
  /** Workspace roots (canonical). */
  workspace?: string[];
  home?: string;
  grants?: Grants;
  /** The config file the built-in protections cover (default a path under /etc that does not exist). */
  configPath?: string;
}

function policyOf(options: PolicyCase): { env: MatchEnv; pathEnv: PathEnv; mode: DefaultMode; rules: RuleSet } {
  const home = options.home ?? homedir();
  const workspace = options.workspace ?? [];
  const env: MatchEnv = { home, roots: workspace, platform: process.platform };
  const { rules, issues } = parseRules({ defaultMode: options.mode ?? 'default', allow: options.allow ?? [], ask: options.ask ?? [], deny: options.deny ?? [] });
  if (issues.length > 0) throw new Error(issues.map((issue) => `${issue.path}: ${issue.message}`).join('\n'));
  const all = [...builtInRules(options.configPath ?? '/etc/mcp-latch-test/mcp-latch.json', null), ...rules];
  return { env, pathEnv: { home, platform: process.platform }, mode: options.mode ?? 'default', rules: new RuleSet(all, env) };
}

/** mcp-server-commands' run_command (a profile): the command runs with `sh -c` in `workdir`. */
export const SHELL_TOOL: ToolClass = classifyTool({ identity: identifyServer({ command: 'npx', args: ['-y', 'mcp-server-commands'] }, '/'), tool: { name: 'run_command' } });

export function decideShell(command: string, options: PolicyCase & { cwd?: string } = {}): Decision {
  return shellDecider(options)(command);
}

/** decideShell with the rules parsed once, for many commands. */
export function shellDecider(options: PolicyCase & { cwd?: string } = {}): (command: string) => Decision {
  const policy = policyOf(options);
  return (command) => {
    const args: Record<string, unknown> = { command, ...(options.cwd ? { workdir: options.cwd } : {}) };
    const facts = inspectCall('shell', 'run_command', args, SHELL_TOOL, { workspace: policy.env.roots, clientRoots: [], pathEnv: policy.pathEnv });
    return decide(facts, { mode: policy.mode, rules: policy.rules }, options.grants);
  };
}

/** What "Always allow" would save for a shell command (latch/remember.ts), and the decision a later command gets once it is saved. */
export function rememberedShell(command: string, options: PolicyCase & { cwd?: string } = {}): { rules: string[] | null; after: (later: string) => Decision } {
  const policy = policyOf(options);
  const facts = (text: string) => inspectCall('shell', 'run_command', { command: text, ...(options.cwd ? { workdir: options.cwd } : {}) }, SHELL_TOOL, { workspace: policy.env.roots, clientRoots: [], pathEnv: policy.pathEnv });
  const first = facts(command);
  const state = { mode: policy.mode, rules: policy.rules };
  const rules = rememberRules(first, decide(first, state), state);
  const saved = new RuleSet([...policy.rules.rules, ...(rules ?? []).map((text) => parseRule(text, 'allow'))], policy.env);
  return { rules, after: (later) => decide(facts(later), { mode: policy.mode, rules: saved }) };
}

/** A call to a server-filesystem tool with these roots. */
export function decideFs(tool: string, args: Record<string, unknown>, roots: string[], options: PolicyCase = {}): Decision {
  const policy = policyOf({ workspace: roots, ...options });
  const identity = identifyServer({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', ...roots] }, '/');
  const toolClass = classifyTool({ identity, tool: { name: tool } });
  const facts = inspectCall('fs', tool, args, toolClass, { workspace: policy.env.roots, clientRoots: [], pathEnv: policy.pathEnv });
  return decide(facts, { mode: policy.mode, rules: policy.rules }, options.grants);
}

/** A call to an arbitrary tool, classified by heuristics from its name and schema. */
export function decideTool(server: string, tool: { name: string; inputSchema?: unknown; annotations?: Record<string, boolean> }, args: Record<string, unknown>, options: PolicyCase = {}): Decision {
  const policy = policyOf(options);
  const toolClass = classifyTool({ identity: { profile: null, roots: [], cwd: '/' }, tool });
  const facts = inspectCall(server, tool.name, args, toolClass, { workspace: policy.env.roots, clientRoots: [], pathEnv: policy.pathEnv });
  return decide(facts, { mode: policy.mode, rules: policy.rules }, options.grants);
}

/** A call to a tool of the server a config entry starts (its built-in profile when it has one), relative paths against `cwd`. */
export function decideServerTool(entry: { command: string; args?: string[] }, tool: string, args: Record<string, unknown>, cwd: string, options: PolicyCase = {}): Decision {
  const policy = policyOf(options);
  const toolClass = classifyTool({ identity: identifyServer(entry, cwd), tool: { name: tool } });
  const facts = inspectCall('srv', tool, args, toolClass, { workspace: policy.env.roots, clientRoots: [], pathEnv: policy.pathEnv });
  return decide(facts, { mode: policy.mode, rules: policy.rules }, options.grants);
}

/** Every permission mode, for tests that decide a command in each. */
export const MODES: DefaultMode[] = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'];

/**
 * A directory `name` under `root` for a premise that runs a real tool, with a marker file its attack
 * touches: `ran()` says whether the marker is there and removes it for the next attack.
 */
export function premisePlace(root: string, name: string): { dir: string; marker: string; ran: () => boolean } {
  const dir = join(root, name);
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

/** premisePlace, emptied first: what an earlier run of the premise left there is gone. */
export function freshPremisePlace(root: string, name: string): ReturnType<typeof premisePlace> {
  rmSync(join(root, name), { recursive: true, force: true });
  return premisePlace(root, name);
}

/** An executable shell script at `path` that touches `marker`. */
export function toucher(path: string, marker: string): void {
  writeFileSync(path, `#!/bin/sh\ntouch '${marker}'\n`);
  chmodSync(path, 0o755);
}

/**
 * The environment a premise runs a real tool in: the test's own, with HOME an empty directory `home`
 * below `dir` (no user's start-up files), SHELL=/bin/sh, CI=true and npm's update check off (as CI
 * runs), each variable whose name `clear` matches removed (what would change the tool's reading, or
 * what the premise sets itself), then `extra`. One home for what rules25-27 each wrote as `baseEnv`.
 */
export function premiseEnv(dir: string, clear: RegExp, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(dir, 'home'), SHELL: '/bin/sh', CI: 'true', npm_config_update_notifier: 'false' };
  for (const name of Object.keys(env)) if (clear.test(name)) delete env[name];
  mkdirSync(join(dir, 'home'), { recursive: true });
  return { ...env, ...extra };
}

/** What a command that is not allowed gets in `mode`: ask, or deny where the mode refuses what it would ask (plan and dontAsk, for a command). */
export const refused = (mode: DefaultMode): string => (mode === 'dontAsk' || mode === 'plan' ? 'deny' : 'ask');

/** Whether `program args` runs and exits 0 here: a premise that needs a real tool skips, saying so, without it. */
export const runs = (program: string, args: string[]): boolean => spawnSync(program, args, { stdio: 'ignore', timeout: 30_000 }).status === 0;

/**
 * A fresh place to decide commands in (call in beforeAll): `work` (the workspace and working
 * directory, holding an empty mcp-latch.json) and `home` beside it under `root`; the shell parser ready.
 */
export async function commandWorkspace(prefix: string): Promise<{ root: string; work: string; home: string }> {
  await initShellParser();
  const root = realpathSync(tempDir(prefix));
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'mcp-latch.json'), '{}');
  return { root, work, home };
}

/** `command` decided in `work` (commandWorkspace) with `rules` in `mode`, the config in `work`. */
export function decideInWorkspace(command: string, mode: DefaultMode, rules: { allow?: string[]; ask?: string[]; deny?: string[] }, work: string, home: string): Decision {
  return decideShell(command, { ...rules, mode, workspace: [work], cwd: work, home, configPath: join(work, 'mcp-latch.json') });
}

/** The allow, ask and deny rules of one decision (a config's `permissions` without its mode). */
export type Rules = { allow?: string[]; ask?: string[]; deny?: string[] };

/**
 * commandWorkspace made in the test file's beforeAll, and `shell(command, mode, rules)` deciding in
 * it: the prelude every rules test file since round 24 wrote itself (`type Rules`, `const shell`).
 * Read `root`, `work` and `home` inside tests (they are set once beforeAll has run). `notAllowed` and
 * `denied` check a decision's verdict, naming the mode, the command and the reason.
 */
type Check = (command: string, mode: DefaultMode, rules: Rules) => void;

export function workspaceShell(prefix: string): { root: string; work: string; home: string; shell: (command: string, mode: DefaultMode, rules: Rules) => Decision; notAllowed: Check; denied: Check } {
  const shell = (command: string, mode: DefaultMode, rules: Rules): Decision => decideInWorkspace(command, mode, rules, place.work, place.home);
  const place = {
    root: '',
    work: '',
    home: '',
    shell,
    /** Asked or denied (a review's row: in bypassPermissions with deny rules present it asks at least). */
    notAllowed: (command: string, mode: DefaultMode, rules: Rules): void => {
      const decision = shell(command, mode, rules);
      expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).not.toBe('allow');
    },
    denied: (command: string, mode: DefaultMode, rules: Rules): void => {
      const decision = shell(command, mode, rules);
      expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).toBe('deny');
    },
  };
  beforeAll(async () => {
    Object.assign(place, await commandWorkspace(prefix));
    // The first parse compiles the grammar's code: done here, so a loaded machine's slow first parse
    // (past the 500 ms budget: `parse-timeout`) is not a test's first decision.
    place.shell('true', 'default', {});
  });
  return place;
}
