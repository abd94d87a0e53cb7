import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, FS_SERVER, eventually, tempDir, writeConfig } from '../helpers/gateway.js';

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
  tmux('new-session', '-d', '-s', session, '-x', '200', '-y', '60', `${process.execPath} ${BIN} try --config ${config} --log ${join(dir, 'gateway.log')}`);
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
    expect(screen()).toContain('fs__write_file');

    // 1. Allow for this session: arrow down once from "Allow once", Enter, skip the note.
    type('fs__write_file');
    press('Enter');
    await waitFor('args (JSON');
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
  });
});
