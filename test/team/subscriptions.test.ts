import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { EVERYTHING_SERVER, eventually, tempDir } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamClient, type TeamHarness } from '../helpers/team.js';

/**
 * Resource subscriptions are each session's (docs/team.md, "What shared servers send back"). Until
 * round 17 every resources/subscribe and unsubscribe went straight to the shared server, so bob's
 * unsubscribe ended alice's updates, and every session was sent every update, telling bob which
 * resources alice watched (round 16 review T5). The built gateway, SDK clients, the real
 * server-everything, whose `toggle-subscriber-updates` tool sends an update of each subscribed
 * resource as it starts (and every 5 s after).
 */
const A = 'token-of-alice-client-0123456789';
const B = 'token-of-bob-client-0123456789ab';
const URI = 'demo://resource/static/document/architecture.md';

describe('serve --http: resource subscriptions', () => {
  let team: TeamHarness;
  const open: TeamClient[] = [];

  beforeAll(async () => {
    team = await startTeam(tempDir(), {
      mcpServers: { ev: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      permissions: { allow: ['mcp__ev'] },
      http: { tokens: [{ user: 'alice', sha256: tokenHash(A) }, { user: 'bob', sha256: tokenHash(B) }] },
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(open.map((client) => client.close()));
    await team?.close();
  });

  /** A member's client, and the resource updates it is sent. */
  async function member(token: string) {
    const member = await teamClient(team.url, token);
    open.push(member);
    const updates: string[] = [];
    member.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));
    return { ...member, updates };
  }

  /** Has the server send an update of each subscribed resource now (the tool stops its timer, then starts it, which sends one at once). */
  async function update(by: TeamClient) {
    const toggle = () => by.client.callTool({ name: 'ev__toggle-subscriber-updates', arguments: {} });
    await toggle();
    await toggle();
  }

  test("an update goes to the sessions subscribed to it only; bob's unsubscribe does not end alice's subscription, nor does the end of alice's session end bob's", async () => {
    const alice = await member(A);
    const bob = await member(B);
    await alice.client.listResources();
    await alice.client.subscribeResource({ uri: URI });
    // The tool's timer starts: an update at once, and every 5 s.
    await alice.client.callTool({ name: 'ev__toggle-subscriber-updates', arguments: {} });
    await eventually(() => expect(alice.updates).toContain(URI), 15_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bob.updates).toEqual([]);

    // Bob subscribes and unsubscribes: alice is still subscribed.
    await bob.client.subscribeResource({ uri: URI });
    await bob.client.unsubscribeResource({ uri: URI });
    const before = alice.updates.length;
    await update(alice);
    await eventually(() => expect(alice.updates.length).toBeGreaterThan(before), 15_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bob.updates).toEqual([]);

    // Bob subscribes, alice's session ends: bob's subscription holds.
    await bob.client.subscribeResource({ uri: URI });
    await alice.close();
    await update(bob);
    await eventually(() => expect(bob.updates).toContain(URI), 15_000);
  });

  // Round 29 review P29-2: a member's subscriptions were not bounded: 50,000 URIs of a template grew the
  // gateway 33 MB, and each update of the server was matched against every one of them.
  test("a session's subscriptions are at most 1,000: the next is refused naming the limit; after an unsubscribe one more is taken", async () => {
    const mallory = await member(B);
    const uri = (index: number) => `demo://resource/dynamic/text/${index}`;
    for (let done = 0; done < 1_000; done += 100) await Promise.all(Array.from({ length: 100 }, (_, index) => mallory.client.subscribeResource({ uri: uri(done + index) })));
    await expect(mallory.client.subscribeResource({ uri: uri(1_000) })).rejects.toThrow(/this session is subscribed to 1000 resources already \(the limit\); unsubscribe from one first/);
    // The same resource again is no new subscription.
    await mallory.client.subscribeResource({ uri: uri(5) });
    await mallory.client.unsubscribeResource({ uri: uri(0) });
    await mallory.client.subscribeResource({ uri: uri(1_000) });
    await expect(mallory.client.subscribeResource({ uri: uri(1_001) })).rejects.toThrow(/the limit/);
    // Another member's session has its own.
    const alice = await member(A);
    await alice.client.subscribeResource({ uri: uri(2_000) });
  }, 120_000);
});
