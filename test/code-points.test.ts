import { describe, expect, test } from 'vitest';
import { head, splitsPair, tail } from '../src/code-points.js';
import { redactedStart, redactSecrets } from '../src/redact.js';

/** A surrogate with no partner: UTF-16 §3.9 D91 says it is no character (a screen shows U+FFFD). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// Round 32 review S32-2: a cut counted in UTF-16 code units split a character past U+FFFF.
describe('cuts on a code point boundary (src/code-points.ts)', () => {
  // U+1F600 (emoji), U+20000 (CJK Extension B), U+E0041 (a tag character): each two code units.
  const text = 'a😀b𠀀c\u{E0041}d';

  test('every head and tail of an astral text is whole characters, as long as it may be', () => {
    for (let max = 0; max <= text.length; max++) {
      const first = head(text, max);
      const last = tail(text, max);
      expect(first, `head ${max}`).not.toMatch(LONE_SURROGATE);
      expect(last, `tail ${max}`).not.toMatch(LONE_SURROGATE);
      expect(text.startsWith(first) && text.endsWith(last)).toBe(true);
      // One unit shorter only where the cut would split a pair.
      expect(first.length).toBe(splitsPair(text, max) ? max - 1 : max);
      expect(last.length).toBe(max === 0 ? 0 : splitsPair(text, text.length - max) ? max - 1 : max);
    }
    expect(head('ab😀', 3)).toBe('ab');
    expect(tail('😀cd', 3)).toBe('cd');
  });

  test("the audit's and the log's cut of a string keeps no half character", () => {
    for (let pad = 290; pad <= 300; pad++) {
      const value = `${'x'.repeat(pad)}😀😀😀😀😀😀😀😀 tail`;
      expect(JSON.stringify(redactSecrets({ value })), `${pad}`).not.toMatch(/\\ud83d"|\\ud83d…|\\ude00/);
      expect(redactedStart(value, 300)).not.toMatch(LONE_SURROGATE);
    }
  });
});
