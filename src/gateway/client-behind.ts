import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * What a client that does not read may miss (docs/config.md, "limits"): while more than
 * `limits.messageMB` waits for it, over stdio (gateway/stdio-upstream.ts) or in a team session's
 * responses (team/session-output.ts), its progress and log notifications are dropped and each
 * resource told updated is kept once, to be told when it has read. Answers and requests never are.
 */

/** A notification the client may miss: a progress update (the next one supersedes it) or a log message. */
export function mayBeDropped(message: JSONRPCMessage): boolean {
  const method = (message as { method?: unknown }).method;
  return (method === 'notifications/progress' || method === 'notifications/message') && !('id' in message);
}

/** The uri of a `notifications/resources/updated`; null for any other message. */
export function updatedUri(message: JSONRPCMessage): string | null {
  const { method, params } = message as { method?: unknown; params?: { uri?: unknown } };
  return method === 'notifications/resources/updated' && !('id' in message) && typeof params?.uri === 'string' ? params.uri : null;
}

/**
 * The resources told updated while the client was behind ("read it again": one per resource says
 * what many did), their uris' characters together at most the bound `keep` is given; past it an
 * update is dropped and counted in `lost`. A subscribed resource's 3,000 updates held for a client
 * that did not read took the gateway to 321 MB (round 21 review, review-diff21 R1).
 */
export class UpdatesKept {
  private readonly uris = new Set<string>();
  private chars = 0;
  /** Updates dropped past the bound since the last `take`. */
  lost = 0;

  get size(): number {
    return this.uris.size;
  }

  keep(uri: string, maxChars: number): void {
    if (this.uris.has(uri)) return;
    if (this.chars + uri.length > maxChars) {
      this.lost += 1;
      return;
    }
    this.uris.add(uri);
    this.chars += uri.length;
  }

  /** The uris kept, in order; forgets them and the count lost. */
  take(): string[] {
    const uris = [...this.uris];
    this.uris.clear();
    this.chars = 0;
    this.lost = 0;
    return uris;
  }
}
