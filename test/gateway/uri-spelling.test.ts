import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ROOT, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * A URL is decided as the server's URL parser reads it (round 26 review P5; docs/threat-model.md,
 * "Round 26: the review of round 25"). The WHATWG URL Standard's basic URL parser (Node's `new URL`,
 * `fileURLToPath`, browsers) removes every leading and trailing C0 control or space and every tab or
 * newline anywhere, and reads the scheme case-insensitively: `" file:///…/secret/id"` is that file
 * to it. mcp-latch tested the text as written (`/^file:/i`), so such a resources/read was a read of
 * the server's data, allowed past `deny: Read(…)`, the built-in protection of its own config and
 * default mode's "needs a rule"; in a tool's URL argument it passed the deny rules too. The built
 * gateway, the SDK Client, and a fixture server that opens URLs with `new URL` (url-files-server.mjs),
 * whose log says what reached it.
 */
const SERVER = join(ROOT, 'test/fixtures/url-files-server.mjs');

/** Every character the WHATWG parser strips at an end: the C0 controls and space. */
const EDGES = Array.from({ length: 0x21 }, (_, code) => String.fromCharCode(code));
const hex = (ch: string) => `U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

/** `url` written in each way a URL parser reads as `url` (it starts `file:///`), but not as written. */
function respelled(url: string): Array<[string, string]> {
  const rest = url.slice('file:'.length);
  return [
    ...EDGES.map((ch): [string, string] => [`leading ${hex(ch)}`, `${ch}${url}`]),
    ...EDGES.map((ch): [string, string] => [`trailing ${hex(ch)}`, `${url}${ch}`]),
    ...['\t', '\n', '\r'].flatMap((ch): Array<[string, string]> => [
      [`${hex(ch)} inside the scheme`, `fi${ch}le:${rest}`],
      [`${hex(ch)} before the colon`, `file${ch}:${rest}`],
      [`${hex(ch)} inside the path`, `file:${rest.slice(0, -2)}${ch}${rest.slice(-2)}`],
    ]),
    ['mixed case and a newline', `\nFiLe:${rest}`],
    ['a no-break space before it (a hand-written trim)', `\u00a0${url}`],
  ];
}

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

function layout(): { dir: string; secret: string; open: string; log: string } {
  const dir = tempDir('uri-spelling-');
  mkdirSync(join(dir, 'secret'));
  mkdirSync(join(dir, 'open'));
  writeFileSync(join(dir, 'secret', 'id'), 'SECRET-KEY\n');
  writeFileSync(join(dir, 'open', 'a.txt'), 'open text\n');
  writeFileSync(join(dir, 'README.md'), 'readme\n');
  return { dir, secret: join(dir, 'secret', 'id'), open: join(dir, 'open', 'a.txt'), log: join(dir, 'server.jsonl') };
}

/** What reached the server, one entry per request (url-files-server.mjs). */
function reached(log: string): Array<{ method: string; uri?: string; url?: string }> {
  try {
    return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
  } catch {
    return [];
  }
}

async function start(dir: string, log: string, permissions: Record<string, unknown>): Promise<Harness> {
  return startGateway({ mcpServers: { files: { command: process.execPath, args: [SERVER], cwd: dir, env: { URL_FILES_LOG: log } } }, workspace: [join(dir, 'open')], permissions }, { dir });
}

async function readError(h: Harness, uri: string): Promise<{ code: number; message: string } | string> {
  return h.client.readResource({ uri }).then(
    (result) => `READ ${JSON.stringify(result.contents)}`,
    (error: { code: number; message: string }) => ({ code: error.code, message: error.message }),
  );
}

describe('resources/read of a file: URI written otherwise than a URL parser reads it', () => {
  test.each([
    ['a deny rule', (secret: string) => ({ allow: ['mcp__files'], deny: [`Read(${secret})`] })],
    ['no rules (default mode)', () => ({})],
  ])('with %s: every spelling is refused with -32602 naming the character, and nothing reaches the server', async (_name, permissions) => {
    const { dir, secret, log } = layout();
    harness = await start(dir, log, permissions(secret));
    // As written: denied (by the rule, or as a read that needs one).
    const plain = await readError(harness, `file://${secret}`);
    expect(plain).toMatchObject({ code: -32600, message: expect.stringContaining('Denied by mcp-latch') });
    for (const [what, uri] of [...respelled(`file://${secret}`), ...respelled(`file://${harness.configPath}`).filter(([what]) => what === 'leading U+0020' || what === 'leading U+0000')]) {
      const answer = await readError(harness, uri);
      expect(answer, what).toMatchObject({ code: -32602, message: expect.stringContaining('is not written as it is read') });
      const first = [...uri].find((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f || /\s/.test(ch))!;
      expect((answer as { message: string }).message, what).toContain(hex(first));
    }
    expect(reached(log).filter((entry) => entry.method === 'resources/read')).toEqual([]);
    // Each refusal is audited as a denied read, by the built-in rule.
    const records = readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.filter((record) => record.rule === 'built-in: a resource URI is read as it is written' && record.decision === 'deny').length).toBe(respelled('file:///x').length + 2);
  }, 120_000);

  test('a URI written as it is read is decided on what it names: mixed case, view-source:, and a file the rules allow', async () => {
    const { dir, secret, open, log } = layout();
    harness = await start(dir, log, { allow: ['mcp__files', `Read(${join(dir, 'open')}/**)`], deny: [`Read(${secret})`] });
    for (const uri of [`FiLe://${secret}`, `view-source:file://${secret}`]) expect(await readError(harness, uri), uri).toMatchObject({ code: -32600, message: expect.stringContaining(`the rule Read(${secret})`) });
    const read = await harness.client.readResource({ uri: `file://${open}` });
    expect((read.contents[0] as { text: string }).text).toBe('open text\n');
    expect(reached(log).map((entry) => entry.uri)).toEqual([`file://${open}`]);
  }, 60_000);

  test('a subscribe or a completion naming such a URI is refused the same, before the server', async () => {
    const { dir, secret, log } = layout();
    harness = await start(dir, log, { allow: ['mcp__files'] });
    await harness.client.listResources();
    for (const uri of [` file://${secret}`, `file\t://${secret}`, `\u0000file://${secret}`]) {
      await expect(harness.client.subscribeResource({ uri }), JSON.stringify(uri)).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('refuses to subscribe to the resource URI') });
      await expect(harness.client.complete({ ref: { type: 'ref/resource', uri: ` file:///{+path}` }, argument: { name: 'path', value: 'a' } })).rejects.toMatchObject({ code: -32602 });
    }
    // The same, written as read, reaches the server.
    await harness.client.subscribeResource({ uri: `file://${secret}` });
    expect(reached(log).map((entry) => entry.method)).toEqual(['resources/subscribe']);
  }, 60_000);
});

describe("a tool's or a prompt's URL argument that a URL parser reads as a file: URL", () => {
  test('meets the deny rules on the file it opens, however it is written; nothing reaches the server', async () => {
    const { dir, secret, log } = layout();
    harness = await start(dir, log, { allow: ['mcp__files'], deny: [`Read(${secret})`] });
    for (const [what, url] of [['as written', `file://${secret}`] as [string, string], ['view-source:', `view-source:file://${secret}`] as [string, string], ...respelled(`file://${secret}`)]) {
      const result = await harness.client.callTool({ name: 'files__browser_navigate', arguments: { url } });
      expect(textOf(result), what).toContain(`Denied by mcp-latch: the rule Read(${secret})`);
    }
    const prompt = await harness.client.getPrompt({ name: 'files__summarize', arguments: { url: ` file://${secret}` } }).then(
      (result) => JSON.stringify(result),
      (error: Error) => error.message,
    );
    expect(prompt).toContain(`Read(${secret})`);
    expect(reached(log)).toEqual([]);
  }, 120_000);

  test('asks when written otherwise than read, even for a file nothing denies; a file: URL past 4,096 characters asks too', async () => {
    const { dir, open, log } = layout();
    harness = await start(dir, log, { allow: ['mcp__files', `Read(${join(dir, 'open')}/**)`] });
    const allowed = await harness.client.callTool({ name: 'files__browser_navigate', arguments: { url: `file://${open}` } });
    expect(textOf(allowed)).toBe('open text\n');
    for (const url of [` file://${open}`, `fi\nle://${open}`, `file://${open}\u0001`, `view-source:file://${open}`, `file://${open}?${'q'.repeat(5000)}`]) {
      const result = await harness.client.callTool({ name: 'files__browser_navigate', arguments: { url } });
      expect(textOf(result), JSON.stringify(url.slice(0, 60))).toContain("needs the user's approval");
    }
    expect(reached(log).map((entry) => entry.url)).toEqual([`file://${open}`]);
  }, 60_000);
});

/**
 * Round 27 (docs/threat-model.md, "Round 27: left by round 26's protocol review"): the wrappers
 * Java's and Python's URL readers open a file through, as OpenJDK 17's `new URL(…).openConnection()`
 * and Python 3.11's `urllib.request.urlopen` read them (tried by hand): `jar:URL!/ENTRY` opens the
 * archive at URL (before the first `!/`; `JAR:`, `jar: URL`, `jar:url:URL` too), `url:URL` is URL to
 * Java, `URL:URL` and `<…>` to Python. Round 26 unwrapped only `view-source:`, so each was a read of
 * the server's data (resources/read) or no candidate (a tool's URL argument): the fixture server read
 * the denied file.
 */
function wrapped(url: string): Array<[string, string]> {
  return [
    ['jar: with no entry', `jar:${url}!/`],
    ['jar: with an entry', `jar:${url}!/a.txt`],
    ['jar: with an entry holding !/', `jar:${url}!/a!/b`],
    ['JAR: in capitals', `JAR:${url}!/a.txt`],
    ['jar: then a space', `jar: ${url}!/a.txt`],
    ['jar:url:', `jar:url:${url}!/a.txt`],
    ['url: (Java)', `url:${url}`],
    ['URL: (Python)', `URL:${url}`],
    ['<URL:…> (Python)', `<URL:${url}>`],
    ['<…> (Python)', `<${url}>`],
    ['view-source:jar:', `view-source:jar:${url}!/`],
  ];
}

describe('a file: URL wrapped in jar:, url: or <…> (round 27)', () => {
  test('resources/read: meets the deny rule on the file it opens; nothing reaches the server', async () => {
    const { dir, secret, log } = layout();
    harness = await start(dir, log, { allow: ['mcp__files'], deny: [`Read(${secret})`] });
    for (const [what, uri] of wrapped(`file://${secret}`)) expect(await readError(harness, uri), what).toMatchObject({ code: -32600, message: expect.stringContaining(`the rule Read(${secret})`) });
    expect(reached(log)).toEqual([]);
  }, 60_000);

  test("a tool's URL argument: denied on the file it opens; one nothing denies asks, as it is not written as read", async () => {
    const { dir, secret, open, log } = layout();
    harness = await start(dir, log, { allow: ['mcp__files', `Read(${join(dir, 'open')}/**)`], deny: [`Read(${secret})`] });
    for (const [what, url] of wrapped(`file://${secret}`)) {
      const result = await harness.client.callTool({ name: 'files__browser_navigate', arguments: { url } });
      expect(textOf(result), what).toContain(`Denied by mcp-latch: the rule Read(${secret})`);
    }
    for (const [what, url] of wrapped(`file://${open}`)) {
      const result = await harness.client.callTool({ name: 'files__browser_navigate', arguments: { url } });
      expect(textOf(result), what).toContain("needs the user's approval");
    }
    expect(reached(log)).toEqual([]);
    // What is no file: URL stays the server's business: a jar: URL of a web archive reaches it.
    const remote = await harness.client.callTool({ name: 'files__browser_navigate', arguments: { url: 'jar:https://example.com/a.jar!/x' } });
    expect(textOf(remote)).toContain('fetched https://example.com/a.jar');
  }, 60_000);
});
