import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, test } from 'vitest';
import { memoryLogger } from './helpers/memory-logger.js';

/** Logs redact what the audit redacts (src/redact.ts): one list of secret keys for both. */
test('log records: secret-looking keys at any depth and every env and headers value are redacted; errors keep their message', async () => {
  const { logger, written } = memoryLogger('info');
  logger.info({ cookie: 'secret-c1', server: { env: { PATH: '/secret-bin' }, headers: { 'X-Custom': 'secret-h1' }, args: ['--verbose'] }, deep: { list: [{ session_id: 'secret-s1', apiKey: 'secret-k1' }] }, err: new Error('boom') }, 'hello');
  const text = await written();
  const record = JSON.parse(text) as Record<string, unknown>;
  expect(record).toMatchObject({
    cookie: '[redacted]',
    server: { env: { PATH: '[redacted]' }, headers: { 'X-Custom': '[redacted]' }, args: ['--verbose'] },
    deep: { list: [{ session_id: '[redacted]', apiKey: '[redacted]' }] },
    err: { message: 'boom' },
    msg: 'hello',
  });
  // Values no path holds (the stack names the test's own path, which may hold "c1" or "/bin").
  expect(text).not.toMatch(/secret-/);
});

/** Round 11 review, finding 14: secrets inside values reached the log (a server's log message, an error naming a URL). */
test('log records: secrets inside string values are redacted (redactText), the message is kept', async () => {
  const { logger, written } = memoryLogger('debug');
  logger.debug({ server: 'a', data: ['Authorization: Bearer sk-live-123', { note: 'clone https://ghp_0123456789abcdefghijABCDEFGHIJ012345@github.com/o/r' }], err: 'connect https://app:hunter2@db.example failed' }, 'log message of a server');
  const text = await written();
  const record = JSON.parse(text) as Record<string, unknown>;
  expect(record).toMatchObject({
    data: ['Authorization: Bearer [redacted]', { note: 'clone https://ghp_[redacted]@github.com/o/r' }],
    err: 'connect https://app:[redacted]@db.example failed',
    msg: 'log message of a server',
  });
  expect(text).not.toMatch(/sk-live|hunter2|ghp_0/);
});

/** Round 19: an error in a record was handed to pino as it was, and its message, stack and causes written in clear. */
test("log records: an error's message, stack and causes are redacted, at any key, its fields kept", async () => {
  const { logger, written } = memoryLogger('info');
  const error = Object.assign(new Error('cannot reach https://app:S3cretA@db.example', { cause: new Error('echo mlt_Q2hhbmdlTWVfUTJoaGJtZGxUV1ZmMDEyMzQ1Njc4OWFi-_') }), { code: 'ECONNREFUSED' });
  logger.warn({ err: error, detail: { error } }, 'a server failed');
  const text = await written();
  const record = JSON.parse(text) as { err: Record<string, unknown>; detail: { error: { stack: string } } };
  expect(text).not.toMatch(/S3cretA|mlt_Q2/);
  expect(record.err).toMatchObject({ type: 'Error', message: 'cannot reach https://app:[redacted]@db.example: echo mlt_[redacted]', code: 'ECONNREFUSED' });
  expect(record.detail.error.stack).toContain('caused by: Error: echo mlt_[redacted]');
});

/**
 * Round 13 review R16: with stderr's reader gone (the client died), pino's destination retried the
 * EPIPE of its exit flush for ever, in a synchronous sleep no signal interrupts. The built logger,
 * with lines pending and the pipe closed, must let the process exit.
 */
test('the log lets the process exit when stderr has no reader', async () => {
  const code = `import(${JSON.stringify(new URL('../dist/log.js', import.meta.url).href)}).then(({ createLogger }) => {
    const log = createLogger();
    setTimeout(() => { for (let i = 0; i < 2000; i++) log.info('x'.repeat(2000)); process.exit(0); }, 200);
  });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr.destroy();
  const hung = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [exitCode, signal] = (await once(child, 'exit')) as [number | null, string | null];
  clearTimeout(hung);
  expect({ exitCode, signal }).toEqual({ exitCode: 0, signal: null });
}, 30_000);

test('the log writes every line to stderr in order', async () => {
  const code = `import(${JSON.stringify(new URL('../dist/log.js', import.meta.url).href)}).then(({ createLogger }) => {
    const log = createLogger();
    for (let i = 0; i < 3000; i++) log.info({ i }, 'line');
    log.flush(() => process.exit(0));
  });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  await once(child, 'close'); // 'exit' may come before the last of stderr is read
  const numbers = text.trim().split('\n').map((line) => (JSON.parse(line) as { i: number }).i);
  expect(numbers).toEqual(Array.from({ length: 3000 }, (_, i) => i));
});

/**
 * Round 33 review S33-1: a server's tool spelled with a look-alike letter (Cyrillic `і`, fullwidth
 * `ｆ`, a mathematical bold `𝐠`) was written raw, in the record's `tool` and in the sentence naming
 * it, and read as the tool it imitates. Every character past ASCII is written `\uXXXX` (a pair past
 * U+FFFF), the same JSON; the gateway's own punctuation (`…`, `×`, `→`, `—`) stays.
 */
test("the log writes a look-alike tool name escaped in its fields and its sentence, the JSON the same, the gateway's punctuation kept", async () => {
  const { logger, written } = memoryLogger('info');
  const tool = 'g\u0456thub_push\uff46\u{1d420}';
  const msg = `fs: the server lists a changed definition of ${tool} (×2) → held — see mcp-latch tools --changed …`;
  logger.warn({ server: 'fs\u0430', tool }, msg);
  const text = await written();
  expect(text).not.toMatch(/[\u0456\u0430\uff46\ud835]/);
  expect(text).toContain('g\\u0456thub_push\\uff46\\ud835\\udc20');
  expect(text).toContain('"server":"fs\\u0430"');
  expect(text).toContain('(×2) → held — see mcp-latch tools --changed …');
  expect(JSON.parse(text)).toMatchObject({ server: 'fs\u0430', tool, msg });
});
