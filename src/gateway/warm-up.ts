import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { getHeapSpaceStatistics } from 'node:v8';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigFile } from '../config/schema.js';
import { DirectCalls } from '../downstream/direct-calls.js';
import { PermitBook } from '../downstream/permit.js';
import type { ToolRoute } from '../downstream/registry.js';
import { Supervisor } from '../downstream/supervisor.js';
import { silentLogger } from '../log.js';
import type { MatchEnv } from '../policy/match.js';
import { CallOrder } from './call-order.js';
import type { CallContext } from './ports.js';
import { RunningCalls } from './running-calls.js';
import { ProcessBook } from './processes.js';
import { ClientSession } from './session.js';
import { StdioUpstream } from './stdio-upstream.js';
import { UpstreamCalls } from './upstream-calls.js';
import { checkDefinition, type DefinitionReport, type DescriptionPolicy } from '../pins/check.js';
import { decide, type PolicyState } from '../policy/decide.js';
import { createAudit, type AuditRecord } from '../store/audit.js';
import { inspectCall, type InspectContext } from '../subjects/inspect.js';
import type { ToolClass } from '../subjects/kind.js';
import { checkToolResult } from './call-result.js';
import { parseMessage, QUEUED } from '../downstream/lines.js';
import { scanAnswer } from '../downstream/answer-scan.js';
import { ArgsJson, jsonString } from '../values.js';
import { paramsProblem, wideCallRefusal } from './upstream-calls.js';
import { scanCall, scannedCall } from './call-scan.js';

/** What a shell tool's warm-up decisions need: the tool as listed, and what deciding a call to it reads. */
export interface WarmUpTool {
  server: string;
  tool: string;
  /** The tool's class; its command mode is 'shell'. */
  toolClass: ToolClass;
  inspect: InspectContext;
  policy: PolicyState;
  definition: () => DefinitionReport;
  toolDescriptions: DescriptionPolicy;
}

/**
 * Commands of the shapes clients send first: V8 compiles each function of the call path on its
 * first use, and the grammar's WASM function by function, so each new shape paid its compiling on
 * the client's first command (docs/performance.md, "Cold start").
 */
const WARM_UP_COMMANDS = ['echo warm-up', 'ls -la', 'git status && npm run test -- --run 2>&1 | tail -n 20', 'cat README.md | grep -n "x" > out.txt'];

/** What warmUpShellDecisions did: how many commands it decided, and the arguments of the first the user's rules allow (null: none). */
export interface WarmUpDecisions {
  decided: number;
  allowed: Record<string, unknown> | null;
}

/**
 * Runs the gateway's side of a first shell call for nothing, before a client's first call needs
 * it: inspected and decided (the command analysed, its working directory resolved, the rules
 * matched, the pin checked), recorded in an audit of its own in a temporary directory (removed at
 * once), a result that is not plain text checked. Nothing is forwarded, asked, pinned or
 * remembered, and the gateway's audit gets nothing; the decisions are dropped.
 */
export function warmUpShellDecisions(target: WarmUpTool): WarmUpDecisions {
  const { toolClass, inspect } = target;
  const command = toolClass.command;
  if (command?.mode !== 'shell') return { decided: 0, allowed: null };
  const records: AuditRecord[] = [];
  let allowed: Record<string, unknown> | null = null;
  for (const text of WARM_UP_COMMANDS) {
    // With a working directory when the tool takes one, as clients send it: resolving it is part of the path.
    const args: Record<string, unknown> = { [command.arg]: text, ...(toolClass.cwd ? { [toolClass.cwd]: inspect.workspace[0] ?? process.cwd() } : {}) };
    const argsJson = warmUpMessages(target.tool, args);
    const facts = inspectCall(target.server, target.tool, args, toolClass, inspect);
    const decision = checkDefinition(decide(facts, target.policy), target.definition(), target.toolDescriptions);
    if (decision.verdict === 'allow') allowed ??= args;
    // The fields in the order the call pipeline's auditor gives them (gateway/call.ts): the write is warmed for that shape.
    records.push({
      session: 'warm-up',
      user: undefined,
      server: target.server,
      tool: target.tool,
      kind: decision.kind,
      decision: 'allow',
      by: decision.by,
      rule: decision.rule,
      reason: decision.reason,
      paths: decision.paths,
      command: decision.commandInfo?.raw ?? null,
      argsDigest: facts.digest,
      args,
      argsJson,
      waitMs: 0,
      note: undefined,
      editedFrom: undefined,
    });
  }
  warmUpAudit(records);
  checkToolResult({ content: [{ type: 'text', text: '', name: 'stdout' }] }, target.server, target.tool);
  return { decided: records.length, allowed };
}

/** What running one call through the pipeline for nothing needs besides WarmUpTool's (warmUpCallPipeline). */
export interface WarmUpPipeline extends WarmUpTool {
  /** The tool's route: its exposed name and definition are used, never its server. */
  route: ToolRoute;
  /** A call of it the user's rules allow (warmUpShellDecisions). */
  args: Record<string, unknown>;
  config: () => ConfigFile;
  matchEnv: MatchEnv;
  configPath: string;
  maxMessageBytes: number;
}

/**
 * The client side of the warm-up's session: nothing to ask and nobody to tell. The session's
 * person reads the client's capabilities (none: no form) and its page is refused, so a call the
 * rules did not allow would be denied here, never shown to anyone.
 */
const NOBODY = {
  getClientCapabilities: () => undefined,
  getClientVersion: () => undefined,
  elicitInput: () => Promise.reject(new Error('the warm-up asks nobody')),
  notification: () => Promise.resolve(),
  request: () => Promise.reject(new Error('the warm-up asks nobody')),
} as unknown as Server;

/**
 * Runs one allowed call through the whole call pipeline for nothing, before a client's first call
 * needs it: the stateful steps the decision warm-up cannot reach, each of which V8 ran for the first
 * time in the client's first command (docs/performance.md, "Round 15: the first shell command"): the
 * line read and taken off an upstream transport, the call order and decision, the session's latch,
 * the audit record, the running-calls list, a permit issued and spent, the server's line and its
 * pending entry, the answer's scan, the reply's line. Everything it runs on is made here and
 * dropped: an upstream transport over in-memory streams that nothing else reads or writes, a
 * session of its own (its own latch and grants; its client asks nobody), a permit book of its own
 * (a permit from it is refused by every real server), an audit in a temporary directory (removed at
 * once), a silent logger, and a server that is a Supervisor never started, whose direct calls go
 * to a line sink here that answers with a plain text. No real server, client, audit, pin or rule
 * is reached, and no client message can reach any of it: the only input is the line written below.
 * Resolves with whether the reply came back as the pipeline writes it.
 */
export function warmUpCallPipeline(target: WarmUpPipeline): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-latch-warm-up-'));
  const audit = createAudit(join(dir, 'audit.jsonl'));
  const logger = silentLogger();
  const permits = new PermitBook();
  const sink = new WarmUpServer();
  const direct = new DirectCalls(sink);
  // A Supervisor never started: the pipeline calls it as it calls a server's, and its calls go to the sink.
  const supervisor = new Supervisor({ name: target.server, config: target.route.supervisor.config, capabilities: {}, hooks: {} as never, logger, permits, connectTimeoutMs: 0, maxMessageBytes: target.maxMessageBytes, version: '', onChange: () => undefined });
  supervisor.state = 'ready';
  (supervisor as unknown as { direct: DirectCalls }).direct = direct;
  const route: ToolRoute = { exposed: target.route.exposed, tool: target.route.tool, supervisor };
  const registry = { resolveTool: (name: string) => (name === route.exposed ? route : undefined), all: () => [supervisor] };
  const context: CallContext = {
    registry: registry as unknown as CallContext['registry'],
    permits,
    running: new RunningCalls(),
    processes: new ProcessBook(),
    audit,
    logger,
    config: target.config,
    policy: () => target.policy,
    toolClass: () => target.toolClass,
    analysisReady: () => null,
    inspectContext: () => target.inspect,
    rememberAlways: () => Promise.reject(new Error('the warm-up remembers nothing')),
    definitionReport: target.definition,
    templateReport: () => null,
    pinDefinition: () => Promise.resolve(),
    acceptDefinition: () => Promise.resolve(),
    pinAfter: () => undefined,
    noteServerRoots: () => undefined,
  };
  const session = new ClientSession(NOBODY, target.config, logger, target.matchEnv, target.configPath, { page: () => Promise.reject(new Error('the warm-up asks nobody')) });
  const order = new CallOrder(context, session);
  const calls = new UpstreamCalls(NOBODY, (taken) => order.callTools(taken));
  const input = new PassThrough();
  // The two replies, as the pipeline writes them (one write or two).
  let written = '';
  let replied: (text: string) => void = () => undefined;
  const reply = new Promise<string>((resolve) => (replied = resolve));
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      written += String(chunk);
      if (written.split('\n').length > WARM_UP_CALLS) replied(written);
      done();
    },
  });
  const upstream = new StdioUpstream(target.maxMessageBytes, input, output);
  // Two calls in one read (one batch): the server answers the first as plain text, which is passed
  // on as written, and the second with a block the answer's scan refuses (as mcp-server-commands
  // answers: a text block with a `name`), which is parsed, checked and written again. Written in
  // the order the TypeScript SDK's clients write a call (method, params, jsonrpc, id): the call's
  // scanner reads each order by expressions of its own, and the ones a real client's line takes
  // ran first in its first command (docs/performance.md, "Round 23: first shell command");
  // warmUpMessages scans the other order (the Python SDK's).
  const call = `{"method":"tools/call","params":{"name":${jsonString(route.exposed)},"arguments":${JSON.stringify(target.args)}},"jsonrpc":"2.0","id":`;
  const lines = Array.from({ length: WARM_UP_CALLS }, (_, index) => `${call}${index + 1}}\n`).join('');
  const done = (): void => {
    void upstream.close();
    void audit
      .close()
      .catch(() => undefined)
      .then(() => rmSync(dir, { recursive: true, force: true }))
      .catch(() => undefined);
  };
  return upstream
    .start()
    .then(() => {
      calls.attach(upstream);
      input.emit('data', Buffer.from(lines));
      // The pipeline answers within microtasks; a timer bounds a warm-up that did not (it then only ends).
      return Promise.race([reply, new Promise<string>((resolve) => setTimeout(resolve, 1000, '').unref())]);
    })
    .then((text) => {
      const answers = text.split('\n').filter((answer) => answer !== '');
      return answers.length === WARM_UP_CALLS && answers.every((answer) => /^\{"jsonrpc":"2\.0","id":\d,"result":/.test(answer) && answer.includes(WARM_UP_ANSWER));
    })
    .finally(done);
}

/** The text the warm-up's server answers with. */
const WARM_UP_ANSWER = 'warm-up answer';
/** How many calls the warm-up sends: one answered as plain text, one not. */
const WARM_UP_CALLS = 2;

/**
 * The warm-up's server: a transport that takes what DirectCalls sends (a line it made, or a
 * message) and answers each call a microtask later as a server's line is read (ChildTransport):
 * offered to `takeLine`, and parsed and given to `onmessage` when it is not taken. Odd ids get a
 * plain text, even ids a text block with a `name`, which the answer's scan does not pass as written.
 */
class WarmUpServer {
  onmessage?: (message: JSONRPCMessage) => void;
  takeLine: ((line: string) => boolean) | undefined = undefined;

  start(): Promise<void> {
    return QUEUED;
  }

  close(): Promise<void> {
    return QUEUED;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const id = (message as { id?: unknown }).id;
    if (typeof id === 'number') this.answer(id);
    return QUEUED;
  }

  sendLine(_line: string, id: string | number): Promise<void> {
    if (typeof id === 'number') this.answer(id);
    return QUEUED;
  }

  private answer(id: number): void {
    const block = `{"type":"text","text":${jsonString(`${WARM_UP_ANSWER}\n`)}${id % 2 === 0 ? ',"name":"STDOUT"' : ''}}`;
    // In the order the TypeScript SDK's servers write an answer (result, jsonrpc, id), which the
    // answer's scan reads by expressions of its own (warmUpMessages scans the other order).
    const line = `{"result":{"content":[${block}]},"jsonrpc":"2.0","id":${id}}`;
    void QUEUED.then(() => {
      if (!this.takeLine?.(line)) this.onmessage?.(parseMessage(line));
    });
  }
}

/**
 * The call's text as the pipeline reads it before the decision (the client's line counted, parsed,
 * its params checked; the arguments' JSON made once) and a server's plain answer scanned as
 * downstream/answer-scan.ts reads it: pure functions, run on lines made here, their results
 * dropped (scanAnswer's `scanned` is read by its caller right after its own scan, never later).
 * Their first runs were part of the first command's extra CPU (docs/performance.md, "Round 14: start").
 */
function warmUpMessages(tool: string, args: Record<string, unknown>): ArgsJson {
  // In the Python SDK's order (jsonrpc, id first): the pipeline's calls and answers are in the
  // TypeScript SDK's, and the scanners read each order by expressions of their own.
  const line = `{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":${jsonString(tool)},"arguments":${JSON.stringify(args)}}}`;
  if (wideCallRefusal(line) === null) paramsProblem((parseMessage(line) as { params?: unknown }).params);
  // Its result is dropped, and the scanner's note of it too (read only for the params it returned: upstream-calls.ts).
  scanCall(line);
  scannedCall.params = null;
  const argsJson = new ArgsJson(args);
  argsJson.textOf(args);
  // Id 1: the scan takes no id 0 (a forwarded call's id never is), and refused at it, this ran none of the rest.
  scanAnswer(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":${jsonString(`${tool}\n`)}}]}}`);
  return argsJson;
}

/**
 * Writes the records to an audit of their own in a temporary directory, removed at once: the
 * first record a process writes cost ~0.6 ms more than the next (its digest, redaction, time and
 * copy into the buffer each compiled on first use; in process, fresh node).
 */
function warmUpAudit(records: AuditRecord[]): void {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-latch-warm-up-'));
  try {
    const audit = createAudit(join(dir, 'audit.jsonl'));
    audit.together(() => records.forEach((record) => audit.record(record)));
    void audit.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Where the young generation's filler goes: stored outside the loop, so V8 cannot leave an allocation out. */
const filler: { last: unknown } = { last: null };

/**
 * Elements of one filler array: 16 KiB, so that filling the young generation (1 MiB a semi-space)
 * takes a few dozen turns of the loop below, and still under the 128 KiB above which V8 allocates
 * outside the young generation. With arrays of one element the loop turned thousands of times and
 * got hot: V8 compiled it with TurboFan on a worker thread (milliseconds of CPU, done ~40 ms after the
 * first list, while a client's first command arrived) for a function that runs once
 * (docs/performance.md, "Round 14: start").
 */
const FILLER_ELEMENTS = 2048;

/**
 * Sets off a scavenge now, while nothing waits, by allocating until V8 empties the young
 * generation: the start-up and the decisions above leave it part full, and the first call's own
 * allocations then set off a scavenge of 2-12 ms in 3 of 6 traced starts (docs/performance.md).
 * Stops after allocating four times the room that was left, whatever happened.
 */
export function emptyYoungGeneration(): void {
  const newSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  const used = (): number => newSpace()?.space_used_size ?? 0;
  const room = newSpace()?.space_available_size ?? 0;
  let last = used();
  for (let made = 0; made < 4 * room; made += FILLER_ELEMENTS * 8) {
    filler.last = new Array(FILLER_ELEMENTS);
    const now = used();
    if (now < last) break;
    last = now;
  }
  filler.last = null;
}
