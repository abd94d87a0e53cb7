#!/usr/bin/env node
// bench/floor-relay.js with its server spawned as mcp-latch spawns its servers: detached (a session of its own,
// hence a scheduling autogroup of its own where the kernel has them). For the floor's fairness
// (docs/performance.md, "Round 25: 16 in flight"); the floor itself is bench/floor-relay.js.
import { spawn } from 'node:child_process';
const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'], detached: true });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
process.stdin.on('end', () => child.kill());
