import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT, startGateway, tempDir, textOf } from '../helpers/gateway.js';

/**
 * Round 28 review P28-3: a server busy for a few seconds (reading nothing meanwhile) was stopped as
 * stuck when the client's other requests waited unread for it past twice limits.messageMB: only
 * tools/call was held back past limits.messageMB unread, and three prompts/get of 8 MB, sent while
 * the server worked, had it killed mid-call ("stopped reading its input … it may have had effects").
 * The built gateway over stdio, test/fixtures/busy-server.mjs.
 */
test('requests other than tools/call are held back past limits.messageMB unread: a busy server is not stopped as stuck', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const startsFile = join(dir, 'starts');
  const h = await startGateway({ mcpServers: { busy: { command: process.execPath, args: [join(ROOT, 'test/fixtures/busy-server.mjs')], env: { BUSY_STARTS: startsFile } } }, permissions: { allow: ['mcp__busy'] } }, { dir });
  try {
    const blocking = h.client.callTool({ name: 'busy__block', arguments: { ms: 6000 } }, undefined, { timeout: 60_000 }).then(textOf, String);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const big = 'y'.repeat(8 * 1024 * 1024);
    const prompts: Array<Promise<string>> = [];
    // Each after the server has read nothing for over a second: the third would pass twice limits.messageMB (10).
    for (let index = 0; index < 3; index++) {
      prompts.push(h.client.getPrompt({ name: 'busy__p', arguments: { text: big } }, { timeout: 60_000 }).then((got) => JSON.stringify(got), String));
      await new Promise((resolve) => setTimeout(resolve, 1200));
    }
    expect(await blocking).toBe('blocked done');
    const answers = await Promise.all(prompts);
    expect(answers.filter((answer) => answer.includes('got 8388608')).length).toBeGreaterThanOrEqual(1);
    // Which prompts are held back depends on how long the server's stall counts: the time it and the
    // gateway waited for a CPU is not counted (child-transport.ts), so on a loaded machine all three
    // may go. Each is answered or refused with the limit's text, never lost with the server.
    for (const answer of answers) expect(answer.includes('got 8388608') || answer.includes('the server is not reading its input'), answer.slice(0, 300)).toBe(true);
    expect(h.stderr()).not.toContain('stopped reading its input');
    expect(textOf(await h.client.callTool({ name: 'busy__echo', arguments: { text: 'after' } }))).toBe('echo: after');
    expect(existsSync(startsFile) ? readFileSync(startsFile, 'utf8').trim().split('\n') : []).toHaveLength(1);
  } finally {
    await h.close();
  }
});
