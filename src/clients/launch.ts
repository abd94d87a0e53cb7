import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Launch } from './client-file.js';

/**
 * How a client starts this very copy of mcp-latch, and where its JSON Schema is. Paths are computed
 * from this module's URL (dist/clients/launch.js or src/clients/launch.ts, two levels below the
 * package root), so they hold for a global install, a project dependency and a git checkout alike.
 */

/** The package root: the folder holding bin/, dist/ and schema/. */
export function packageRoot(): string {
  return fileURLToPath(new URL('../../', import.meta.url));
}

/** `file:///…/schema/mcp-latch.schema.json`: the schema shipped in the package, as editors take it in `$schema`. */
export function schemaUrl(root: string = packageRoot()): string {
  return pathToFileURL(join(root, 'schema', 'mcp-latch.schema.json')).href;
}

/**
 * The command that runs the gateway on `configPath`: this Node binary and this package's bin script.
 * A copy run through `npx` lives in npx's cache, which npm may clear, so that case is written as
 * `npx -y mcp-latch` instead (through `cmd /c` on Windows, where npx is a .cmd script).
 */
export function gatewayLaunch(configPath: string, options: { execPath: string; packageRoot: string; platform: NodeJS.Platform }): Launch {
  const serve = ['serve', '--config', configPath];
  const inNpxCache = options.packageRoot.split(/[\\/]/).includes('_npx');
  if (inNpxCache) {
    return options.platform === 'win32' ? { command: 'cmd', args: ['/c', 'npx', '-y', 'mcp-latch', ...serve] } : { command: 'npx', args: ['-y', 'mcp-latch', ...serve] };
  }
  return { command: options.execPath, args: [join(options.packageRoot, 'bin', 'mcp-latch.js'), ...serve] };
}

