import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { exposeNames, nameKey } from '../../src/downstream/catalog.js';

// Claude Desktop rejects the whole tool list when one name fails ^[A-Za-z0-9_-]{1,64}$ (docs/design.md#the-gateway-as-a-proxy).
describe('exposed names', () => {
  test('server__tool, sanitised, at most 64 characters, unique', () => {
    const requests = [
      { server: 'fs', name: 'read_file' },
      { server: 'fs', name: 'read.file' },
      { server: 'fs', name: 'read file' },
      { server: 'git', name: `x${'y'.repeat(80)}` },
      { server: 'git', name: `x${'y'.repeat(80)}z` },
      { server: 'web', name: 'fetch/url' },
    ];
    const names = exposeNames(requests);
    const values = [...names.values()];
    expect(new Set(values).size).toBe(requests.length);
    for (const value of values) expect(value).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    // The name that needed no change keeps the plain form; the others get a hashed suffix.
    expect(names.get(nameKey('fs', 'read_file'))).toBe('fs__read_file');
    expect(names.get(nameKey('fs', 'read.file'))).toMatch(/^fs__read_file_[0-9a-f]{6}$/);
    expect(names.get(nameKey('web', 'fetch/url'))).toBe('web__fetch_url');
  });

  test('the same server and name listed twelve times is one name; before, each copy took a suffix of the last until 64 characters and the gateway spun for ever', () => {
    // In a child with a time limit: the old loop never returned, and a test cannot interrupt it.
    const built = fileURLToPath(new URL('../../dist/downstream/catalog.js', import.meta.url));
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', `import { exposeNames } from ${JSON.stringify(built)}; console.log(JSON.stringify([...exposeNames(Array.from({ length: 12 }, () => ({ server: 'f', name: 'echo' }))).values()]))`], { encoding: 'utf8', timeout: 20_000 });
    expect(run.signal).toBeNull();
    expect(JSON.parse(run.stdout)).toEqual(['f__echo']);
    expect([...exposeNames(Array.from({ length: 12 }, () => ({ server: 'f', name: 'a.b' }))).values()]).toEqual(['f__a_b']);
  });

  test('a suffix already taken by another tool is counted on, each name unique and within 64 characters', () => {
    const first = exposeNames([{ server: 'fs', name: 'read.file' }, { server: 'fs', name: 'read_file' }]).get(nameKey('fs', 'read.file'))!;
    // A tool named like the suffixed one, and twenty more that sanitise to the same name.
    const requests = [{ server: 'fs', name: 'read_file' }, { server: 'fs', name: first.slice('fs__'.length) }, { server: 'fs', name: 'read.file' }, ...Array.from({ length: 20 }, (_, n) => ({ server: 'fs', name: `read${' '.repeat(n + 1)}file` }))];
    const names = exposeNames(requests);
    expect(new Set(names.values()).size).toBe(requests.length);
    for (const value of names.values()) expect(value).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(names.get(nameKey('fs', first.slice('fs__'.length)))).toBe(first);
    expect(names.get(nameKey('fs', 'read.file'))).not.toBe(first);
  });

  test('deterministic: the same set in another order gives the same names', () => {
    const a = [
      { server: 'fs', name: 'a.b' },
      { server: 'fs', name: 'a_b' },
      { server: 'fs', name: 'a b' },
    ];
    const forward = exposeNames(a);
    const backward = exposeNames([...a].reverse());
    // Three distinct names, so the comparison below cannot pass on two empty maps.
    expect(new Set(forward.values()).size).toBe(a.length);
    for (const request of a) expect(backward.get(nameKey(request.server, request.name))).toBe(forward.get(nameKey(request.server, request.name)));
  });
});

describe('servers with prefix: false', () => {
  test('their names are exposed as they are; a clash with another server is suffixed, not lost', () => {
    const requests = [
      { server: 'conf', name: 'test_simple_text', prefix: false },
      { server: 'conf', name: 'fs__read_file', prefix: false },
      { server: 'fs', name: 'read_file' },
      { server: 'other', name: 'test_simple_text', prefix: false },
    ];
    const names = exposeNames(requests);
    expect(new Set(names.values()).size).toBe(requests.length);
    expect(names.get(nameKey('conf', 'test_simple_text'))).toBe('test_simple_text');
    expect(names.get(nameKey('other', 'test_simple_text'))).toMatch(/^test_simple_text_[0-9a-f]{6}$/);
    // Both claim fs__read_file: the name under fs's prefix is fs's, so the model's calls for it and
    // fs's rules are not taken by another server (round 12 review, F5: conf won by name).
    expect(names.get(nameKey('fs', 'read_file'))).toBe('fs__read_file');
    expect(names.get(nameKey('conf', 'fs__read_file'))).toMatch(/^fs__read_file_[0-9a-f]{6}$/);
    expect(exposeNames([...requests].reverse())).toEqual(names);
  });
});
