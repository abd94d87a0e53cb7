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
 * The command that runs the gateway on `configPath` for one scope: this Node binary and this
 * package's bin script, both absolute, so the client needs no PATH and no package download (an
 * `npx -y mcp-latch` entry would run whatever is published under that name).
 */
export function gatewayLaunch(configPath: string, scope: string | undefined, options: { execPath: string; packageRoot: string }): Launch {
  return { command: options.execPath, args: [join(options.packageRoot, 'bin', 'mcp-latch.js'), 'serve', '--config', configPath, ...(scope === undefined ? [] : ['--scope', scope])] };
}

/** True when this copy runs from npx's cache, which npm may clear at any time. */
export function inNpxCache(root: string): boolean {
  return root.split(/[\\/]/).includes('_npx');
}
