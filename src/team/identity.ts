import { createHash, randomBytes } from '../node-crypto.js';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { USER_ID, type HttpConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Identity } from './store.js';

/**
 * Who is calling a team gateway (docs/team.md#identity): a bearer token from `http.tokens`, found
 * by its SHA-256 (the config never holds a token), or, in OAuth resource-server mode, a JWT access
 * token signed by a key of the issuer's JWKS, issued by `http.oauth.issuer` for this gateway
 * (`aud`), not expired. Verification is `jose`'s: signature, `iss`, `aud`, `exp`/`nbf`; `exp` is
 * required (a token without one would be valid until the key rotates) and an `iat` in the future
 * is refused, each with `CLOCK_TOLERANCE_SECONDS` of skew.
 */
export type Authentication = { identity: Identity } | { refused: 'missing' | 'invalid'; detail: string };

/** Clock skew allowed between the issuer and this machine, for `exp`, `nbf` and `iat`. */
const CLOCK_TOLERANCE_SECONDS = 30;

/** A new bearer token and the line `http.tokens` takes for it. */
export function newToken(user: string, role: Identity['role']): { token: string; entry: { user: string; role: Identity['role']; sha256: string } } {
  const token = `mlt_${randomBytes(32).toString('base64url')}`;
  return { token, entry: { user, role, sha256: tokenHash(token) } };
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Where the tokens of a config are checked; the JWKS is fetched (and cached by jose) per URL. */
export class Authenticator {
  private jwks: { url: string; get: JWTVerifyGetKey } | null = null;

  constructor(
    private readonly http: () => HttpConfig | undefined,
    /** This gateway's resource URL: the default audience. */
    private readonly resource: string,
  ) {}

  /** Whether any way to authenticate is configured; without one only loopback is served, to one local user. */
  configured(): boolean {
    const http = this.http();
    return Boolean(http && (http.tokens.length > 0 || http.oauth));
  }

  /**
   * The users whose client tokens still answer their calls, as before round 13, because no
   * approver credential is configured for them: each is warned about at start and reload.
   */
  clientsThatApprove(): string[] {
    const http = this.http();
    if (!http) return [];
    // With approveScope every user's answer takes an approver credential: no client token answers.
    if (http.oauth?.approveScope !== undefined) return [];
    const approvers = new Set(http.tokens.filter((entry) => entry.role === 'approver').map((entry) => entry.user));
    const users = new Set(http.tokens.filter((entry) => entry.role !== 'approver' && !approvers.has(entry.user)).map((entry) => entry.user));
    return [...users];
  }

  /**
   * Whether `user` has an approver credential now: an approver token, or any OAuth token once
   * `http.oauth.approveScope` is set. Read at each prompt, so a reload that adds one applies to
   * the sessions already open (their client is then no longer where the person answers).
   */
  hasApprover(user: string): boolean {
    const http = this.http();
    return Boolean(http && (http.oauth?.approveScope !== undefined || http.tokens.some((entry) => entry.user === user && entry.role === 'approver')));
  }

  async authenticate(authorization: string | undefined): Promise<Authentication> {
    const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(authorization?.trim() ?? '');
    if (!match) return { refused: authorization ? 'invalid' : 'missing', detail: authorization ? 'the Authorization header is not "Bearer <token>"' : 'no bearer token' };
    const token = match[1]!;
    const http = this.http();
    const hash = tokenHash(token);
    const known = http?.tokens.find((entry) => entry.sha256 === hash);
    // Security: a client's token answers calls only while its user has no approver credential (docs/team.md#approvers):
    // an approver token, or any user once oauth.approveScope is set (round 20 review, T20-3: it answered then).
    if (known) return { identity: { user: known.user, role: known.role, approves: known.role === 'approver' || !this.hasApprover(known.user) } };
    if (http?.oauth && token.split('.').length === 3) return this.verifyJwt(token, http.oauth);
    return { refused: 'invalid', detail: 'unknown token' };
  }

  private async verifyJwt(token: string, oauth: NonNullable<HttpConfig['oauth']>): Promise<Authentication> {
    if (this.jwks?.url !== oauth.jwksUrl) this.jwks = { url: oauth.jwksUrl, get: createRemoteJWKSet(new URL(oauth.jwksUrl)) };
    try {
      const { payload } = await jwtVerify(token, this.jwks.get, {
        issuer: oauth.issuer,
        audience: oauth.audience ?? this.resource,
        requiredClaims: ['exp'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      // jose checks `iat` only with `maxTokenAge`; a token issued in the future was not issued yet.
      if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + CLOCK_TOLERANCE_SECONDS) {
        return { refused: 'invalid', detail: 'the token\'s "iat" (issued at) is in the future' };
      }
      const user = payload[oauth.userClaim];
      if (typeof user !== 'string' || !USER_ID.test(user)) return { refused: 'invalid', detail: `the token's "${oauth.userClaim}" claim is not a user id` };
      if (oauth.approveScope !== undefined) {
        const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
        if (scopes.includes(oauth.approveScope)) return { identity: { user, role: 'approver', approves: true } };
        return { identity: { user, role: oauth.admins.includes(user) ? 'admin' : 'user', approves: false } };
      }
      // Security: without approveScope an OAuth token answers only while its user has no approver token in http.tokens
      // (round 30 review, T30-3: it answered then, while the gateway no longer asked that user in the client).
      return { identity: { user, role: oauth.admins.includes(user) ? 'admin' : 'user', approves: !this.hasApprover(user) } };
    } catch (error) {
      return { refused: 'invalid', detail: error instanceof joseErrors.JOSEError ? error.code : errorMessage(error) };
    }
  }
}
