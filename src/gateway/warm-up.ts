import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';
import { checkDefinition, type DefinitionReport, type DescriptionPolicy } from '../pins/check.js';
import { decide, type PolicyState } from '../policy/decide.js';
import { createAudit, type AuditRecord } from '../store/audit.js';
import { inspectCall, type InspectContext } from '../subjects/inspect.js';
import type { ToolClass } from '../subjects/kind.js';
import { checkToolResult } from './call-result.js';
import { parseMessage } from '../downstream/lines.js';
import { scanAnswer } from '../downstream/answer-scan.js';
import { ArgsJson, jsonString } from '../values.js';
import { paramsProblem, wideCallRefusal } from './upstream-calls.js';

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

/**
 * Runs the gateway's side of a first shell call for nothing, before a client's first call needs
 * it: inspected and decided (the command analysed, its working directory resolved, the rules
 * matched, the pin checked), recorded in an audit of its own in a temporary directory (removed at
 * once), a result that is not plain text checked. Nothing is forwarded, asked, pinned or
 * remembered, and the gateway's audit gets nothing; the decisions are dropped. Returns how many were decided.
 */
export function warmUpShellDecisions(target: WarmUpTool): number {
  const { toolClass, inspect } = target;
  const command = toolClass.command;
  if (command?.mode !== 'shell') return 0;
  const records: AuditRecord[] = [];
  for (const text of WARM_UP_COMMANDS) {
    // With a working directory when the tool takes one, as clients send it: resolving it is part of the path.
    const args: Record<string, unknown> = { [command.arg]: text, ...(toolClass.cwd ? { [toolClass.cwd]: inspect.workspace[0] ?? process.cwd() } : {}) };
    const argsJson = warmUpMessages(target.tool, args);
    const facts = inspectCall(target.server, target.tool, args, toolClass, inspect);
    const decision = checkDefinition(decide(facts, target.policy), target.definition(), target.toolDescriptions);
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
  emptyYoungGeneration();
  return records.length;
}

/**
 * The call's text as the pipeline reads it before the decision (the client's line counted, parsed,
 * its params checked; the arguments' JSON made once) and a server's plain answer scanned as
 * downstream/answer-scan.ts reads it: pure functions, run on lines made here, their results
 * dropped (scanAnswer's `scanned` is read by its caller right after its own scan, never later).
 * Their first runs were part of the first command's extra CPU (docs/performance.md, "Round 14: start").
 */
function warmUpMessages(tool: string, args: Record<string, unknown>): ArgsJson {
  const line = `{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":${jsonString(tool)},"arguments":${JSON.stringify(args)}}}`;
  if (wideCallRefusal(line) === null) paramsProblem((parseMessage(line) as { params?: unknown }).params);
  const argsJson = new ArgsJson(args);
  argsJson.textOf(args);
  scanAnswer(`{"jsonrpc":"2.0","id":0,"result":{"content":[{"type":"text","text":${jsonString(`${tool}\n`)}}]}}`);
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
