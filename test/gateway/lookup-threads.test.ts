import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { startGateway, type Harness } from '../helpers/gateway.js';

/**
 * libuv's thread pool of the built gateway (bin/mcp-latch.js; docs/threat-model.md, "Round 25: the
 * lookups' threads"). Node's 4 threads give getaddrinfo 2, and a lookup whose DNS never answers holds
 * one until the system resolver gives up: two servers' URL-mode questions to such names held every
 * other lookup of the process behind them (bench/dns-threads.js measures it with a DNS server that
 * never answers: `localhost` waited 3.9 s with 4 threads, 6 ms with 8). The gateway now starts with
 * 8 unless UV_THREADPOOL_SIZE is set. Counted as the threads of the gateway's process (Linux's
 * /proc), which differ between two gateways of the same build by their pools alone.
 */
const gateways: Harness[] = [];
afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.close();
});

async function threads(env: Record<string, string>): Promise<number> {
  const gateway = await startGateway({ mcpServers: {} }, { env });
  gateways.push(gateway);
  await gateway.client.listTools();
  return readdirSync(`/proc/${gateway.transport.pid}/task`).length;
}

describe("the gateway's thread pool", () => {
  test.skipIf(process.platform !== 'linux')('is 8 threads unless UV_THREADPOOL_SIZE says otherwise, which is kept', { timeout: 60_000 }, async () => {
    const four = await threads({ UV_THREADPOOL_SIZE: '4' });
    const six = await threads({ UV_THREADPOOL_SIZE: '6' });
    const unset = await threads({});
    expect(six - four).toBe(2);
    expect(unset - four).toBe(4);
  });
});
