import { execFileSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { readAudit } from '../../src/store/audit.js';
import { eventually, fixtureCalls, fixtureServer, rawGateway, startGateway, tempDir, writeConfig } from '../helpers/gateway.js';
import { startHttpServer, stopHttpServers } from '../helpers/http-server.js';
import { freePort } from '../helpers/ports.js';

/**
 * How the calls' bytes and their audit records reach the OS, with the built gateway in front of a
 * real server, many calls in flight: the record of every call is in the file before the server
 * sees the call (docs/design.md#records), each answer goes to its own call, a client that goes
 * away mid-batch or reads slowly loses nothing it was sent, and a record that cannot be written
 * keeps its call from leaving.
 */
const AUDIT = 'mcp-latch-audit.jsonl';

/** The fixture checks the audit file at each call it receives, unless `env` is given. */
function echoGateway(env?: Record<string, string>) {
  const dir = tempDir();
  const log = join(dir, 'fixture.log');
  const config = writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', log, [], env ?? { FIXTURE_AUDIT: join(dir, AUDIT) }) }, permissions: { allow: ['mcp__fix__echo'] } });
  return { dir, log, config };
}

const call = (id: number, text: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'fix__echo', arguments: { text } } });
const echoed = (message: Record<string, unknown>) => JSON.parse((message.result as { content: Array<{ text: string }> }).content[0]!.text) as { text: string };

describe('the audit record and the call on the wire', () => {
  test('every call is in the audit file when the server receives it: 8 reads of 16 calls, then 64 calls 16 in flight, one write each', async () => {
    const { dir, log, config } = echoGateway();
    const gateway = rawGateway(config);
    await gateway.initialize();
    let id = 10;
    for (let read = 0; read < 8; read += 1) {
      const ids = Array.from({ length: 16 }, () => id++);
      gateway.send(...ids.map((callId) => call(callId, `read ${read} call ${callId}`)));
      for (const callId of ids) expect(echoed(await gateway.response(callId)).text).toBe(`read ${read} call ${callId}`);
    }
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < 64) {
          const callId = id++;
          next += 1;
          gateway.send(call(callId, `alone ${callId}`));
          expect(echoed(await gateway.response(callId)).text).toBe(`alone ${callId}`);
        }
      }),
    );
    await gateway.close();
    const received = fixtureCalls(log).filter((entry) => entry.tool === 'echo');
    expect(received).toHaveLength(8 * 16 + 64);
    expect(received.filter((entry) => entry.audited !== true)).toEqual([]);
    expect(readAudit(join(dir, AUDIT), 1000).filter((record) => record.decision === 'allow')).toHaveLength(8 * 16 + 64);
  }, 60_000);

  test("the answers of one read's calls come in the server's order, each with its own call's id", async () => {
    const { config } = echoGateway();
    const gateway = rawGateway(config);
    await gateway.initialize();
    const ids = Array.from({ length: 16 }, (_, index) => 100 + index);
    gateway.send(...ids.map((callId) => call(callId, `text of ${callId}`)));
    for (const callId of ids) await gateway.response(callId);
    const answers = gateway.messages.filter((message) => typeof message.id === 'number' && message.id >= 100);
    expect(answers.map((message) => message.id)).toEqual(ids);
    expect(answers.map((message) => echoed(message).text)).toEqual(ids.map((callId) => `text of ${callId}`));
    await gateway.close();
  }, 30_000);

  test('a client that closes right after a write of 16 calls: the gateway exits, and every call the server received has its record', async () => {
    const { dir, log, config } = echoGateway();
    const gateway = rawGateway(config);
    await gateway.initialize();
    gateway.send(call(2, 'first'));
    await gateway.response(2);
    gateway.send(...Array.from({ length: 16 }, (_, index) => call(10 + index, `last ${index}`)));
    await gateway.close();
    const received = fixtureCalls(log).filter((entry) => entry.tool === 'echo');
    expect(received.filter((entry) => entry.audited !== true)).toEqual([]);
    const audited = new Set(readAudit(join(dir, AUDIT), 100).map((record) => (record.args as { text: string }).text));
    expect(received.map((entry) => (entry.args as { text: string }).text).filter((text) => !audited.has(text))).toEqual([]);
  }, 30_000);

  test('a client that does not read for a while gets every answer, whole and once, when it reads', async () => {
    const { config } = echoGateway();
    const gateway = rawGateway(config);
    await gateway.initialize();
    // 48 answers of 40 KB each: far more than a pipe holds, so the gateway's writes to its stdout
    // wait in the stream while the client does not read.
    gateway.child.stdout.pause();
    const big = (index: number) => `${index}:${'x'.repeat(40_000)}`;
    const ids = Array.from({ length: 48 }, (_, index) => 200 + index);
    for (const [index, callId] of ids.entries()) gateway.send(call(callId, big(index)));
    await new Promise((done) => setTimeout(done, 500));
    gateway.child.stdout.resume();
    const texts: string[] = [];
    for (const callId of ids) texts.push(echoed(await gateway.response(callId)).text);
    // Whole: the length and both ends of each answer's text, then the text itself.
    const ends = (text: string) => [text.length, text.slice(0, 6), text.slice(-3)];
    expect(texts.map(ends)).toEqual(ids.map((_, index) => ends(big(index))));
    expect(texts.every((text, index) => text === big(index))).toBe(true);
    expect(gateway.messages.filter((message) => typeof message.id === 'number' && message.id >= 200)).toHaveLength(ids.length);
    await gateway.close();
  }, 60_000);
});

describe('an audit file that cannot be written', () => {
  afterEach(stopHttpServers);

  /** The audit file is a link to /dev/full: every write of it fails with ENOSPC, as on a full disk. */
  function fullDisk(env: Record<string, string> = {}) {
    // (the fixture does not read the audit file here: /dev/full reads as endless zeros)
    const setup = echoGateway(env);
    makeFullDevice(join(setup.dir, AUDIT));
    return setup;
  }

  test.skipIf(!canMakeFullDevice)('the calls of a read are answered with an error and never reach the server', async () => {
    const { dir, log, config } = fullDisk();
    const gateway = rawGateway(config);
    await gateway.initialize();
    gateway.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    await gateway.response(2);
    const ids = Array.from({ length: 16 }, (_, index) => 10 + index);
    gateway.send(...ids.map((callId) => call(callId, `call ${callId}`)));
    for (const callId of [...ids, 30]) {
      if (callId === 30) gateway.send(call(30, 'alone'));
      const answer = await gateway.response(callId);
      // The OS's cause and the file, where the person sees it: the log may not be read.
      expect(answer.error).toEqual({ code: -32603, message: fullDiskError(dir) });
    }
    // The gateway keeps serving what needs no record.
    gateway.send({ jsonrpc: '2.0', id: 40, method: 'tools/list', params: {} });
    expect((await gateway.response(40)).result).toBeDefined();
    await gateway.close();
    expect(fixtureCalls(log).filter((entry) => entry.tool === 'echo')).toEqual([]);
  }, 30_000);

  test.skipIf(!canMakeFullDevice)('a call that waited for its server to start is answered with an error and never reaches it', async () => {
    const dir = tempDir();
    const gate = join(dir, 'gate');
    const { dir: auditDir, log, config } = fullDisk({ FIXTURE_GATE: gate });
    const gateway = rawGateway(config);
    await gateway.initialize();
    // Sent while the server cannot answer its handshake: the call waits, then goes on by itself, not with its read.
    gateway.send(call(5, 'waited'));
    await new Promise((done) => setTimeout(done, 300));
    writeFileSync(gate, '');
    const answer = await gateway.response(5);
    expect(answer.error).toEqual({ code: -32603, message: fullDiskError(auditDir) });
    await gateway.close();
    await eventually(() => expect(fixtureCalls(log).filter((entry) => entry.tool === 'echo')).toEqual([]));
  }, 30_000);

  test.skipIf(!canMakeFullDevice)('the calls of a read to a remote server are answered with an error, not the server\'s answer', async () => {
    const port = await freePort();
    await startHttpServer(port);
    const dir = tempDir();
    makeFullDevice(join(dir, AUDIT));
    const gateway = rawGateway(writeConfig(dir, { mcpServers: { web: { url: `http://127.0.0.1:${port}/mcp`, type: 'http' } }, permissions: { allow: ['mcp__web__echo'] } }));
    await gateway.initialize();
    gateway.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    await gateway.response(2);
    gateway.send(...[10, 11, 12].map((callId) => ({ jsonrpc: '2.0', id: callId, method: 'tools/call', params: { name: 'web__echo', arguments: { text: `call ${callId}` } } })));
    for (const callId of [10, 11, 12]) {
      expect((await gateway.response(callId)).error).toEqual({ code: -32603, message: fullDiskError(dir) });
    }
    await gateway.close();
  }, 30_000);

  test.skipIf(!hasPrlimit())('a write cut part way by a file size limit keeps its call back, and once the limit is raised the next record is a line of its own', async () => {
    const { dir, log, config } = echoGateway({});
    const gateway = rawGateway(config);
    await gateway.initialize();
    gateway.send(call(2, 'before'));
    expect(echoed(await gateway.response(2)).text).toBe('before');
    const file = join(dir, AUDIT);
    const pid = String(gateway.child.pid);
    // The soft limit only, 100 bytes past the file's end: the next record is written in part, then refused (EFBIG).
    execFileSync('prlimit', ['--pid', pid, `--fsize=${statSync(file).size + 100}:unlimited`]);
    gateway.send(call(3, 'cut'));
    expect((await gateway.response(3)).error).toEqual({ code: -32603, message: `mcp-latch: the audit record of this call could not be written (audit log ${file}: EFBIG: file too large, write); the call was not forwarded` });
    execFileSync('prlimit', ['--pid', pid, '--fsize=unlimited:unlimited']);
    gateway.send(call(4, 'after'));
    expect(echoed(await gateway.response(4)).text).toBe('after');
    await gateway.close();
    expect(fixtureCalls(log).map((entry) => (entry.args as { text: string }).text)).toEqual(['before', 'after']);
    expect(readAudit(file, 10).map((record) => (record.args as { text: string }).text)).toEqual(['before', 'after']);
  }, 30_000);
});

describe('resources/read in the audit', () => {
  /** The SDK Client through the built gateway, the fixture offering `hello.txt` and `.env` as file: resources. */
  async function readingGateway(dir: string) {
    const log = join(dir, 'fixture.log');
    for (const name of ['hello.txt', '.env']) writeFileSync(join(dir, name), `${name} from disk`);
    const harness = await startGateway(
      { mcpServers: { fix: fixtureServer('fix', log, [], { FIXTURE_FILES: `${join(dir, 'hello.txt')}:${join(dir, '.env')}` }) }, workspace: [dir], permissions: { allow: [`Read(${dir}/**)`], deny: ['Read(**/.env)'] } },
      { dir },
    );
    return { harness, log };
  }

  test('an allowed read is recorded as a denied one is: every decision is in the audit file (before, only denied reads were)', async () => {
    const dir = tempDir();
    const { harness, log } = await readingGateway(dir);
    try {
      const hello = `file://${join(dir, 'hello.txt')}`;
      const env = `file://${join(dir, '.env')}`;
      expect(JSON.stringify((await harness.client.readResource({ uri: hello })).contents)).toContain('hello.txt from disk');
      await expect(harness.client.readResource({ uri: env })).rejects.toThrow(/Denied by mcp-latch/);
      expect(fixtureCalls(log).map((entry) => entry.resource)).toEqual([hello]);
    } finally {
      await harness.close();
    }
    const records = readAudit(join(dir, AUDIT), 10).map(({ server, tool, kind, decision, by, args }) => ({ server, tool, kind, decision, by, args }));
    expect(records).toEqual([
      { server: 'fix', tool: 'resources/read', kind: 'read', decision: 'allow', by: 'rule', args: { uri: `file://${join(dir, 'hello.txt')}` } },
      { server: 'fix', tool: 'resources/read', kind: 'read', decision: 'deny', by: 'rule', args: { uri: `file://${join(dir, '.env')}` } },
    ]);
  }, 30_000);

  test.skipIf(!canMakeFullDevice)('an allowed read whose record cannot be written is refused with the cause and never reaches the server', async () => {
    const dir = tempDir();
    makeFullDevice(join(dir, AUDIT));
    const { harness, log } = await readingGateway(dir);
    try {
      await expect(harness.client.readResource({ uri: `file://${join(dir, 'hello.txt')}` })).rejects.toThrow(fullDiskError(dir));
      expect(fixtureCalls(log).filter((entry) => entry.resource)).toEqual([]);
    } finally {
      await harness.close();
    }
  }, 30_000);
});

/**
 * /dev/full's device made at `path` (mknod: root only). A link to /dev/full was used until round 18:
 * the audit file is no longer opened through a link (review L9).
 */
const canMakeFullDevice = existsSync('/dev/full') && process.getuid?.() === 0;
function makeFullDevice(path: string): void {
  execFileSync('mknod', [path, 'c', '1', '7']);
}

/** The error of a call kept back because the audit file in `dir` is /dev/full. */
function fullDiskError(dir: string): string {
  return `mcp-latch: the audit record of this call could not be written (audit log ${join(dir, AUDIT)}: ENOSPC: no space left on device, write); the call was not forwarded`;
}

function hasPrlimit(): boolean {
  try {
    execFileSync('prlimit', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
