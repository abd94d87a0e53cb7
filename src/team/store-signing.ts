import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from '../node-crypto.js';

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
 * written back (redis-store.ts, "remembered rules"). A waiting call and an answer are also
 * encrypted with a key derived from the same one (`hide`, since round 33), then signed. A value that does not
 * verify is taken as absent: a call is not shown, an answer releases nothing (the call ends
 * unanswered), a rule or grant does not hold, and each is logged.
 */
export class StoreSigner {
  /** The AES-256-GCM key of `hide`/`reveal`, derived from the signing key (HKDF-SHA256, its own label): never the HMAC key itself. */
  private readonly secrecy: Buffer;

  constructor(private readonly key: Buffer) {
    this.secrecy = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), SECRECY_LABEL, 32));
  }

  /**
   * `value` encrypted for where it is kept (AES-256-GCM, a random 96-bit nonce, `where` as the
   * additional data), as `e1:` and base64url of nonce, ciphertext and tag: what a waiting call and
   * an answer say (arguments, the prompt, a note, an edit) is not readable by whoever can read Redis
   * (round 33 review, T33-3). Sealed after, as every value: signed over the ciphertext.
   */
  hide(where: readonly string[], value: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.secrecy, nonce);
    cipher.setAAD(Buffer.from(JSON.stringify(where), 'utf8'));
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return `${HIDDEN_PREFIX}${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /** The value `hide` gave `hidden` for `where`, or null: not encrypted (a value of before round 33), or not for here. */
  reveal(where: readonly string[], hidden: string): string | null {
    if (!hidden.startsWith(HIDDEN_PREFIX)) return null;
    const bytes = Buffer.from(hidden.slice(HIDDEN_PREFIX.length), 'base64url');
    if (bytes.length < 12 + 16) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.secrecy, bytes.subarray(0, 12));
      decipher.setAAD(Buffer.from(JSON.stringify(where), 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }

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

/** What an encrypted value starts with (StoreSigner.hide): the format's version, 1. */
const HIDDEN_PREFIX = 'e1:';
/** HKDF's info for the encryption key: a key for this use only, apart from the HMAC's. */
const SECRECY_LABEL = 'mcp-latch team store encryption 1';

/** The shortest key accepted: 32 characters of the file's first line. */
export const MIN_SIGNING_KEY_CHARS = 32;
