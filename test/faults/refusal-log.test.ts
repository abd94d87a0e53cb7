import { join } from 'node:path';
import { expect, test } from 'vitest';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { eventually, startGateway, tempDir, textOf } from '../helpers/gateway.js';
import { faultServer } from '../helpers/faults.js';

/**
 * Round 26 review P3: each sampling or elicitation request of a server past its limit (8 sampling
 * requests open, 32 questions waiting) was one warn line in the gateway's log: 20,000 of them wrote
 * ~20,000 lines, 3.9 MB, to the log clients keep. Now the first of a kind is a warning, the rest for
 * 10 s (REFUSAL_WARN_MS) go at debug level, then one warning counts them; each request is still
 * refused (the server gets its error). The client declares both and never answers, so the first
 * ones stay open and the rest are past the limit. The log at the product's default level (info).
 */
const COUNT = 5_000;
test.each([
  ['sampling', 'refused a sampling request of a server: 8 of its sampling requests are open already (the limit is 8 per server)', /refused ([\d,]+) more sampling requests past the limit of f in the 10 s/],
  ['elicit', 'refused a question of a server: 32 of its questions are waiting for the person already (the limit)', /refused ([\d,]+) more questions past the limit of f in the 10 s/],
])('%s: a flood past the limit is one warning and then its count, not a line each', async (kind, first, summary) => {
  const dir = tempDir();
  const h = await startGateway(
    { mcpServers: { f: faultServer('progress-flood', join(dir, 'starts')) }, permissions: { allow: ['mcp__f__flood'] } },
    { dir, capabilities: { sampling: {} }, onElicit: () => new Promise(() => undefined), env: { MCP_LATCH_LOG_LEVEL: 'info' } },
  );
  h.client.setRequestHandler(CreateMessageRequestSchema, () => new Promise(() => undefined));
  try {
    const before = h.stderr().length;
    const result = await h.client.callTool({ name: 'f__flood', arguments: { count: COUNT, [kind]: true } }, undefined, { timeout: 120_000 });
    expect(textOf(result)).toContain(`sent ${COUNT}`);
    const counted = await eventually(() => {
      const match = summary.exec(h.stderr().slice(before));
      expect(match).not.toBeNull();
      return Number(match![1]!.replace(/,/g, ''));
    }, 20_000);
    const lines = h.stderr().slice(before).split('\n').filter((line) => line.includes('"msg":"refused'));
    expect(lines.filter((line) => line.includes(first))).toHaveLength(1);
    expect(lines).toHaveLength(2);
    // Every request past the limit is counted: the first warned, the rest in the count (the ones under the limit stay open);
    // past 1,000 a second the server is slowed, none dropped (server-requests.ts; round 29 dropped them unanswered for a while).
    expect(counted + 1).toBe(COUNT - (kind === 'sampling' ? 8 : 32));
  } finally {
    await h.close();
  }
}, 120_000);
