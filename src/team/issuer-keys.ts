import { createLocalJWKSet, createRemoteJWKSet, jwksCache, type JSONWebKeySet, type JWKSCacheInput, type JWTVerifyGetKey } from 'jose';
import { errorMessage } from '../errors.js';

/**
 * The OAuth issuer's signing keys (`http.oauth.jwksUrl`; docs/team.md, "When the identity provider
 * cannot be reached"). jose fetches the set and uses it for `keysCacheSeconds`, then fetches it again
 * before the next token; a set the issuer serves replaces the last at once (a key it removed no
 * longer verifies). When that fetch fails (the issuer down, a timeout, not 200), the last set
 * fetched is still used for `staleKeysSeconds` more, with a warning, and a fetch is tried again at
 * most every `RETRY_MS`; past that bound every token is refused. Until round 31 every token was
 * refused as soon as the set aged out with the issuer unreachable (round 30 review's note).
 */
export interface KeySettings {
  url: string;
  cacheSeconds: number;
  staleSeconds: number;
}

/** How often a fetch is tried again while the issuer cannot be reached (each may wait jose's 5 s timeout). */
const RETRY_MS = 30_000;
/** How often using the last set, or refusing past the bound, is logged. */
const WARN_EVERY_MS = 60_000;

export class KeysUnreachable extends Error {}

export class IssuerKeys {
  private readonly cache: { uat?: number; jwks?: JSONWebKeySet } = {};
  private readonly remote: ReturnType<typeof createRemoteJWKSet>;
  private last: { at: number; get: JWTVerifyGetKey } | null = null;
  private failedAt = Number.NEGATIVE_INFINITY;
  private failure = '';
  private readonly warnedAt = new Map<string, number>();

  constructor(
    readonly settings: KeySettings,
    private readonly warn: (fields: Record<string, unknown>, text: string) => void,
  ) {
    this.remote = createRemoteJWKSet(new URL(settings.url), { cacheMaxAge: settings.cacheSeconds * 1000, [jwksCache]: this.cache as JWKSCacheInput });
  }

  /** Whether these keys were made for `settings` (a reload that changes them makes new ones). */
  same(settings: KeySettings): boolean {
    return settings.url === this.settings.url && settings.cacheSeconds === this.settings.cacheSeconds && settings.staleSeconds === this.settings.staleSeconds;
  }

  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    // Never fetched, or fetched within keysCacheSeconds: jose's own (an unknown kid refetches at most every 30 s).
    if (this.remote.fresh || this.cache.jwks === undefined || this.cache.uat === undefined) return this.remote(header, token);
    if (Date.now() - this.failedAt >= RETRY_MS) {
      try {
        await this.remote.reload();
        return await this.remote(header, token);
      } catch (error) {
        // A set fetched but refusing this token (no such kid) is the issuer's answer: refused.
        if (this.remote.fresh) throw error;
        this.failedAt = Date.now();
        this.failure = errorMessage(error);
      }
    }
    const fetched = this.cache.uat;
    const stale = Date.now() - fetched - this.settings.cacheSeconds * 1000;
    const since = new Date(fetched).toISOString();
    if (stale > this.settings.staleSeconds * 1000) {
      const text = `the OAuth issuer's keys (${this.settings.url}) could not be fetched (${this.failure}) and the last set, fetched at ${since}, is older than http.oauth.keysCacheSeconds + http.oauth.staleKeysSeconds allow: every token is refused until the issuer answers (docs/team.md#identity)`;
      this.warnNow('refused', { url: this.settings.url, fetched: since, limit: 'http.oauth.staleKeysSeconds' }, text);
      throw new KeysUnreachable(text);
    }
    this.warnNow(
      'stale',
      { url: this.settings.url, fetched: since, limit: 'http.oauth.staleKeysSeconds' },
      `the OAuth issuer's keys (${this.settings.url}) could not be fetched (${this.failure}): tokens are checked against the set fetched at ${since}, for at most http.oauth.staleKeysSeconds (${this.settings.staleSeconds} s) past its keysCacheSeconds; a key the issuer removed meanwhile still verifies until then (docs/team.md#identity)`,
    );
    if (this.last?.at !== fetched) this.last = { at: fetched, get: createLocalJWKSet(this.cache.jwks) };
    return this.last.get(header, token);
  };

  private warnNow(kind: 'stale' | 'refused', fields: Record<string, unknown>, text: string): void {
    if (Date.now() - (this.warnedAt.get(kind) ?? Number.NEGATIVE_INFINITY) < WARN_EVERY_MS) return;
    this.warnedAt.set(kind, Date.now());
    this.warn(fields, text);
  }
}
