#!/usr/bin/env node
// The official Python MCP SDK in a virtual environment of its own, for the tests that drive the
// gateway with a Python client. One home for its place and version: .ci/run runs this file before
// the tests, and the tests call ensurePythonMcp(), which makes the environment when it is missing
// (a test never skips for want of it; it fails saying what did not install).
//
//   node test/helpers/python-mcp.mjs     → prints the path of the environment's python
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PYTHON_MCP_VERSION = '2.3.0';
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const VENV = join(ROOT, '.venv-mcp');
export const VENV_PYTHON = join(VENV, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');

function installed() {
  if (!existsSync(VENV_PYTHON)) return false;
  try {
    const version = execFileSync(VENV_PYTHON, ['-c', 'import importlib.metadata as m; print(m.version("mcp"))'], { encoding: 'utf8' }).trim();
    return version === PYTHON_MCP_VERSION;
  } catch {
    return false;
  }
}

/** The python of an environment with mcp==PYTHON_MCP_VERSION, made if needed. */
export function ensurePythonMcp() {
  if (installed()) return VENV_PYTHON;
  const python = process.env.PYTHON ?? 'python3';
  execFileSync(python, ['-m', 'venv', VENV], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync(VENV_PYTHON, ['-m', 'pip', 'install', '--quiet', '--retries', '0', `mcp==${PYTHON_MCP_VERSION}`], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (!installed()) throw new Error(`mcp ${PYTHON_MCP_VERSION} did not install into ${VENV}`);
  return VENV_PYTHON;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.stdout.write(`${ensurePythonMcp()}\n`);
