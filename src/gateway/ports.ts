/**
 * What the call pipeline (call.ts, call-order.ts, resource-read.ts) needs from the gateway and from
 * the client session, as interfaces: the pipeline is tested and read without the `Gateway` class.
 */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigFile } from '../config/schema.js';
import type { PermitBook } from '../downstream/permit.js';
import type { ServerRegistry, ToolRoute } from '../downstream/registry.js';
import type { Person } from '../latch/ask.js';
import type { SessionLatch } from '../latch/latch.js';
import type { RetryApprovals } from '../latch/page.js';
import type { RequestStates } from '../latch/request-state.js';
import type { Logger } from '../log.js';
import type { DefinitionReport } from '../pins/check.js';
import type { PolicyState } from '../policy/decide.js';
import type { Audit } from '../store/audit.js';
import type { SessionGrantBook } from '../store/grants.js';
import type { InspectContext } from '../subjects/inspect.js';
import type { ToolClass } from '../subjects/kind.js';
import type { CallOrigin, RunningCalls } from './running-calls.js';
import type { HeldCalls } from './held-calls.js';
import type { ProcessBook } from './processes.js';

/** The SDK's per-request context, as handlers receive it (signal, request id, related notifications). */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What the pipeline needs from the gateway: read at call time, so a reload applies to the next call. */
export interface CallContext {
  registry: ServerRegistry;
  permits: PermitBook;
  /** The calls at each server and their sessions (shared by every session: a server's own requests go back through it). */
  running: RunningCalls;
  audit: Audit;
  logger: Logger;
  /** The processes the servers started for forwarded calls (processes.ts). */
  processes: ProcessBook;
  config(): ConfigFile;
  policy(): PolicyState;
  toolClass(route: ToolRoute): ToolClass;
  /** What deciding a call to this tool must wait for first (the shell grammar, still loading), or null. */
  analysisReady(route: ToolRoute): Promise<void> | null;
  inspectContext(): InspectContext;
  /** Adds rules to permissions.allow in the config file and applies them before returning. */
  rememberAlways(rules: string[]): Promise<void>;
  /** The tool's definition against the lock file, and what the description scan found. */
  definitionReport(route: ToolRoute): DefinitionReport;
  /** The resource template a URI is read through, against the lock file; null when no template is involved. */
  templateReport(uri: string): DefinitionReport | null;
  /** Records the definition in the lock file; in force when it resolves. */
  pinDefinition(report: DefinitionReport): Promise<void>;
  /**
   * "Accept the new definition": in force when it resolves. Over stdio the lock file's pin; on a team
   * gateway for the member who answered only (docs/team.md, "Pins").
   */
  acceptDefinition(report: DefinitionReport): Promise<void>;
  /** Pins a new definition once its first call's answer has gone out; close() waits for it. */
  pinAfter(report: DefinitionReport, answered: Promise<unknown>): void;
  /** The roots a server was given through the gateway (a 2026-07-28 client's answer to its `roots/list`): decided against from now on. */
  noteServerRoots(server: string, uris: string[]): void;
}

/** Places for waiting calls: `take` answers why a call may not wait (null: it may), `give` returns its place. */
export interface WaitingPlaces {
  take(bytes: number): string | null;
  give(bytes: number): void;
}

/** One client session: its latch, its grants, and how to reach its person. */
export interface SessionPort {
  id: string;
  /** The authenticated user of a team gateway's session; undefined over stdio. */
  user?: string | undefined;
  latch: SessionLatch;
  grants: SessionGrantBook;
  retryApprovals: RetryApprovals;
  /** Pending approvals of 2026-07-28 clients (input-required.ts). */
  requestStates: RequestStates;
  /** A 2025 server's questions waiting for the retry of a 2026-07-28 client (held-calls.ts). */
  held: HeldCalls;
  /** Whether the person answers the gateway's prompts in this session's client (not once they have an approver credential: docs/team.md#approvers). */
  answersInClient(): boolean;
  /** What the user's calls waiting in the latch may hold on a team gateway (team/waiting-budget.ts); none over stdio. */
  waiting?: WaitingPlaces | undefined;
  /** No client's session is behind it (team HTTP's 2026-07-28 requests): "Allow for this session" is not offered (docs/team.md). */
  sessionless?: boolean;
  /** The person behind the session, reached for one call (its cancellation, its request id). */
  person(extra: Extra): Person;
  /** Where a server working on this call sends its own requests and log messages (running-calls.ts). */
  origin(extra: Pick<Extra, 'requestId'>): CallOrigin;
}
