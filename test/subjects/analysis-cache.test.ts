import { beforeAll, describe, expect, test } from 'vitest';
import { analyseCommandCached } from '../../src/subjects/shell/analysis-cache.js';
import { analyseCommand } from '../../src/subjects/shell/command.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';

beforeAll(initShellParser);

describe('kept analyses of repeated commands', () => {
  test('a text met twice is kept, frozen, and is what a fresh analysis says; its directory is part of it', () => {
    const text = 'cd src && cat a.txt > "out 1.txt"';
    const first = analyseCommandCached(text, { cwd: '/w/one' });
    const second = analyseCommandCached(text, { cwd: '/w/one' });
    const third = analyseCommandCached(text, { cwd: '/w/one' });
    expect(third).toBe(second);
    expect(Object.isFrozen(third) && Object.isFrozen(third.segments[1]!.paths[0])).toBe(true);
    expect(third).toEqual(analyseCommand(text, { cwd: '/w/one' }));
    expect(first).toEqual(third);
    // No caller can change what another caller gets.
    expect(() => (third.segments as unknown[]).push({})).toThrow(TypeError);
    const elsewhere = analyseCommandCached(text, { cwd: '/w/two' });
    expect(elsewhere.segments[1]!.paths[0]!.base).not.toBe(third.segments[1]!.paths[0]!.base);
  });
});
