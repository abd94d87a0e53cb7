import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { ROOT, eventually, startGateway, tempDir, type Harness } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * prompts/get and completion/complete through the BUILT gateway with the SDK Client: their string
 * arguments meet the deny rules as a guessed tool's do (design.md step 5), and every decision is
 * audited. Before round 12 neither was decided nor recorded: in bypassPermissions a prompt that
 * embeds a file read the file a `Read` deny rule names, and through `serve --http` any member could
 * do so past the team's rules (round 12 review, F7; docs/threat-model.md).
 */
const PROMPT_SERVER = join(ROOT, 'test/fixtures/prompt-server.mjs');
const open: Array<Harness | TeamHarness> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((each) => each.close()));
});

function setUp(): { dir: string; config: Parameters<typeof startGateway>[0] } {
  const dir = tempDir();
  writeFileSync(join(dir, 'secret.txt'), 'TOP-SECRET-KEY\n');
  writeFileSync(join(dir, 'notes.txt'), 'plain notes\n');
  return {
    dir,
    config: {
      mcpServers: { p: { command: process.execPath, args: [PROMPT_SERVER], env: { PROMPT_SERVER_DIR: dir } } },
      workspace: [dir],
      permissions: { defaultMode: 'bypassPermissions', deny: [`Read(${join(dir, 'secret.txt')})`] },
    },
  };
}

const auditOf = (dir: string) => readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

test('a prompt or a completion whose argument names a denied file is refused with the rule, and each decision is audited', async () => {
  const { dir, config } = setUp();
  const h = await startGateway(config, { dir });
  open.push(h);
  const denied = `Denied by mcp-latch: the rule Read(${join(dir, 'secret.txt')}) in the user's mcp-latch config forbids this call`;

  await expect(h.client.getPrompt({ name: 'p__review_file', arguments: { path: join(dir, 'secret.txt') } })).rejects.toThrow(denied);
  // Relative, against the server's directory (the gateway's, here).
  await expect(h.client.getPrompt({ name: 'p__review_file', arguments: { path: 'secret.txt' } })).rejects.toThrow(denied);
  await expect(h.client.complete({ ref: { type: 'ref/prompt', name: 'p__review_file' }, argument: { name: 'path', value: join(dir, 'secret.txt') } })).rejects.toThrow(denied);
  await expect(h.client.complete({ ref: { type: 'ref/prompt', name: 'p__draft' }, argument: { name: 'topic', value: 'x' }, context: { arguments: { path: `file://${join(dir, 'secret.txt')}` } } })).rejects.toThrow(denied);

  const allowed = await h.client.getPrompt({ name: 'p__review_file', arguments: { path: join(dir, 'notes.txt') } });
  expect(JSON.stringify(allowed.messages)).toContain('plain notes');
  expect(JSON.stringify(allowed.messages)).not.toContain('TOP-SECRET');

  const records = await eventually(() => {
    const lines = auditOf(dir);
    expect(lines).toHaveLength(5);
    return lines;
  });
  expect(records.map((record) => [record.tool, record.decision])).toEqual([
    ['prompts/get', 'deny'],
    ['prompts/get', 'deny'],
    ['completion/complete', 'deny'],
    ['completion/complete', 'deny'],
    ['prompts/get', 'allow'],
  ]);
  expect(records[0]).toMatchObject({ server: 'p', kind: 'all', by: 'rule', rule: `Read(${join(dir, 'secret.txt')})` });
  expect(records[4]).toMatchObject({ server: 'p', by: 'mode', rule: null, reason: 'no deny or ask rule matches its arguments' });
});

test("serve --http: a member's prompt is held to the team's deny rules and recorded under the member", async () => {
  const { dir, config } = setUp();
  const token = 'token-of-walter-prompts-0123456789';
  const team = await startTeam(dir, { ...config, http: { tokens: [{ user: 'walter', sha256: tokenHash(token) }] } });
  open.push(team);
  const walter = await teamClient(team.url, token);
  try {
    await expect(walter.client.getPrompt({ name: 'p__review_file', arguments: { path: join(dir, 'secret.txt') } })).rejects.toThrow(`the rule Read(${join(dir, 'secret.txt')})`);
    const records = await eventually(() => {
      const lines = auditOf(dir);
      expect(lines).toHaveLength(1);
      return lines;
    });
    expect(records[0]).toMatchObject({ user: 'walter', server: 'p', tool: 'prompts/get', decision: 'deny' });
  } finally {
    await walter.close();
  }
});

/**
 * An ask rule met by a prompt's or a completion's argument asks the caller, as a tools/call's does
 * (SPEC §5; a prompt has no batch, no page and no retry, so only Allow once and Deny are offered),
 * and refuses, naming the rule, when the client shows no forms. Until round 13 only deny rules met
 * them: `ask: ["Read(<dir>/private/**)"]` let `review_file {path: private/key}` through unasked.
 */
test('an ask rule met by a prompt or a completion asks the client; a client without forms is refused, naming the rule', async () => {
  const { dir, config } = setUp();
  mkdirSync(join(dir, 'private'));
  writeFileSync(join(dir, 'private', 'key.txt'), 'PRIVATE-KEY\n');
  const rule = `Read(${join(dir, 'private')}/**)`;
  const answers = ['Allow once', 'Deny'];
  const h = await startGateway({ ...config, permissions: { defaultMode: 'bypassPermissions', ask: [rule] } }, { dir, onElicit: () => ({ action: 'accept', content: { decision: answers.shift()! } }) });
  open.push(h);

  const allowed = await h.client.getPrompt({ name: 'p__review_file', arguments: { path: join(dir, 'private', 'key.txt') } });
  expect(JSON.stringify(allowed.messages)).toContain('PRIVATE-KEY');
  await expect(h.client.complete({ ref: { type: 'ref/prompt', name: 'p__review_file' }, argument: { name: 'path', value: join(dir, 'private', 'key.txt') } })).rejects.toThrow('Denied by mcp-latch: the user denied this call');
  // Not asked: nothing an ask rule names.
  await h.client.getPrompt({ name: 'p__review_file', arguments: { path: join(dir, 'notes.txt') } });

  expect(h.elicitations).toHaveLength(2);
  expect(h.elicitations[0]!.message).toContain('prompts/get');
  expect(h.elicitations[0]!.message).toContain(rule);
  expect(h.elicitations[0]).toMatchObject({ requestedSchema: { properties: { decision: { enum: ['Allow once', 'Deny'] } } } });
  const records = await eventually(() => {
    const lines = auditOf(dir);
    expect(lines).toHaveLength(3);
    return lines;
  });
  expect(records.map((record) => [record.tool, record.decision, record.by, record.rule])).toEqual([
    ['prompts/get', 'allow', 'user', rule],
    ['completion/complete', 'deny', 'user', rule],
    ['prompts/get', 'allow', 'mode', null],
  ]);

  const without = await startGateway({ ...config, permissions: { defaultMode: 'bypassPermissions', ask: [rule] } }, { dir: tempDir() });
  open.push(without);
  await expect(without.client.getPrompt({ name: 'p__review_file', arguments: { path: join(dir, 'private', 'key.txt') } })).rejects.toThrow(`this call needs the user's approval (ask rule ${rule} matches`);
});

/**
 * A server's completion values are whole values of the argument, listed in the client's menu and
 * sent back when picked: one the rules would refuse as the argument is withheld (round 33 review,
 * P33-1). Before, a file server's completion of `<dir>/` listed `private/id_rsa` and `secret.txt`
 * past `deny: Read(<dir>/private/**)`, the names of what the rules keep from every read. An ask
 * rule's values pass only when the person was asked for this completion and allowed it.
 */
test('completion values the rules would refuse as the argument are withheld; an ask rule\'s only after the person allowed the completion', async () => {
  const { dir, config } = setUp();
  mkdirSync(join(dir, 'private'));
  writeFileSync(join(dir, 'private', 'id_rsa'), 'KEY\n');
  mkdirSync(join(dir, 'askme'));
  writeFileSync(join(dir, 'askme', 'plan.txt'), 'plan\n');
  const askRule = `Read(${join(dir, 'askme')}/**)`;
  const h = await startGateway(
    { ...config, permissions: { defaultMode: 'bypassPermissions', deny: [`Read(${join(dir, 'secret.txt')})`, `Read(${join(dir, 'private')}/**)`], ask: [askRule] } },
    { dir, onElicit: () => ({ action: 'accept', content: { decision: 'Allow once' } }) },
  );
  open.push(h);
  const complete = (value: string) => h.client.complete({ ref: { type: 'ref/prompt', name: 'p__review_file' }, argument: { name: 'path', value } });

  const all = await complete(`${dir}/`);
  expect(all.completion.values).toContain(join(dir, 'notes.txt'));
  for (const hidden of [join(dir, 'secret.txt'), join(dir, 'private', 'id_rsa'), join(dir, 'askme', 'plan.txt')]) expect(all.completion.values).not.toContain(hidden);
  expect(all.completion.total).toBe(all.completion.values.length);
  expect((await complete(join(dir, 'pri'))).completion.values.filter((value) => value.includes('id_rsa'))).toEqual([]);
  expect(h.elicitations).toHaveLength(0);

  // The person asked for the ask rule's folder and allowed it: its names are what they asked for; the deny rule's stay withheld.
  const asked = await complete(`${join(dir, 'askme')}/`);
  expect(h.elicitations).toHaveLength(1);
  expect(asked.completion.values).toContain(join(dir, 'askme', 'plan.txt'));
});
