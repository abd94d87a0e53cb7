import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { configIssues } from '../../src/policy/policy.js';
import { RulesFile } from '../../src/store/rules-file.js';
import { tempDir } from '../helpers/gateway.js';

/**
 * "Always allow" while the person's editor saves the same config: neither side's edit is lost,
 * and a remembered rule changes only the lines it adds.
 */
const TEXT = `{
    // not allowed in strict JSON, so not used: the file is plain JSON with 4-space indents
    "mcpServers": {},
    "permissions": {
        "allow": [
            "Bash(ls)"
        ],
        "ask": []
    }
}
`.replace(/^ {4}\/\/.*\n/m, '');

describe('remembered rules and the person editing the same file', () => {
  test('randomized: an editor saving every few ms (in place or by rename) while 150 rules are remembered loses nothing', async () => {
    const dir = tempDir();
    const path = join(dir, 'mcp-latch.json');
    writeFileSync(path, TEXT);
    const file = new RulesFile(path, configIssues);
    // The editor reads, adds its own rule to "ask", and saves: in place or through a renamed temp file.
    let saves = 0;
    let editing = true;
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const edit = () => {
      if (!editing) return;
      const data = JSON.parse(readFileSync(path, 'utf8')) as { permissions: { ask: string[] } };
      data.permissions.ask.push(`Bash(user-${saves})`);
      const text = JSON.stringify(data, null, 4);
      if (random() < 0.5) writeFileSync(path, text);
      else {
        writeFileSync(`${path}.editor`, text);
        renameSync(`${path}.editor`, path);
      }
      saves += 1;
      setTimeout(edit, Math.floor(random() * 4));
    };
    edit();
    const rules = Array.from({ length: 150 }, (_, i) => `Bash(tool${i} *)`);
    // The person answers "Always allow" 150 times, a few ms apart, some answers at once.
    const outcomes: Array<PromiseSettledResult<unknown>> = [];
    for (let i = 0; i < rules.length; i += 3) {
      outcomes.push(...(await Promise.allSettled(rules.slice(i, i + 3).map((rule) => file.add('allow', [rule])))));
      await new Promise((done) => setTimeout(done, Math.floor(random() * 4)));
    }
    editing = false;
    const saved = JSON.parse(readFileSync(path, 'utf8')) as { permissions: { allow: string[]; ask: string[] } };
    expect(saves).toBeGreaterThan(10);
    expect(saved.permissions.ask).toEqual(Array.from({ length: saves }, (_, i) => `Bash(user-${i})`));
    // Every rule is in the file, or its write failed (and the person was told it holds for the session only).
    const failed = rules.filter((_, i) => outcomes[i]!.status === 'rejected');
    expect(saved.permissions.allow.sort()).toEqual(['Bash(ls)', ...rules.filter((rule) => !failed.includes(rule))].sort());
  });

  test('a remembered rule changes only the lines it adds: the rest of the file keeps its formatting', async () => {
    const dir = tempDir();
    const path = join(dir, 'mcp-latch.json');
    writeFileSync(path, TEXT);
    await new RulesFile(path, configIssues).add('allow', ['Bash(make *)']);
    const after = readFileSync(path, 'utf8');
    expect(after).toBe(TEXT.replace('"Bash(ls)"\n', '"Bash(ls)",\n            "Bash(make *)"\n'));
  });
});
