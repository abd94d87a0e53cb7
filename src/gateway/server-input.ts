import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientCapabilities, ElicitRequestFormParams, ElicitResult, ListRootsResult } from '@modelcontextprotocol/sdk/types.js';
import { MAX_OPEN_SAMPLING, MAX_SERVER_QUESTIONS, MAX_SERVER_ROUNDS } from '../config/limits.js';
import type { ServerAnswers } from '../downstream/supervisor.js';
import type { Person } from '../latch/ask.js';
import { escapeShown, escapeText, isPlainText } from '../latch/escape.js';
import { FORM_FRAME_ROWS, MAX_PROMPT_ROWS, PROMPT_COLUMNS, fieldWithin, formRows, rowsOf, type FormField } from '../latch/prompt-height.js';
import { MAX_CHECKED_VALUES } from '../downstream/answer-entries.js';
import { MAX_DEPTH, isPlainObject, nestsDeeperWithin } from '../values.js';
import { canShowForm, type Envelope } from './era-2026.js';
import { markedSampling } from './sampling.js';
import { withoutGatewayKeys } from './server-meta.js';
import { schemaText } from './listed-text.js';
import { isThisMachine, resolvedHostProblem, type HostLookup } from './url-host.js';

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
/** How long a handshake-era client may take to answer a roots/list the gateway sends it for a server (as relay.ts waits). */
export const ROOTS_ANSWER_MS = 30_000;
/** The key of a 2025 server's `elicitation/create` held for a 2026-07-28 client's retry (input-required.ts). */
export const HELD_INPUT = `${KEY_PREFIX}elicitation`;
/** The key of a 2025 server's `roots/list` held for a 2026-07-28 client's retry (input-required.ts resumeHeld). */
export const HELD_ROOTS = `${KEY_PREFIX}roots`;

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
    // Relayed bare: the answer's roots are noted before the retry is decided (rootsAnswered).
    if (request.method === 'roots/list') {
      requests[KEY_PREFIX + key] = { method: 'roots/list' };
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
 * server ask only for elicitation, sampling and roots, each only of a client that declared it
 * (2026-07-28 basic/patterns/mrtr, Server Requirements 2 and 7). A URL-mode question must pass
 * urlQuestionProblem; the roots a client answers are noted as the server's before its retry is
 * decided (rootsAnswered; round 20). Round 19 review of the 2026-07-28 path, F5: any method went to
 * the client as the gateway's own request.
 */
function unrelayable(request: { method: string; params?: Record<string, unknown> }, client: ClientCapabilities): string | null {
  const cannot = `it asked for ${escapeText(request.method)}`;
  if (request.method === 'elicitation/create') {
    const mode = request.params?.mode ?? 'form';
    if (mode === 'url') return (client.elicitation as Record<string, unknown> | undefined)?.url ? urlQuestionProblem(request.params ?? {}) : `${cannot} (url mode), which this client did not declare`;
    if (mode !== 'form') return `${cannot} (${escapeText(String(mode))} mode), which mcp-latch does not relay`;
    return canShowForm(client) ? null : `${cannot}, which this client did not declare (it shows no forms)`;
  }
  if (request.method === 'sampling/createMessage') return client.sampling ? null : `${cannot}, which this client did not declare`;
  if (request.method === 'roots/list') return client.roots ? null : `${cannot}, which this client did not declare`;
  return `${cannot}, which mcp-latch does not relay to a 2026-07-28 client`;
}

/** The longest URL-mode question's url passed on: a browser's address bar and a terminal show no more usefully. */
const MAX_QUESTION_URL_CHARS = 8192;

/**
 * Why a server's URL-mode question is not put before the person, or null (either era; relay.ts too).
 * The client shows the URL as mcp-latch's and offers to open it, and the URL cannot be prefixed or
 * escaped without changing it: only an `https:` URL of plain text, naming no user or password, to
 * a host that is not this machine. mcp-latch's own URL question (the approval page, to a handshake
 * client) is always `http://127.…`: a server's cannot pass as it (round 19 review of the 2026-07-28
 * path, F1; docs/threat-model.md, "The 2026-07-28 path"). The message is prefixed with the server's
 * name and escaped as any other (shownQuestion).
 */
export function urlQuestionProblem(params: Record<string, unknown>): string | null {
  const { url } = params;
  if (typeof url !== 'string') return 'its URL-mode question has no url';
  if (!isPlainText(url)) return `its URL-mode question's url "${escapeText(url)}" holds characters that cannot be shown as they are`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `its URL-mode question's url "${escapeText(url)}" is not a URL`;
  }
  // Only as the WHATWG parser writes it back: a URL read one way and shown another (`https://evil.example\@127.0.0.1/`,
  // which RFC 3986 readers take for 127.0.0.1; `https://0x7f.1/`) is not put before the person (round 20 review, D1).
  if (url.length > MAX_QUESTION_URL_CHARS) return `its URL-mode question's url is ${url.length.toLocaleString('en-US')} characters, more than the ${MAX_QUESTION_URL_CHARS.toLocaleString('en-US')} (MAX_QUESTION_URL_CHARS) mcp-latch passes on`;
  if (parsed.href !== url && !(parsed.href === `${url}/` && parsed.pathname === '/')) return `its URL-mode question's url "${escapeText(url)}" is not written as it is read ("${escapeText(parsed.href)}"; mcp-latch passes on a URL only in that form)`;
  if (parsed.protocol !== 'https:') return `its URL-mode question's url "${escapeText(url)}" is not https (mcp-latch passes on only https URLs of other hosts)`;
  if (parsed.username !== '' || parsed.password !== '') return `its URL-mode question's url "${escapeText(url)}" names a user or password`;
  if (isThisMachine(parsed.hostname)) return `its URL-mode question's url "${escapeText(url)}" leads to this machine (mcp-latch passes on only https URLs of other hosts)`;
  return null;
}

/**
 * Why one of a server's URL-mode questions (relayed to a 2026-07-28 client, already checked as
 * written by serverInput) is not put before the person once its host is resolved, or null: it leads
 * to this machine or (unless approval.localUrlNetworks lists it) to a local network, or where it
 * leads cannot be told (url-host.ts; rounds 21 and 22).
 */
export async function resolvedQuestionsProblem(requests: Record<string, unknown>, localNetworks: readonly string[], server: string, lookup?: HostLookup): Promise<string | null> {
  for (const request of Object.values(requests)) {
    const { method, params } = request as { method?: unknown; params?: Record<string, unknown> };
    if (method !== 'elicitation/create' || params?.mode !== 'url' || typeof params.url !== 'string') continue;
    const problem = await resolvedHostProblem(params.url, lookup, localNetworks, server);
    if (problem) return problem;
  }
  return null;
}

/**
 * The roots a 2026-07-28 client's retry answers its server's `roots/list` with, one list per such
 * request: each `{ roots: [{ uri: string, name?: string }] }`. They are what the server resolves
 * relative paths against in this call, so they are noted as the server's (core.ts noteServerRoots)
 * and the retry decided with them before anything is forwarded; an answer of another shape is not
 * forwarded at all (serverAnswers), so the server never gets roots the gateway did not see.
 */
export function rootsAnswered(input: Pick<ServerInput, 'keys' | 'requests'>, inputResponses: unknown): string[][] {
  const lists: string[][] = [];
  if (!isPlainObject(inputResponses)) return lists;
  for (const key of input.keys) {
    if ((input.requests[KEY_PREFIX + key] as { method?: unknown } | undefined)?.method !== 'roots/list') continue;
    const roots = rootsOf(inputResponses[KEY_PREFIX + key]);
    if (roots) lists.push(roots.map((root) => root.uri));
  }
  return lists;
}

/** A ListRootsResult rebuilt from what was checked, or null when it is not one. */
export function rootsOf(answer: unknown): Array<{ uri: string; name?: string }> | null {
  if (!isPlainObject(answer) || !Array.isArray(answer.roots)) return null;
  const roots: Array<{ uri: string; name?: string }> = [];
  for (const root of answer.roots) {
    if (!isPlainObject(root) || typeof root.uri !== 'string') return null;
    // Only a root the gateway can note (core.ts noteServerRoots: a directory there now) goes to the
    // server: one it could not (not yet made, a file, a relative or non-file URI, which the server
    // resolves against its own cwd) was passed on while the retry was decided without it (round 20
    // review, review-diff20 D2).
    if (!isDirectoryUri(root.uri)) continue;
    roots.push({ uri: root.uri, ...(typeof root.name === 'string' ? { name: root.name } : {}) });
  }
  return roots;
}

/** True when `uri` is a file: URI of an absolute path that is a directory now. */
function isDirectoryUri(uri: string): boolean {
  try {
    const path = uri.startsWith('file://') ? fileURLToPath(uri) : null;
    return path !== null && isAbsolute(path) && statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The client's answers to the server's questions, under the server's own keys, with its state. */
export function serverAnswers(input: Pick<ServerInput, 'keys' | 'state'> & Partial<Pick<ServerInput, 'requests'>>, inputResponses: unknown): ServerAnswers {
  const responses: Record<string, unknown> = {};
  if (isPlainObject(inputResponses)) {
    for (const key of input.keys) {
      const answer = inputResponses[KEY_PREFIX + key];
      if (answer === undefined) continue;
      // A roots answer goes on only as the gateway read it (rootsAnswered): what was noted is what the server gets.
      if ((input.requests?.[KEY_PREFIX + key] as { method?: unknown } | undefined)?.method === 'roots/list') {
        const roots = rootsOf(answer);
        if (roots) responses[key] = { roots };
        continue;
      }
      responses[key] = answer;
    }
  }
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
  const form = person.showsForms() ? { form: {} } : {};
  const url = person.showsUrls() ? { url: {} } : {};
  // Roots too when the client declared them: the gateway asks it roots/list (answerServerQuestions).
  const roots = person.listsRoots() ? { roots: {} } : {};
  return { ...(person.showsForms() || person.showsUrls() ? { elicitation: { ...form, ...url } } : {}), ...roots };
}

/**
 * For a handshake-era client: asks the person each of the server's questions and calls the server
 * again with the answers (`callAgain`), until it answers something else. A question the gateway
 * cannot show ends the call with a tool error naming it. A `roots/list` goes to the client as its
 * own request (the client declared roots at initialize); the roots as read (rootsOf) are noted as
 * the server's (`rootsGiven`) before `callAgain` decides the call again and sends them.
 */
export async function answerServerQuestions(server: string, first: Record<string, unknown>, person: Person, asking: { timeoutMs: number; localUrlNetworks: readonly string[] }, callAgain: (answers: ServerAnswers) => Promise<unknown>, rootsGiven: (lists: string[][]) => void = () => undefined): Promise<unknown> {
  let result: unknown = first;
  let before: ServerInput | null = null;
  while (isInputRequired(result)) {
    // Rounds and questions counted over the call (serverInput: MAX_SERVER_ROUNDS, MAX_SERVER_QUESTIONS).
    const input = serverInput(server, result as Record<string, unknown>, null, before);
    if (typeof input === 'string') return serverInputError(server, input);
    before = input;
    const responses: Record<string, ElicitResult | ListRootsResult> = {};
    for (const key of input.keys) {
      const request = input.requests[KEY_PREFIX + key] as { method: string; params?: Record<string, unknown> };
      if (request.method === 'roots/list') {
        if (!person.listsRoots()) return serverInputError(server, 'it asked for roots/list, which this client did not declare');
        const listed = await person.listRoots(ROOTS_ANSWER_MS);
        if (typeof listed === 'string') return serverInputError(server, `it asked for roots/list, and the client did not answer it (${escapeText(listed)})`);
        responses[key] = listed;
        continue;
      }
      const mode = request.params?.mode ?? 'form';
      const askable = request.method === 'elicitation/create' && request.params !== undefined && ((mode === 'form' && person.showsForms()) || (mode === 'url' && person.showsUrls()));
      if (!askable) return serverInputError(server, `it asked for ${escapeText(request.method)}${mode === 'url' ? ' (URL mode)' : ''}, which mcp-latch cannot ask this client`);
      // A URL-mode question as a 2026-07-28 client gets it: an https URL of another host, the message named (round 20).
      const url = mode === 'url' ? (urlQuestionProblem(request.params!) ?? (await resolvedHostProblem(request.params!.url as string, undefined, asking.localUrlNetworks, server))) : null;
      if (url) return serverInputError(server, url);
      const asked = await person.prompt(request.params as unknown as ElicitRequestFormParams, asking.timeoutMs);
      // The server decides what a question nobody answered means, as it would with its own client.
      responses[key] = 'result' in asked ? asked.result : { action: 'cancel' };
    }
    const answered = Object.fromEntries(Object.entries(responses).map(([key, value]) => [KEY_PREFIX + key, value]));
    const roots = rootsAnswered(input, answered);
    if (roots.length > 0) rootsGiven(roots);
    result = await callAgain(serverAnswers(input, answered));
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
 *
 * The question is held to the approval prompt's height, MAX_PROMPT_ROWS rows of PROMPT_COLUMNS
 * columns (latch/prompt-height.ts): a run of 24 or more blanks is shown as its length, as in the
 * gateway's prompt, and the message is cut to the rows the form leaves, saying how much was cut; a
 * form taller than that on its own is refused. Claude Code's form does not scroll: 8,000 spaces
 * after `[server]` put the name 80 rows above what the person saw, and lines padded with spaces to
 * 100 columns drew mcp-latch's own prompt below it (round 32 review P32-2).
 */
export function shownQuestion<T extends Record<string, unknown>>(server: string, params: T): T | string {
  const shown: Record<string, unknown> = { ...params };
  let formHeight = FORM_FRAME_ROWS + (typeof params.url === 'string' ? rowsOf(params.url) : 0);
  if (isPlainObject(params.requestedSchema)) {
    const unshowable = unshowableValue(params.requestedSchema);
    if (unshowable !== undefined) return `its question's ${unshowable} holds characters that cannot be shown as they are (a control, bidi or invisible character, or a line break), and the answer would have to send it back unchanged`;
    shown.requestedSchema = schemaText(params.requestedSchema, shownLine, shownLine);
    formHeight = formRows(formFields(shown.requestedSchema));
    if (formHeight >= MAX_PROMPT_ROWS) return `its form takes ${formHeight} rows of ${PROMPT_COLUMNS} columns, and mcp-latch shows a question in at most ${MAX_PROMPT_ROWS} (MAX_PROMPT_ROWS), its server's name first: a taller one would put the name out of sight`;
  }
  shown.message = fieldWithin(`[${server}] `, typeof params.message === 'string' ? params.message : '', MAX_PROMPT_ROWS * PROMPT_COLUMNS, MAX_PROMPT_ROWS - formHeight).lines[0];
  if (isPlainObject(params._meta)) shown._meta = withoutGatewayKeys(params._meta);
  return shown as T;
}

/** A server's title, description or label on one line, escaped, a run of blanks shown as its length (escapeShown). */
function shownLine(text: string): string {
  return escapeShown(text, Number.POSITIVE_INFINITY).text;
}

/**
 * The fields a client draws for a form's schema, for its height (formRows): each property its title
 * (or name), its description, and a row for each choice (`enumNames`, `enum`, `oneOf`/`anyOf`
 * titles, also a multi-select's `items`) or its default.
 */
function formFields(schema: unknown): FormField[] {
  const properties = isPlainObject(schema) && isPlainObject(schema.properties) ? schema.properties : {};
  return Object.entries(properties).map(([name, property]) => {
    const field = isPlainObject(property) ? property : {};
    const choices = choicesOf(field) ?? (isPlainObject(field.items) ? choicesOf(field.items) : undefined);
    return {
      title: typeof field.title === 'string' ? field.title : name,
      ...(typeof field.description === 'string' ? { description: field.description } : {}),
      ...(choices ? { enum: choices } : {}),
      ...(field.default !== undefined ? { default: typeof field.default === 'string' ? field.default : JSON.stringify(field.default) } : {}),
    };
  });
}

/** A schema's choices as labels, or undefined when it offers none. */
function choicesOf(schema: Record<string, unknown>): string[] | undefined {
  const labels = (list: unknown, label: (item: unknown) => unknown): string[] | undefined => (Array.isArray(list) ? list.map((item) => String(label(item) ?? '')) : undefined);
  const byTitle = (item: unknown) => (isPlainObject(item) ? (item.title ?? item.const) : item);
  return labels(schema.enumNames, (item) => item) ?? labels(schema.enum, (item) => item) ?? labels(schema.oneOf, byTitle) ?? labels(schema.anyOf, byTitle);
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
