#!/usr/bin/env node
// node scripts/confusables.js: writes src/latch/confusables.ts from test/fixtures/confusables-ascii.txt
// (the lines of Unicode's confusables.txt, UTS #39, whose prototype is ASCII letters and digits).
// Kept: each character past ASCII that NFKC does not already make ASCII letters and digits (a
// fullwidth or mathematical letter is, and look-alike.ts applies NFKC first).
import { readFileSync, writeFileSync } from 'node:fs';

const fixture = new URL('../test/fixtures/confusables-ascii.txt', import.meta.url);
const text = readFileSync(fixture, 'utf8');
const version = /^# Version: (.+)$/m.exec(text)[1];
const entries = [];
for (const line of text.split('\n')) {
  const match = /^([0-9A-F]+) ;\t([0-9A-F ]+) ;\tMA/.exec(line);
  if (!match) continue;
  const source = String.fromCodePoint(parseInt(match[1], 16));
  const prototype = match[2].trim().split(' ').map((hex) => String.fromCodePoint(parseInt(hex, 16))).join('');
  if (!/^[A-Za-z0-9]+$/.test(prototype)) throw new Error(`not an ASCII prototype: ${line}`);
  if (source.codePointAt(0) < 0x80 || /^[A-Za-z0-9]+$/.test(source.normalize('NFKC'))) continue;
  entries.push(`\\u{${source.codePointAt(0).toString(16)}}${prototype}`);
}
const lines = [];
for (let i = 0; i < entries.length; i += 12) lines.push(`  '${entries.slice(i, i + 12).join('')}'`);
writeFileSync(
  new URL('../src/latch/confusables.ts', import.meta.url),
  `// Made by scripts/confusables.js from test/fixtures/confusables-ascii.txt (Unicode confusables.txt ${version}); do not edit.
/**
 * Characters past ASCII whose prototype in Unicode's confusables.txt (UTS #39 §4) is ASCII letters and
 * digits, NFKC's own (fullwidth, mathematical letters) left out: each character written as an escape,
 * then its prototype (\`\\u{430}a\` is Cyrillic а, read as \`a\`). ${entries.length} characters.
 */
export const CONFUSABLE_ASCII =
${lines.join(' +\n')};
`,
);
console.log(`${entries.length} characters`);
