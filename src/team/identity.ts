import { createHash, randomBytes } from '../node-crypto.js';
import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { USER_ID, type HttpConfig } from '../config/schema.js';
import { head } from '../code-points.js';
import { errorMessage } from '../errors.js';
import type { Identity } from './store.js';
import { IssuerKeys, KeysUnreachable } from './issuer-keys.js';

/**
 * `revoked`: the refusal is the config's (a token not in http.tokens, a user no longer a member, a
 * client no longer allowed), not time's or the network's (an OAuth token past `exp`, the issuer's keys
 * unreachable): the sessions and requests a revoked credential opened are closed (docs/team.md#identity).
 *
 * Who is calling a team gateway (docs/team.md#identity): a bearer token from `http.tokens`, found
 * by its SHA-256 (the config never holds a token), or, in OAuth resource-server mode, a JWT access
 * token signed by a key of the issuer's JWKS, issued by `http.oauth.issuer` for this gateway
 * (`aud`), not expired. Verification is `jose`'s: signature, `iss`, `aud`, `exp`/`nbf`; `exp` is
 * required (a token without one would be valid until the key rotates) and an `iat` in the future
 * is refused, each with `CLOCK_TOLERANCE_SECONDS` of skew. Its `typ` must be one of
 * `oauth.tokenTypes` (RFC 9068's `at+jwt` unless the issuer issues others: another JWT of the issuer,
 * an ID token, is no access token), its client one of `oauth.clients` when set, it must not name
 * its own client as the user (RFC 9068 §5), and its user must be a member when `oauth.members` or
 * `oauth.groups` is set (memberRefusal). The keys: issuer-keys.ts.
 */
export type Authentication = { identity: Identity } | { refused: 'missing' | 'invalid'; detail: string; revoked?: true; user?: string };

/** Clock skew allowed between the issuer and this machine, for `exp`, `nbf` and `iat`. */
const CLOCK_TOLERANCE_SECONDS = 30;
/**
 * A token valid for longer than this, with `oauth.maxTokenAgeSeconds` unset, is said in the log (at
 * most hourly): a user the identity provider no longer lets in keeps access with it until its `exp`
 * (docs/team.md, "A member removed at the identity provider").
 */
const LONG_TOKEN_SECONDS = 3600;

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
  private keys: IssuerKeys | null = null;

  constructor(
    private readonly http: () => HttpConfig | undefined,
    /** This gateway's resource URL: the default audience. */
    private readonly resource: string,
    /** Where what the operator must know about tokens is logged (issuer unreachable, a token type not configured). */
    private readonly warn: (fields: Record<string, unknown>, text: string) => void = () => undefined,
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
    // The operator's decision (a token removed, or never configured): what a revoked token opened is closed (T32-3).
    return { refused: 'invalid', detail: 'unknown token', revoked: true };
  }

  private async verifyJwt(token: string, oauth: NonNullable<HttpConfig['oauth']>): Promise<Authentication> {
    const settings = { url: oauth.jwksUrl, cacheSeconds: oauth.keysCacheSeconds, staleSeconds: oauth.staleKeysSeconds };
    if (!this.keys?.same(settings)) this.keys = new IssuerKeys(settings, this.warn);
    try {
      const { payload, protectedHeader } = await jwtVerify(token, this.keys.getKey, {
        issuer: oauth.issuer,
        audience: oauth.audience ?? this.resource,
        requiredClaims: ['exp'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        // Security: a token's membership (its groups, the provider's assignment) is as of its issue: bounded by its age (round 33 review, T33-2).
        ...(oauth.maxTokenAgeSeconds !== undefined ? { maxTokenAge: oauth.maxTokenAgeSeconds } : {}),
      });
      // jose checks `iat` only with `maxTokenAge`; a token issued in the future was not issued yet.
      if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + CLOCK_TOLERANCE_SECONDS) {
        return { refused: 'invalid', detail: 'the token\'s "iat" (issued at) is in the future' };
      }
      // Security: an access token says so (RFC 9068 §4, RFC 8725 §3.11); another JWT of the issuer (an ID token) is refused (round 31 review, T31-2).
      const typ = tokenTypeRefusal(protectedHeader.typ, oauth.tokenTypes);
      if (typ) {
        // Signed by the issuer: the operator may have to name the type its access tokens carry.
        this.warnOnce('typ', { key: 'http.oauth.tokenTypes' }, `an OAuth token signed by the issuer was refused: ${typ} (docs/team.md#identity)`);
        return { refused: 'invalid', detail: typ };
      }
      const client = clientRefusal(payload, oauth.clients, oauth.userClaim);
      if (client) return { refused: 'invalid', detail: client, revoked: true };
      const user = payload[oauth.userClaim];
      if (typeof user !== 'string' || !USER_ID.test(user)) return { refused: 'invalid', detail: `the token's "${oauth.userClaim}" claim is not a user id` };
      // Security: with members or groups set, a token of the issuer for this audience is not enough (round 32 review, T32-2).
      const member = memberRefusal(payload, user, oauth);
      if (member) {
        this.warnOnce('member', { key: 'http.oauth.members', user }, `an OAuth token signed by the issuer was refused: ${member} (docs/team.md#identity)`);
        // `user`: the token is the issuer's for this user, so what their session holds can be closed (team/http.ts identify).
        return { refused: 'invalid', detail: member, revoked: true, user };
      }
      this.warnLongLived(payload, user, oauth);
      if (oauth.approveScope !== undefined) {
        const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
        if (scopes.includes(oauth.approveScope)) return { identity: { user, role: 'approver', approves: true } };
        return { identity: { user, role: oauth.admins.includes(user) ? 'admin' : 'user', approves: false } };
      }
      // Security: without approveScope an OAuth token answers only while its user has no approver token in http.tokens
      // (round 30 review, T30-3: it answered then, while the gateway no longer asked that user in the client).
      return { identity: { user, role: oauth.admins.includes(user) ? 'admin' : 'user', approves: !this.hasApprover(user) } };
    } catch (error) {
      if (error instanceof KeysUnreachable) return { refused: 'invalid', detail: 'the issuer\'s keys cannot be fetched (see the gateway\'s log)' };
      const age = tokenAgeRefusal(error, oauth.maxTokenAgeSeconds);
      if (age) return { refused: 'invalid', detail: age };
      return { refused: 'invalid', detail: error instanceof joseErrors.JOSEError ? error.code : errorMessage(error) };
    }
  }

  /**
   * Says, at most hourly, that a token accepted is valid for longer than LONG_TOKEN_SECONDS while
   * `oauth.maxTokenAgeSeconds` is unset: membership is read from the token, so a user removed at the
   * identity provider keeps access with it until then (round 33 review, T33-2).
   */
  private warnLongLived(payload: JWTPayload, user: string, oauth: NonNullable<HttpConfig['oauth']>): void {
    if (oauth.maxTokenAgeSeconds !== undefined || typeof payload.exp !== 'number') return;
    const lifetime = payload.exp - (typeof payload.iat === 'number' ? payload.iat : Date.now() / 1000);
    if (lifetime <= LONG_TOKEN_SECONDS) return;
    this.warnOnce(
      'lifetime',
      { key: 'http.oauth.maxTokenAgeSeconds', user, seconds: Math.round(lifetime) },
      `an OAuth token of ${user} is valid for ${Math.round(lifetime)} s: a user the identity provider no longer lets in (removed from a group, or from this gateway's application) keeps access with such a token until its "exp"; set http.oauth.maxTokenAgeSeconds to bound it, or shorten the provider's access token lifetime (docs/team.md#identity)`,
      3_600_000,
    );
  }

  private readonly warned = new Map<string, number>();

  /** Logs at most once a minute (or `every` ms) per kind: a refusal the operator must act on (a token type to configure) may come with every request. */
  private warnOnce(kind: string, fields: Record<string, unknown>, text: string, every = 60_000): void {
    if (Date.now() - (this.warned.get(kind) ?? Number.NEGATIVE_INFINITY) < every) return;
    this.warned.set(kind, Date.now());
    this.warn(fields, text);
  }
}

/**
 * A value of the token quoted for a refusal, at most 80 code units and cut on a code point's boundary
 * (code-points.ts): until round 33 `.slice(0, 80)` could end on half of an emoji's surrogate pair.
 */
function quoted(value: string): string {
  return head(JSON.stringify(value), 80);
}

/** Why jose refused the token for `oauth.maxTokenAgeSeconds` (no `iat`, or issued too long ago), in words naming the key; else null. */
function tokenAgeRefusal(error: unknown, maxTokenAgeSeconds: number | undefined): string | null {
  if (maxTokenAgeSeconds === undefined || !(error instanceof joseErrors.JWTClaimValidationFailed || error instanceof joseErrors.JWTExpired) || error.claim !== 'iat') return null;
  if (error.reason === 'missing' || error instanceof joseErrors.JWTClaimValidationFailed) return `the token has no valid "iat" (issued at), which http.oauth.maxTokenAgeSeconds requires`;
  return `the token was issued more than http.oauth.maxTokenAgeSeconds (${maxTokenAgeSeconds} s) ago: get a new one from the identity provider`;
}

/** `typ` as RFC 7515 §4.1.9 compares it: case-insensitive, "application/" optional. */
function normalTyp(typ: string): string {
  const lower = typ.toLowerCase();
  return lower.startsWith('application/') ? lower.slice('application/'.length) : lower;
}

/** Why the token's `typ` header (read from its verified protected header) is not one `oauth.tokenTypes` accepts, or null. */
export function tokenTypeRefusal(typ: unknown, accepted: readonly string[]): string | null {
  if (typ !== undefined && typeof typ !== 'string') return 'the token\'s "typ" header is not a string';
  const seen = typ === undefined ? '' : normalTyp(typ);
  if (accepted.some((each) => normalTyp(each) === seen)) return null;
  const named = typ === undefined ? 'no "typ" header' : `"typ" ${quoted(typ)}`;
  return `the token has ${named}, not one of http.oauth.tokenTypes (${accepted.map((each) => JSON.stringify(each)).join(', ')}): RFC 9068 access tokens are "at+jwt"; if the identity provider issues its access tokens otherwise, name that in http.oauth.tokenTypes`;
}

/**
 * Why the token's user is no member of this team, or null (docs/team.md#identity, "Who is a member"):
 * with `oauth.members` or `oauth.groups` set, the user must be named in `members` or `admins`, or
 * the token must carry one of `groups` in `groupsClaim`. Fail closed: a claim that is absent, or not
 * a list of strings (nor one string of names separated by spaces), names no group. Neither set:
 * every user the issuer gives a token for this audience is a member (null).
 */
export function memberRefusal(payload: JWTPayload, user: string, oauth: Pick<NonNullable<HttpConfig['oauth']>, 'members' | 'groups' | 'groupsClaim' | 'admins'>): string | null {
  const { members, groups } = oauth;
  if (members === undefined && groups === undefined) return null;
  if (members?.includes(user) || oauth.admins.includes(user)) return null;
  const where = typeof oauth.groupsClaim === 'string' ? oauth.groupsClaim : oauth.groupsClaim.join('.');
  const named = `user ${JSON.stringify(user)} is not a member: not in http.oauth.members`;
  if (groups === undefined) return named;
  const carried = groupsOf(claimAt(payload, oauth.groupsClaim));
  if (carried === null) return `${named}, and the token's "${where}" claim is ${claimAt(payload, oauth.groupsClaim) === undefined ? 'absent' : 'not a list of group names'} (http.oauth.groupsClaim)`;
  if (carried.some((group) => groups.includes(group))) return null;
  return `${named}, and the token's "${where}" claim holds none of http.oauth.groups`;
}

/** The claim at `path`: a name of the payload's own, or the keys to a nested one; undefined when absent. */
function claimAt(payload: JWTPayload, path: string | readonly string[]): unknown {
  let value: unknown = payload;
  for (const key of typeof path === 'string' ? [path] : path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Group names as a claim holds them (a list of strings, or one string separated by spaces, as `scope`), or null. */
function groupsOf(claim: unknown): string[] | null {
  if (typeof claim === 'string') return claim.split(' ').filter((name) => name !== '');
  if (Array.isArray(claim) && claim.every((name) => typeof name === 'string')) return claim as string[];
  return null;
}

/**
 * Why the token's client may not use this gateway, or null: not one of `oauth.clients` when set
 * (its `client_id`, RFC 9068 §2.2, else `azp`), or its client is the user it names (a token of the
 * client credentials grant, whose `sub` is the client's id: RFC 9068 §5 warns a client able to choose
 * its id would choose a member's).
 */
export function clientRefusal(payload: JWTPayload, clients: readonly string[] | undefined, userClaim: string): string | null {
  const client = typeof payload.client_id === 'string' ? payload.client_id : typeof payload.azp === 'string' ? payload.azp : undefined;
  if (client !== undefined && client === payload[userClaim]) return `the token's "${userClaim}" is its own client's id (${quoted(client)}): a token of a client acting for itself names no member; use an http.tokens token for scripts`;
  if (clients === undefined) return null;
  if (client === undefined) return 'the token names no client ("client_id" or "azp"), and http.oauth.clients is set';
  if (!clients.includes(client)) return `the token's client ${quoted(client)} is not one of http.oauth.clients`;
  return null;
}
