import type { ClientCapabilities, ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { MAX_OPEN_SAMPLING, MAX_SERVER_QUESTIONS, MAX_SERVER_ROUNDS } from '../config/limits.js';
import type { ServerAnswers } from '../downstream/supervisor.js';
import type { Person } from '../latch/ask.js';
import { escapeText, isPlainText } from '../latch/escape.js';
import { MAX_CHECKED_VALUES } from '../downstream/answer-entries.js';
import { MAX_DEPTH, isPlainObject, nestsDeeperWithin } from '../values.js';
import { canShowForm, type Envelope } from './era-2026.js';
import { markedSampling } from './sampling.js';
import { withoutGatewayKeys } from './server-meta.js';
import { schemaText } from './listed-text.js';

/**
 * A 2026-07-28 server's own questions (downstream/era-2026.ts): its tools/call answers
 * `resultType: "input_required"` with named `inputRequests` and its own `requestState`, and expects
 * the call again with the same arguments, `inputResponses` and that state.
 *
 *   2026-07-28 client   the requests are relayed under `mcp-latch/server/<key>`, the server's state
 *                       sealed inside the gateway's (input-required.ts); the retry is decided again
 *                       and the answers go back to the server under its own keys
 *   handshake client    the gateway asks each question through elicitation/create, as it relays a
 *                       2025 server's elicitation, and calls the server again with the answers
 *
 * The call that produced the questions was already allowed (or approved): the questions are part of
 * running it, never a way around deciding it. The server's text is shown with its name first and
 * escaped, since the client shows the gateway as the one asking.
 */
const KEY_PREFIX = 'mcp-latch/server/';
/** The key of a 2025 server's `elicitation/create` held for a 2026-07-28 client's retry (input-required.ts). */
export const HELD_INPUT = `${KEY_PREFIX}elicitation`;

/** What a server asked, as the client is shown it, and what the gateway keeps to route the answers back. */
export interface ServerInput {
  /** The server's own keys, in order. */
  keys: string[];
  /** The server's own requestState, if it gave one. */
  state?: string;
  /** The requests under the gateway's keys, the server's text prefixed and escaped. */
  requests: Record<string, unknown>;
  /** This round's number in its call, from 1 (MAX_SERVER_ROUNDS), and the questions of the call so far, this round's with them (MAX_SERVER_QUESTIONS). */
  round: number;
  asked: number;
}

/** The rounds of one call before this one: the ServerInput the call's last round was (read back from a state, so checked), or null for the first. */
type RoundsBefore = { round?: unknown; asked?: unknown } | null;

export function isInputRequired(value: unknown): boolean {
  return isPlainObject(value) && value.resultType === 'input_required';
}

/**
 * The server's input_required read and wrapped for the client; a string says what is wrong with it.
 * With `client` (a 2026-07-28 client's capabilities, which relays the requests itself), a request
 * that client cannot be sent is refused here; without it the caller asks each question itself.
 */
export function serverInput(server: string, result: Record<string, unknown>, client: ClientCapabilities | null = null, before: RoundsBefore = null): ServerInput | string {
  const { inputRequests, requestState } = result;
  if (!isPlainObject(inputRequests) || Object.keys(inputRequests).length === 0) return 'it asked for input without naming any input request';
  if (requestState !== undefined && typeof requestState !== 'string') return 'its requestState is not a string';
  // Round 19 review of the 2026-07-28 path, F3: 200 in one answer were all put before the person.
  const count = Object.keys(inputRequests).length;
  if (count > MAX_SERVER_QUESTIONS) return `it asked ${count} questions at once (the limit is ${MAX_SERVER_QUESTIONS} of one server at once)`;
  // Over the rounds of one call too, in either era: 8 rounds of 200 were 1,600 prompts (F3), and a
  // 2026-07-28 client's rounds were not counted at all (round 20). Counts that are not numbers
  // (a state of another build) are taken as the limit: fail closed.
  const round = before === null ? 1 : typeof before.round === 'number' ? before.round + 1 : MAX_SERVER_ROUNDS + 1;
  if (round > MAX_SERVER_ROUNDS) return `it asked again after ${MAX_SERVER_ROUNDS} rounds of answers (the limit is ${MAX_SERVER_ROUNDS} rounds of one server for one call)`;
  const asked = (before === null ? 0 : typeof before.asked === 'number' ? before.asked : MAX_SERVER_QUESTIONS) + count;
  if (asked > MAX_SERVER_QUESTIONS) return `it asked ${asked} questions in ${round} rounds of one call (the limit is ${MAX_SERVER_QUESTIONS} of one server for one call)`;
  // Before anything walks them (shownQuestion and the schema's text recurse): a question 5,000 levels
  // deep overflowed the stack, "Maximum call stack size exceeded" (round 19 review of the
  // 2026-07-28 path, F4). The bounds a server's complete result is held to (call-result.ts).
  const deep = nestsDeeperWithin(inputRequests, MAX_CHECKED_VALUES);
  if (deep === null) return `its input requests hold more than ${MAX_CHECKED_VALUES.toLocaleString('en-US')} values, the most mcp-latch checks in one answer`;
  if (deep) return `its input requests nest deeper than ${MAX_DEPTH} levels, the most mcp-latch passes on`;
  const requests: Record<string, unknown> = {};
  let samplings = 0;
  for (const [key, request] of Object.entries(inputRequests)) {
    if (!isPlainObject(request) || typeof request.method !== 'string' || (request.params !== undefined && !isPlainObject(request.params))) return `its input request "${escapeText(key)}" is not a request`;
    const unsent = client && unrelayable(request as { method: string; params?: Record<string, unknown> }, client);
    if (unsent) return unsent;
    // Its sampling requests as a 2025 server's are relayed (relay.ts, sampling.ts): marked as its own, no context, at most MAX_OPEN_SAMPLING at once.
    if (request.method === 'sampling/createMessage' && isPlainObject(request.params)) {
      if (++samplings > MAX_OPEN_SAMPLING) return `it asked for more than ${MAX_OPEN_SAMPLING} sampling requests at once (the limit is ${MAX_OPEN_SAMPLING} per server)`;
      requests[KEY_PREFIX + key] = { ...request, params: markedSampling(server, request.params as Parameters<typeof markedSampling>[1]) };
      continue;
    }
    if (request.method !== 'elicitation/create' || !isPlainObject(request.params)) {
      requests[KEY_PREFIX + key] = request;
      continue;
    }
    const shown = shownQuestion(server, request.params);
    if (typeof shown === 'string') return shown;
    requests[KEY_PREFIX + key] = { ...request, params: shown };
  }
  return { keys: Object.keys(inputRequests), ...(requestState !== undefined ? { state: requestState } : {}), requests, round, asked };
}

/**
 * Why a server's input request is not relayed to a 2026-07-28 client, or null. The revision lets a
 * server ask only for elicitation, sampling and roots, each only of a client that declared it; the
 * gateway relays no URL mode and no `roots/list` yet (the roots a client answers would not reach
 * what the gateway knows of the server's roots, core.ts noteServerRoots; docs/approval.md). Round 19
 * review of the 2026-07-28 path, F5: any method went to the client as the gateway's own request.
 */
function unrelayable(request: { method: string; params?: Record<string, unknown> }, client: ClientCapabilities): string | null {
  const cannot = `it asked for ${escapeText(request.method)}`;
  if (request.method === 'elicitation/create') {
    const mode = request.params?.mode ?? 'form';
    if (mode !== 'form') return `${cannot} (${escapeText(String(mode))} mode), which mcp-latch does not relay`;
    return canShowForm(client) ? null : `${cannot}, which this client did not declare (it shows no forms)`;
  }
  if (request.method === 'sampling/createMessage') return client.sampling ? null : `${cannot}, which this client did not declare`;
  return `${cannot}, which mcp-latch does not relay to a 2026-07-28 client`;
}

/** The client's answers to the server's questions, under the server's own keys, with its state. */
export function serverAnswers(input: Pick<ServerInput, 'keys' | 'state'>, inputResponses: unknown): ServerAnswers {
  const responses: Record<string, unknown> = {};
  if (isPlainObject(inputResponses)) for (const key of input.keys) if (inputResponses[KEY_PREFIX + key] !== undefined) responses[key] = inputResponses[KEY_PREFIX + key];
  return { inputResponses: responses, ...(input.state !== undefined ? { requestState: input.state } : {}) };
}

/**
 * What the gateway tells a 2026-07-28 server its client can answer, for one call: a modern client
 * answers the relayed requests itself (its own capabilities); a handshake-era one through the
 * gateway's elicitation only, when it shows forms.
 */
export function capabilitiesForServer(envelope: Envelope | null, person: Person): ClientCapabilities {
  // Without sampling.context: every includeContext is sent as "none" (sampling.ts).
  if (envelope) return envelope.capabilities.sampling ? { ...envelope.capabilities, sampling: Object.fromEntries(Object.entries(envelope.capabilities.sampling).filter(([name]) => name !== 'context')) } : envelope.capabilities;
  return person.showsForms() ? { elicitation: { form: {} } } : {};
}

/**
 * For a handshake-era client: asks the person each of the server's questions and calls the server
 * again with the answers (`callAgain`), until it answers something else. A question the gateway
 * cannot show ends the call with a tool error naming it.
 */
export async function answerServerQuestions(server: string, first: Record<string, unknown>, person: Person, timeoutMs: number, callAgain: (answers: ServerAnswers) => Promise<unknown>): Promise<unknown> {
  let result: unknown = first;
  let before: ServerInput | null = null;
  while (isInputRequired(result)) {
    // Rounds and questions counted over the call (serverInput: MAX_SERVER_ROUNDS, MAX_SERVER_QUESTIONS).
    const input = serverInput(server, result as Record<string, unknown>, null, before);
    if (typeof input === 'string') return serverInputError(server, input);
    before = input;
    const responses: Record<string, ElicitResult> = {};
    for (const key of input.keys) {
      const request = input.requests[KEY_PREFIX + key] as { method: string; params?: Record<string, unknown> };
      if (request.method !== 'elicitation/create' || !request.params || (request.params.mode ?? 'form') !== 'form' || !person.showsForms()) {
        return serverInputError(server, `it asked for ${escapeText(request.method)}${request.params?.mode === 'url' ? ' (URL mode)' : ''}, which mcp-latch cannot ask this client`);
      }
      const asked = await person.prompt(request.params as unknown as ElicitRequestFormParams, timeoutMs);
      // The server decides what a question nobody answered means, as it would with its own client.
      responses[key] = 'result' in asked ? asked.result : { action: 'cancel' };
    }
    result = await callAgain(serverAnswers(input, Object.fromEntries(Object.entries(responses).map(([key, value]) => [KEY_PREFIX + key, value]))));
  }
  return result;
}

/**
 * A server's question as the person sees it, in either era: the server named first, its text
 * escaped, and so are the form's titles, descriptions and enum labels (the server wrote them too).
 * Values the client sends back (`const`, `enum`, `default`) and property names cannot be escaped
 * without changing the answer, and clients show them (a choice with no label, a field with no
 * title, a prefilled default): one that holds a control, bidi or invisible character or a line
 * break makes the question refused, a string saying why (docs/approval.md, "A server's own
 * questions"; round 17 review of hostile servers, 5).
 */
export function shownQuestion<T extends Record<string, unknown>>(server: string, params: T): T | string {
  const message = `[${server}] ${escapeText(typeof params.message === 'string' ? params.message : '')}`;
  const shown: Record<string, unknown> = { ...params, message };
  if (isPlainObject(params.requestedSchema)) {
    const unshowable = unshowableValue(params.requestedSchema);
    if (unshowable !== undefined) return `its question's ${unshowable} holds characters that cannot be shown as they are (a control, bidi or invisible character, or a line break), and the answer would have to send it back unchanged`;
    shown.requestedSchema = schemaText(params.requestedSchema, escapeText, escapeText);
  }
  if (isPlainObject(params._meta)) shown._meta = withoutGatewayKeys(params._meta);
  return shown as T;
}

/** The first value sent back or property name in a form's schema that is not plain text, described (escaped); undefined when none. */
function unshowableValue(value: unknown, key = ''): string | undefined {
  if (key === 'const' || key === 'enum' || key === 'default') {
    const text = firstUnplain(value);
    return text === undefined ? undefined : `${key} value "${escapeText(text)}"`;
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = unshowableValue(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  for (const [name, item] of Object.entries(value)) {
    if (key === 'properties' && !isPlainText(name)) return `property name "${escapeText(name)}"`;
    const found = unshowableValue(item, key === 'properties' ? '' : name);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The first string in a value (any depth) that is not plain text. */
function firstUnplain(value: unknown): string | undefined {
  if (typeof value === 'string') return isPlainText(value) ? undefined : value;
  if (Array.isArray(value) || isPlainObject(value)) {
    for (const item of Object.values(value)) {
      const found = firstUnplain(item);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The tool error that ends a call whose server asked for what the gateway could not pass on. */
export function serverInputError(server: string, problem: string): Record<string, unknown> {
  return { content: [{ type: 'text', text: `mcp-latch: ${escapeText(server)} asked for input the gateway could not pass on: ${problem}. The call did not complete.` }], isError: true };
}
