import { createHmac, timingSafeEqual } from '../node-crypto.js';

/**
 * What the Redis team store writes is signed with a key every replica has and Redis does not
 * (`store.signingKeyFile`; docs/team.md#two-replicas): whoever can write to Redis could otherwise
 * answer any member's waiting call (an answer is a hash field and a PUBLISH) and add remembered
 * rules or session grants to anyone (round 12 review, F1). A value is kept as `MAC.value`, the MAC
 * an HMAC-SHA256 over what the value is, where it belongs and the value:
 *
 *   call:<id>.call          'call', id                  the pending call as the page and API show it
 *   call:<id>.answer        'answer', id                the person's answer (edit included)
 *   grants:<user>:<session> 'grant', user, session      each grant
 *   rules:<user>            'rule', user, generation    each remembered rule (generation 0: 'rule', user)
 *   rules:<user>:gen        'rules-gen', user           the generation of the user's rules, bumped by forget
 *
 * so a signed value moved to another call, user or session does not verify, nor a forgotten rule
 * written back (redis-store.ts, "remembered rules"). A value that does not
 * verify is taken as absent: a call is not shown, an answer releases nothing (the call ends
 * unanswered), a rule or grant does not hold, and each is logged.
 */
export class StoreSigner {
  constructor(private readonly key: Buffer) {}

  /** `value`, signed for where it is kept. */
  seal(where: readonly string[], value: string): string {
    return `${this.mac(where, value)}.${value}`;
  }

  /** The value of `sealed` when its MAC is right for `where`, else null. */
  open(where: readonly string[], sealed: string): string | null {
    const dot = sealed.indexOf('.');
    if (dot <= 0) return null;
    const value = sealed.slice(dot + 1);
    const given = Buffer.from(sealed.slice(0, dot), 'utf8');
    const expected = Buffer.from(this.mac(where, value), 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected) ? value : null;
  }

  private mac(where: readonly string[], value: string): string {
    // JSON of the parts: no two different (where, value) pairs give the same text.
    return createHmac('sha256', this.key).update(JSON.stringify([...where, value])).digest('base64url');
  }
}

/** The shortest key accepted: 32 characters of the file's first line. */
export const MIN_SIGNING_KEY_CHARS = 32;
