import { describe, expect, test } from 'vitest';
import { CallToolResultSchema, GetPromptResultSchema, ListToolsResultSchema, ReadResourceResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { answerProblem } from '../../src/downstream/invalid-answer.js';

/** A server's answer the schema refuses, in one line: the first problem, where it is, what it must be. */
describe('answerProblem', () => {
  test.each([
    ['a block of a type MCP does not have', CallToolResultSchema, { content: [{ type: 'nonsense', text: 'x' }] }, 'content[0].type must be one of "text", "image", "audio", "resource_link", "resource"'],
    ['a text block without text: the text form speaks', CallToolResultSchema, { content: [{ type: 'text', text: 5 }] }, 'content[0].text: expected string, received number'],
    ['an image block without its data', CallToolResultSchema, { content: [{ type: 'image', mimeType: 'image/png' }] }, 'content[0].data: expected string, received undefined'],
    ['isError not a boolean', CallToolResultSchema, { content: [], isError: 'yes' }, 'isError: expected boolean, received string'],
    ['not an object', CallToolResultSchema, 'hello', 'the result: expected object, received string'],
    ['a role MCP does not have', GetPromptResultSchema, { messages: [{ role: 'robot', content: { type: 'text', text: 'x' } }] }, 'messages[0].role must be one of "user", "assistant"'],
    ['resource contents neither text nor blob: the first form speaks', ReadResourceResultSchema, { contents: [{ uri: 'u', text: 7 }] }, 'contents[0].text: expected string, received number'],
    ['a tool without inputSchema', ListToolsResultSchema, { tools: [{ name: 'x' }] }, 'tools[0].inputSchema: expected object, received undefined'],
  ])('%s', (_name, schema, value, expected) => {
    const parsed = schema.safeParse(value);
    expect(parsed.success).toBe(false);
    expect(answerProblem(parsed.error!.issues)).toBe(expected);
  });

  test("a server's key is escaped: a bidi override is shown, not obeyed", () => {
    expect(answerProblem([{ code: 'custom', path: ['a\u202eb'], message: 'bad' }])).toBe('["a\\u202eb"]: bad');
  });
});
