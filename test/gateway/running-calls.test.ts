import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { expect, test } from 'vitest';
import { RunningCalls, type CallOrigin } from '../../src/gateway/running-calls.js';

/** The calls running on each server: where a server's own requests go back (relay.ts). */
const client = {} as Server;
const origin = (session: string, requestId: number): CallOrigin => ({ client, requestId, session });
const ids = (origins: CallOrigin[]) => origins.map((o) => `${o.session}:${o.requestId}`);

test('one origin per session, its latest call, sessions in the order of their first running call', () => {
  const running = new RunningCalls();
  running.add('s', origin('a', 1));
  running.add('s', origin('b', 2));
  running.add('s', origin('a', 3));
  running.add('other', origin('c', 4));
  expect(ids(running.callers('s'))).toEqual(['a:3', 'b:2']);
  expect(ids(running.callers('other'))).toEqual(['c:4']);
  expect(running.callers('none')).toEqual([]);
});

test('a call ended first, in the middle or last leaves the others in order; ending again changes nothing', () => {
  const running = new RunningCalls();
  const calls = [1, 2, 3, 4, 5].map((n) => running.add('s', origin(`s${n}`, n)));
  calls[2]!.end();
  expect(ids(running.callers('s'))).toEqual(['s1:1', 's2:2', 's4:4', 's5:5']);
  calls[0]!.end();
  calls[4]!.end();
  calls[4]!.end();
  expect(ids(running.callers('s'))).toEqual(['s2:2', 's4:4']);
  const later = running.add('s', origin('s6', 6));
  calls[2]!.end();
  expect(ids(running.callers('s'))).toEqual(['s2:2', 's4:4', 's6:6']);
  calls[1]!.end();
  calls[3]!.end();
  later.end();
  expect(running.callers('s')).toEqual([]);
  running.add('s', origin('s7', 7));
  expect(ids(running.callers('s'))).toEqual(['s7:7']);
});

test('during() ends its call when the work settles, fulfilled, rejected or thrown', async () => {
  const running = new RunningCalls();
  let finish!: () => void;
  const work = running.during('s', origin('a', 1), () => new Promise<void>((done) => (finish = done)));
  await expect(running.during('s', origin('b', 2), () => Promise.reject(new Error('no')))).rejects.toThrow('no');
  await expect(
    running.during('s', origin('c', 3), () => {
      throw new Error('thrown');
    }),
  ).rejects.toThrow('thrown');
  expect(ids(running.callers('s'))).toEqual(['a:1']);
  finish();
  await work;
  expect(running.callers('s')).toEqual([]);
});
