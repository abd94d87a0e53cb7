import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { DefinitionReport } from '../../src/pins/check.js';
import type { Definition } from '../../src/pins/definition.js';
import { toolDecision } from '../../src/gateway/tool-decision.js';
import { RuleSet } from '../../src/policy/match.js';
import { parseRules } from '../../src/policy/policy.js';
import type { Grants, PolicyState } from '../../src/policy/decide.js';
import { inspectCall } from '../../src/subjects/inspect.js';
import { classifyTool } from '../../src/subjects/kind.js';
import { identifyServer } from '../../src/subjects/server-identity.js';
import { eventually, fixtureServer, startGateway, tempDir, textOf, writeConfig, type Harness } from '../helpers/gateway.js';

/**
 * A tool's decision is kept for its next call while nothing it was made from changed, and only for
 * a call whose arguments gave it no subject (gateway/tool-decision.ts; docs/performance.md, "Round
 * 27: the record's cost"). Session grants, exact-call grants and pins changing under a kept
 * decision: test/gateway/session-grant.test.ts and pins*.test.ts, which call one tool before and after.
 */
const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

test('a rule written to the config is in force for the next call of a tool whose decision was kept, and so is its removal', async () => {
  const dir = tempDir();
  const log = join(dir, 'fixture.log');
  const config = { mcpServers: { fix: fixtureServer('fix', log) }, workspace: [dir], permissions: { allow: ['mcp__fix__whoami'] } };
  const h = await startGateway(config, { dir });
  harnesses.push(h);
  // Twice: the second call is decided from the first one's kept decision.
  for (let index = 0; index < 2; index++) {
    const allowed = await h.client.callTool({ name: 'fix__whoami', arguments: {} });
    expect(allowed.isError, textOf(allowed)).toBeFalsy();
  }
  writeConfig(dir, { ...config, permissions: { allow: ['mcp__fix__whoami'], deny: ['mcp__fix__whoami'] } });
  await eventually(async () => {
    const denied = await h.client.callTool({ name: 'fix__whoami', arguments: {} });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('mcp__fix__whoami');
  }, 20_000, 200);
  writeConfig(dir, config);
  await eventually(async () => {
    const allowed = await h.client.callTool({ name: 'fix__whoami', arguments: {} });
    expect(allowed.isError, textOf(allowed)).toBeFalsy();
  }, 20_000, 200);
  const records = readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { decision: string; rule: string | null });
  expect(records.slice(0, 2)).toMatchObject([{ decision: 'allow', rule: 'mcp__fix__whoami' }, { decision: 'allow', rule: 'mcp__fix__whoami' }]);
  expect(records.some((record) => record.decision === 'deny' && record.rule === 'mcp__fix__whoami')).toBe(true);
  expect(records.at(-1)).toMatchObject({ decision: 'allow' });
});

describe('toolDecision in-process', () => {
  const identity = identifyServer({ command: 'node', args: ['server.js'] }, '/');
  const report: DefinitionReport = { kind: 'tool', server: 'fix', name: 'read_it', exposed: 'fix__read_it', definition: {} as Definition, digest: 'd', pin: { state: 'pinned', pinnedAt: '2026-11-29T00:00:00.000Z' }, findings: [] };
  const policyOf = (allow: string[], deny: string[] = []): PolicyState => {
    const env = { home: '/home/u', roots: ['/work'], platform: process.platform };
    return { mode: 'default', rules: new RuleSet(parseRules({ defaultMode: 'default', allow, ask: [], deny }).rules, env) };
  };
  const noGrants: Grants = { rules: null, digests: new Set() };
  const context = { workspace: ['/work'], clientRoots: [], pathEnv: { home: '/home/u', platform: process.platform } };

  test('a call whose arguments name a path is decided by them, never from the last call of the tool', () => {
    // A tool classified by guess: its path-looking strings are subjects (deny rules meet them).
    const toolClass = classifyTool({ identity, tool: { name: 'read_it', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } } });
    const policy = policyOf(['mcp__fix__read_it'], ['Read(/home/u/.ssh/**)']);
    const plain = toolDecision(inspectCall('fix', 'read_it', { text: 'hello' }, toolClass, context), policy, noGrants, report, 'warn');
    expect(plain.verdict).toBe('allow');
    expect(toolDecision(inspectCall('fix', 'read_it', { text: 'hello again' }, toolClass, context), policy, noGrants, report, 'warn')).toBe(plain);
    const secret = toolDecision(inspectCall('fix', 'read_it', { text: '/home/u/.ssh/id_rsa' }, toolClass, context), policy, noGrants, report, 'warn');
    expect(secret).toMatchObject({ verdict: 'deny', rule: 'Read(/home/u/.ssh/**)' });
    // And the kept decision is the one after it again, for arguments that name nothing.
    expect(toolDecision(inspectCall('fix', 'read_it', { text: 'hello' }, toolClass, context), policy, noGrants, report, 'warn')).toBe(plain);
  });

  test('another policy, grant rules, report or description policy is decided anew; an exact-call grant keeps nothing', () => {
    const toolClass = classifyTool({ identity, tool: { name: 'read_it', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } } });
    const facts = () => inspectCall('fix', 'read_it', { text: 'hello' }, toolClass, context);
    const allowing = policyOf(['mcp__fix__read_it']);
    expect(toolDecision(facts(), allowing, noGrants, report, 'warn').verdict).toBe('allow');
    expect(toolDecision(facts(), policyOf(['mcp__fix__read_it'], ['mcp__fix__read_it']), noGrants, report, 'warn').verdict).toBe('deny');
    const asking = policyOf([]);
    expect(toolDecision(facts(), asking, noGrants, report, 'warn').verdict).toBe('ask');
    const granted: Grants = { rules: new RuleSet(parseRules({ defaultMode: 'default', allow: ['mcp__fix__read_it'], ask: [], deny: [] }).rules, allowing.rules.env), digests: new Set() };
    expect(toolDecision(facts(), asking, granted, report, 'warn')).toMatchObject({ verdict: 'allow', by: 'grant' });
    const changed: DefinitionReport = { ...report, pin: { state: 'changed', pinnedAt: '2026-11-29T00:00:00.000Z', changes: [{ path: 'description', before: 'a', after: 'b' }] } as DefinitionReport['pin'] };
    expect(toolDecision(facts(), allowing, noGrants, changed, 'warn')).toMatchObject({ verdict: 'ask', by: 'pin' });
    const flagged: DefinitionReport = { ...report, findings: [{ code: 'override-instructions', where: 'description', excerpt: 'ignore previous', message: 'instructions to the model' } as DefinitionReport['findings'][number]] };
    expect(toolDecision(facts(), allowing, noGrants, flagged, 'warn').verdict).toBe('allow');
    expect(toolDecision(facts(), allowing, noGrants, flagged, 'deny')).toMatchObject({ verdict: 'deny', by: 'pin' });
    // An exact call allowed for the session: this call's digest decides, not the last call's.
    const exact: Grants = { rules: null, digests: new Set([facts().digest()]) };
    expect(toolDecision(facts(), asking, exact, report, 'warn')).toMatchObject({ verdict: 'allow', by: 'grant' });
    expect(toolDecision(inspectCall('fix', 'read_it', { text: 'other' }, toolClass, context), asking, exact, report, 'warn').verdict).toBe('ask');
  });
});
