import { CallToolResultSchema, ContentBlockSchema, type CallToolResult, type ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MAX_ANSWER_ENTRIES, MAX_CHECKED_VALUES, checkEntries } from '../downstream/answer-entries.js';
import { answerProblem, invalidAnswer } from '../downstream/invalid-answer.js';
import { escapeText } from '../latch/escape.js';
import { linksShown } from './listed-text.js';
import { MAX_DEPTH, isPlainObject, nestsDeeperWithin, valuesLeft } from '../values.js';

/**
 * A server's tools/call result, checked before it is passed to the client: the client must never
 * receive a result that does not have the shape the MCP schema gives. Results made only of plain text blocks — nearly all of them — are checked by
 * hand; anything else gets the SDK's schema, its content blocks one at a time (answer-entries.ts:
 * bounded, and stopped at the first refused). The hand check accepts only what the schema
 * accepts (test/gateway/call-result.test.ts compares the two). A result the schema refuses throws
 * the -32603 of invalidAnswer, naming `server` and `tool`; one past the limits of answer-entries.ts
 * is a tool error naming them.
 */
export function checkToolResult(value: unknown, server: string, tool: string): CallToolResult {
  // A tools/call answer was counted before it was parsed (json-shape.ts: direct-calls.ts, remote-bounds.ts); one of the SDK's ways in is counted here.
  const structured = isPlainObject(value) ? value.structuredContent : undefined;
  const budget = structured === undefined ? MAX_CHECKED_VALUES : valuesLeft(structured, MAX_CHECKED_VALUES);
  if (budget < 0) return droppedResult(server, `its structuredContent holds more than ${MAX_CHECKED_VALUES.toLocaleString('en-US')} values, the most mcp-latch checks in one answer`);
  // Past the values checked and every entry's few own, the walk stops: such a result is dropped below anyway.
  const deep = nestsDeeperWithin(value, MAX_WALKED_VALUES);
  if (deep === null) return droppedResult(server, `it holds more than ${MAX_WALKED_VALUES.toLocaleString('en-US')} values, the most mcp-latch checks in one answer`);
  if (deep) return droppedResult(server, `it nests deeper than ${MAX_DEPTH} levels, the most mcp-latch passes on`);
  if (isPlainTextResult(value)) return value;
  const parsed = (resultWithoutContent ??= makeResultWithoutContent()).safeParse(value);
  if (!parsed.success) throw invalidAnswer(server, 'tools/call', tool, answerProblem(parsed.error.issues));
  const blocks = checkEntries(parsed.data.content, 'content', ContentBlockSchema, isTextBlock, budget);
  if ('problem' in blocks) {
    if (!blocks.tooMany) throw invalidAnswer(server, 'tools/call', tool, blocks.problem);
    return droppedResult(server, blocks.problem);
  }
  // A server's keys of the 2026-07-28 revision are never passed on, whatever the client's era: only
  // the gateway's own input_required may reach a client as such (era-2026.ts ownInputRequired, built
  // apart from this check). Kept, a session that did `initialize` got a server's `input_required`
  // (a URL-mode "sign in again" under `mcp-latch/approval`) as it was, for a dual-era client to act
  // on (round 19 late review, F4; docs/threat-model.md, "The 2026-07-28 path").
  const { resultType: _type, inputRequests: _requests, requestState: _state, ttlMs: _ttl, cacheScope: _scope, ...result } = parsed.data as Record<string, unknown>;
  return { ...(result as CallToolResult), content: linksShown(blocks.entries) };
}

/** The values of one result walked for its depth: the structuredContent's and four for each entry of the longest content. */
const MAX_WALKED_VALUES = MAX_CHECKED_VALUES + 4 * MAX_ANSWER_ENTRIES;

/** What the client gets for a result past a limit of answer-entries.ts (`problem` says which). */
export function droppedResult(server: string, problem: string): CallToolResult {
  return { content: [{ type: 'text', text: `mcp-latch: the result from ${escapeText(server)} was dropped: ${problem} (docs/config.md, "limits"). The call was forwarded to the server and may have had effects.` }], isError: true };
}

/**
 * The result's schema with its content blocks left to checkEntries (the content array itself is
 * still required to be one); made at the first result checked, not with the bundle (lazy-schema.ts).
 */
let resultWithoutContent: ReturnType<typeof makeResultWithoutContent> | undefined;
const makeResultWithoutContent = () => CallToolResultSchema.extend({ content: z.array(z.unknown()).default([]) });

const RESULT_KEYS = new Set(['content', 'isError', 'structuredContent']);

function isPlainTextResult(value: unknown): value is CallToolResult {
  if (!isPlainObject(value)) return false;
  for (const key in value) if (!RESULT_KEYS.has(key)) return false;
  const { content, isError, structuredContent } = value;
  if (!Array.isArray(content) || content.length > MAX_ANSWER_ENTRIES) return false;
  for (const block of content) if (!isTextBlock(block)) return false;
  if (isError !== undefined && typeof isError !== 'boolean') return false;
  if (structuredContent !== undefined && !isPlainObject(structuredContent)) return false;
  return true;
}

/** A text block of `type` and `text` alone: what the schema takes, checked by hand. */
function isTextBlock(block: unknown): block is ContentBlock {
  if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') return false;
  for (const key in block) if (key !== 'type' && key !== 'text') return false;
  return true;
}
