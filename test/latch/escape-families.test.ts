import { describe, expect, test } from 'vitest';
import { memoryOutput, shownJson } from '../../src/cli/output.js';
import { escapeJson, escapeLines, escapeName, escapeText } from '../../src/latch/escape.js';
import { buildPrompt } from '../../src/latch/prompt.js';
import { decideFs } from '../helpers/policy.js';
import { shownLogLine } from '../../src/log.js';
import { memoryLogger } from '../helpers/memory-logger.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAudit, type AuditRecord } from '../../src/store/audit.js';
import type { Digest } from '../../src/policy/digest.js';
import { ArgsJson } from '../../src/values.js';
import { tempDir } from '../helpers/gateway.js';

/**
 * Round 30 review S30-4/S30-5: every character of each family a hostile server or call could use to
 * make a person read something else, from its source of truth, shown and not obeyed on every surface
 * that writes a call's or a server's text for a person: the prompt's texts (escapeText), a server's
 * paragraph (escapeLines), JSON text (escapeJson), the CLI's JSON (`--json`) and the log on stderr.
 */
const range = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, index) => String.fromCodePoint(from + index));
const FAMILIES: Record<string, string[]> = {
  // ECMA-48 (5th edition, 1991) §5.2, §5.3: the C0 set 00/00–01/15 (BS, CR, ESC…) and the C1 set
  // 08/00–09/15 (U+0080–U+009F as characters: CSI U+009B, OSC U+009D, NEL U+0085), and DEL 07/15.
  'ECMA-48 C0': range(0x00, 0x1f),
  'ECMA-48 C1': range(0x80, 0x9f),
  DEL: ['\u007f'],
  // Unicode UAX #9 §2 (explicit directional formatting characters) and §2.6 (implicit marks).
  'UAX #9 embeddings, overrides, isolates and marks': ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'],
  // Zero-width and invisible (Cf, Default_Ignorable_Code_Point): ZWSP, ZWNJ, ZWJ, WJ, BOM, soft hyphen, invisible operators.
  'zero-width': ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u2061', '\u2062', '\u2063', '\u2064'],
  // Unicode §5.8: LINE SEPARATOR and PARAGRAPH SEPARATOR.
  'line and paragraph separators': ['\u2028', '\u2029'],
};
const ALL = Object.values(FAMILIES).flat();
const raw = (text: string, kept = ''): string[] => ALL.filter((ch) => !kept.includes(ch) && text.includes(ch));

describe.each(Object.entries(FAMILIES))('%s', (_family, characters) => {
  test('escapeText shows each, none obeyed', () => {
    for (const ch of characters) {
      const shown = escapeText(`a${ch}b`);
      expect(raw(shown), JSON.stringify(ch)).toEqual([]);
      expect(shown).toMatch(/^a\\(?:[nrt]|x[0-9a-f]{2}|u[0-9a-f]{4})b$/);
    }
  });
  test('escapeLines shows each but a line break and a tab', () => {
    for (const ch of characters) expect(raw(escapeLines(`a${ch}b`), '\n\t'), JSON.stringify(ch)).toEqual([]);
  });
  test('JSON text: escapeJson, the CLI\'s --json and a log line keep the JSON and show each', () => {
    for (const ch of characters) {
      const value = { server: `s${ch}`, [`k${ch}`]: [`v${ch}`] };
      for (const json of [escapeJson(JSON.stringify(value)), shownJson(value), shownLogLine(`${JSON.stringify(value)}\n`)]) {
        // The layout's own newlines (pretty printing, a log line's end) stay; none inside a string.
        expect(raw(json.replace(/\n(?= *["{}\]]|$)/g, '')), JSON.stringify(ch)).toEqual([]);
        expect(JSON.parse(json)).toEqual(value);
      }
    }
  });
});

// Round 31 review S31-1: the audit file's own lines held these raw (JSON.stringify escapes C0 only),
// so `tail -f` or `less -R` on the file ran a CSI or reversed the line. Each record path: a lone
// allowed call (its client's arguments text, ArgsJson), a redacted copy, a batch of denials, the
// decision's fields (server, tool, reason, command, paths) and the person's note.
test("the audit file: a call holding each family is written escaped, each line the same JSON", () => {
  const file = join(tempDir(), 'audit.jsonl');
  const audit = createAudit(file);
  const records: AuditRecord[] = [];
  for (const ch of ALL) {
    const args = { path: `/w/a${ch}b`, [`k${ch}`]: [`v${ch}`] };
    const base: AuditRecord = {
      session: `s${ch}`, server: `fs${ch}`, tool: `write${ch}file`, kind: 'write', decision: 'allow', by: 'rule', rule: `Edit(/w/${ch})`,
      reason: `asks: /w/a${ch}b`, paths: [{ access: 'write', input: `/w/a${ch}b`, path: `/w/a${ch}b`, realPath: null, inWorkspace: true } as unknown as AuditRecord['paths'][number]],
      command: `echo ${ch}`, argsDigest: 'd'.repeat(64) as Digest, args, waitMs: 1, note: `n${ch}`,
    };
    records.push(base, { ...base, paths: [], args: { ...args }, argsJson: new ArgsJson(args) }, { ...base, decision: 'deny', paths: [], args: { password: `p${ch}`, ...args } });
  }
  // Records are completed in place: compare with copies made before.
  const expected = records.map(({ argsJson: _argsJson, ...record }) => JSON.parse(JSON.stringify(record)) as Record<string, unknown>);
  for (const record of records) audit.record(record);
  audit.flush();
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(records.length);
  expect(raw(text.replace(/\n/g, ''))).toEqual([]);
  lines.forEach((line, index) => {
    const read = JSON.parse(line) as Record<string, unknown>;
    const want = expected[index]!;
    for (const key of ['session', 'server', 'tool', 'rule', 'reason', 'command', 'note']) expect(read[key], key).toBe(want[key]);
    if (index % 3 !== 2) expect(read.args).toEqual(want.args);
    expect((read.paths as Array<{ path: string }>).map((path) => path.path)).toEqual((want.paths as Array<{ path: string }>).map((path) => path.path));
  });
});

test('the log on stderr: a server text holding each family is written escaped, the record the same JSON', async () => {
  const { logger, written } = memoryLogger('info');
  const line = `stderr: \u001b]8;;http://evil\u0007link\u001b]8;;\u0007 \u009b2J evil\u202etxt.sh \u200b\u2028`;
  logger.warn({ server: 'fs', line }, 'a server wrote to stderr');
  const text = await written();
  expect(text.endsWith('}\n')).toBe(true);
  expect(raw(text.slice(0, -1))).toEqual([]);
  expect((JSON.parse(text) as { line: string }).line).toBe(line);
});

test("a command's --json output through memoryOutput is the JSON shown (mcp-latch audit --json wrote U+009B and U+202E raw)", () => {
  const out = memoryOutput();
  out.json([{ tool: 'run\u202eexe.txt', args: { command: 'echo \u009b31mred' } }]);
  expect(raw(out.stdout[0]!.replace(/\n/g, ''))).toEqual([]);
  expect(JSON.parse(out.stdout[0]!)).toEqual([{ tool: 'run\u202eexe.txt', args: { command: 'echo \u009b31mred' } }]);
});

// Round 30 review S30-6: a name spelled with look-alike letters of another script read as the server it imitates.
describe('escapeName: a server or tool name past ASCII is shown escaped', () => {
  test.each([
    ['g\u0456thub', 'g\\u0456thub'],
    ['\uff46\uff53', '\\uff46\\uff53'],
    ['evil\u202egnp.exe', 'evil\\u202egnp.exe'],
    ['github', 'github'],
    ['run_command', 'run_command'],
    [`a${' '.repeat(30)}b`, 'a⟨30 spaces⟩b'],
    ['x\u3000'.repeat(2), 'x\\u3000x\\u3000'],
  ])('%j → %j', (name, shown) => {
    expect(escapeName(name)).toBe(shown);
  });

  test("the prompt's first line and the form's description name a look-alike server and tool escaped", () => {
    const args = { path: '/w/proj/a.txt', content: 'x' };
    const decision = decideFs('write_file', args, ['/w/proj']);
    const request = buildPrompt({ server: 'g\u0456thub', tool: 'cre\u0430te_issue', kind: decision.kind, decision, args, argsDigest: 'd', rememberRules: null, offerSession: true });
    expect(request.message).toContain('g\\u0456thub wants to run the tool cre\\u0430te_issue');
    expect(JSON.stringify(request.requestedSchema)).toContain('g\\\\u0456thub/cre\\\\u0430te_issue');
  });
});
