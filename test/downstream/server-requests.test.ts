import { afterEach, expect, test, vi } from 'vitest';
import { OWN_ANSWERS_PER_WINDOW, OWN_ANSWERS_WINDOW_MS, OwnAnswers, RELAYED_PER_WINDOW } from '../../src/downstream/server-requests.js';

/**
 * A server's own requests in a window (downstream/server-requests.ts): the ones the gateway answers
 * itself are dropped past their bound; the ones it relays to the client (sampling, elicitation,
 * roots/list) slow a stdio server past theirs — its output stops being read until the window ends —
 * and are never dropped, or a server's tool call asking them waited for its own timeout (round 29:
 * test/faults/prompt-memory.test.ts's 2,000 questions in a row, on a quiet machine). A remote server's,
 * whose output cannot be paused, are dropped.
 */

afterEach(() => vi.useRealTimers());

function counted(reading?: { stop(): void; resume(): void }) {
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const answers = new OwnAnswers((fields, message) => warnings.push({ fields, message }), undefined, reading);
  return { answers, warnings };
}

test("a stdio server's relayed requests past the rate are taken, its output stopped once and read again when the window ends", () => {
  vi.useFakeTimers();
  const reading = { stop: vi.fn(), resume: vi.fn() };
  const { answers, warnings } = counted(reading);
  for (let index = 0; index < RELAYED_PER_WINDOW; index += 1) expect(answers.takes('elicitation/create')).toBe(true);
  expect(reading.stop).not.toHaveBeenCalled();
  for (let index = 0; index < 500; index += 1) expect(answers.takes(index % 2 ? 'roots/list' : 'sampling/createMessage')).toBe(true);
  expect(reading.stop).toHaveBeenCalledTimes(1);
  expect(reading.resume).not.toHaveBeenCalled();
  vi.advanceTimersByTime(OWN_ANSWERS_WINDOW_MS);
  expect(reading.resume).toHaveBeenCalledTimes(1);
  expect(warnings).toEqual([{ fields: { over: 500, limit: RELAYED_PER_WINDOW }, message: expect.stringContaining("slowed this server's requests") }]);
  // A new window counts from nothing.
  expect(answers.takes('elicitation/create')).toBe(true);
  expect(reading.stop).toHaveBeenCalledTimes(1);
});

test('its own answers past their bound are still dropped, with the output stopped once for both kinds', () => {
  vi.useFakeTimers();
  const reading = { stop: vi.fn(), resume: vi.fn() };
  const { answers, warnings } = counted(reading);
  for (let index = 0; index < OWN_ANSWERS_PER_WINDOW; index += 1) expect(answers.takes('ping')).toBe(true);
  expect(answers.takes('ping')).toBe(false);
  expect(answers.takes('ping')).toBe(false);
  for (let index = 0; index < RELAYED_PER_WINDOW + 3; index += 1) expect(answers.takes('roots/list')).toBe(true);
  expect(reading.stop).toHaveBeenCalledTimes(1);
  vi.advanceTimersByTime(OWN_ANSWERS_WINDOW_MS);
  expect(reading.resume).toHaveBeenCalledTimes(1);
  expect(warnings.map((warning) => warning.fields)).toEqual([{ dropped: 2, limit: OWN_ANSWERS_PER_WINDOW }, { over: 3, limit: RELAYED_PER_WINDOW }]);
});

test("a remote server's relayed requests past the rate are dropped (its output is not paused)", () => {
  vi.useFakeTimers();
  const { answers, warnings } = counted();
  for (let index = 0; index < RELAYED_PER_WINDOW; index += 1) expect(answers.takes('sampling/createMessage')).toBe(true);
  expect(answers.takes('sampling/createMessage')).toBe(false);
  vi.advanceTimersByTime(OWN_ANSWERS_WINDOW_MS);
  expect(warnings).toEqual([{ fields: { dropped: 1, limit: RELAYED_PER_WINDOW }, message: expect.stringContaining('unanswered') }]);
});
