#!/usr/bin/env node
// Bench floor 1: a stdio relay that copies bytes both ways and does nothing else — what any
// process in the middle costs on this machine (two more pipe hops and wake-ups per call).
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
process.stdin.on('end', () => child.kill());
