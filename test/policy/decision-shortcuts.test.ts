import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { decideServerTool, decideShell, MODES } from '../helpers/policy.js';
import { tempDir } from '../helpers/gateway.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';

/**
 * The decision's shortcuts of round 33 (docs/performance.md "Round 33: a new text's decision
 * (perf33-dec)") and the refusals each must keep. Each read here is the first path of its decision,
 * the one subjects/paths.ts fromParentRealpath resolves (its directory's realpath, its name's lstat,
 * which is also F32-5's stat of the read target), in every mode.
 */

const DENY = ['Read(./conf/secret/**)', 'Read(**/.env)'];
const FS_TOOL = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem'] };

let w = '';
beforeAll(async () => {
  await initShellParser();
  w = tempDir('decision-shortcuts-');
  for (const dir of ['conf/secret/sub', 'pub']) mkdirSync(join(w, dir), { recursive: true });
  writeFileSync(join(w, 'conf/secret/db.txt'), 'TOPSECRET\n');
  writeFileSync(join(w, '.env'), 'TOKEN=1\n');
  writeFileSync(join(w, 'pub/a.txt'), 'hi\n');
  // F32-5's hard links, a link to the denied file as the last name, a linked directory before the
  // last name (the real path then differs from the one walked), `..` after a link.
  linkSync(join(w, 'conf/secret/db.txt'), join(w, 'pub/h.txt'));
  linkSync(join(w, '.env'), join(w, 'pub/e.txt'));
  symlinkSync('../conf/secret/db.txt', join(w, 'pub/l.txt'));
  symlinkSync(join(w, 'conf/secret'), join(w, 'cl'));
  symlinkSync(join(w, 'pub'), join(w, 'publink'));
  symlinkSync(join(w, 'conf/secret/sub'), join(w, 'sl'));
});

describe('the first path of a decision, resolved from its directory\'s realpath and its name\'s lstat', () => {
  const REFUSED = ['pub/h.txt', 'pub/e.txt', 'pub/l.txt', 'cl/db.txt', 'publink/h.txt', 'publink/l.txt', 'sl/../db.txt', 'conf/secret/sub/../db.txt'];

  test.each(MODES)('%s: a read of a covered file under another name is refused (read_text_file, and cat from a directory of links)', (mode) => {
    for (const file of REFUSED) {
      const read = decideServerTool({ ...FS_TOOL, args: [...FS_TOOL.args, w] }, 'read_text_file', { path: `${w}/${file}` }, w, { mode, workspace: [w], deny: DENY });
      expect(read.verdict, `${mode} read_text_file ${file}: ${read.reason}`).toBe('deny');
    }
    // The workdir is the decision's first path: a linked directory, then names below it.
    for (const [cwd, file] of [['publink', 'h.txt'], ['publink', 'l.txt'], ['cl', 'db.txt'], ['sl', '../db.txt']] as const) {
      const cat = decideShell(`cat ${file}`, { mode, workspace: [w], cwd: `${w}/${cwd}`, allow: ['Bash(cat:*)'], deny: DENY });
      expect(cat.verdict, `${mode} cd ${cwd}; cat ${file}: ${cat.reason}`).toBe('deny');
    }
    const asked = decideServerTool({ ...FS_TOOL, args: [...FS_TOOL.args, w] }, 'read_text_file', { path: `${w}/publink/h.txt` }, w, { mode, workspace: [w], ask: DENY });
    expect(asked.verdict, `${mode} ask rule: ${asked.reason}`).not.toBe('allow');
  });

  test('a file with one name, and a directory, outside the rules stay allowed', () => {
    for (const path of ['pub/a.txt', 'publink/a.txt', 'pub']) {
      const tool = path === 'pub' ? 'list_directory' : 'read_text_file';
      const read = decideServerTool({ ...FS_TOOL, args: [...FS_TOOL.args, w] }, tool, { path: `${w}/${path}` }, w, { mode: 'bypassPermissions', workspace: [w], deny: DENY });
      expect(read.verdict, `${path}: ${read.reason}`).toBe('allow');
    }
  });
});
