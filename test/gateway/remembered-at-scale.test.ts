import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { eventually, FS_SERVER, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * "Always allow" with thousands of remembered rules in the config (docs/performance.md, "Round 18:
 * remembered rules at scale"): the gateway that writes the rule checks only what the edit changed
 * and rebuilds its policy from what the last build kept (policy/build-cache.ts, match.ts
 * placements); every gateway on the file does the same when it reloads. What must hold whatever
 * is reused: the new rule in force in the writing gateway and in another one, the rules that were
 * there still in force in both, and an edit of a file that is no longer the text checked refused
 * when the result is invalid. Built gateways, server-filesystem, the SDK client answering prompts.
 */
const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

function choiceStartingWith(params: ElicitRequest['params'], prefix: string): string {
  const choices = (params as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema.properties.decision.enum;
  const found = choices.find((choice) => choice.startsWith(prefix));
  if (!found) throw new Error(`no choice starting with ${prefix}: ${choices.join(' | ')}`);
  return found;
}

/** 2,000 remembered rules of the shapes "Always allow" saves, with `kept` (a file's read) among them. */
function rememberedRules(kept: string): string[] {
  const rules: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const project = `/home/dev/projects/p${i % 50}`;
    rules.push([`Bash(npm run task${i}) in ${project}`, `Read(${project}/docs/file${i}.md)`, `Edit(${project}/src/module${i}/**)`, `mcp__server${i % 50}__tool${i}`][i % 4]!);
    if (i === 1000) rules.push(`Read(${kept})`);
  }
  return rules;
}

function setUp() {
  const dir = tempDir('remembered-at-scale-');
  const files = join(dir, 'files');
  const work = join(dir, 'work');
  mkdirSync(files);
  mkdirSync(work);
  for (const name of ['kept.txt', 'new.txt', 'other.txt']) writeFileSync(join(files, name), `the text of ${name}\n`);
  const config = {
    mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, files] } },
    workspace: [work],
    permissions: { allow: rememberedRules(join(files, 'kept.txt')) },
  };
  return { dir, files, config };
}

const read = (harness: Harness, path: string) => harness.client.callTool({ name: 'fs__read_text_file', arguments: { path } });
const allowRules = (path: string) => (JSON.parse(readFileSync(path, 'utf8')) as { permissions: { allow: string[] } }).permissions.allow;

test('with 2,000 remembered rules, "Always allow" in one gateway holds there at once and in another gateway once it reloads; the rules there before still hold in both', async () => {
  const { dir, files, config } = setUp();
  const writer = await startGateway(config, { dir, onElicit: (params) => ({ action: 'accept', content: { decision: choiceStartingWith(params, 'Always allow: ') } }) });
  harnesses.push(writer);
  // The other gateway's client shows no prompts: what it is not allowed by a rule is denied (approval.fallback "deny").
  const other = await startGateway(config, { dir });
  harnesses.push(other);
  await writer.client.listTools();
  await other.client.listTools();

  expect(textOf(await read(other, join(files, 'new.txt')))).toMatch(/^Denied by mcp-latch/);
  expect(textOf(await read(writer, join(files, 'new.txt')))).toContain('the text of new.txt');
  expect(writer.elicitations).toHaveLength(1);
  const rules = allowRules(writer.configPath);
  expect(rules).toHaveLength(2002);
  const added = rules[2001]!;
  expect(added).toContain('new.txt');
  expect(rules.slice(0, 2001)).toEqual(config.permissions.allow);

  // In force in the writing gateway: the same read is not asked again.
  expect(textOf(await read(writer, join(files, 'new.txt')))).toContain('the text of new.txt');
  expect(writer.elicitations).toHaveLength(1);
  // In force in the other gateway once it reloaded the file (its watcher).
  await eventually(async () => expect(textOf(await read(other, join(files, 'new.txt')))).toContain('the text of new.txt'), 30_000, 100);
  // The rule remembered before, among the 2,000, holds in both; a file no rule names is still not allowed.
  expect(textOf(await read(writer, join(files, 'kept.txt')))).toContain('the text of kept.txt');
  expect(textOf(await read(other, join(files, 'kept.txt')))).toContain('the text of kept.txt');
  expect(writer.elicitations).toHaveLength(1);
  expect(textOf(await read(other, join(files, 'other.txt')))).toMatch(/^Denied by mcp-latch/);
}, 120_000);

test('"Always allow" on a file the person made invalid after the gateway loaded it: nothing is written, the rule holds for the session only', async () => {
  const { dir, files, config } = setUp();
  const writer = await startGateway(config, { dir, onElicit: (params) => ({ action: 'accept', content: { decision: choiceStartingWith(params, 'Always allow: ') } }) });
  harnesses.push(writer);
  await writer.client.listTools();
  // Valid JSON, not a valid config: the gateway refuses to load it and keeps the rules it has.
  const broken = { ...config, permissions: { ...config.permissions, allowed: ['Read'] } };
  writeFileSync(writer.configPath, JSON.stringify(broken, null, 2));
  await eventually(() => expect(writer.stderr()).toMatch(/config reload refused/), 30_000, 100);
  const before = readFileSync(writer.configPath, 'utf8');

  const answer = textOf(await read(writer, join(files, 'new.txt')));
  expect(answer).toContain('the text of new.txt');
  expect(answer).toMatch(/could not save .*new\.txt.* to the config .*permissions\.allowed.*it holds only for this session/s);
  expect(readFileSync(writer.configPath, 'utf8')).toBe(before);
  expect(writer.elicitations).toHaveLength(1);
  expect(textOf(await read(writer, join(files, 'new.txt')))).toContain('the text of new.txt');
  expect(writer.elicitations).toHaveLength(1);
}, 120_000);

/**
 * The watcher's reload in two turns (GatewayCore.reloadInTurns): checked in one, the policy built
 * and put in force in the next. Until then the old config and policy answer; a reload started
 * later (another change, the gateway's own "Always allow") wins; an invalid text changes nothing.
 */
test('a reload from the file: the old config and policy answer until the new policy is built, a later reload wins, an invalid one changes nothing', async () => {
  const { inProcessGateway } = await import('../helpers/in-process.js');
  const { fixtureServer } = await import('../helpers/gateway.js');
  const dir = tempDir('reload-in-turns-');
  const config = { mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: [] as string[] } };
  const harness = await inProcessGateway(config, { dir });
  try {
    const { gateway, client } = harness;
    await client.listTools();
    const echo = () => client.callTool({ name: 'fix__echo', arguments: { text: 'hello' } });
    expect(textOf(await echo())).toMatch(/^Denied by mcp-latch/);
    const text = (allow: string[]) => JSON.stringify({ ...JSON.parse(readFileSync(harness.configPath, 'utf8')), permissions: { allow } }, null, 2);

    const before = gateway.core.policy();
    const reloading = gateway.reload(text(['mcp__fix__echo']), 'test');
    // Checked, not yet in force: the old config and policy answer.
    expect(gateway.core.config().permissions.allow).toEqual([]);
    expect(gateway.core.policy()).toBe(before);
    expect(await reloading).toBe(true);
    expect(gateway.core.config().permissions.allow).toEqual(['mcp__fix__echo']);
    expect(gateway.core.policy()).not.toBe(before);
    expect(textOf(await echo())).toContain('hello');

    // Two changes in a row: the second wins, the first is dropped.
    const first = gateway.reload(text(['mcp__fix__whoami']), 'test');
    const second = gateway.reload(text(['mcp__fix__echo', 'mcp__fix__slow']), 'test');
    expect([await first, await second]).toEqual([false, true]);
    expect(gateway.core.config().permissions.allow).toEqual(['mcp__fix__echo', 'mcp__fix__slow']);

    // The gateway's own write (a remembered rule, applied at once) wins over a reload under way.
    const stale = gateway.reload(text([]), 'test');
    expect(gateway.core.reload(text(['mcp__fix__echo', 'mcp__fix__slow', 'mcp__fix__whoami']), 'remembered rule')).toBe(true);
    expect(await stale).toBe(false);
    expect(gateway.core.config().permissions.allow).toEqual(['mcp__fix__echo', 'mcp__fix__slow', 'mcp__fix__whoami']);

    // An invalid text: refused, the last good config and its policy stay.
    const kept = gateway.core.policy();
    expect(await gateway.reload(text(['Bash(git * main)']), 'test')).toBe(false);
    expect(gateway.core.policy()).toBe(kept);
    expect(harness.stderr()).toMatch(/config reload refused \(test\)/);
    expect(textOf(await echo())).toContain('hello');
  } finally {
    await harness.close();
  }
}, 60_000);
