import { Writable } from 'node:stream';
import { expect, test } from 'vitest';
import { createLogger } from '../src/log.js';

/** Logs redact what the audit redacts (src/redact.ts): one list of secret keys for both. */
test('log records: secret-looking keys at any depth and every env and headers value are redacted; errors keep their message', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ level: 'info', destination: sink });
  logger.info({ cookie: 'secret-c1', server: { env: { PATH: '/secret-bin' }, headers: { 'X-Custom': 'secret-h1' }, args: ['--verbose'] }, deep: { list: [{ session_id: 'secret-s1', apiKey: 'secret-k1' }] }, err: new Error('boom') }, 'hello');
  await new Promise((resolve) => setImmediate(resolve));
  const record = JSON.parse(lines.join('')) as Record<string, unknown>;
  expect(record).toMatchObject({
    cookie: '[redacted]',
    server: { env: { PATH: '[redacted]' }, headers: { 'X-Custom': '[redacted]' }, args: ['--verbose'] },
    deep: { list: [{ session_id: '[redacted]', apiKey: '[redacted]' }] },
    err: { message: 'boom' },
    msg: 'hello',
  });
  // Values no path holds (the stack names the test's own path, which may hold "c1" or "/bin").
  expect(lines.join('')).not.toMatch(/secret-/);
});
