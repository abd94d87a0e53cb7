import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ElicitRequestSchema, type CallToolResult, type ElicitRequest, type ElicitResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { findConfig } from '../config/load.js';
import { errorMessage } from '../errors.js';
import { isPlainObject } from '../values.js';
import { VERSION } from '../version.js';
import { createTerminal, type Terminal } from './terminal.js';

/**
 * `mcp-latch try`: a terminal MCP client for people. It starts the gateway on a config, lists the
 * tools, calls one with arguments typed as JSON, and shows approval prompts in the terminal with an
 * arrow-key choice — so rules can be tested before a real client is plugged in. It is an ordinary
 * MCP client: it declares form elicitation and answers what the gateway asks.
 */
const BIN = fileURLToPath(new URL('../../bin/mcp-latch.js', import.meta.url));

export async function tryGateway(options: { config?: string | undefined; log?: string | undefined }, terminal: Terminal = createTerminal()): Promise<number> {
  const configPath = findConfig(options.config);
  // Without --log the gateway's log is a temp file, removed when try ends.
  const logPath = options.log ?? join(tmpdir(), `mcp-latch-try-${process.pid}.log`);
  const logFd = openSync(logPath, 'a');
  const client = new Client({ name: 'mcp-latch-try', version: VERSION }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, (request) => answerPrompt(request.params, terminal));
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--config', configPath], stderr: logFd });

  terminal.print(`mcp-latch try: starting the gateway on ${configPath} (its log: ${logPath}${options.log ? '' : ', removed on exit; keep it with --log FILE'})`);
  try {
    await client.connect(transport, { timeout: 120_000 });
    const { tools } = await client.listTools();
    printTools(tools, terminal);
    printFailedServers(logPath, terminal);
    const names = tools.map((tool) => tool.name);
    terminal.print('Type a tool name (Tab completes, "list" shows the tools again), then its arguments as JSON. Ctrl-D quits.');
    for (;;) {
      const name = (await terminal.question('tool> ', (line) => names.filter((candidate) => candidate.startsWith(line))))?.trim();
      if (name === undefined) break;
      if (name === '') continue;
      if (name === 'list') {
        printTools(tools, terminal);
        printFailedServers(logPath, terminal);
        continue;
      }
      const tool = tools.find((candidate) => candidate.name === name);
      if (!tool) {
        terminal.print(`No tool named ${JSON.stringify(name)}. Tab completes names.`);
        continue;
      }
      printParameters(tool, terminal);
      const args = await readArguments(terminal);
      if (args === null) break;
      try {
        const result = (await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 600_000, resetTimeoutOnProgress: true, onprogress: () => undefined })) as CallToolResult;
        terminal.print(result.isError ? '--- result (error) ---' : '--- result ---');
        for (const item of result.content) {
          if (item.type === 'text') terminal.show(item.text);
          else terminal.print(`[${item.type} content]`);
        }
        terminal.print('---');
      } catch (error) {
        terminal.show(`The call failed: ${errorMessage(error)}`);
      }
    }
    return 0;
  } finally {
    terminal.close();
    await client.close().catch(() => undefined);
    closeSync(logFd);
    if (!options.log) rmSync(logPath, { force: true });
  }
}

/** A tool's arguments from its input schema: name, type, required, description. */
function printParameters(tool: Tool, terminal: Terminal): void {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown; description?: unknown }>;
  const required = new Set(tool.inputSchema.required ?? []);
  const names = Object.keys(properties);
  if (names.length === 0) {
    terminal.print('This tool takes no arguments.');
    return;
  }
  terminal.print('Arguments:');
  for (const name of names) {
    const property = properties[name] ?? {};
    const type = typeof property.type === 'string' ? property.type : Array.isArray(property.type) ? property.type.join('|') : 'any';
    const description = typeof property.description === 'string' ? `  ${property.description.split('\n')[0]?.slice(0, 100) ?? ''}` : '';
    terminal.show(`  ${name} (${type}${required.has(name) ? ', required' : ''})${description}`);
  }
}

/**
 * The servers that could not start, with the reason, from the gateway's log: each failure is one
 * JSON line `{"server": …, "err": …, "msg": "server unavailable" | "server failed"}`, and
 * `"server ready"` clears it; the last line per server counts.
 */
const FAILED = new Set(['server unavailable', 'server failed']);

function printFailedServers(logPath: string, terminal: Terminal): void {
  let text: string;
  try {
    text = readFileSync(logPath, 'utf8');
  } catch {
    return;
  }
  const failed = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line.includes('"server ')) continue;
    try {
      const entry = JSON.parse(line) as { server?: unknown; err?: unknown; msg?: unknown };
      if (typeof entry.server !== 'string' || typeof entry.msg !== 'string') continue;
      if (FAILED.has(entry.msg)) failed.set(entry.server, typeof entry.err === 'string' ? entry.err : 'unknown reason');
      else if (entry.msg === 'server ready') failed.delete(entry.server);
    } catch {
      // A line cut by a write in progress.
    }
  }
  if (failed.size === 0) return;
  terminal.print(`Servers that failed to start (${failed.size}); their tools are not listed:`);
  for (const [server, reason] of failed) terminal.show(`  ${server}: ${reason}`);
}

function printTools(tools: Tool[], terminal: Terminal): void {
  terminal.print(`Tools (${tools.length}):`);
  const width = Math.max(0, ...tools.map((tool) => tool.name.length));
  for (const tool of tools) {
    const params = Object.keys(tool.inputSchema.properties ?? {});
    const required = new Set(tool.inputSchema.required ?? []);
    const shown = params.map((param) => (required.has(param) ? `${param}*` : param)).join(', ');
    terminal.show(`  ${tool.name.padEnd(width)}  ${(tool.description ?? '').split('\n')[0]?.slice(0, 70) ?? ''}${shown ? `  (${shown})` : ''}`);
  }
  if (tools.some((tool) => (tool.inputSchema.required ?? []).length > 0)) terminal.print('(* required argument)');
}

async function readArguments(terminal: Terminal): Promise<Record<string, unknown> | null> {
  for (;;) {
    const text = await terminal.question('args (JSON, Enter for {})> ');
    if (text === null) return null;
    if (text.trim() === '') return {};
    try {
      const value = JSON.parse(text) as unknown;
      if (isPlainObject(value)) return value;
      terminal.print('The arguments must be a JSON object, like {"path": "notes.txt"}.');
    } catch (error) {
      terminal.print(`That is not valid JSON: ${errorMessage(error)}`);
    }
  }
}

/** Renders an elicitation (mcp-latch's approval prompt, or a server's own form) and collects the answer. */
async function answerPrompt(params: ElicitRequest['params'], terminal: Terminal): Promise<ElicitResult> {
  if (params.mode === 'url') {
    terminal.show(`\n${params.message}\nOpen: ${params.url}`);
    return { action: 'accept' };
  }
  terminal.print('');
  terminal.print('=== Approval needed ===');
  terminal.show(params.message);
  terminal.print('');
  const content: Record<string, string | number | boolean> = {};
  const properties = params.requestedSchema.properties as Record<string, { type?: string; enum?: string[]; title?: string; description?: string; default?: unknown }>;
  const required = new Set(params.requestedSchema.required ?? []);
  for (const [key, property] of Object.entries(properties)) {
    const title = property.title ?? key;
    if (property.enum) {
      const index = await terminal.choose(title, property.enum);
      if (index === null) return { action: 'cancel' };
      content[key] = property.enum[index]!;
    } else if (property.type === 'boolean') {
      const index = await terminal.choose(title, ['Yes', 'No']);
      if (index === null) return { action: 'cancel' };
      content[key] = index === 0;
    } else if (property.default !== undefined) {
      // A prefilled value (mcp-latch's "change before approving" fields): nothing to change after a Deny.
      if (Object.values(content).some((value) => value === 'Deny')) continue;
      const text = await terminal.question(`${title} (Enter keeps it as shown, or type a new value): `);
      if (text === null) return { action: 'cancel' };
      if (text !== '') content[key] = text;
    } else {
      const hint = required.has(key) ? '' : ' (optional, Enter to skip)';
      const text = await terminal.question(`${title}${hint}: `);
      if (text === null) return { action: 'cancel' };
      if (text === '') {
        if (required.has(key)) return { action: 'decline' };
        continue;
      }
      content[key] = property.type === 'number' || property.type === 'integer' ? Number(text) : text;
    }
  }
  return { action: 'accept', content };
}
