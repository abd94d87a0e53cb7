import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, test } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { ALLOW_ONCE } from '../../src/latch/prompt.js';
import { SchemaValidators } from '../../src/schema-validators.js';
import { fixtureCalls, fixtureServer, tempDir, textOf } from '../helpers/gateway.js';
import { inProcessGateway } from '../helpers/in-process.js';

/**
 * Prompts cost no memory that stays: every approval prompt and every relayed server elicitation
 * carries a new `requestedSchema` object, which the SDK's default validator compiled and kept
 * (about 6.5 KB per prompt). Measured in this process, on the heap after a full GC.
 */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** A gateway in this process, in front of the fixture server, with an SDK Client that answers every prompt. */
async function inProcess(config: ConfigInput, answer: (message: string) => Record<string, unknown>) {
  let prompts = 0;
  const harness = await inProcessGateway(config, {
    keep: false,
    onElicit: (params) => {
      prompts += 1;
      return { action: 'accept', content: answer(params.message) as Record<string, string> };
    },
  });
  return { ...harness, prompts: () => prompts };
}

describe('prompt memory', () => {
  test('20,000 approval prompts answered: the heap after GC grows less than 5 MB', async () => {
    const dir = tempDir();
    const log = join(dir, 'calls');
    const gateway = await inProcess({ mcpServers: { fix: fixtureServer('fix', log) }, permissions: { ask: ['mcp__fix__echo'] } }, () => ({ decision: ALLOW_ONCE }));
    try {
      const round = async (count: number, from: number) => {
        // Sixteen at a time, as a model's parallel calls would come.
        for (let done = 0; done < count; done += 16) {
          const calls = Array.from({ length: Math.min(16, count - done) }, (_, index) => gateway.client.callTool({ name: 'fix__echo', arguments: { text: `call ${from + done + index}` } }));
          for (const result of await Promise.all(calls)) expect(result.isError).toBeFalsy();
        }
      };
      // Warm-up: the code paths, the SDK's and the audit's buffers, reach their steady size first.
      await round(1_000, 0);
      const before = heapAfterGc();
      await round(20_000, 1_000);
      const after = heapAfterGc();
      expect(gateway.prompts()).toBe(21_000);
      expect(fixtureCalls(log)).toHaveLength(21_000);
      expect(after - before).toBeLessThan(5 * 1024 * 1024);
    } finally {
      await gateway.close();
    }
  }, 600_000);

  test('2,000 relayed server elicitations: the heap after GC grows less than 1 MB', async () => {
    const dir = tempDir();
    const gateway = await inProcess({ mcpServers: { fix: fixtureServer('fix', join(dir, 'calls')) }, permissions: { allow: ['mcp__fix__ask_user'] } }, (message) => ({ answer: `answer to ${message}` }));
    try {
      const round = async (count: number) => {
        for (let done = 0; done < count; done += 16) {
          const calls = Array.from({ length: Math.min(16, count - done) }, (_, index) => gateway.client.callTool({ name: 'fix__ask_user', arguments: { question: `question ${done + index}` } }));
          for (const result of await Promise.all(calls)) expect(textOf(result)).toContain('"action":"accept"');
        }
      };
      await round(200);
      const before = heapAfterGc();
      await round(2_000);
      const after = heapAfterGc();
      expect(gateway.prompts()).toBe(2_200);
      expect(after - before).toBeLessThan(1024 * 1024);
    } finally {
      await gateway.close();
    }
  }, 300_000);
});

describe('SchemaValidators', () => {
  test('one validator per schema text, whatever object carries it; a bounded set of distinct texts', () => {
    const validators = new SchemaValidators(4);
    const schema = () => ({ type: 'object', properties: { decision: { type: 'string', enum: ['Allow once', 'Deny'] } }, required: ['decision'] }) as const;
    const first = validators.getValidator(schema());
    expect(validators.getValidator(schema())).toBe(first);
    expect(first({ decision: 'Deny' }).valid).toBe(true);
    expect(first({ decision: 'Maybe' }).valid).toBe(false);
    for (let index = 0; index < 10; index += 1) {
      const distinct = validators.getValidator({ type: 'object', properties: { decision: { type: 'string', enum: [`Always allow: /tmp/${index}`] } } });
      expect(distinct({ decision: `Always allow: /tmp/${index}` }).valid).toBe(true);
      expect(distinct({ decision: 'Deny' }).valid).toBe(false);
      expect(validators.size).toBeLessThanOrEqual(4);
    }
  });
});
