import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { answerProblem, invalidAnswer } from '../downstream/invalid-answer.js';
import { escapeText } from '../latch/escape.js';
import { MAX_DEPTH, isPlainObject, nestsDeeperThan } from '../values.js';

/**
 * A server's tools/call result, checked before it is passed to the client: the client must never
 * receive a result that does not have the shape the MCP schema gives. Results made only of plain text blocks — nearly all of them — are checked by
 * hand; anything else gets the SDK's full schema. The hand check accepts only what the schema
 * accepts (test/gateway/call-result.test.ts compares the two). A result the schema refuses throws
 * the -32603 of invalidAnswer, naming `server` and `tool`.
 */
export function checkToolResult(value: unknown, server: string, tool: string): CallToolResult {
  if (nestsDeeperThan(value)) {
    return { content: [{ type: 'text', text: `mcp-latch: the result from ${escapeText(server)} nests deeper than ${MAX_DEPTH} levels, the most mcp-latch passes on; it was dropped.` }], isError: true };
  }
  if (isPlainTextResult(value)) return value;
  const parsed = CallToolResultSchema.safeParse(value);
  if (!parsed.success) throw invalidAnswer(server, 'tools/call', tool, answerProblem(parsed.error.issues));
  return parsed.data;
}

const RESULT_KEYS = new Set(['content', 'isError', 'structuredContent']);

function isPlainTextResult(value: unknown): value is CallToolResult {
  if (!isPlainObject(value)) return false;
  for (const key in value) if (!RESULT_KEYS.has(key)) return false;
  const { content, isError, structuredContent } = value;
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') return false;
    for (const key in block) if (key !== 'type' && key !== 'text') return false;
  }
  if (isError !== undefined && typeof isError !== 'boolean') return false;
  if (structuredContent !== undefined && !isPlainObject(structuredContent)) return false;
  return true;
}
