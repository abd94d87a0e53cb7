import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { describe, expect, test } from 'vitest';
import { ResourceSubscriptions } from '../../src/gateway/subscriptions.js';

/**
 * The bookkeeping behind per-session resource subscriptions (src/gateway/subscriptions.ts); the
 * gateway end to end is test/team/subscriptions.test.ts. What reaches the server is recorded.
 */
function setup() {
  const subscriptions = new ResourceSubscriptions();
  const server = { name: 's', connection: 1 };
  const sent: string[] = [];
  const send = (what: string, fail = false) => async () => {
    sent.push(what);
    if (fail) throw new Error(`${what} failed`);
  };
  const client = (name: string) => ({ name }) as unknown as Server;
  const names = (uri: string) => [...subscriptions.subscriptionsOf('s', uri).keys()].map((each) => (each as unknown as { name: string }).name);
  return { subscriptions, server, sent, send, client, names };
}

describe('ResourceSubscriptions', () => {
  test('the server is sent the first subscribe and the last unsubscribe; updates go to subscribers only', async () => {
    const { subscriptions, server, sent, send, client, names } = setup();
    await subscriptions.subscribe(server, 'r://a', 'A', client('alice'), send('sub'));
    await subscriptions.subscribe(server, 'r://a', 'B', client('bob'), send('sub'));
    expect(sent).toEqual(['sub']);
    expect(names('r://a')).toEqual(['alice', 'bob']);
    expect(names('r://other')).toEqual([]);
    await subscriptions.unsubscribe('s', 'r://a', 'B', send('unsub'));
    await subscriptions.unsubscribe('s', 'r://a', 'C', send('unsub'));
    expect(sent).toEqual(['sub']);
    expect(names('r://a')).toEqual(['alice']);
    subscriptions.endSession('A', () => send('unsub')());
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual(['sub', 'unsub']);
    expect(names('r://a')).toEqual([]);
  });

  test('a sub-resource update reaches the subscribers of the resource it is under, not of a longer name', async () => {
    const { subscriptions, server, send, client, names } = setup();
    await subscriptions.subscribe(server, 'file:///w/dir', 'A', client('alice'), send('sub'));
    await subscriptions.subscribe(server, 'file:///w/', 'B', client('bob'), send('sub'));
    expect(names('file:///w/dir/a.txt')).toEqual(['alice', 'bob']);
    expect(names('file:///w/dir2')).toEqual(['bob']);
    expect(names('file:///x')).toEqual([]);
  });

  test('after the server restarted, the next subscribe is sent again', async () => {
    const { subscriptions, server, sent, send, client } = setup();
    await subscriptions.subscribe(server, 'r://a', 'A', client('alice'), send('sub'));
    server.connection = 2;
    await subscriptions.subscribe(server, 'r://a', 'B', client('bob'), send('sub'));
    expect(sent).toEqual(['sub', 'sub']);
  });

  test('a subscribe the server refuses leaves nobody subscribed, those who waited for it included', async () => {
    const { subscriptions, server, sent, send, client, names } = setup();
    const first = subscriptions.subscribe(server, 'r://a', 'A', client('alice'), send('sub', true));
    const second = subscriptions.subscribe(server, 'r://a', 'B', client('bob'), send('sub'));
    await expect(first).rejects.toThrow('sub failed');
    await expect(second).rejects.toThrow('sub failed');
    expect(names('r://a')).toEqual([]);
    await subscriptions.subscribe(server, 'r://a', 'B', client('bob'), send('sub'));
    expect(sent).toEqual(['sub', 'sub']);
    expect(names('r://a')).toEqual(['bob']);
  });

  test('an unsubscribe and the next subscribe reach the server in that order', async () => {
    const { subscriptions, server, sent, client } = setup();
    let release: () => void = () => undefined;
    const slow = () => new Promise<void>((resolve) => (release = () => (sent.push('unsub'), resolve())));
    await subscriptions.subscribe(server, 'r://a', 'A', client('alice'), async () => void sent.push('sub'));
    const unsubscribed = subscriptions.unsubscribe('s', 'r://a', 'A', slow);
    const subscribed = subscriptions.subscribe(server, 'r://a', 'B', client('bob'), async () => void sent.push('sub again'));
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await Promise.all([unsubscribed, subscribed]);
    expect(sent).toEqual(['sub', 'unsub', 'sub again']);
  });
});
