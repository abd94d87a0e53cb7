import { spawn } from 'node:child_process';
import { chmodSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PermitBook } from '../../src/downstream/permit.js';
import { configIssues } from '../../src/policy/policy.js';
import { RulesFile } from '../../src/store/rules-file.js';
import { ROOT, tempDir } from '../helpers/gateway.js';

function configAt(dir: string, permissions: Record<string, unknown> = { allow: [] }): string {
  const path = join(dir, 'mcp-latch.json');
  writeFileSync(path, JSON.stringify({ mcpServers: {}, permissions }, null, 2));
  return path;
}

describe('RulesFile', () => {
  test('adds a rule, once, keeping everything else in the file', async () => {
    const path = configAt(tempDir(), { allow: ['Bash(ls)'], deny: ['Read(**/.env)'] });
    const file = new RulesFile(path, configIssues);
    expect((await file.add('allow', ['Bash(make *)'])).added).toEqual(['Bash(make *)']);
    expect((await file.add('allow', ['Bash(make *)'])).added).toEqual([]);
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    expect(saved.permissions).toEqual({ allow: ['Bash(ls)', 'Bash(make *)'], deny: ['Read(**/.env)'] });
  });

  // Round 12 review, F10: an "Always allow" rewrote a 0600 config as 0644 and replaced a link with a file.
  test("keeps the file's mode, and a symlinked config stays a link with its target edited", async () => {
    const dir = tempDir();
    const target = configAt(dir);
    chmodSync(target, 0o600);
    const link = join(dir, 'linked.json');
    symlinkSync(target, link);
    await new RulesFile(link, configIssues).add('allow', ['Bash(make *)']);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(target, 'utf8')).permissions.allow).toEqual(['Bash(make *)']);
  });

  test('re-reads the file first, so an edit the user just made is kept', async () => {
    const dir = tempDir();
    const path = configAt(dir);
    const file = new RulesFile(path, configIssues);
    await file.add('allow', ['Bash(a)']);
    const edited = JSON.parse(readFileSync(path, 'utf8'));
    edited.permissions.deny = ['Bash(rm *)'];
    writeFileSync(path, JSON.stringify(edited));
    await file.add('allow', ['Bash(b)']);
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    expect(saved.permissions).toEqual({ allow: ['Bash(a)', 'Bash(b)'], deny: ['Bash(rm *)'] });
  });

  test('refuses a rule that would make the file invalid, and leaves the file as it was', async () => {
    const path = configAt(tempDir());
    const before = readFileSync(path, 'utf8');
    await expect(new RulesFile(path, configIssues).add('allow', ['Bash(git * main)'])).rejects.toThrow(/permissions\.allow\[0\]/);
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  test('refuses to write over a file that is not valid JSON right now (nothing is lost)', async () => {
    const dir = tempDir();
    const path = join(dir, 'mcp-latch.json');
    writeFileSync(path, '{"permissions": {"allow": [');
    await expect(new RulesFile(path, configIssues).add('allow', ['Bash(a)'])).rejects.toThrow(/not valid JSON/);
    expect(readFileSync(path, 'utf8')).toBe('{"permissions": {"allow": [');
  });

  test('rules are appended each on a line of its own, indented as the list is, the rest of the text as it was (CRLF, tabs, a BOM, entries sharing a line)', async () => {
    const cases: Array<[string, string]> = [
      ['{\n  "permissions": {\n    "allow": [\n      "Bash(a)"\n    ]\n  }\n}\n', '{\n  "permissions": {\n    "allow": [\n      "Bash(a)",\n      "Bash(n1)",\n      "Bash(n2)"\n    ]\n  }\n}\n'],
      ['\ufeff{\r\n\t"permissions": {\r\n\t\t"deny": ["Bash(z)"],\r\n\t\t"allow": [\r\n\t\t\t"Bash(a)", "Bash(b)"\r\n\t\t]\r\n\t}\r\n}', '\ufeff{\r\n\t"permissions": {\r\n\t\t"deny": ["Bash(z)"],\r\n\t\t"allow": [\r\n\t\t\t"Bash(a)", "Bash(b)",\r\n\t\t\t"Bash(n1)",\r\n\t\t\t"Bash(n2)"\r\n\t\t]\r\n\t}\r\n}'],
      // A one-line or empty list: laid out by jsonc-parser, as before.
      ['{"permissions": {"allow": ["Bash(a)"]}}', ''],
      ['{\n  "permissions": {\n    "allow": []\n  }\n}\n', ''],
    ];
    for (const [before, after] of cases) {
      const path = join(tempDir(), 'mcp-latch.json');
      writeFileSync(path, before);
      expect((await new RulesFile(path, configIssues).add('allow', ['Bash(n1)', 'Bash(n2)'])).added).toEqual(['Bash(n1)', 'Bash(n2)']);
      if (after !== '') expect(readFileSync(path, 'utf8')).toBe(after);
      const allow = (JSON.parse(readFileSync(path, 'utf8').replace(/^\ufeff/, '')) as { permissions: { allow: string[] } }).permissions.allow;
      expect(allow.slice(-2)).toEqual(['Bash(n1)', 'Bash(n2)']);
    }
  });

  test('two answers at once do not lose either rule', async () => {
    const path = configAt(tempDir());
    const file = new RulesFile(path, configIssues);
    await Promise.all([file.add('allow', ['Bash(a)']), file.add('allow', ['Bash(b)']), file.add('deny', ['Bash(c)'])]);
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    expect(saved.permissions.allow.sort()).toEqual(['Bash(a)', 'Bash(b)']);
    expect(saved.permissions.deny).toEqual(['Bash(c)']);
  });
});

describe('a crash while writing remembered rules', () => {
  test('SIGKILL mid-write, 30 times: the file is always valid JSON holding the old or the new rules', async () => {
    const dir = tempDir();
    const path = configAt(dir);
    let expected = 0;
    for (let round = 0; round < 30; round++) {
      const child = spawn(process.execPath, [join(ROOT, 'test/fixtures/rules-writer.mjs'), path, String(expected)], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((ready) => child.stdout.once('data', () => ready()));
      await new Promise((done) => setTimeout(done, 5 + ((round * 7) % 40)));
      child.kill('SIGKILL');
      await new Promise((done) => child.once('exit', done));
      const text = readFileSync(path, 'utf8');
      const saved = JSON.parse(text) as { permissions: { allow: string[] } };
      // Every write appends one rule: whatever survived is an unbroken run cmd0 … cmdN.
      const allow = saved.permissions.allow;
      expect(allow).toEqual(Array.from({ length: allow.length }, (_, i) => `Bash(cmd${i} *)`));
      expect(allow.length).toBeGreaterThanOrEqual(expected);
      expected = allow.length;
    }
    expect(expected).toBeGreaterThan(0);
  }, 120_000); // 30 process starts: on a loaded 2-core machine each can take a second
});

describe('PermitBook', () => {
  test('a permit is spent once, and only for the call it was issued for', () => {
    const book = new PermitBook();
    const args = { path: '/x' };
    const permit = book.issue('fs', 'write_file', args);
    expect(() => book.spend(permit, 'fs', 'write_file', { path: '/x' })).toThrow(/does not match/);
    const second = book.issue('fs', 'write_file', args);
    book.spend(second, 'fs', 'write_file', args);
    expect(() => book.spend(second, 'fs', 'write_file', args)).toThrow(/without a valid permit/);
    expect(() => book.spend({ server: 'fs', target: 'write_file', args }, 'fs', 'write_file', args)).toThrow(/without a valid permit/);
  });
});

describe('the gateway killed while it saves "Always allow" rules', () => {
  test('SIGKILL at random moments, 10 times: the config stays valid and keeps every rule it had', async () => {
    const { startGateway, COMMANDS_SERVER } = await import('../helpers/gateway.js');
    const dir = tempDir();
    let config: Record<string, unknown> = { mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER] } }, workspace: [dir], permissions: { allow: [] } };
    let before: string[] = [];
    for (let round = 0; round < 10; round++) {
      const harness = await startGateway(config as never, {
        dir,
        onElicit: (params) => {
          const choices = (params as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema.properties.decision.enum;
          return { action: 'accept', content: { decision: choices.find((choice) => choice.startsWith('Always allow: '))! } };
        },
      });
      // Calls whose "Always allow" each saves a new rule, until the gateway is killed under them.
      const calls = Array.from({ length: 40 }, (_, i) =>
        harness.client.callTool({ name: 'shell__run_command', arguments: { command: `touch ${dir}/r${round}-${i}.txt`, workdir: dir } }).catch(() => undefined),
      );
      // Kill once this round has saved a rule (so every round makes progress whatever the load),
      // then at a moment that varies by round, while the other calls' saves are under way.
      await until(() => savedRules(harness.configPath).length > before.length);
      await new Promise((done) => setTimeout(done, (round * 37) % 60));
      process.kill(harness.transport.pid!, 'SIGKILL');
      await Promise.all(calls);
      await harness.close();
      const text = readFileSync(harness.configPath, 'utf8');
      expect(configIssues(JSON.parse(text))).toEqual([]);
      const allow = (JSON.parse(text) as { permissions: { allow: string[] } }).permissions.allow;
      expect(allow.slice(0, before.length)).toEqual(before);
      before = allow;
      config = JSON.parse(text) as Record<string, unknown>;
    }
    expect(before.length).toBeGreaterThanOrEqual(10);
  }, 180_000);
});

/** The allow rules saved so far; the wait tolerates a failed read, the file's validity is asserted after the kill. */
function savedRules(path: string): string[] {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { permissions: { allow: string[] } }).permissions.allow;
  } catch {
    return [];
  }
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((done) => setTimeout(done, 10));
}
