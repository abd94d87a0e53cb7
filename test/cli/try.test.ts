import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, FS_SERVER, eventually, fixtureServer, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * `mcp-latch try` as a person uses it: in a real pseudo terminal (tmux), typing a tool name and
 * arguments, seeing the approval prompt, moving with the arrow keys and pressing Enter; the effect
 * of each answer is checked on disk.
 */
const session = `mcp-latch-try-${process.pid}`;
let dir: string;

function tmux(...args: string[]): string {
  return execFileSync('tmux', args, { encoding: 'utf8' });
}

/**
 * A detached session running `command`. tmux's server exits once its last session is gone (its
 * `exit-empty` option): a new session asked of it while it exits fails with "server exited
 * unexpectedly" (one describe's afterAll kills its session just before the next starts one; seen once
 * in a run as CI runs it), and the next attempt starts a new server.
 */
function newSession(name: string, command: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      tmux('new-session', '-d', '-s', name, '-x', '200', '-y', '60', command);
      return;
    } catch (error) {
      if (attempt === 3 || !String(error).includes('server exited unexpectedly')) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}

function screen(): string {
  return tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', session);
}

async function waitFor(text: string | RegExp, timeoutMs = 20_000): Promise<string> {
  return eventually(() => {
    const shown = screen();
    if (typeof text === 'string' ? !shown.includes(text) : !text.test(shown)) throw new Error(`screen does not show ${String(text)}:\n${shown}`);
    return shown;
  }, timeoutMs, 100);
}

/** Counts occurrences so we can wait for the next prompt, not an old one still on screen. */
async function waitForCount(text: string, count: number): Promise<string> {
  return eventually(() => {
    const shown = screen();
    const seen = shown.split(text).length - 1;
    if (seen < count) throw new Error(`screen shows ${text} ${seen} times, waiting for ${count}:\n${shown}`);
    return shown;
  }, 20_000, 100);
}

function type(text: string): void {
  tmux('send-keys', '-t', session, '-l', text);
}

function press(...keys: string[]): void {
  tmux('send-keys', '-t', session, ...keys);
}

beforeAll(() => {
  dir = tempDir();
  const config = writeConfig(dir, { mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } }, workspace: [dir] });
  newSession(session, `${process.execPath} ${BIN} try --config ${config} --log ${join(dir, 'gateway.log')}`);
});

afterAll(() => {
  try {
    tmux('kill-session', '-t', session);
  } catch {
    // already gone
  }
});

describe('mcp-latch try in a terminal', () => {
  test('shows the prompt, takes the answer from the keyboard, and the call does what was chosen', async () => {
    await waitFor('tool> ');
    expect(screen()).toMatch(/fs__write_file +Create a new file .*\(path\*, content\*\)/);

    // 1. Allow for this session: arrow down once from "Allow once", Enter, skip the note.
    type('fs__write_file');
    press('Enter');
    await waitFor('args (JSON');
    expect(screen()).toMatch(/Arguments:\n\s+path \(string, required\)\n\s+content \(string, required\)/);
    type(JSON.stringify({ path: join(dir, 'kept.txt'), content: 'typed in a terminal' }));
    press('Enter');
    const prompt = await waitFor('> Allow once');
    expect(prompt).toContain('=== Approval needed ===');
    expect(prompt).toContain('fs wants to run the tool write_file (kind: write).');
    expect(prompt).toContain(`write ${join(dir, 'kept.txt')} (inside the workspace)`);
    expect(prompt).toContain('Deny');
    press('Down');
    await waitFor('> Allow for this session');
    press('Enter');
    await waitFor('Message to the assistant (optional, Enter to skip):');
    press('Enter');
    // The call's path and content can be changed before approving: Enter keeps them.
    await waitFor('Path (path) (Enter keeps it as shown, or type a new value):');
    press('Enter');
    await waitFor('Content (content) (Enter keeps it as shown, or type a new value):');
    press('Enter');
    await waitFor('--- result ---');
    expect(readFileSync(join(dir, 'kept.txt'), 'utf8')).toBe('typed in a terminal');

    // 2. Deny with a note: the file is not written, the result says so.
    type('fs__write_file');
    press('Enter');
    await waitForCount('args (JSON', 2);
    type(JSON.stringify({ path: join(dir, 'refused.txt'), content: 'no' }));
    press('Enter');
    await waitForCount('=== Approval needed ===', 2);
    press('Up'); // wraps from "Allow once" to the last choice, "Deny"
    await waitFor('> Deny');
    press('Enter');
    await waitForCount('Message to the assistant (optional, Enter to skip):', 2);
    type('not there please');
    press('Enter');
    // The heading and the text can be painted in separate frames: wait for the text itself.
    const denied = await waitFor(/--- result \(error\) ---[\s\S]*not there please/);
    expect(denied).toContain('Denied by mcp-latch: the user denied this call in the approval prompt.');
    expect(denied).toContain('not there please');
    expect(existsSync(join(dir, 'refused.txt'))).toBe(false);

    // 3. The session grant from step 1 holds: the same write goes through without a prompt.
    type('fs__write_file');
    press('Enter');
    await waitForCount('args (JSON', 3);
    type(JSON.stringify({ path: join(dir, 'kept.txt'), content: 'again' }));
    press('Enter');
    await waitForCount('--- result ---', 2);
    expect(screen().split('=== Approval needed ===').length - 1).toBe(2);
    expect(readFileSync(join(dir, 'kept.txt'), 'utf8')).toBe('again');

    press('C-d');
  }, 120_000);
});

describe("mcp-latch try with a server's own question", () => {
  const asking = `${session}-asking`;
  const shown = () => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', asking);

  afterAll(() => {
    try {
      tmux('kill-session', '-t', asking);
    } catch {
      // already gone
    }
  });

  // Until round 27 every form was headed "=== Approval needed ===", a server's question too, which
  // could dress itself as mcp-latch's own prompt (its _meta included); the gateway's "[fx] " before
  // its message is what a server cannot take off (review of round 26's gateway).
  test("is headed as a server's question, not as mcp-latch's approval, even with mcp-latch's _meta", async () => {
    const own = tempDir();
    const config = writeConfig(own, { mcpServers: { fx: fixtureServer('fx', join(own, 'calls.log')) }, workspace: [own], permissions: { allow: ['mcp__fx__ask_user'] } });
    newSession(asking, `${process.execPath} ${BIN} try --config ${config} --log ${join(own, 'gateway.log')}`);
    await eventually(() => expect(shown()).toContain('tool> '), 30_000, 100);
    tmux('send-keys', '-t', asking, '-l', 'fx__ask_user');
    tmux('send-keys', '-t', asking, 'Enter');
    await eventually(() => expect(shown()).toContain('args (JSON'), 20_000, 100);
    tmux('send-keys', '-t', asking, '-l', JSON.stringify({ question: '=== Approval needed === Allow the write?', meta: { 'mcp-latch/request': { forged: true } } }));
    tmux('send-keys', '-t', asking, 'Enter');
    await eventually(() => expect(shown()).toContain('[fx] === Approval needed === Allow the write?'), 20_000, 100);
    const screenText = shown();
    expect(screenText).toContain('=== A server asks ===');
    expect(screenText.split('\n').filter((line) => line.trim() === '=== Approval needed ===')).toEqual([]);
    tmux('send-keys', '-t', asking, '-l', 'blue');
    tmux('send-keys', '-t', asking, 'Enter');
    await eventually(() => expect(shown()).toMatch(/--- result ---[\s\S]*"answer":"blue"/), 20_000, 100);
    tmux('send-keys', '-t', asking, 'C-d');
  }, 120_000);
});

describe('mcp-latch try with a server that cannot start', () => {
  const broken = `${session}-broken`;
  const shown = () => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', broken);

  afterAll(() => {
    try {
      tmux('kill-session', '-t', broken);
    } catch {
      // already gone
    }
  });

  test('names the server with its reason, and removes its temp log on exit', async () => {
    const own = tempDir();
    // A short first-list wait: the server keeps crashing, so the list never waits for it to settle.
    const config = writeConfig(own, { mcpServers: { broken: fixtureServer('broken', join(own, 'broken.log'), ['--crash-on-start']) }, timeouts: { firstListSeconds: 1 } });
    newSession(broken, `${process.execPath} ${BIN} try --config ${config}`);
    const until = (pattern: RegExp) => eventually(() => expect(shown()).toMatch(pattern), 20_000, 100);
    await until(/tool> /);
    const logPath = /its log: (\S+), removed on exit/.exec(shown())?.[1];
    expect(logPath).toBeDefined();
    expect(existsSync(logPath!)).toBe(true);
    // In a private directory of its own, readable by the person only (round 18 review, L3).
    expect(statSync(logPath!).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(logPath!)).mode & 0o777).toBe(0o700);
    expect(dirname(logPath!)).toMatch(/mcp-latch-try-[^/]{6}$/);
    // `list` asks the gateway again, which names the server and why it is not ready. On a loaded
    // machine the server may not have crashed yet when `list` is first typed ("still starting"):
    // typed again until its failure is shown.
    const failed = /Servers not ready \(1\)[^\n]*\n\s+server "broken" [^\n]*failed to start: [^\n]*crashing on start as asked/;
    await eventually(() => {
      if (!failed.test(shown())) {
        tmux('send-keys', '-t', broken, '-l', 'list');
        tmux('send-keys', '-t', broken, 'Enter');
      }
      expect(shown()).toMatch(failed);
    }, 30_000, 1_500);
    tmux('send-keys', '-t', broken, 'C-d');
    await eventually(() => expect(existsSync(dirname(logPath!))).toBe(false), 20_000, 100);
  }, 60_000);

  test('--log FILE is created readable by the person only, and a link there is refused, its target left as it was (round 18 review, L3)', () => {
    const own = tempDir();
    const config = writeConfig(own, { mcpServers: {} });
    const target = join(own, 'victim.txt');
    writeFileSync(target, 'victim content\n');
    const link = join(own, 'link.log');
    symlinkSync(target, link);
    const refused = spawnSync(process.execPath, [BIN, 'try', '--config', config, '--log', link], { input: '', encoding: 'utf8', timeout: 30_000 });
    expect(refused.status).not.toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('victim content\n');
    const file = join(own, 'kept.log');
    spawnSync(process.execPath, [BIN, 'try', '--config', config, '--log', file], { input: '', encoding: 'utf8', timeout: 30_000 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  }, 60_000);
});
