import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readAudit } from '../../src/store/audit.js';
import { eventually, fixtureCalls, fixtureServer, rawGateway, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * The audit's guarantee: the record of a forwarded call is handed to the OS before the call is
 * sent, so `kill -9` of the gateway, with calls in flight, loses no record of a call that reached
 * the server. Repeated, on one audit file.
 */
describe('kill -9 under load', () => {
  test('every call the server received has its audit line, after three kills with 16 calls in flight', async () => {
    const dir = tempDir();
    const log = join(dir, 'fixture.log');
    const config = writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', log) }, permissions: { allow: ['mcp__fix__echo'] } });
    let id = 10;
    for (let round = 0; round < 3; round += 1) {
      const gateway = rawGateway(config);
      await gateway.initialize();
      const exited = new Promise((done) => gateway.child.once('exit', done));
      const send16 = () => Array.from({ length: 16 }, () => {
        const callId = id++;
        gateway.send({ jsonrpc: '2.0', id: callId, method: 'tools/call', params: { name: 'fix__echo', arguments: { text: `call ${callId}` } } });
        return callId;
      });
      // Some rounds of 16 answered, then 16 more in flight when the gateway is killed.
      for (let batch = 0; batch < 3; batch += 1) for (const callId of send16()) await gateway.response(callId);
      const before = fixtureCalls(log).length;
      send16();
      await eventually(() => expect(fixtureCalls(log).length).toBeGreaterThan(before), 30_000, 1);
      gateway.child.kill('SIGKILL');
      await exited;
    }
    const received = fixtureCalls(log).map((entry) => (entry.args as { text: string }).text);
    expect(received.length).toBeGreaterThanOrEqual(3 * 49);
    const audited = new Set(readAudit(join(dir, 'mcp-latch-audit.jsonl'), 100_000).filter((record) => record.decision === 'allow').map((record) => (record.args as { text: string }).text));
    expect(received.filter((text) => !audited.has(text))).toEqual([]);
  }, 120_000);
});
