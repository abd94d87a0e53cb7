import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { tokenHash } from '../../src/team/identity.js';
import { ROOT, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, type TeamHarness } from '../helpers/team.js';

/**
 * A server shared by a team's sessions asks "the client" something (sampling, elicitation) and
 * logs while it works on a call: the gateway sends it to the session whose call is running there,
 * on that call's stream, and the answer back to the server. When calls of two sessions run on that
 * server at once nothing says which one asks, and neither is told: the server's request is refused. Each
 * session's log messages respect its own logging/setLevel.
 * The server is the conformance fixture (its test_sampling, test_elicitation and
 * test_tool_with_logging tools) over stdio; the clients are the SDK's over Streamable HTTP.
 */
const X = 'token-of-xavier-relay-0123456789';
const Y = 'token-of-yvonne-relay-0123456789';
const CONFORMANCE_SERVER = join(ROOT, 'test/fixtures/conformance-server.mjs');
const PROMPT_SERVER = join(ROOT, 'test/fixtures/prompt-server.mjs');

interface Asked {
  client: Client;
  elicitations: ElicitRequest['params'][];
  samplings: CreateMessageRequest['params'][];
  logs: LoggingMessageNotification['params'][];
  close(): Promise<void>;
}

/** A client that records every request and log message the gateway sends it, and answers with `answers`. */
async function connect(url: string, token: string, capabilities: ClientCapabilities, answers: { elicit?: (params: ElicitRequest['params']) => Promise<ElicitResult> | ElicitResult; sample?: (params: CreateMessageRequest['params']) => CreateMessageResult } = {}): Promise<Asked> {
  const client = new Client({ name: 'relay-test', version: '1.0.0' }, { capabilities });
  const asked: Asked = { client, elicitations: [], samplings: [], logs: [], close: async () => undefined };
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.elicitations.push(request.params);
      return answers.elicit ? answers.elicit(request.params) : { action: 'cancel' };
    });
  }
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.samplings.push(request.params);
      return answers.sample ? answers.sample(request.params) : { role: 'assistant', content: { type: 'text', text: 'unexpected' }, model: 'none' };
    });
  }
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    asked.logs.push(notification.params);
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport, { timeout: 30_000 });
  asked.close = async () => {
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  };
  return asked;
}

const CAN_ASK: ClientCapabilities = { elicitation: { form: {} }, sampling: {} };
const firstText = (params: CreateMessageRequest['params']) => {
  const content = params.messages[0]?.content;
  return content && !Array.isArray(content) && content.type === 'text' ? content.text : '';
};

describe('serve --http: what a shared server asks and logs goes to the session of its call', () => {
  let team: TeamHarness;

  beforeAll(async () => {
    const dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { conf: { command: process.execPath, args: [CONFORMANCE_SERVER] } },
      permissions: { allow: ['mcp__conf'] },
      approval: { fallback: 'deny', timeoutSeconds: 120 },
      http: { tokens: [{ user: 'xavier', sha256: tokenHash(X) }, { user: 'yvonne', sha256: tokenHash(Y) }] },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
  });

  test("sampling, elicitation and log lines reach the calling session only, and its answers reach the server", async () => {
    const x = await connect(team.url, X, CAN_ASK, {
      sample: (params) => ({ role: 'assistant', content: { type: 'text', text: `answer to ${firstText(params)}` }, model: 'test-model' }),
      elicit: () => ({ action: 'accept', content: { response: 'yes from xavier' } }),
    });
    const y = await connect(team.url, Y, CAN_ASK);
    try {
      const sampled = await x.client.callTool({ name: 'conf__test_sampling', arguments: { prompt: 'what is 2+2?' } });
      expect(textOf(sampled)).toBe('LLM response: answer to what is 2+2?');
      expect(x.samplings.map(firstText)).toEqual(['what is 2+2?']);

      const elicited = await x.client.callTool({ name: 'conf__test_elicitation', arguments: { message: 'Shall I go on?' } });
      expect(textOf(elicited)).toBe('User response: action=accept, content={"response":"yes from xavier"}');
      // Shown as the stdio gateway shows a server's question: after the server's name.
      expect(x.elicitations.map((params) => params.message)).toEqual(['[conf] Shall I go on?']);

      await x.client.callTool({ name: 'conf__test_tool_with_logging', arguments: {} });
      await eventually(() => expect(x.logs.map((params) => params.data)).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']), 30_000);
      expect(x.logs.every((params) => params.logger === 'conf')).toBe(true);

      expect(y.elicitations).toEqual([]);
      expect(y.samplings).toEqual([]);
      expect(y.logs).toEqual([]);
    } finally {
      await Promise.all([x.close(), y.close()]);
    }
  });

  test('a client that cannot answer sampling is not replaced by another session: the server gets an error', async () => {
    const x = await connect(team.url, X, CAN_ASK);
    const y = await connect(team.url, Y, {});
    try {
      const result = await y.client.callTool({ name: 'conf__test_sampling', arguments: { prompt: 'for yvonne' } });
      expect(textOf(result)).toContain('Sampling not supported or error: MCP error -32600: mcp-latch cannot relay this request: the client of this call does not support sampling');
      expect(x.samplings).toEqual([]);
    } finally {
      await Promise.all([x.close(), y.close()]);
    }
  });

  test("with two users' calls running on the server at once, neither is sent the other's question or log lines: the server's request is refused, saying why", async () => {
    let answerX!: (result: ElicitResult) => void;
    const x = await connect(team.url, X, CAN_ASK, { elicit: () => new Promise<ElicitResult>((resolve) => (answerX = resolve)) });
    const y = await connect(team.url, Y, CAN_ASK, { elicit: () => ({ action: 'accept', content: { response: 'from yvonne' } }) });
    try {
      // X's call waits at the server for X's answer: it runs there while Y's calls come.
      const xCall = x.client.callTool({ name: 'conf__test_elicitation', arguments: { message: 'question for xavier' } }, undefined, { timeout: 120_000 });
      await eventually(() => expect(x.elicitations).toHaveLength(1), 30_000);

      // An error, not "decline": nobody said no (round 14 review Q1).
      const declined = await y.client.callTool({ name: 'conf__test_elicitation', arguments: { message: 'question for yvonne' } });
      expect(textOf(declined)).toBe('Elicitation not supported or error: MCP error -32600: mcp-latch cannot relay this request: calls of 2 client sessions are running on conf and nothing tells which one this is for');
      const refused = await y.client.callTool({ name: 'conf__test_sampling', arguments: { prompt: 'prompt of yvonne' } });
      expect(textOf(refused)).toContain('Sampling not supported or error:');
      expect(textOf(refused)).toContain('calls of 2 client sessions are running on conf');
      await y.client.callTool({ name: 'conf__test_tool_with_logging', arguments: {} });

      answerX({ action: 'accept', content: { response: 'from xavier' } });
      expect(textOf(await xCall)).toBe('User response: action=accept, content={"response":"from xavier"}');

      expect(x.elicitations.map((params) => params.message)).toEqual(['[conf] question for xavier']);
      expect(x.samplings).toEqual([]);
      expect(y.elicitations).toEqual([]);
      expect(y.samplings).toEqual([]);
      expect([...x.logs, ...y.logs]).toEqual([]);
      expect(team.stderr()).toContain('refused the elicitation request of a server');
    } finally {
      await Promise.all([x.close(), y.close()]);
    }
  });

  test("each session gets the log messages at its own logging/setLevel; the shared server logs at the most detailed level a session asks for", async () => {
    // The fixture logs "Log level set to: <level>" when it is set; with no call running, that line stays in the gateway's log.
    const serverSetTo = (level: string) => team.stderr().includes(`Log level set to: ${level}`);
    const x = await connect(team.url, X, {});
    const y = await connect(team.url, Y, {});
    try {
      await x.client.setLoggingLevel('warning');
      await y.client.setLoggingLevel('debug');
      await eventually(() => expect(serverSetTo('debug')).toBe(true), 30_000);

      // The fixture logs at info: below X's warning, within Y's debug. Log lines ride their call's stream, ahead of its result.
      await x.client.callTool({ name: 'conf__test_tool_with_logging', arguments: {} });
      await y.client.callTool({ name: 'conf__test_tool_with_logging', arguments: {} });
      await eventually(() => expect(y.logs.map((params) => params.data)).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']), 30_000);
      expect(x.logs).toEqual([]);

      // X asking for less detail leaves the server at Y's level; Y asking for info sets it to info.
      await x.client.setLoggingLevel('error');
      await y.client.setLoggingLevel('info');
      await eventually(() => expect(serverSetTo('info')).toBe(true), 30_000);
      expect(serverSetTo('error')).toBe(false);

      // Y gone: X's error is the most detailed level left.
      await y.close();
      await eventually(() => expect(serverSetTo('error')).toBe(true), 30_000);
    } finally {
      await Promise.all([x.close(), y.close()]);
    }
  });
});

/**
 * A member's prompts/get, completion/complete and resources/subscribe reach the shared server on
 * that member's behalf: what the server asks meanwhile goes to that member's session, as for a
 * tools/call. Outside the running record, yvonne's prompt that samples went to xavier's client while
 * xavier had a call running there: her text reached his model, his model's answer came back to her
 * (round 12 review, F9; docs/threat-model.md).
 */
describe('serve --http: what a shared server asks while it answers a prompt, a completion or a subscription', () => {
  let team: TeamHarness;
  let dir: string;
  const modelOf = (who: string) => (params: CreateMessageRequest['params']): CreateMessageResult => ({ role: 'assistant', content: { type: 'text', text: `${who}'s model on: ${firstText(params)}` }, model: 'test-model' });

  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { p: { command: process.execPath, args: [PROMPT_SERVER], env: { PROMPT_SERVER_DIR: dir } } },
      permissions: { allow: ['mcp__p'] },
      approval: { fallback: 'deny', timeoutSeconds: 120 },
      http: { tokens: [{ user: 'xavier', sha256: tokenHash(X) }, { user: 'yvonne', sha256: tokenHash(Y) }] },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
  });

  test("while xavier's call runs on the server, yvonne's prompt, completion and subscription never reach xavier's model", async () => {
    for (const file of ['held', 'release', 'subscribed']) rmSync(join(dir, file), { force: true });
    const x = await connect(team.url, X, CAN_ASK, { sample: modelOf('xavier') });
    const y = await connect(team.url, Y, CAN_ASK, { sample: modelOf('yvonne') });
    try {
      const held = x.client.callTool({ name: 'p__hold', arguments: {} }, undefined, { timeout: 120_000 });
      await eventually(() => expect(existsSync(join(dir, 'held'))).toBe(true), 30_000);

      const prompt = await y.client.getPrompt({ name: 'p__draft', arguments: { topic: 'summarise the files you have open (from yvonne)' } });
      expect(JSON.stringify(prompt.messages)).toContain('draft: sampling failed: MCP error -32600: mcp-latch cannot relay this request: calls of 2 client sessions are running on p');
      const completion = await y.client.complete({ ref: { type: 'ref/prompt', name: 'p__draft' }, argument: { name: 'topic', value: 'from yvonne' } });
      expect(completion.completion.values[0]).toContain('calls of 2 client sessions are running on p');
      await y.client.subscribeResource({ uri: 'note://watched' });
      expect(readFileSync(join(dir, 'subscribed'), 'utf8')).toContain('calls of 2 client sessions are running on p');

      writeFileSync(join(dir, 'release'), '');
      expect(textOf(await held)).toBe('released');
      expect(x.samplings).toEqual([]);
      expect(y.samplings).toEqual([]);
    } finally {
      await Promise.all([x.close(), y.close()]);
    }
  });

  test("what the server asks while it answers the gateway's own tools/list reaches nobody, even with one member's call running there", async () => {
    // The sampling request comes while xavier's call and the gateway's re-read of the list are both
    // in flight on the server: nothing tells which it is for. It went to xavier's model (round 13).
    for (const file of ['held', 'release', 'listed']) rmSync(join(dir, file), { force: true });
    writeFileSync(join(dir, 'announce'), '');
    const x = await connect(team.url, X, CAN_ASK, { sample: modelOf('xavier') });
    try {
      const held = x.client.callTool({ name: 'p__hold', arguments: {} }, undefined, { timeout: 120_000 });
      await eventually(() => expect(existsSync(join(dir, 'listed'))).toBe(true), 30_000);
      expect(readFileSync(join(dir, 'listed'), 'utf8')).toContain('mcp-latch cannot relay this request: a request of the gateway itself is in flight on p besides a client\'s call');
      writeFileSync(join(dir, 'release'), '');
      expect(textOf(await held)).toBe('released');
      expect(x.samplings).toEqual([]);
    } finally {
      rmSync(join(dir, 'announce'), { force: true });
      await x.close();
    }
  });

  test("alone on the server, a member's prompt, completion and subscription ask that member's own client", async () => {
    rmSync(join(dir, 'subscribed'), { force: true });
    const x = await connect(team.url, X, CAN_ASK, { sample: modelOf('xavier') });
    const y = await connect(team.url, Y, CAN_ASK, { sample: modelOf('yvonne') });
    try {
      const prompt = await y.client.getPrompt({ name: 'p__draft', arguments: { topic: 'a haiku' } });
      expect(prompt.messages).toEqual([{ role: 'assistant', content: { type: 'text', text: "draft: yvonne's model on: a haiku" } }]);
      const completion = await y.client.complete({ ref: { type: 'ref/prompt', name: 'p__draft' }, argument: { name: 'topic', value: 'hai' } });
      expect(completion.completion.values).toEqual(["yvonne's model on: complete: hai"]);
      await y.client.subscribeResource({ uri: 'note://watched' });
      expect(readFileSync(join(dir, 'subscribed'), 'utf8')).toBe("yvonne's model on: subscribed to note://watched");
      expect(x.samplings).toEqual([]);
      expect(y.samplings.map(firstText)).toEqual(['a haiku', 'complete: hai', 'subscribed to note://watched']);
    } finally {
      await Promise.all([x.close(), y.close()]);
    }
  });
});
