import { getHeapSpaceStatistics } from 'node:v8';
import { checkDefinition, type DefinitionReport, type DescriptionPolicy } from '../pins/check.js';
import { decide, type PolicyState } from '../policy/decide.js';
import { isoTime } from '../iso-time.js';
import { redactSecrets } from '../redact.js';
import { inspectCall, type InspectContext } from '../subjects/inspect.js';
import type { ToolClass } from '../subjects/kind.js';
import { checkToolResult } from './call-result.js';

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
 * matched, the pin checked), its arguments digested and redacted as the audit records them, its
 * time written, a result that is not plain text checked. Nothing is forwarded, audited, pinned,
 * remembered or asked, and nothing is written; the decisions are dropped. Returns how many were decided.
 */
export function warmUpShellDecisions(target: WarmUpTool): number {
  const { toolClass, inspect } = target;
  const command = toolClass.command;
  if (command?.mode !== 'shell') return 0;
  let decided = 0;
  for (const text of WARM_UP_COMMANDS) {
    // With a working directory when the tool takes one, as clients send it: resolving it is part of the path.
    const args: Record<string, unknown> = { [command.arg]: text, ...(toolClass.cwd ? { [toolClass.cwd]: inspect.workspace[0] ?? process.cwd() } : {}) };
    const facts = inspectCall(target.server, target.tool, args, toolClass, inspect);
    checkDefinition(decide(facts, target.policy), target.definition(), target.toolDescriptions);
    facts.digest();
    redactSecrets(args);
    decided += 1;
  }
  isoTime(Date.now());
  checkToolResult({ content: [{ type: 'text', text: '', name: 'stdout' }] }, target.server);
  emptyYoungGeneration();
  return decided;
}

/** Where the young generation's filler goes: stored outside the loop, so V8 cannot leave an allocation out. */
const filler: { last: unknown } = { last: null };

/**
 * Sets off a scavenge now, while nothing waits, by allocating small objects until V8 empties the
 * young generation: the start-up and the decisions above leave it part full, and the first call's
 * own allocations then set off a scavenge of 2-12 ms in 3 of 6 traced starts (docs/performance.md).
 * Stops after allocating four times the room that was left, whatever happened.
 */
function emptyYoungGeneration(): void {
  const used = (): number => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_used_size ?? 0;
  const room = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_available_size ?? 0;
  let last = used();
  for (let made = 0; made < 4 * room; made += 1024 * 24) {
    for (let index = 0; index < 1024; index++) filler.last = [index];
    const now = used();
    if (now < last) break;
    last = now;
  }
  filler.last = null;
}
