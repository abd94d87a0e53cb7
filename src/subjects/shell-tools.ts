import { profileByName } from './profiles.js';
import { identifyServer } from './server-identity.js';

/**
 * Whether a config says, before any server lists its tools, that some tool takes shell commands:
 * an override saying so (`kind: "command"` or a `command` argument), or a server whose profile
 * has such a tool. The shell grammar is loaded early for such a config (cli/serve.ts, before the
 * config is validated; the gateway again once it is); a shell tool known only from a server's list
 * loads it when listed. Free of zod: the early read of the file uses it.
 */
export function shellToolsExpected(servers: Record<string, { command?: string; args?: string[]; cwd?: string; url?: string }>, overrides: Iterable<unknown>, cwd: string): boolean {
  for (const override of overrides) {
    if (typeof override !== 'object' || override === null) continue;
    const { kind, command } = override as { kind?: unknown; command?: unknown };
    if (kind === 'command' || command !== undefined) return true;
  }
  return Object.values(servers).some((server) => profileTakesShellCommands(identifyServer(server, cwd).profile));
}

function profileTakesShellCommands(profile: string | null): boolean {
  const tools = profile === null ? [] : Object.values(profileByName(profile)?.tools ?? {});
  return tools.some((tool) => tool.kind === 'command' || tool.command !== undefined || tool.selectCommand !== undefined);
}
