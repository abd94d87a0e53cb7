import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../values.js';
import { covers } from './subscriptions.js';

/**
 * `subscriptions/listen` of MCP 2026-07-28 (basic/patterns/subscriptions): a client's long-lived
 * request for the change notifications it names, the only way such a client is sent any ("The
 * server MUST NOT send notification types the client has not explicitly requested"). Served by the
 * stdio gateway (gateway/era-2026.ts, ModernWire) and the team gateway (team/http.ts serveListen);
 * this is what both read of it. docs/approval.md, "List changes and resource updates".
 */

/** What a `subscriptions/listen` opted in to, as honoured (the revision's SubscriptionFilter: a type not asked for is never sent). */
export interface ListenFilter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
}

/** The resources one listen may name (each is a subscription of the server's). */
export const MAX_LISTEN_RESOURCES = 100;

/** The `_meta` key naming the listen a notification is delivered on: its request's id. */
export const SUBSCRIPTION_ID_KEY = 'io.modelcontextprotocol/subscriptionId';

/** The filter a listen's params ask for, as honoured; or why it is refused (-32602). */
export function listenFilter(params: unknown): ListenFilter | string {
  const asked = isPlainObject(params) ? params.notifications : undefined;
  if (!isPlainObject(asked)) return "Invalid params: 'notifications' is required and must be a SubscriptionFilter";
  const filter: ListenFilter = {};
  for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
    if (asked[key] !== undefined && typeof asked[key] !== 'boolean') return `Invalid params: notifications.${key} must be a boolean`;
    if (asked[key] === true) filter[key] = true;
  }
  const uris = asked.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === 'string')) return 'Invalid params: notifications.resourceSubscriptions must be an array of URIs';
    if (uris.length > MAX_LISTEN_RESOURCES) return `Invalid params: notifications.resourceSubscriptions names ${uris.length} resources, more than the ${MAX_LISTEN_RESOURCES} one listen may (MAX_LISTEN_RESOURCES); open another`;
    if (uris.length > 0) filter.resourceSubscriptions = [...new Set(uris as string[])];
  }
  return filter;
}

/** Whether a notification is a change one a listen may carry (list changes, resource updates). */
export function isChange(notification: Record<string, unknown>): boolean {
  switch (notification.method) {
    case 'notifications/tools/list_changed':
    case 'notifications/prompts/list_changed':
    case 'notifications/resources/list_changed':
    case 'notifications/resources/updated':
      return true;
    default:
      return false;
  }
}

/** Whether a change notification is one a listen opted in to (an update of a resource it names, or of one under it). */
export function listens(filter: ListenFilter, notification: Record<string, unknown>): boolean {
  switch (notification.method) {
    case 'notifications/tools/list_changed':
      return filter.toolsListChanged === true;
    case 'notifications/prompts/list_changed':
      return filter.promptsListChanged === true;
    case 'notifications/resources/list_changed':
      return filter.resourcesListChanged === true;
    case 'notifications/resources/updated': {
      const uri = isPlainObject(notification.params) ? notification.params.uri : undefined;
      return typeof uri === 'string' && (filter.resourceSubscriptions ?? []).some((watched) => covers(watched, uri));
    }
    default:
      return false;
  }
}

/** A message of the listen `id`'s stream: stamped with its id in `_meta`, as every one on it must be. */
export function onListen(message: Record<string, unknown>, id: RequestId): Record<string, unknown> {
  const params = isPlainObject(message.params) ? message.params : {};
  return { ...message, params: { ...params, _meta: { ...(isPlainObject(params._meta) ? params._meta : {}), [SUBSCRIPTION_ID_KEY]: id } } };
}

/** The listen's first message (to be stamped as the rest, onListen): what it will be sent, as honoured. */
export function acknowledged(filter: ListenFilter): Record<string, unknown> {
  return { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: filter } };
}

/**
 * How many open listens name each resource: the session is subscribed to it while any does. Used
 * by both gateways (era-2026.ts ModernWire, team/stateless.ts StatelessPipe), which subscribe as
 * each says.
 */
export class ListenedResources {
  private readonly counts = new Map<string, number>();

  /** A listen opened: the resources it names that no open listen named before (to subscribe to). */
  opened(filter: ListenFilter): string[] {
    const first: string[] = [];
    for (const uri of filter.resourceSubscriptions ?? []) {
      const count = this.counts.get(uri) ?? 0;
      this.counts.set(uri, count + 1);
      if (count === 0) first.push(uri);
    }
    return first;
  }

  /** A listen ended: the resources it names that no open listen names now (to unsubscribe from). */
  ended(filter: ListenFilter): string[] {
    const last: string[] = [];
    for (const uri of filter.resourceSubscriptions ?? []) {
      const count = (this.counts.get(uri) ?? 1) - 1;
      if (count > 0) this.counts.set(uri, count);
      else {
        this.counts.delete(uri);
        last.push(uri);
      }
    }
    return last;
  }
}
