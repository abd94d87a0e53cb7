import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

/**
 * The most `notifications/resources/updated` of one server relayed to one client in a second
 * (relay.ts onResourceUpdated). Past it an update is not sent: the resource the client subscribed to
 * that it is under (or is) is kept, and when the second ends each one kept is told updated once
 * ("read it again": one says what many did; the spec lets an update name the resource subscribed to
 * for a sub-resource), with one line in the gateway's log giving the count. A server's 300,000
 * updates of sub-resources of one subscribed resource were relayed one for one, up to
 * limits.messageMB of them waiting ahead of every other server's answers: an `echo` took 3–12 s
 * (round 30 review, P30-3; docs/config.md, "limits").
 */
export const RESOURCE_UPDATES_PER_SECOND = 100;

/** One server's updates to one client in the current second: how many went, the subscribed resources kept past the rate, and how many updates those stand for. */
interface Second {
  sent: number;
  kept: Set<string>;
  held: number;
}

export class UpdateRate {
  private readonly seconds = new Map<string, Map<Server, Second>>();

  /**
   * `told`: sends `client` the update of each resource kept, and logs `held` (the updates they stand for).
   */
  constructor(private readonly told: (server: string, client: Server, kept: string[], held: number) => void) {}

  /** Whether an update of `server` to `client` goes now; false: `subscribed` (the resource it subscribed to that covers it) is kept, to be told when the second ends. */
  takes(server: string, client: Server, subscribed: string): boolean {
    let clients = this.seconds.get(server);
    if (clients === undefined) this.seconds.set(server, (clients = new Map()));
    let second = clients.get(client);
    if (second === undefined) {
      const opened: Second = { sent: 0, kept: new Set(), held: 0 };
      clients.set(client, (second = opened));
      const byClient = clients;
      setTimeout(() => {
        byClient.delete(client);
        if (byClient.size === 0 && this.seconds.get(server) === byClient) this.seconds.delete(server);
        if (opened.held > 0) this.told(server, client, [...opened.kept], opened.held);
      }, 1_000).unref();
    }
    if (second.sent < RESOURCE_UPDATES_PER_SECOND) {
      second.sent += 1;
      return true;
    }
    second.kept.add(subscribed);
    second.held += 1;
    return false;
  }
}
