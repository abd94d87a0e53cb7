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
  logger.info({ cookie: 'c1', server: { env: { PATH: '/bin' }, headers: { 'X-Custom': 'h1' }, args: ['--verbose'] }, deep: { list: [{ session_id: 's1', apiKey: 'k1' }] }, err: new Error('boom') }, 'hello');
  await new Promise((resolve) => setImmediate(resolve));
  const record = JSON.parse(lines.join('')) as Record<string, unknown>;
  expect(record).toMatchObject({
    cookie: '[redacted]',
    server: { env: { PATH: '[redacted]' }, headers: { 'X-Custom': '[redacted]' }, args: ['--verbose'] },
    deep: { list: [{ session_id: '[redacted]', apiKey: '[redacted]' }] },
    err: { message: 'boom' },
    msg: 'hello',
  });
  expect(lines.join('')).not.toMatch(/c1|h1|s1|k1|\/bin/);
});
