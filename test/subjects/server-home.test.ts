import { describe, expect, test } from 'vitest';
import { inspectCall } from '../../src/subjects/inspect.js';
import { classifyTool } from '../../src/subjects/kind.js';
import type { PathSubject } from '../../src/policy/types.js';
import { identifyServer, serverHome } from '../../src/subjects/server-identity.js';

/**
 * `~` in a path argument is the server's own home (os.homedir() of its process: its HOME), which
 * its `env` may set otherwise than the gateway's (round 29 review F29-1, docs/threat-model.md
 * "A path the server reads otherwise").
 */
const FS = ['npx', '-y', '@modelcontextprotocol/server-filesystem', '/w'];
const context = { workspace: ['/w'], clientRoots: [], pathEnv: { home: '/home/gateway', platform: 'linux' as const } };

function paths(identity: ReturnType<typeof identifyServer>, path: string): PathSubject[] {
  const toolClass = classifyTool({ identity, tool: { name: 'read_text_file' } });
  return inspectCall('fs', 'read_text_file', { path }, toolClass, context).subjects.filter((subject): subject is PathSubject => subject.type === 'path');
}

describe('serverHome', () => {
  test("the server's HOME when its env sets one; undefined when it inherits the gateway's; null when not known or not absolute", () => {
    expect(serverHome({ profile: null, roots: [], cwd: null }, 'linux')).toBeUndefined();
    expect(serverHome({ profile: null, roots: [], cwd: null, env: { PATH: '/bin' } }, 'linux')).toBeUndefined();
    expect(serverHome({ profile: null, roots: [], cwd: null, env: { HOME: '/srv/fs' } }, 'linux')).toBe('/srv/fs');
    expect(serverHome({ profile: null, roots: [], cwd: null, env: null }, 'linux')).toBeNull();
    expect(serverHome({ profile: null, roots: [], cwd: null, env: { HOME: 'rel' } }, 'linux')).toBeNull();
    expect(serverHome({ profile: null, roots: [], cwd: null, env: { HOME: '' } }, 'linux')).toBeNull();
    expect(serverHome({ profile: null, roots: [], cwd: null, env: { USERPROFILE: 'C:\\Users\\s' } }, 'win32')).toBe('C:\\Users\\s');
  });
});

describe('a path starting with ~', () => {
  test("is in the server's home when its env sets HOME, the gateway's otherwise", () => {
    const [command, ...args] = FS;
    expect(paths(identifyServer({ command, args, env: { HOME: '/srv/fs' } }, '/'), '~/secret/id')[0]?.path).toBe('/srv/fs/secret/id');
    expect(paths(identifyServer({ command, args }, '/'), '~/secret/id')[0]?.path).toBe('/home/gateway/secret/id');
  });

  test("is a problem (never allowed) when the server's environment is not known", () => {
    const [command, ...args] = FS;
    const [subject] = paths(identifyServer({ command, args, envFile: '/nonexistent/.env' }, '/'), '~/secret/id');
    expect(subject?.path).toBeNull();
    expect(subject?.problem).toContain("the server's home");
    // A path without ~ is decided as before.
    expect(paths(identifyServer({ command, args, envFile: '/nonexistent/.env' }, '/'), '/w/a.txt')[0]?.problem).toBeUndefined();
  });
});
