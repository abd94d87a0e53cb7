#!/usr/bin/env node
// Bench floor 2: the thinnest MCP proxy the SDK allows (low-level Server in front of a Client, no
// checks at all) — what the protocol layer costs before mcp-latch decides anything.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: 'floor', version: '1' });
await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
const server = new Server({ name: 'floor', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => client.listTools());
server.setRequestHandler(CallToolRequestSchema, (request, extra) => client.request({ method: 'tools/call', params: request.params }, CallToolResultSchema, { signal: extra.signal }));
await server.connect(new StdioServerTransport());
process.stdin.on('end', () => process.exit(0));
