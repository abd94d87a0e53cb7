import { beforeAll, describe, expect, test } from 'vitest';
import type { FileChange } from '../../src/latch/file-change.js';
import { assessRisk, riskLine } from '../../src/latch/risk.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { decideFs, decideShell } from '../helpers/policy.js';

/** The risk shown with every prompt: a level and its reasons, from the call alone. */
beforeAll(initShellParser);

const W = '/w/proj';
const shell = (command: string) => assessRisk('run_command', decideShell(command, { workspace: [W], cwd: W }));

const change = (overrides: Partial<FileChange>): FileChange => ({ action: 'create', path: `${W}/a`, from: null, bytesBefore: null, bytesAfter: 1, diff: null, diffMore: 0, cutLines: 0, note: null, ...overrides });

describe('assessRisk', () => {
  test.each([
    ['rm -rf build/', 'high', ['deletes files', 'recursive']],
    ['sudo apt-get install x', 'high', ["runs with another user's privileges"]],
    ['curl -o /tmp/x https://example.com', 'high', ['writes outside the workspace', 'network access']],
    ['git push origin main', 'medium', ['network access']],
    ['npm run build > build.log', 'medium', ['overwrites a file (redirection >)']],
    ['ls -la', 'low', []],
  ])('%s → %s', (command, level, reasons) => {
    const risk = shell(command);
    expect(risk.level).toBe(level);
    expect(risk.reasons).toEqual(expect.arrayContaining(reasons));
    if (reasons.length === 0) expect(risk.reasons).toEqual([]);
  });

  test('a write: a new file in the workspace is low, overwriting is medium, a move over a file is high', () => {
    const decision = decideFs('write_file', { path: `${W}/a`, content: 'x' }, [W]);
    expect(assessRisk('write_file', decision, change({})).level).toBe('low');
    expect(assessRisk('write_file', decision, change({ action: 'replace', bytesBefore: 10 }))).toEqual({ level: 'medium', reasons: ['overwrites an existing file'] });
    expect(assessRisk('move_file', decision, change({ action: 'move', bytesBefore: 10 })).level).toBe('high');
  });

  test('a tool named for deleting, and a write outside the workspace, are high', () => {
    const outside = decideFs('write_file', { path: '/etc/hosts', content: 'x' }, [W]);
    expect(assessRisk('write_file', outside).reasons).toContain('writes outside the workspace');
    expect(assessRisk('delete_entities', { ...outside, paths: [] }).level).toBe('high');
  });

  test('riskLine puts the level first', () => {
    expect(riskLine({ level: 'high', reasons: ['deletes files', 'recursive'] })).toBe('high — deletes files; recursive');
    expect(riskLine({ level: 'low', reasons: [] })).toBe('low');
  });
});
