import { describe, expect, test } from 'vitest';
import { HeldCall } from '../../src/gateway/held-calls.js';

/** A 2025 server's question held for a 2026-07-28 client (held-calls.ts). */
describe('HeldCall', () => {
  const url = { mode: 'url' as const, elicitationId: 'e1', message: 'Connect', url: 'https://accounts.example.com/' };

  test("a URL-mode question is refused when this call's envelope does not declare URL mode, whatever the server was told", async () => {
    const call = new HeldCall({ elicitation: { form: {} } });
    await expect(call.ask(url)).rejects.toThrow('mcp-latch cannot relay this request: the client of this call does not support URL-mode elicitation');
  });

  test('a URL-mode question is held when it does; once the call ended, every question is answered cancel at once', async () => {
    const call = new HeldCall({ elicitation: { form: {}, url: {} } });
    const first = call.ask(url);
    const waiting = call.ask(url);
    const event = await call.next();
    expect('question' in event && !event.question.roots && event.question.params).toEqual(url);
    if ('question' in event && !event.question.roots) event.question.answer({ action: 'accept' });
    await expect(first).resolves.toEqual({ action: 'accept' });
    call.end();
    await expect(waiting).resolves.toEqual({ action: 'cancel' });
    await expect(call.ask(url)).resolves.toEqual({ action: 'cancel' });
  });
});
