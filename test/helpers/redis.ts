import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tempDir } from './gateway.js';
import { freePort } from './ports.js';

/**
 * A real `redis-server` of the test's own (Debian's package; `.ci/run` installs it): on a free
 * 127.0.0.1 port, in a temporary directory, with no persistence (no RDB snapshot, no AOF), killed
 * and removed by `stop()`.
 */
export interface TestRedis {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export const REDIS_SERVER = process.env.MCP_LATCH_REDIS_SERVER ?? 'redis-server';


/** `password`: the server requires it (`--requirepass`); `url` then holds none. */
export async function startRedis(options: { password?: string } = {}): Promise<TestRedis> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      return await startOnce(await freePort(), options.password);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

function startOnce(port: number, password: string | undefined): Promise<TestRedis> {
  const dir = tempDir('mcp-latch-redis-');
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes', ...(password !== undefined ? ['--requirepass', password] : [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        resolve({ url: `redis://127.0.0.1:${port}`, port, process: child, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (error) => {
      rmSync(dir, { recursive: true, force: true });
      reject(new Error(`could not start ${REDIS_SERVER} (install the Debian package redis-server): ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      rmSync(dir, { recursive: true, force: true });
      reject(new Error(`redis-server exited (${code ?? signal}) before it was ready: ${output.slice(-500)}`));
    });
  });
}
