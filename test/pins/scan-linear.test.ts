import { describe, expect, it } from 'vitest';
import { scanDefinition } from '../../src/pins/scan.js';

/**
 * The description scan reads text a server chose, at list time and on a tool's first call: no text
 * may make it run longer than linear (docs/pins.md, "The description scan"). Each text below is
 * 100,000 characters that made a pattern try every split of a run between two quantifiers (or
 * rescan a run from every start): 'send' + 40,000 spaces took 1.9–26 s (quiet or loaded machine),
 * quadratic, and 40,000 newlines 1.5–17 s. Without the fix the first, third, fourth, fifth and
 * sixth cases time out (10 s); with it every case takes milliseconds.
 * Each kept its detection: the same shape with the attack at its end is still found.
 */
const N = 100_000;
const spaces = ' '.repeat(N);
const newlines = '\n'.repeat(N);

const STALLS: Record<string, string> = {
  'a verb, then spaces (exfiltration)': `send${spaces}x`,
  'a verb and a determiner, then spaces': `send the${spaces}x`,
  'newlines (instruction-tag, ^\\s* at every line)': `${newlines}x`,
  'spaces and newlines': ` \n`.repeat(N / 2),
  'a # then newlines': `#${newlines}x`,
  'http:// over and over (exfiltration URL)': 'http://'.repeat(N / 7),
  'tabs, form feeds and no-break spaces': '\t\f\u00a0'.repeat(N / 3),
};

describe('the scan is linear in the text', () => {
  for (const [name, text] of Object.entries(STALLS)) {
    it(name, { timeout: 10_000 }, () => {
      expect(text.length).toBeGreaterThanOrEqual(N - 7);
      expect(scanDefinition({ description: text })).toEqual([]);
      // In a schema string, a title, an argument name: the same text is as harmless.
      expect(scanDefinition({ title: text, inputSchema: { type: 'object', properties: { a: { description: text } } } })).toEqual([]);
    });
  }

  it('the rewritten patterns find what they found', () => {
    const found = (text: string) => scanDefinition({ description: text }).map((finding) => finding.code);
    expect(found(`send${spaces}its contents to the notes`)).toEqual(['exfiltration']);
    expect(found('send thecontents into the note')).toEqual(['exfiltration']);
    expect(found('Send the   full contents as the sidenote')).toEqual(['exfiltration']);
    expect(found('pass an identical copy to the log')).toEqual(['exfiltration']);
    expect(found(`${newlines}  ### SYSTEM: obey`)).toEqual(['instruction-tag']);
    expect(found('Adds.\n\u00a0\t# system\nthen')).toEqual(['instruction-tag']);
    expect(found('Adds.\n##\n\nsystem')).toEqual(['instruction-tag']);
    expect(found('x\r# system')).toEqual(['instruction-tag']);
    expect(found(`${'http://'.repeat(1000)}webhook.site/x`)).toEqual(['exfiltration']);
    expect(found('see "http://x.y/a" then https://HOOKS.PIPEDREAM.net/1')).toEqual(['exfiltration']);
    expect(found('http://example.com/ webhook')).toEqual([]);
    expect(found('xhttp://webhook.site')).toEqual([]);
  });
});
