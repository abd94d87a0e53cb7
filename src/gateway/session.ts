/**
 * The client session behind the upstream `Server`: its latch and grants, and how the latch reaches
 * its person — an elicitation form in the client, or the local approval page for clients that
 * cannot show one. Client errors are mapped to `PromptFailure`s here, so `latch/` knows no SDK.
 */
import { randomBytes } from '../node-crypto.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { pageOpenerDir, pageStateFile, stateKeyPath } from '../config/locate.js';
import type { ConfigFile } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Person, PromptFailure } from '../latch/ask.js';
import { SessionLatch } from '../latch/latch.js';
import { RetryApprovals, type ApprovalPage } from '../latch/page.js';
import type { PromptInput } from '../latch/prompt.js';
import type { Logger } from '../log.js';
import type { MatchEnv } from '../policy/match.js';
import { addPage, removePage } from '../approval-page/state-file.js';
import { LINK_TTL_MS } from '../approval-page/link.js';
import type { LocalApprovalPage } from '../approval-page/server.js';
import { SessionGrants, type SessionGrantBook } from '../store/grants.js';
import { RequestStates, readOrCreateStateKey } from '../latch/request-state.js';
import { openLinkInBrowser, notify } from './announce.js';
import { envelopeOf, type ModernWire } from './era-2026.js';
import type { Extra, SessionPort, WaitingPlaces } from './ports.js';
import type { CallOrigin } from './running-calls.js';
import { HeldCalls } from './held-calls.js';

/** Clients known to declare form elicitation but never show it (Claude Desktop shows no form). */
const NON_RENDERING_CLIENTS = new Set(['claude-ai']);
/** Clients known to use only the tools of their first list: Claude Desktop lists again after list_changed but cannot call the new tools. */
const FIRST_LIST_CLIENTS = new Set(['claude-ai']);
/** How long known clients wait for a tool result before giving up (Claude Desktop: about 60 s). */
const CLIENT_WAIT_LIMIT_MS: Record<string, number> = { 'claude-ai': 50_000 };

/** What differs for a session of a team gateway (team/http.ts): its id, its user, and where its calls wait for them. */
export interface SessionOptions {
  /** The transport's session id (`Mcp-Session-Id`). */
  id?: string;
  /** The authenticated user whose session this is. */
  user?: string;
  /** Where a call waits when the client cannot show a prompt, instead of the local page (team/waiting-room.ts). */
  page?: () => Promise<ApprovalPage>;
  /** The session's grants, when they live elsewhere than in this process only (team/session-grants.ts). */
  grants?: SessionGrantBook;
  /**
   * Whether the person answers the gateway's prompts in this session's client; false once the user
   * has an approver credential, which the client's token must not stand in for (docs/team.md#approvers).
   */
  answersInClient?: () => boolean;
  /** What the user's waiting calls may hold, shared by their sessions (team/waiting-budget.ts). */
  waiting?: WaitingPlaces;
  /**
   * The gateway's standing session for MCP 2026-07-28 requests over HTTP, which carry no session
   * (team/http.ts modernChannel): nothing tells one client's session from another's, so "Allow for
   * this session" is not offered (docs/team.md, "MCP 2026-07-28 clients").
   */
  sessionless?: boolean;
}

export class ClientSession implements SessionPort {
  readonly id: string;
  readonly user: string | undefined;
  readonly waiting: WaitingPlaces | undefined;
  readonly sessionless: boolean;
  readonly latch: SessionLatch;
  readonly grants: SessionGrantBook;
  readonly retryApprovals = new RetryApprovals();
  /** Pending approvals of 2026-07-28 clients, carried by the client between the two rounds. */
  readonly requestStates: RequestStates;
  readonly held = new HeldCalls();
  /** Set once connected: what 2026-07-28 requests said about their client. */
  modernWire: ModernWire | null = null;
  private page: Promise<LocalApprovalPage> | null = null;
  /** The state file `mcp-latch page` reads, next to the config. */
  private readonly pageStateFile: string;
  /** Where a link for the browser waits in a file (approval-page/opener.ts), next to the config. */
  private readonly pageOpenerDir: string;
  private pageOpened = false;

  constructor(
    private readonly server: Server,
    private readonly config: () => ConfigFile,
    private readonly logger: Logger,
    matchEnv: MatchEnv,
    configPath: string,
    private readonly options: SessionOptions = {},
  ) {
    this.id = options.id ?? `s-${process.pid}-${Date.now().toString(36)}`;
    this.user = options.user;
    this.waiting = options.waiting;
    this.sessionless = options.sessionless === true;
    this.requestStates = new RequestStates(() => this.stateKey(stateKeyPath(configPath)));
    this.pageStateFile = pageStateFile(configPath);
    this.pageOpenerDir = pageOpenerDir(configPath);
    this.latch = new SessionLatch({ ordering: config().approval.ordering, onError: (error) => logger.error({ err: errorMessage(error) }, 'latch error') });
    this.grants = options.grants ?? new SessionGrants(matchEnv);
  }

  person(extra: Extra): Person {
    return {
      get signal() {
        return extra.signal;
      },
      // A 2026-07-28 client is never sent a request: without the form in its envelope it gets the page or the fallback.
      showsForms: () => !envelopeOf({ _meta: extra._meta }) && this.canPrompt(),
      showsUrls: () => !envelopeOf({ _meta: extra._meta }) && Boolean(this.server.getClientCapabilities()?.elicitation?.url) && !NON_RENDERING_CLIENTS.has(this.clientName()),
      // Security: a user with an approver credential answers only with it: their client's token opened this session (docs/team.md#approvers).
      canPrompt: () => !envelopeOf({ _meta: extra._meta }) && this.canPrompt() && this.answersInClient(),
      listsRoots: () => !envelopeOf({ _meta: extra._meta }) && Boolean(this.server.getClientCapabilities()?.roots),
      listRoots: (timeoutMs) => whileOpen(extra.signal, (signal) => this.server.listRoots(undefined, { signal, timeout: timeoutMs, relatedRequestId: extra.requestId })).catch((error: unknown) => errorMessage(error)),
      prompt: (params, timeoutMs) =>
        whileOpen(extra.signal, (signal) => this.server.elicitInput(params, { signal, timeout: timeoutMs, relatedRequestId: extra.requestId })).then(
          (result) => ({ result }),
          (error: unknown) => promptFailure(error, extra.signal),
        ),
      label: () => this.label(),
      page: () => (this.options.page ? this.options.page() : this.approvalPage()),
      announcePage: (page, input) => (this.options.page ? this.logger.info({ user: this.user, server: input.server, tool: input.tool }, 'a call waits for its user') : this.announcePage(page, input, extra)),
      clientWaitLimitMs: () => CLIENT_WAIT_LIMIT_MS[this.clientName()] ?? Number.POSITIVE_INFINITY,
    };
  }

  answersInClient(): boolean {
    return this.options.answersInClient ? this.options.answersInClient() : true;
  }

  origin(extra: Pick<Extra, 'requestId'>): CallOrigin {
    return { client: this.server, requestId: extra.requestId, session: this.id };
  }

  /** Closes the approval page if it was started. */
  async close(): Promise<void> {
    this.held.cancelAll();
    if (!this.page) return;
    const page = await this.page.catch(() => null);
    if (!page) return;
    await page.close();
    await this.recordPage(() => removePage(this.pageStateFile, process.pid));
  }

  /** Best effort: the page works without the state file; only `mcp-latch page` would not list it. */
  private async recordPage(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, 'could not update the approval page state file');
    }
  }

  /** How the person sees this session on the approval page ("claude-ai 0.1.0"). */
  private label(): string {
    const client = this.server.getClientVersion() ?? this.modernWire?.lastEnvelope?.clientInfo;
    return client ? `${client.name} ${client.version}` : 'unknown client';
  }

  /** The key of request states, beside the config; a key of this process when that one cannot be used. */
  private stateKey(path: string): Buffer {
    try {
      return readOrCreateStateKey(path);
    } catch (error) {
      this.logger.error({ err: errorMessage(error) }, 'the state key cannot be used; paused calls end with this process');
      return randomBytes(32);
    }
  }

  /** Whether the client is known to use only its first tool list (its first list then waits longer). */
  keepsFirstList(): boolean {
    return FIRST_LIST_CLIENTS.has(this.clientName());
  }

  private clientName(): string {
    return this.server.getClientVersion()?.name ?? '';
  }

  private canPrompt(): boolean {
    return Boolean(this.server.getClientCapabilities()?.elicitation?.form) && !NON_RENDERING_CLIENTS.has(this.clientName());
  }

  /** The local approval page, started on first use (its code is loaded only then). */
  private approvalPage(): Promise<LocalApprovalPage> {
    this.page ??= import('../approval-page/server.js')
      .then(async ({ startApprovalPage }) => {
        const page = await startApprovalPage({ logger: this.logger.child({ component: 'approval-page' }), openerDir: this.pageOpenerDir });
        // The address only: the secret goes to the state file, never to the log (docs/threat-model.md).
        this.logger.info({ url: page.url }, `approval page: ${page.url}`);
        const file = this.pageStateFile;
        if (file) await this.recordPage(() => addPage(file, { pid: process.pid, url: page.url, secret: page.secret, client: this.label(), started: new Date().toISOString() }));
        return page;
      })
      .catch((error: unknown) => {
        // A failed start is not remembered: the next waiting call tries again.
        this.page = null;
        throw error;
      });
    return this.page;
  }

  /**
   * Points the person at the page. Only one-time links leave the gateway (through a file for the
   * browser, in the log of `browser-manual`), each its own; the log of `browser` names the address
   * alone, since the browser got its link, and a URL elicitation the address without a nonce.
   */
  private announcePage(page: ApprovalPage, input: PromptInput, extra: Extra): void {
    const { fallback, timeoutSeconds } = this.config().approval;
    const where = { server: input.server, tool: input.tool };
    if (fallback === 'browser-manual') {
      this.logger.warn(where, `a call waits for approval: open ${page.link()} (it works once, within ${LINK_TTL_MS / 1000} s; \`mcp-latch page\` prints a fresh link)`);
    } else {
      this.logger.warn(where, `a call waits for approval on ${page.url} (the browser was given a one-time link; \`mcp-latch page --open\` opens a fresh one)`);
    }
    if (!this.pageOpened && fallback === 'browser') {
      this.pageOpened = true;
      // Through a file, never on the opener's command line (round 18 review, L1).
      const failed = openLinkInBrowser(page.link(), this.pageOpenerDir);
      if (failed) this.logger.warn({ err: failed }, 'the browser was not opened: its link could not be written to a file of yours; `mcp-latch page` prints one');
    }
    if (fallback === 'browser') notify('mcp-latch: approval needed', `${input.server} wants to run ${input.tool}`);
    // Clients that declare URL elicitation can offer to open the page themselves (consent only). Never
    // a one-time link: the MCP spec forbids a pre-authenticated URL there, and with one the client
    // approved its own calls as the person (round 18 review, L8). The plain address opens the page in
    // a browser that holds its session; any other browser is told to run `mcp-latch page --open`.
    if (this.server.getClientCapabilities()?.elicitation?.url && !NON_RENDERING_CLIENTS.has(this.clientName())) {
      void whileOpen(extra.signal, (signal) =>
        this.server.elicitInput(
          { mode: 'url', url: page.plainAddress(), elicitationId: `${input.argsDigest.slice(0, 16)}-${Date.now().toString(36)}`, message: `mcp-latch: ${input.server} wants to run ${input.tool}. Open the approval page to decide.` },
          { signal, relatedRequestId: extra.requestId, timeout: timeoutSeconds * 1000 },
        ),
      ).catch(() => undefined);
    }
  }
}

/**
 * `ask`, a request of the gateway's to the client made for the client's request whose signal is
 * `signal`, given a signal that follows `signal` only until its answer. The SDK's request() keeps
 * its abort listener after the answer, so a call cancelled after the person answered its prompt sent
 * the client a `notifications/cancelled` for that answered `elicitation/create` (round 31 review,
 * left open; round 32 review P32-4): the spec lets a receiver ignore it, but it is a cancel of no
 * request in progress ("SHOULD only cancel requests … believed to be still in-progress"), and one
 * listener more on the call's signal for each question asked.
 */
function whileOpen<T>(signal: AbortSignal, ask: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (signal.aborted) return ask(signal);
  const own = new AbortController();
  const abort = (): void => own.abort(signal.reason);
  signal.addEventListener('abort', abort, { once: true });
  return ask(own.signal).finally(() => signal.removeEventListener('abort', abort));
}

/** Why an elicitation failed, in the latch's terms. */
function promptFailure(error: unknown, signal: AbortSignal): PromptFailure {
  const detail = errorMessage(error);
  if (signal.aborted) return { failure: 'cancelled', detail };
  // The client's answer failed the SDK's check of an elicitation result (`content` not an object;
  // round 13 review R3), or of its content against the form (Server.elicitInput): it answered, with
  // something the form does not allow.
  if (error instanceof Error && /^\$?ZodError$/.test(error.name)) return { failure: 'invalid', detail };
  if (!(error instanceof McpError)) return { failure: 'unsent', detail };
  if (error.code === ErrorCode.RequestTimeout) return { failure: 'timeout', detail };
  if (/Elicitation response content does not match requested schema|Error validating elicitation response/.test(error.message)) return { failure: 'invalid', detail };
  if (error.code === ErrorCode.ConnectionClosed && /Connection closed$/.test(error.message)) return { failure: 'closed', detail };
  // Any other McpError is the client's own JSON-RPC error answer (Protocol's _onresponse): it may have shown the form.
  return { failure: 'client-error', detail };
}
