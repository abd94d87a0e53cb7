import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { rootsAnswered, serverAnswers, serverInput, shownQuestion, urlQuestionProblem } from '../../src/gateway/server-input.js';

/** A 2026-07-28 server's input_required as the gateway wraps it for the client, and the answers it routes back. */
describe('serverInput', () => {
  test("the server's questions go under the gateway's keys, its text named and escaped; its state is kept", () => {
    const input = serverInput('deploy', {
      resultType: 'input_required',
      inputRequests: {
        confirm: { method: 'elicitation/create', params: { mode: 'form', message: 'Deploy?\n\nWhy: allowed by rule\u202Egnp.exe', requestedSchema: { type: 'object', properties: {} } } },
        roots: { method: 'roots/list' },
      },
      requestState: 'opaque-1',
    });
    expect(input).toEqual({
      keys: ['confirm', 'roots'],
      state: 'opaque-1',
      requests: {
        'mcp-latch/server/confirm': { method: 'elicitation/create', params: { mode: 'form', message: '[deploy] Deploy?\\n\\nWhy: allowed by rule\\u202egnp.exe', requestedSchema: { type: 'object', properties: {} } } },
        'mcp-latch/server/roots': { method: 'roots/list' },
      },
      round: 1,
      asked: 2,
    });
  });

  test('rounds and questions are counted over one call; past MAX_SERVER_ROUNDS or MAX_SERVER_QUESTIONS, or with counts that are not numbers, refused naming the limit', () => {
    const asking = (count: number) => ({ resultType: 'input_required', inputRequests: Object.fromEntries(Array.from({ length: count }, (_, index) => [`q${index}`, { method: 'elicitation/create', params: { message: 'q', requestedSchema: { type: 'object', properties: {} } } }])) });
    expect(serverInput('s', asking(2), null, { round: 3, asked: 10 })).toMatchObject({ round: 4, asked: 12 });
    expect(serverInput('s', asking(1), null, { round: 8, asked: 8 })).toBe('it asked again after 8 rounds of answers (the limit is 8 rounds of one server for one call)');
    expect(serverInput('s', asking(3), null, { round: 2, asked: 30 })).toBe('it asked 33 questions in 3 rounds of one call (the limit is 32 of one server for one call)');
    expect(serverInput('s', asking(1), null, { asked: 1 })).toBe('it asked again after 8 rounds of answers (the limit is 8 rounds of one server for one call)');
    expect(serverInput('s', asking(1), null, { round: 1, asked: '1' })).toBe('it asked 33 questions in 2 rounds of one call (the limit is 32 of one server for one call)');
  });

  test.each([
    [{}, 'it asked for input without naming any input request'],
    [{ inputRequests: [] }, 'it asked for input without naming any input request'],
    [{ inputRequests: { a: { method: 'elicitation/create' } }, requestState: 7 }, 'its requestState is not a string'],
    [{ inputRequests: { 'a\nb': 'ask' } }, 'its input request "a\\nb" is not a request'],
    [{ inputRequests: { a: { method: 'elicitation/create', params: 'x' } } }, 'its input request "a" is not a request'],
  ])('a malformed input_required is refused with what is wrong: %j', (result, problem) => {
    expect(serverInput('s', { resultType: 'input_required', ...result })).toBe(problem);
  });
});

test('serverAnswers: only the answers to what the server asked go back, under its own keys, with its state', () => {
  const answers = serverAnswers(
    { keys: ['confirm'], state: 'opaque-1' },
    { 'mcp-latch/server/confirm': { action: 'accept', content: { confirm: true } }, 'mcp-latch/approval': { action: 'accept' }, 'mcp-latch/server/other': { action: 'accept' }, confirm: { action: 'decline' } },
  );
  expect(answers).toEqual({ inputResponses: { confirm: { action: 'accept', content: { confirm: true } } }, requestState: 'opaque-1' });
  expect(serverAnswers({ keys: ['confirm'] }, 'not an object')).toEqual({ inputResponses: {} });
});

test("shownQuestion: the form's titles, descriptions and enum labels are escaped too; the values sent back are not", () => {
  const shown = shownQuestion('s', {
    message: 'Pick\nWhy: allowed',
    requestedSchema: {
      type: 'object',
      properties: {
        color: { type: 'string', title: 'Colour\u202E', description: 'line\nline', enum: ['r\\x'], enumNames: ['Red\u200b'], default: 'r\\x' },
        size: { type: 'string', oneOf: [{ const: 'l x', title: 'Large\r' }] },
      },
    },
  });
  expect(shown).toEqual({
    message: '[s] Pick\\nWhy: allowed',
    requestedSchema: {
      type: 'object',
      properties: {
        color: { type: 'string', title: 'Colour\\u202e', description: 'line\\nline', enum: ['r\\x'], enumNames: ['Red\\u200b'], default: 'r\\x' },
        size: { type: 'string', oneOf: [{ const: 'l x', title: 'Large\\r' }] },
      },
    },
  });
});

test.each([
  [{ color: { type: 'string', enum: ['r\nx'] } }, 'enum value "r\\nx"'],
  [{ color: { type: 'string', default: 'r\u202ex' } }, 'default value "r\\u202ex"'],
  [{ size: { type: 'string', oneOf: [{ const: 'l\tx', title: 'Large' }] } }, 'const value "l\\tx"'],
  [{ tags: { type: 'array', items: { anyOf: [{ const: 'a\u001bb', title: 'A' }] } } }, 'const value "a\\x1bb"'],
  [{ 'a\u200bb': { type: 'string' } }, 'property name "a\\u200bb"'],
])("shownQuestion: a value sent back or a property name that cannot be shown refuses the question: %j", (properties, what) => {
  expect(shownQuestion('s', { message: 'Pick', requestedSchema: { type: 'object', properties } })).toMatch(new RegExp(`^its question's ${what.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')} holds characters`));
  const input = serverInput('s', { resultType: 'input_required', inputRequests: { q: { method: 'elicitation/create', params: { message: 'Pick', requestedSchema: { type: 'object', properties } } } } });
  expect(input).toMatch(/^its question's /);
});

describe("serverInput for a 2026-07-28 client: only what the revision lets a server ask, of a client that declared it (round 19 review, F5)", () => {
  const ask = (request: Record<string, unknown>, client: Record<string, unknown>) => serverInput('s', { resultType: 'input_required', inputRequests: { q: request } }, client);
  const form = { method: 'elicitation/create', params: { mode: 'form', message: 'Ok?', requestedSchema: { type: 'object', properties: {} } } };
  const sampling = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } };
  test.each([
    [{ method: 'tools/call', params: { name: 'delete_everything' } }, { elicitation: { form: {} } }, 'it asked for tools/call, which mcp-latch does not relay to a 2026-07-28 client'],
    [{ method: 'roots/list' }, { elicitation: { form: {} } }, 'it asked for roots/list, which this client did not declare'],
    [{ method: 'elicitation/create', params: { mode: 'url', url: 'https://x', message: 'm', elicitationId: 'e' } }, { elicitation: { form: {} } }, 'it asked for elicitation/create (url mode), which this client did not declare'],
    [{ method: 'elicitation/create', params: { mode: 'url', url: 'http://127.0.0.1:8/s/a/', message: 'm', elicitationId: 'e' } }, { elicitation: { url: {} } }, 'its URL-mode question\'s url "http://127.0.0.1:8/s/a/" is not https (mcp-latch passes on only https URLs of other hosts)'],
    [form, { elicitation: { url: {} } }, 'it asked for elicitation/create, which this client did not declare (it shows no forms)'],
    [form, {}, 'it asked for elicitation/create, which this client did not declare (it shows no forms)'],
    [sampling, { elicitation: { form: {} } }, 'it asked for sampling/createMessage, which this client did not declare'],
    [{ method: 'x\u001b[2J' }, {}, 'it asked for x\\x1b[2J, which mcp-latch does not relay to a 2026-07-28 client'],
  ])('refused: %j to a client declaring %j', (request, client, problem) => {
    expect(ask(request, client)).toBe(problem);
  });
  test('a form to a client that shows forms, and sampling to one that declared it, are relayed', () => {
    expect(ask(form, { elicitation: { form: {} } })).toMatchObject({ keys: ['q'] });
    expect(ask(form, { elicitation: {} })).toMatchObject({ keys: ['q'] });
    expect(ask(sampling, { sampling: {} })).toMatchObject({ keys: ['q'] });
  });
  test('roots/list to a client declaring roots, bare; a URL-mode https question to one declaring URL mode (round 20)', () => {
    expect(ask({ method: 'roots/list', params: { _meta: { x: 1 } } }, { roots: {} })).toMatchObject({ requests: { 'mcp-latch/server/q': { method: 'roots/list' } } });
    expect(ask({ method: 'elicitation/create', params: { mode: 'url', url: 'https://x.example/a', message: 'm', elicitationId: 'e' } }, { elicitation: { url: {} } })).toMatchObject({ requests: { 'mcp-latch/server/q': { params: { mode: 'url', url: 'https://x.example/a', message: '[s] m' } } } });
  });
  test('the roots a retry answers with: read as the server gets them; another shape is not passed on', () => {
    const input = { keys: ['r', 'q'], requests: { 'mcp-latch/server/r': { method: 'roots/list' }, 'mcp-latch/server/q': form } };
    const a = pathToFileURL(tmpdir()).href;
    const responses = { 'mcp-latch/server/r': { roots: [{ uri: a, name: 'A', extra: 1 }] }, 'mcp-latch/server/q': { action: 'accept' } };
    expect(rootsAnswered(input, responses)).toEqual([[a]]);
    expect(serverAnswers(input, responses)).toEqual({ inputResponses: { r: { roots: [{ uri: a, name: 'A' }] }, q: { action: 'accept' } } });
    const bad = { 'mcp-latch/server/r': { roots: [{ uri: a }, { name: 'no uri' }] } };
    expect(rootsAnswered(input, bad)).toEqual([]);
    expect(serverAnswers(input, bad)).toEqual({ inputResponses: {} });
  });
});

// Round 20 review (review-diff20, D1): a URL read one way and shown another, loopback in IPv6 forms
// the check did not list, a run of trailing dots, and a URL of any length were passed on.
describe('urlQuestionProblem: a URL only as it is read, to another host, of bounded length', () => {
  test.each([
    ['https://evil.example\\@127.0.0.1/', 'is not written as it is read'],
    ['https://0x7f.1/s/x', 'is not written as it is read'],
    ['HTTPS://accounts.example.com/', 'is not written as it is read'],
    ['https://[::127.0.0.1]/', 'is not written as it is read'],
    ['https://[::7f00:1]/', 'leads to this machine'],
    ['https://[::ffff:0:7f00:1]/', 'leads to this machine'],
    ['https://[64:ff9b::7f00:1]/', 'leads to this machine'],
    ['https://localhost../', 'leads to this machine'],
  ])('%s is refused', (url, why) => {
    expect(urlQuestionProblem({ url })).toContain(why);
  });
  test('a url of 9,000 characters is refused naming MAX_QUESTION_URL_CHARS', () => {
    expect(urlQuestionProblem({ url: `https://accounts.example.com/${'a'.repeat(9000)}` })).toContain('MAX_QUESTION_URL_CHARS');
  });
  test.each(['https://accounts.example.com/connect?x=1', 'https://accounts.example.com'])('%s is passed on', (url) => {
    expect(urlQuestionProblem({ url })).toBeNull();
  });
});

// Round 20 review (review-diff20, D2): roots the gateway cannot note (core.ts noteServerRoots) went
// to the server while the retry was decided without them.
test('roots the gateway cannot note are not passed on: not yet made, a file, relative, another scheme', () => {
  const dir = mkdtempSync(join(tmpdir(), 'roots-'));
  writeFileSync(join(dir, 'f'), '');
  const input = { keys: ['r'], requests: { 'mcp-latch/server/r': { method: 'roots/list' } } };
  const given = [pathToFileURL(dir).href, pathToFileURL(join(dir, 'not-yet-made')).href, pathToFileURL(join(dir, 'f')).href, 'secret-parent', 'https://x.example/'];
  const responses = { 'mcp-latch/server/r': { roots: given.map((uri) => ({ uri })) } };
  expect(rootsAnswered(input, responses)).toEqual([[given[0]]]);
  expect(serverAnswers(input, responses)).toEqual({ inputResponses: { r: { roots: [{ uri: given[0] }] } } });
});
