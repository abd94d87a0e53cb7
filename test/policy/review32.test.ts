import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { decideServerTool, decideShell, MODES } from '../helpers/policy.js';
import { tempDir } from '../helpers/gateway.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { nameKey, RuleSet } from '../../src/policy/match.js';
import { parseRule } from '../../src/policy/rule.js';

/**
 * Round 32's review of file-path decisions (docs/threat-model.md "Round 32: the review of round 31
 * (file tools' paths)"): each row was allowed before its fix in the modes named, decided in a fresh
 * workspace holding a Read-denied conf/secret/db.txt; the premises run the real programs.
 */

const DENY = ['Read(./conf/secret/**)'];
const FS_TOOL = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem'] };

/** A workspace with conf/secret/db.txt (tracked, in a git repository) and pub/a.txt. */
function workspace(prefix: string): string {
  const w = tempDir(prefix);
  for (const dir of ['conf/secret', 'pub', 'src']) mkdirSync(join(w, dir), { recursive: true });
  writeFileSync(join(w, 'conf/secret/db.txt'), 'TOPSECRET\n');
  writeFileSync(join(w, 'pub/a.txt'), 'hi\n');
  const git = (...args: string[]) => spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: w, stdio: 'ignore', timeout: 30_000 });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'x');
  return w;
}

let w = '';
beforeAll(async () => {
  await initShellParser();
  w = workspace('review32-');
});

describe('F32-1 names as the folding file systems compare them: full case folding, NFD, ignorables, upcase tables', () => {
  // ext4/f2fs casefold (fs/unicode utf8_casefold: NFD, then CaseFolding.txt's C and F mappings; `touch ß ss SS ẞ` makes one file),
  // Default_Ignorable code points dropped before Linux 6.13 and by HFS+, NTFS/exFAT upcase tables (ſ and s, ı and i upcase alike).
  const SPELLINGS = [
    'conf/ſecret/db.txt', // U+017F LATIN SMALL LETTER LONG S: CaseFolding C → s; upcases to S
    'Conf/ſECRET/DB.TXT',
    'conf/secret\u200c/db.txt', // ZERO WIDTH NON-JOINER: ignorable
    'conf/se\u00adcret/db.txt', // SOFT HYPHEN: ignorable
    'conf/\ufeffsecret/db.txt', // ZERO WIDTH NO-BREAK SPACE: ignorable
  ];
  test.each(MODES)('%s: a Read-denied conf/secret/db.txt under other spellings', (mode) => {
    for (const path of SPELLINGS) {
      const read = decideServerTool({ ...FS_TOOL, args: [...FS_TOOL.args, w] }, 'read_text_file', { path: join(w, path) }, w, { mode, workspace: [w], deny: DENY });
      expect(read.verdict, `${mode} ${JSON.stringify(path)}: ${read.reason}`).toBe('deny');
    }
  });

  test('rules past ASCII: ß, ẞ and SS; σ and ς; the Kelvin sign; ligatures; NFC and NFD; ı and I', () => {
    const env = { home: '/home/u', roots: ['/w'], platform: 'linux' as const };
    const rules = new RuleSet(
      ['Read(/w/straße/**)', 'Read(/w/σοφία/**)', 'Read(/w/keys/**)', 'Read(/w/office/**)', 'Read(/w/café/**)', 'Edit(/w/fix/**)'].map((text) => parseRule(text, 'deny')),
      env,
    );
    const denied = (path: string, access: 'read' | 'write' = 'read') => rules.matchPath('deny', access, path)?.text ?? null;
    for (const path of ['/w/STRASSE/x', '/w/strasse/x', '/w/STRAẞE/x', '/w/Straße/x']) expect(denied(path), path).toBe('Read(/w/straße/**)');
    for (const path of ['/w/ΣΟΦΊΑ/x', '/w/σοφία/x', '/w/ςοφία/x', '/w/σοφι\u0301α/x']) expect(denied(path), path).toBe('Read(/w/σοφία/**)');
    expect(denied('/w/\u212Aeys/id')).toBe('Read(/w/keys/**)'); // KELVIN SIGN
    expect(denied('/w/o\uFB03ce/x')).toBe('Read(/w/office/**)'); // LATIN SMALL LIGATURE FFI
    expect(denied('/w/cafe\u0301/x')).toBe('Read(/w/café/**)'); // NFD, as a macOS client writes it
    expect(denied('/w/CAFÉ/x')).toBe('Read(/w/café/**)');
    expect(denied('/w/f\u0131x/a', 'write')).toBe('Edit(/w/fix/**)'); // DOTLESS I upcases to I (NTFS, exFAT)
    // Names no file system takes for another stay apart: a Cyrillic letter, another word.
    for (const path of ['/w/ke\u0443s/x', '/w/strase/x', '/w/cafe/x', '/w/offic/x']) expect(denied(path), path).toBeNull();
  });

  test('nameKey: ASCII only lower-cased; one key for each spelling a folding file system takes for the same', () => {
    expect(nameKey('/W/Conf/DB.txt')).toBe('/w/conf/db.txt');
    expect(new Set(['ß', 'ẞ', 'SS', 'ss', 'sS'].map(nameKey)).size).toBe(1);
    expect(new Set(['Σ', 'σ', 'ς'].map(nameKey)).size).toBe(1);
    expect(new Set(['é', 'e\u0301', 'É', 'E\u0301'].map(nameKey)).size).toBe(1);
    expect(nameKey('a\u200bb\u2060c')).toBe('abc');
  });

  test('allow rules keep the case written on Linux, and an ASCII allow rule is not widened by folding', (context) => {
    if (process.platform !== 'linux') return context.skip('Linux only: macOS and Windows fold case for every rule');
    const env = { home: '/home/u', roots: ['/w'], platform: 'linux' as const };
    const rules = new RuleSet([parseRule('Read(/w/docs/**)', 'allow')], env);
    expect(rules.matchPath('allow', 'read', '/w/doc\u017F/a')).toBeNull();
    expect(rules.matchPath('allow', 'read', '/w/docs/a')?.text).toBe('Read(/w/docs/**)');
  });

  test('ordinary non-ASCII names outside the rule stay allowed (bypassPermissions)', () => {
    for (const path of ['pub/résumé.txt', 'pub/Straße.md', 'pub/σημειώσεις.txt']) {
      const read = decideServerTool({ ...FS_TOOL, args: [...FS_TOOL.args, w] }, 'read_text_file', { path: join(w, path) }, w, { mode: 'bypassPermissions', workspace: [w], deny: DENY });
      expect(read.verdict, `${path}: ${read.reason}`).toBe('allow');
    }
  });
});
