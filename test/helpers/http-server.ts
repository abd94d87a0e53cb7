import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './gateway.js';

/** test/fixtures/http-server.mjs: a Streamable HTTP MCP server with sessions (its header says what it offers). */
const HTTP_SERVER = join(ROOT, 'test/fixtures/http-server.mjs');

/** Every server started here and not stopped yet: a test's afterEach stops them (stopHttpServers). */
const started: ChildProcess[] = [];

/** test/fixtures/remote-fault-server.mjs: a remote server that misbehaves (its header says how). */
export const REMOTE_FAULT_SERVER = join(ROOT, 'test/fixtures/remote-fault-server.mjs');

/** Starts the fixture (or another server of the same contract: `args` to node) on 127.0.0.1:`port`; resolves once it accepts connections. */
export function startHttpServer(port: number, env: Record<string, string> = {}, args: string[] = [HTTP_SERVER]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, PORT: String(port), ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    started.push(child);
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('listening on')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`http server exited (${code}): ${seen}`)));
  });
}

export function stopHttpServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export async function stopHttpServers(): Promise<void> {
  await Promise.all(started.splice(0).map(stopHttpServer));
}
