import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { describe, expect, it } from 'vitest';
import { compileTemplate, MAX_TEMPLATE_URI } from '../../src/downstream/template-match.js';
import { rng } from '../helpers/random.js';

/** What the gateway did before: the SDK's regex (it throws for a template it refuses, or an expression without a name that matched). */
function sdkMatches(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

const ours = (template: string, uri: string) => compileTemplate(template)?.matches(uri) ?? false;

describe('a resource template matches what the SDK matches, in linear time', () => {
  it('the same answer as the SDK on 10,000 generated templates, each with a random URI and one shaped like it', () => {
    const next = rng(15);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const PIECES = ['a', 'b', '/', ',', '.', '&', '?', '=', '#', 'x=', '{a}', '{+a}', '{#a}', '{.a}', '{/a}', '{a*}', '{/a*}', '{.a*}', '{?a}', '{?a,b}', '{&b}', '{a,b}', '{}', '{+}', '{?}', '{a', '}', '\n', '*'];
    const CHARS = ['a', 'b', '/', ',', '.', '&', '?', '=', '#', 'x', '\n', '\r', '\u2028', ' '];
    let matched = 0;
    const differ: Array<{ template: string; uri: string; sdk: boolean }> = [];
    for (let round = 0; round < 10_000; round++) {
      const template = Array.from({ length: 1 + Math.floor(next() * 5) }, () => pick(PIECES)).join('');
      const uri = Array.from({ length: Math.floor(next() * 9) }, () => pick(CHARS)).join('');
      // A URI built from the template's literals matches more often than random text.
      const shaped = template.replace(/\{[^}]*\}/g, () => Array.from({ length: Math.floor(next() * 3) }, () => pick(CHARS)).join(''));
      for (const candidate of [uri, shaped]) {
        const sdk = sdkMatches(template, candidate);
        if (sdk) matched++;
        if (ours(template, candidate) !== sdk) differ.push({ template, uri: candidate, sdk });
      }
    }
    expect(differ.slice(0, 5)).toEqual([]);
    expect(matched).toBeGreaterThan(1_000);
  });

  it('real templates', () => {
    expect(ours('file:///{+path}', 'file:///a/b.txt')).toBe(true);
    expect(ours('repo://{owner}/{repo}/issues/{n}', 'repo://ada/latch/issues/15')).toBe(true);
    expect(ours('repo://{owner}/{repo}/issues/{n}', 'repo://ada/latch/issues/15/x')).toBe(false);
    expect(ours('api://items{?page,limit}', 'api://items?page=2&limit=10')).toBe(true);
    expect(ours('test://static/resource/{id}', 'test://static/resource/7')).toBe(true);
    // Exploded values take commas except after '.' (the SDK's `\\.([^/,]+)`); '+' stops at a line end.
    for (const [template, uri, matches] of [['x{.a*}', 'x.a,b', false], ['x{/a*}', 'x/a,b', true], ['x{a*}', 'xa,b,c', true], ['x{a*}', 'xa,,b', false], ['x{+a}', 'xa\u2028b', false]] as const) {
      expect([template, uri, sdkMatches(template, uri)]).toEqual([template, uri, matches]);
      expect([template, uri, ours(template, uri)]).toEqual([template, uri, matches]);
    }
  });

  // `{+v0}…{+v9}Z` is `^(.+)(.+)…(.+)Z$` to the SDK: a 37-character URI that does not end in Z took
  // 14.8 s. Here a URI at the limit takes milliseconds (the test's 10 s timeout is never near).
  it('templates whose SDK regex backtracks polynomially, on URIs at the limit', { timeout: 10_000 }, () => {
    const uri = 'a'.repeat(MAX_TEMPLATE_URI);
    for (const template of [Array.from({ length: 10 }, (_, index) => `{+v${index}}`).join('') + 'Z', '{a}{b}{c}{d}{e}{f}{g}{h}Z', '{a}.{b}.{c}.{d}.{e}.{f}/', `{+a}${'a'.repeat(1000)}Z`]) {
      expect(compileTemplate(template)!.matches(uri)).toBe(false);
      expect(compileTemplate(template)!.matches(`${uri.slice(1)}Z`)).toBe(template.endsWith('Z'));
    }
    expect(compileTemplate('{a}.{b}.{c}.{d}.{e}.{f}/')!.matches(`${'a.'.repeat(MAX_TEMPLATE_URI / 2 - 1)}a/`)).toBe(true);
  });
});
