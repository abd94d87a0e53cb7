import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, isAlive } from './gateway.js';

/** The misbehaving server of test/faults (test/fixtures/fault-server.mjs). */
export const FAULT_SERVER = join(ROOT, 'test/fixtures/fault-server.mjs');

export function faultServer(fault: string, startsFile: string, env: Record<string, string> = {}) {
  return { command: process.execPath, args: [FAULT_SERVER, fault], env: { FAULT_STARTS: startsFile, ...env } };
}

/** The pid of every start of a fault server, in order. */
export function starts(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
}

export function aliveOf(file: string): number[] {
  return starts(file).filter(isAlive);
}
