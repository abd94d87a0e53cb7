import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, realpathSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
  type ListRootsResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ConfigInput } from '../../src/config/schema.js';

/**
 * Integration harness: the BUILT gateway (bin/mcp-latch.js → dist/) as a child process, driven by
 * the SDK's own Client over stdio, in front of real servers installed as devDependencies.
 */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = join(ROOT, 'bin/mcp-latch.js');
export const FS_SERVER = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const EVERYTHING_SERVER = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const COMMANDS_SERVER = join(ROOT, 'node_modules/mcp-server-commands/build/index.js');
export const FIXTURE_SERVER = join(ROOT, 'test/fixtures/fixture-server.mjs');

/** A fresh directory with symlinks resolved (macOS /var → /private/var). */
export function tempDir(prefix = 'mcp-latch-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export function fixtureServer(name: string, log: string, flags: string[] = [], env: Record<string, string> = {}) {
  return { command: process.execPath, args: [FIXTURE_SERVER, ...flags], env: { FIXTURE_LOG: log, FIXTURE_NAME: name, ...env } };
}

/** Lines the fixture server recorded (one per call it received). */
export function fixtureCalls(log: string): Array<Record<string, unknown>> {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export interface Harness {
  client: Client;
  transport: StdioClientTransport;
  dir: string;
  configPath: string;
  /** Everything the gateway wrote to stderr (its logs) so far. */
  stderr(): string;
  /** Elicitation requests the client received, in order. */
  elicitations: ElicitRequest['params'][];
  close(): Promise<void>;
}

export interface HarnessOptions {
  dir?: string;
  capabilities?: ClientCapabilities;
  /** Answers elicitation requests; declaring it declares form elicitation. */
  onElicit?: (params: ElicitRequest['params']) => Promise<ElicitResult> | ElicitResult;
  /** Answers roots/list requests; declaring it declares roots. */
  onListRoots?: () => ListRootsResult;
  clientName?: string;
  env?: Record<string, string>;
  /** Extra gateway arguments. */
  args?: string[];
  /** Arguments of node itself, before the gateway's script (`--import` a probe). */
  nodeArgs?: string[];
  /** Keep the product's default `approval.fallback` (see writeConfig). */
  productDefaults?: boolean;
}

/**
 * Writes a config for a test. Unless `productDefaults`, a config that does not choose
 * `approval.fallback` gets "deny": the product default ("browser") would open a browser on the
 * test machine and hold every ask of a client without prompts for the client's whole limit. And
 * one that does not choose `timeouts.firstListSeconds` gets 60 s: a test that lists expects every
 * server it configured, also on a loaded machine where one takes longer than the product's 5 s.
 */
export function writeConfig(dir: string, config: ConfigInput, name = 'mcp-latch.json', productDefaults = false): string {
  const path = join(dir, name);
  let written = config;
  if (!productDefaults && config.approval?.fallback === undefined) written = { ...written, approval: { ...written.approval, fallback: 'deny' as const } };
  if (!productDefaults && config.timeouts?.firstListSeconds === undefined) written = { ...written, timeouts: { ...written.timeouts, firstListSeconds: 60 } };
  writeFileSync(path, JSON.stringify(written, null, 2));
  return path;
}

/** The client of a test harness: it declares what `options` say and answers (and records) prompts with `onElicit`. */
export function testClient(options: HarnessOptions, keep = true): { client: Client; elicitations: ElicitRequest['params'][] } {
  const capabilities: ClientCapabilities = { ...(options.capabilities ?? {}) };
  if (options.onElicit && !capabilities.elicitation) capabilities.elicitation = { form: {} };
  if (options.onListRoots && !capabilities.roots) capabilities.roots = {};
  const client = new Client({ name: options.clientName ?? 'mcp-latch-test', version: '1.0.0' }, { capabilities });
  const elicitations: ElicitRequest['params'][] = [];
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      if (keep) elicitations.push(request.params);
      if (!options.onElicit) return { action: 'cancel' };
      return options.onElicit(request.params);
    });
  }
  const { onListRoots } = options;
  if (onListRoots) client.setRequestHandler(ListRootsRequestSchema, () => onListRoots());
  return { client, elicitations };
}

/** Lists a gateway this run started, for test/gateways-left.ts to kill if it outlives the run. */
function listed(pid: number | null | undefined): void {
  if (pid != null && process.env.MCP_LATCH_TEST_GATEWAYS) appendFileSync(process.env.MCP_LATCH_TEST_GATEWAYS, `${pid}\n`);
}

export async function startGateway(config: ConfigInput, options: HarnessOptions = {}): Promise<Harness> {
  const dir = options.dir ?? tempDir();
  const configPath = writeConfig(dir, config, 'mcp-latch.json', options.productDefaults);
  const { client, elicitations } = testClient(options);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(options.nodeArgs ?? []), BIN, 'serve', '--config', configPath, ...(options.args ?? [])],
    env: { MCP_LATCH_LOG_LEVEL: 'debug', ...options.env },
    stderr: 'pipe',
    cwd: dir,
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  try {
    await client.connect(transport, { timeout: 30_000 });
  } finally {
    listed(transport.pid);
  }
  return {
    client,
    transport,
    dir,
    configPath,
    stderr: () => stderr,
    elicitations,
    close: async () => {
      await client.close().catch(() => undefined);
    },
  };
}

/** Polls until `check` passes or the time runs out; for effects that happen after a response. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw lastError;
    await new Promise((done) => setTimeout(done, intervalMs));
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The single text of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content
    .filter((item) => item.type === 'text')
    .map((item) => item.text ?? '')
    .join('\n');
}

/**
 * The built gateway driven with raw JSON-RPC lines, for what the SDK Client cannot express: several
 * calls in one write (so in one read at the gateway), or a session that never initializes.
 */
export function rawGateway(config: string) {
  const child = spawn(process.execPath, [BIN, 'serve', '--config', config], { stdio: ['pipe', 'pipe', 'pipe'] });
  listed(child.pid);
  const messages: Array<Record<string, unknown>> = [];
  createInterface({ input: child.stdout }).on('line', (line) => messages.push(JSON.parse(line) as Record<string, unknown>));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  /** Writes every value in one write. */
  const send = (...values: unknown[]) => child.stdin.write(values.map((value) => `${JSON.stringify(value)}\n`).join(''));
  const find = (test: (message: Record<string, unknown>) => boolean) =>
    eventually(() => {
      const found = messages.find(test);
      if (!found) throw new Error('not yet');
      return found;
    }, 30_000);
  return {
    child,
    messages,
    send,
    find,
    response: (id: number) => find((message) => message.id === id),
    /** initialize (id 1) and initialized, as a client declaring `capabilities`. */
    async initialize(capabilities: ClientCapabilities = {}): Promise<void> {
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw', version: '1' } } });
      await find((message) => message.id === 1);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    },
    /** Ends stdin (the client goes away) and waits for the gateway to exit. */
    async close(): Promise<void> {
      child.stdin.end();
      await exited;
    },
  };
}
