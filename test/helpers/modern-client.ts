import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { ConfigInput } from '../../src/config/schema.js';
import { BIN, writeConfig } from './gateway.js';

/**
 * The official TypeScript SDK v2 client, pinned to MCP 2026-07-28 (it probes with server/discover
 * and sends the per-request `_meta` envelope), in front of the built gateway. An input_required
 * result is answered by its elicitation handler and retried by the SDK; `round` drives one round by
 * hand instead.
 */
export type Elicit = { message: string; requestedSchema: { properties: Record<string, unknown> }; _meta?: Record<string, unknown> };
export type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

export interface Modern {
  client: Client;
  dir: string;
  /** Every form the client was asked to show, in order. */
  prompts: Elicit[];
  stderr(): string;
  close(): Promise<void>;
}

export interface ModernOptions {
  /** Answers the forms; null: none is expected (a form shown is cancelled and recorded). */
  onElicit?: ((params: Elicit) => Answer | Promise<Answer>) | null;
  /** The capabilities the envelope declares; form elicitation by default. */
  capabilities?: Record<string, unknown>;
  /** Answers a roots/list input request (the SDK answers it and retries); with `capabilities.roots`. */
  onListRoots?: () => { roots: Array<{ uri: string; name?: string }> };
}

export async function startModernClient(dir: string, config: ConfigInput, options: ModernOptions = {}): Promise<Modern> {
  const configPath = writeConfig(dir, config);
  const capabilities = options.capabilities ?? { elicitation: { form: {} } };
  const client = new Client({ name: 'modern-test', version: '1.0.0' }, { capabilities: capabilities as never, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const prompts: Elicit[] = [];
  const onElicit = options.onElicit ?? null;
  // The SDK refuses a handler for a capability the client does not declare.
  if (capabilities.elicitation) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as unknown as Elicit;
      prompts.push(params);
      return (onElicit ? await onElicit(params) : { action: 'cancel' }) as never;
    });
  }
  const { onListRoots } = options;
  if (capabilities.roots && onListRoots) client.setRequestHandler('roots/list', async () => onListRoots() as never);
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--config', configPath], stderr: 'pipe', cwd: dir, env: { MCP_LATCH_LOG_LEVEL: 'debug', PATH: process.env.PATH ?? '' } });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await client.connect(transport);
  return { client, dir, prompts, stderr: () => stderr, close: () => client.close().catch(() => undefined) };
}

/** One round by hand: the call, answered input_required or complete as it comes. */
export async function round(client: Client, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  return (await client.callTool(params as never, { allowInputRequired: true })) as unknown as Record<string, unknown>;
}
