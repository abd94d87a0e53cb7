import { describe, expect, test } from 'vitest';
import { jsonShape } from '../src/json-shape.js';

/** Each value, array entry and object value of a parsed value: what jsonShape counts on the text. */
function countParsed(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 1;
  const entries = Array.isArray(value) ? value : Object.values(value);
  return entries.reduce<number>((sum, entry) => sum + countParsed(entry), 1);
}

describe('jsonShape', () => {
  test.each([
    '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a,b]}\\"{"}],"structuredContent":{"k":[1,2.5e3,-0,true,false,null,"x"]}}}',
    ' { "jsonrpc" : "2.0" , "method" : "tools/call" , "params" : { "name" : "t" , "arguments" : { "a" : [ ] , "b" : { } , "c" : "\\\\" } } , "id" : "x\\"y" } ',
    '[]',
    '"just a string"',
    '12',
    '{"a":{"b":{"c":[[[["\\u0022",{"":""}]]]]}}}',
    // An escaped method is the method JSON.parse reads (round 14 review W1: `tools\/call` skipped the count).
    '{"jsonrpc":"2.0","id":1,"method":"tools\\/call","params":{}}',
    '{"jsonrpc":"2.0","id":1,"method":"\\u0074ools/call","params":{}}',
  ])('counts as the parsed value does, and finds the id and method: %s', (text) => {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const shape = jsonShape(text);
    expect(shape.values).toBe(countParsed(parsed));
    const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    expect(shape.id).toEqual(isObject && (typeof parsed.id === 'string' || typeof parsed.id === 'number') ? parsed.id : null);
    expect(shape.method).toEqual(isObject && typeof parsed.method === 'string' ? parsed.method : null);
  });

  test('a key written twice counts twice, and the last id is the one JSON.parse keeps', () => {
    expect(jsonShape('{"id":1,"a":1,"a":2,"id":2}')).toEqual({ values: 5, id: 2, method: null });
  });

  test('an escaped key is read as JSON.parse reads it; an id that is an object or a method that is not a string is none', () => {
    expect(jsonShape('{"i\\u0064":3,"m\\u0065thod":"tools/call"}')).toEqual({ values: 3, id: 3, method: 'tools/call' });
    expect(jsonShape('{"id":3,"id":{"x":1},"method":["tools/call"]}')).toEqual({ values: 6, id: null, method: null });
  });

  test('text that is not JSON still gets a count and ends', () => {
    expect(jsonShape('{"a":"unterminated').values).toBe(2);
    expect(jsonShape('}}]]:::,,,').values).toBe(0);
    expect(jsonShape('{"a":tru e}').values).toBe(3);
  });
});
