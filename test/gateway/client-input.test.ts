import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, test } from 'vitest';
import { BIN, eventually, fixtureServer, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * The client's stdin read into one reused buffer (src/gateway/client-input.ts): the built gateway
 * over a pipe, with a line split across reads and several lines in one read.
 */
test('over a pipe, serve is the one reader of fd 0 (process.stdin untouched), lines across reads are whole, and EOF ends it', async () => {
  const dir = tempDir();
  const config = writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix__echo'] } });
  // Tells on stderr if anything in the gateway's process makes process.stdin (a second handle on fd 0).
  const trap = join(dir, 'stdin-trap.cjs');
  writeFileSync(trap, `const get = Object.getOwnPropertyDescriptor(process, 'stdin').get;\nObject.defineProperty(process, 'stdin', { configurable: true, enumerable: true, get() { require('node:fs').writeSync(2, 'TRAP: process.stdin was made\\n'); return get.call(process); } });\n`);
  const child = spawn(process.execPath, ['--require', trap, BIN, 'serve', '--config', config], { stdio: ['pipe', 'pipe', 'pipe'], cwd: dir });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const messages: Array<Record<string, unknown>> = [];
  createInterface({ input: child.stdout }).on('line', (line) => messages.push(JSON.parse(line) as Record<string, unknown>));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const answer = (id: number) =>
    eventually(() => {
      const found = messages.find((message) => message.id === id);
      if (!found) throw new Error(`no answer to ${id} yet`);
      return found;
    }, 30_000);
  try {
    const initialize = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } })}\n`;
    // One line in two writes, far enough apart to be two reads.
    child.stdin.write(initialize.slice(0, 40));
    await new Promise((done) => setTimeout(done, 200));
    child.stdin.write(initialize.slice(40));
    expect((await answer(1)).result).toBeDefined();
    const call = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'fix__echo', arguments: { text: `call ${id} ${'x'.repeat(id * 10)}` } } });
    child.stdin.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}\n${call(2)}\n${call(3)}\n${call(4).slice(0, 50)}`);
    await new Promise((done) => setTimeout(done, 200));
    child.stdin.write(`${call(4).slice(50)}\n`);
    for (const id of [2, 3, 4]) expect(JSON.stringify((await answer(id)).result)).toContain(`call ${id} ${'x'.repeat(id * 10)}`);
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(stderr).not.toContain('TRAP');
  } finally {
    child.kill('SIGKILL');
  }
});
