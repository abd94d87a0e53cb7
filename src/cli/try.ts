import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ElicitRequestSchema, ToolListChangedNotificationSchema, type CallToolResult, type ElicitRequest, type ElicitResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { findConfig } from '../config/load.js';
import { errorMessage } from '../errors.js';
import { isPlainObject } from '../values.js';
import { VERSION } from '../version.js';
import { createTerminal, type Terminal } from './terminal.js';
import { escapeText } from '../latch/escape.js';
import { head } from '../code-points.js';

/**
 * `mcp-latch try`: a terminal MCP client for people. It starts the gateway on a config, lists the
 * tools, calls one with arguments typed as JSON, and shows approval prompts in the terminal with an
 * arrow-key choice — so rules can be tested before a real client is plugged in. It is an ordinary
 * MCP client: it declares form elicitation and answers what the gateway asks.
 */
const BIN = fileURLToPath(new URL('../../bin/mcp-latch.js', import.meta.url));

export async function tryGateway(options: { config?: string | undefined; log?: string | undefined }, terminal: Terminal = createTerminal()): Promise<number> {
  const configPath = findConfig(options.config);
  // Without --log the gateway's log is a new file in a new private directory (0700, random name),
  // removed when try ends. It was /tmp/mcp-latch-try-PID.log, opened as found: 0644, and a file or
  // link another local user made there first got the log or had it appended to a file of the
  // person's (round 18 review, L3). --log FILE: created 0600, never through a link.
  const logDir = options.log ? null : mkdtempSync(join(tmpdir(), 'mcp-latch-try-'));
  const logPath = options.log ?? join(logDir!, 'gateway.log');
  const logFd = openSync(logPath, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW | (logDir ? constants.O_EXCL : 0), 0o600);
  const client = new Client({ name: 'mcp-latch-try', version: VERSION }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, (request) => answerPrompt(request.params, terminal));
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--config', configPath], stderr: logFd });

  terminal.print(`mcp-latch try: starting the gateway on ${configPath} (its log: ${logPath}${options.log ? '' : ', removed on exit; keep it with --log FILE'})`);
  try {
    await client.connect(transport, { timeout: 120_000 });
    let listed = await listTools(client);
    // Servers that were still starting are announced with list_changed: the names follow.
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      listed = await listTools(client).catch(() => listed);
    });
    printTools(listed, terminal);
    terminal.print('Type a tool name (Tab completes, "list" lists the tools again), then its arguments as JSON. Ctrl-D quits.');
    for (;;) {
      const name = (await terminal.question('tool> ', (line) => listed.tools.map((tool) => tool.name).filter((candidate) => candidate.startsWith(line))))?.trim();
      if (name === undefined) break;
      if (name === '') continue;
      if (name === 'list') {
        listed = await listTools(client);
        printTools(listed, terminal);
        continue;
      }
      const tool = listed.tools.find((candidate) => candidate.name === name);
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
    if (logDir) rmSync(logDir, { recursive: true, force: true });
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
    const description = typeof property.description === 'string' ? `  ${head(property.description.split('\n')[0] ?? '', 100)}` : '';
    terminal.show(`  ${name} (${type}${required.has(name) ? ', required' : ''})${description}`);
  }
}

/** The servers the gateway reports as not ready, on the list's `_meta` (docs/config.md#timeouts). */
const UNAVAILABLE_META = 'mcp-latch/unavailable';

interface Listed {
  tools: Tool[];
  /** Why each server that is not ready cannot take calls, as the gateway says it. */
  unavailable: string[];
}

async function listTools(client: Client): Promise<Listed> {
  const result = await client.listTools();
  const reported = result._meta?.[UNAVAILABLE_META];
  const unavailable = Array.isArray(reported) ? reported.filter(isPlainObject).map((entry) => String(entry['reason'])) : [];
  return { tools: result.tools, unavailable };
}

function printTools({ tools, unavailable }: Listed, terminal: Terminal): void {
  terminal.print(`Tools (${tools.length}):`);
  const width = Math.max(0, ...tools.map((tool) => tool.name.length));
  for (const tool of tools) {
    const params = Object.keys(tool.inputSchema.properties ?? {});
    const required = new Set(tool.inputSchema.required ?? []);
    const shown = params.map((param) => (required.has(param) ? `${param}*` : param)).join(', ');
    terminal.show(`  ${tool.name.padEnd(width)}  ${head((tool.description ?? '').split('\n')[0] ?? '', 70)}${shown ? `  (${shown})` : ''}`);
  }
  if (tools.some((tool) => (tool.inputSchema.required ?? []).length > 0)) terminal.print('(* required argument)');
  if (unavailable.length === 0) return;
  terminal.print(`Servers not ready (${unavailable.length}); their tools cannot be called now ("list" asks again):`);
  for (const reason of unavailable) terminal.show(`  ${reason}`);
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
  // A server's question is relayed with "[server] " before its message (gateway/server-input.ts shownQuestion), which a server cannot take off.
  const own = !params.message.startsWith('[') && isPlainObject(params._meta) && params._meta['mcp-latch/request'] !== undefined;
  if (params.mode === 'url') {
    terminal.print('');
    terminal.print('=== A server asks you to open a page ===');
    terminal.show(`${params.message}\nOpen: ${params.url}`);
    terminal.print('');
    // Accepting tells the server the person will open it: the person says so, nobody for them.
    const index = await terminal.choose('Open it', ['Accept (open the page yourself)', 'Decline']);
    return { action: index === null ? 'cancel' : index === 0 ? 'accept' : 'decline' };
  }
  terminal.print('');
  terminal.print(own ? '=== Approval needed ===' : '=== A server asks ===');
  terminal.show(params.message);
  terminal.print('');
  const content: Record<string, string | number | boolean> = {};
  const properties = params.requestedSchema.properties as Record<string, { type?: string; enum?: string[]; title?: string; description?: string; default?: unknown }>;
  const required = new Set(params.requestedSchema.required ?? []);
  for (const [key, property] of Object.entries(properties)) {
    // The gateway escapes a form's titles it relays; escaped here too, since choose and question
    // write their title as it is (round 31 review S31-4).
    const title = escapeText(String(property.title ?? key));
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
