/**
 * Which shell Desktop Commander runs a command in, and where its config file is
 * (docs/threat-model.md#desktop-commanders-shell). The gateway reads commands as bash; Desktop
 * Commander 0.2.52 runs `start_process` in its `shell` argument, else its config's `defaultShell`
 * (`~/.claude-server-commander/config.json`, made at its first start from `$SHELL`, `/bin/zsh` on
 * macOS, `powershell.exe` on Windows), else `$SHELL`/`/bin/sh`. zsh expanded `=rm -rf d` past
 * `Bash(rm:*)` (round 14 review T6).
 *
 * A bash (BASH_SHELLS) runs the text as `bash -c` (Node's spawn with `shell`), so it is read as
 * bash; sh and dash as a `sh` that may be dash (shell/dialect.ts).
 *
 *   commandShell({}, identity with SHELL=/usr/bin/zsh and no config file)
 *     → { problem: 'Desktop Commander runs it in /usr/bin/zsh (its defaultShell, from $SHELL), …' }
 *   commandShell({ shell: '/bin/bash' }, identity) → { dialect: 'bash' }
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BASH_SHELLS, POSIX_SHELLS } from '../programs.js';
import type { Dialect } from './shell/dialect.js';
import { isPlainObject } from '../values.js';
import type { ServerIdentity } from './server-identity.js';
import { head } from '../code-points.js';

/** Directories a shell named by an absolute path must be in: a model-written `./bash` is a program of its own. */
const SYSTEM_BIN = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/opt/homebrew/bin']);

/** The set_config_value keys that change nothing a command or a path rule meets (DC 0.2.52 tools/config.js). */
export const DC_INERT_KEYS: ReadonlySet<string> = new Set(['telemetryEnabled', 'fileReadLineLimit', 'fileWriteLineLimit']);

/** A variable of the server's environment: its own `env` (envFile and `${env:…}` read), else the gateway's, which it inherits. */
function serverVariable(identity: ServerIdentity, name: string): string | undefined | null {
  if (identity.env === null) return null;
  return identity.env?.[name] ?? process.env[name];
}

/** Desktop Commander's config file for this server (config.js: os.homedir() of its process), or null when its environment is not known. */
export function desktopCommanderConfig(identity: ServerIdentity): string | null {
  const home = serverVariable(identity, process.platform === 'win32' ? 'USERPROFILE' : 'HOME');
  if (home === null) return null;
  return path.join(home || os.homedir(), '.claude-server-commander', 'config.json');
}

/** The shell a command tool runs its text in: a reason when mcp-latch does not read that shell, else the dialect it is read as. */
export type ShellReading = { problem: string; dialect?: undefined } | { dialect: Dialect; problem?: undefined };

/**
 * The shell that runs the command of `args`: its dialect when that shell is known to be bash or a
 * POSIX sh (POSIX_SHELLS), by name or at a system path; else the reason, naming the shell and where
 * it comes from.
 */
export function commandShell(args: Record<string, unknown>, identity: ServerIdentity): ShellReading {
  const given = args['shell'];
  if (given !== undefined && given !== null && given !== '') return readShell(given, 'its `shell` argument');
  const file = desktopCommanderConfig(identity);
  if (file === null) return { problem: "Desktop Commander's environment is not known here (an envFile or a variable mcp-latch could not read), so neither is its shell" };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return { problem: `Desktop Commander's config file ${file} could not be read, so its shell is not known` };
    // Made at the server's first start (config-manager.js getDefaultConfig).
    if (process.platform === 'win32') return readShell('powershell.exe', 'its defaultShell on Windows');
    const shell = serverVariable(identity, 'SHELL');
    if (shell === null) return { problem: "Desktop Commander's environment is not known here, so neither is its shell" };
    return shell ? readShell(shell, 'its defaultShell, from $SHELL') : readShell(process.platform === 'darwin' ? '/bin/zsh' : '/bin/sh', `its defaultShell on ${process.platform}`);
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch {
    return { problem: `Desktop Commander's config file ${file} is not JSON, so its shell is not known` };
  }
  const shell = isPlainObject(config) ? config['defaultShell'] : undefined;
  if (shell) return readShell(shell, `its defaultShell in ${file}`);
  // An empty defaultShell: startProcess takes $SHELL, else /bin/sh (cmd.exe on Windows).
  if (process.platform === 'win32') return readShell('cmd.exe', 'its shell on Windows');
  const variable = serverVariable(identity, 'SHELL');
  if (variable === null) return { problem: "Desktop Commander's environment is not known here, so neither is its shell" };
  return readShell(variable || '/bin/sh', variable ? '$SHELL' : 'its shell');
}

function readShell(shell: unknown, from: string): ShellReading {
  if (typeof shell !== 'string') return { problem: `Desktop Commander runs it in a shell given as ${head(JSON.stringify(shell) ?? 'undefined', 80)} (${from}), which mcp-latch does not read` };
  const slashed = shell.replace(/\\/g, '/');
  const name = (slashed.split('/').pop() ?? '').replace(/\.exe$/i, '').toLowerCase();
  const dir = slashed.includes('/') ? path.posix.dirname(path.posix.normalize(slashed)) : null;
  // `sh` may be dash, or bash in POSIX mode: read as a sh that may be dash (shell/dialect.ts).
  if (POSIX_SHELLS.has(name) && (dir === null || SYSTEM_BIN.has(dir))) return { dialect: BASH_SHELLS.has(name) ? 'bash' : 'sh' };
  const why = POSIX_SHELLS.has(name) ? ', a program of that name outside the system directories' : '';
  return { problem: `Desktop Commander runs it in ${head(shell, 200)} (${from})${why}; mcp-latch reads commands as bash and sh only` };
}
