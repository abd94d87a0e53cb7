import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { BIN, eventually, writeConfig } from './gateway.js';

/**
 * The built team gateway (`serve --http --port 0`) as a child process, and SDK clients over
 * Streamable HTTP with a bearer token.
 */
export interface TeamHarness {
  /** The MCP endpoint (http://127.0.0.1:PORT/mcp). */
  url: string;
  base: string;
  configPath: string;
  child: ChildProcess;
  stderr(): string;
  /** A JSON request to the interactions API with a bearer token. */
  api(path: string, token: string | null, init?: { method?: string; body?: unknown }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export async function startTeam(dir: string, config: ConfigInput, args: string[] = []): Promise<TeamHarness> {
  const configPath = writeConfig(dir, config);
  const child = spawn(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--config', configPath, ...args], { cwd: dir, env: { ...process.env, MCP_LATCH_LOG_LEVEL: 'debug' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = await eventually(() => {
    const found = /serving MCP on (http:\/\/[^\s"]+)/.exec(stderr)?.[1];
    if (!found) throw new Error(`the gateway did not start: ${stderr.slice(-2000)}`);
    return found;
  }, 30_000);
  const base = new URL(url).origin;
  return {
    url,
    base,
    configPath,
    child,
    stderr: () => stderr,
    async api(path, token, init = {}) {
      const headers: Record<string, string> = {};
      if (token) headers.authorization = `Bearer ${token}`;
      if (init.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${base}${path}`, { method: init.method ?? 'GET', headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
    },
    async close() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface TeamClient {
  client: Client;
  elicitations: ElicitRequest['params'][];
  close(): Promise<void>;
}

export async function teamClient(url: string, token: string, onElicit?: (params: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult>): Promise<TeamClient> {
  const client = new Client({ name: 'team-test', version: '1.0.0' }, { capabilities: onElicit ? { elicitation: { form: {} } } : {} });
  const elicitations: ElicitRequest['params'][] = [];
  if (onElicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.push(request.params);
      return onElicit(request.params);
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport, { timeout: 30_000 });
  return {
    client,
    elicitations,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}

/** An OAuth issuer's key set served on 127.0.0.1 (`http.oauth.jwksUrl`): one RS256 key, `kid` k1, and its private key to sign tokens with. */
export interface ServedKeys {
  url: string;
  key: CryptoKey;
  /** While down, the key set is answered 503 (the identity provider unreachable). */
  setDown(down: boolean): void;
  close(): void;
}

export async function servedKeys(): Promise<ServedKeys> {
  const pair = await generateKeyPair('RS256');
  const published = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
  let down = false;
  const server = createServer((_req, res) => {
    if (down) {
      res.writeHead(503).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(published);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`, key: pair.privateKey, setDown: (value) => (down = value), close: () => server.close() };
}
