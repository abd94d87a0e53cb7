#!/usr/bin/env node
// Bench floor for the ten-server start: the least any gateway in front of several stdio servers does
// before its first tools/list. It spawns every server of the config at once, answers the client's
// initialize itself, hands each server the client's capabilities, asks each for its tools, and answers
// the client's tools/list with all of them (names prefixed `<server>__`, as mcp-latch lists them)
// once every server has answered. Nothing is checked, escaped, pinned or validated; one file,
// CommonJS (no ES module loader). What it costs over a client starting the servers itself is the
// floor of the ten-server goal on this machine: a second Node process's start, and the client's
// parse of one merged answer at the end instead of ten as each server answers
// (docs/performance.md, "Round 24: start"). `node bench/start.js --bin bench/floor-merge.cjs ...`
// starts it as it starts a gateway: `floor-merge.cjs serve --config FILE`.
'use strict';
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');

const config = JSON.parse(readFileSync(process.argv[process.argv.indexOf('--config') + 1], 'utf8'));
const names = Object.keys(config.mcpServers);
const out = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

function lines(stream, onMessage) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop();
    for (const part of parts) if (part.trim()) onMessage(JSON.parse(part));
  });
}

const servers = names.map((name) => {
  const { command, args = [], env = {} } = config.mcpServers[name];
  // In a session of its own, as mcp-latch starts a server (child-transport.ts `detached`): with the
  // kernel's autogroup scheduling on, each session is a group the CPU is shared between, so this
  // decides the servers' share of the cores against other load (docs/performance.md, "Round 24: start").
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, ...env }, detached: process.platform !== 'win32' });
  const server = { name, child, tools: null, send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`) };
  lines(child.stdout, (message) => {
    if (message.id === 1 && message.result) {
      server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    } else if (message.id === 2 && message.result) {
      server.tools = message.result.tools.map((tool) => ({ ...tool, name: `${name}__${tool.name}` }));
      answerLists();
    }
  });
  return server;
});

const waiting = [];
function answerLists() {
  if (servers.some((server) => server.tools === null)) return;
  const tools = servers.flatMap((server) => server.tools);
  for (const id of waiting.splice(0)) out({ jsonrpc: '2.0', id, result: { tools } });
}

lines(process.stdin, (message) => {
  if (message.method === 'initialize') {
    out({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'floor-merge', version: '1.0.0' } } });
    for (const server of servers) server.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: message.params });
  } else if (message.method === 'tools/list') {
    waiting.push(message.id);
    answerLists();
  }
});
process.stdin.on('end', () => {
  for (const server of servers) {
    try {
      process.kill(process.platform === 'win32' ? server.child.pid : -server.child.pid);
    } catch {
      // already gone
    }
  }
  process.exit(0);
});
