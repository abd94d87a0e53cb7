import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalPath, canonicalRoot, defaultPathEnv, isInside, toMatchForm, type PathEnv } from '../../src/subjects/paths.js';

const posixOnly = process.platform === 'win32' ? describe.skip : describe;

// Layout (real temp dir, realpath'd first so macOS /var → /private/var does not skew expectations):
//   tmp/home/                      env.home
//   tmp/proj/src/a.ts
//   tmp/proj/.env
//   tmp/proj/escape      -> tmp/outside/secret          (symlink inside project pointing outside)
//   tmp/proj/linkdir     -> tmp/outside                 (symlinked directory)
//   tmp/proj/dangling    -> tmp/outside/newfile         (dangling leaf, absolute target)
//   tmp/proj/rel-dangling-> ../outside/later.txt        (dangling leaf, relative target)
//   tmp/proj/subdir-link -> tmp/outside/sub
//   tmp/outside/sub/up   -> ../secret                   (relative to the link's REAL directory)
//   tmp/proj/chain1 -> chain2 -> chain3 -> tmp/outside/secret
//   tmp/proj/dchain1 -> dchain2 -> tmp/outside/missing  (dangling chain)
//   tmp/proj/loop-a <-> tmp/proj/loop-b, tmp/proj/self -> self
//   tmp/proj-evil/x                                     (sibling with a shared prefix)
let tmp: string;
let proj: string;
let outside: string;
let env: PathEnv;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'latch-paths-'));
  tmp = fs.realpathSync(tmp);
  proj = path.join(tmp, 'proj');
  outside = path.join(tmp, 'outside');
  fs.mkdirSync(path.join(tmp, 'home'));
  fs.mkdirSync(path.join(proj, 'src'), { recursive: true });
  fs.mkdirSync(path.join(outside, 'sub'), { recursive: true });
  fs.mkdirSync(path.join(tmp, 'proj-evil'));
  fs.writeFileSync(path.join(proj, 'src', 'a.ts'), '');
  fs.writeFileSync(path.join(proj, '.env'), 'SECRET=1');
  fs.writeFileSync(path.join(outside, 'secret'), 'x');
  fs.writeFileSync(path.join(tmp, 'proj-evil', 'x'), '');
  if (process.platform === 'win32') return;
  fs.symlinkSync(path.join(outside, 'secret'), path.join(proj, 'escape'));
  fs.symlinkSync(outside, path.join(proj, 'linkdir'));
  fs.symlinkSync(path.join(outside, 'newfile'), path.join(proj, 'dangling'));
  fs.symlinkSync('../outside/later.txt', path.join(proj, 'rel-dangling'));
  fs.symlinkSync(path.join(outside, 'sub'), path.join(proj, 'subdir-link'));
  fs.symlinkSync('../secret', path.join(outside, 'sub', 'up'));
  fs.symlinkSync('chain2', path.join(proj, 'chain1'));
  fs.symlinkSync('chain3', path.join(proj, 'chain2'));
  fs.symlinkSync(path.join(outside, 'secret'), path.join(proj, 'chain3'));
  fs.symlinkSync('dchain2', path.join(proj, 'dchain1'));
  fs.symlinkSync(path.join(outside, 'missing'), path.join(proj, 'dchain2'));
  fs.symlinkSync('loop-b', path.join(proj, 'loop-a'));
  fs.symlinkSync('loop-a', path.join(proj, 'loop-b'));
  fs.symlinkSync('self', path.join(proj, 'self'));
  fs.symlinkSync(proj, path.join(tmp, 'proj-link'));
  env = { home: path.join(tmp, 'home'), platform: process.platform };
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

posixOnly('canonicalPath: lexical normalisation', () => {
  it('keeps an existing absolute path as it is', () => {
    const file = path.join(proj, 'src', 'a.ts');
    expect(canonicalPath(file, null, env)).toEqual({ input: file, path: file, realPath: file });
  });

  it('resolves .. traversal before any rule sees the path', () => {
    const c = canonicalPath(`${proj}/src/../../outside/secret`, null, env);
    expect(c.path).toBe(path.join(outside, 'secret'));
    expect(c.realPath).toBe(path.join(outside, 'secret'));
    expect(c.problem).toBeUndefined();
  });

  it('clamps .. above the root at the root', () => {
    expect(canonicalPath('/../../etc/passwd', null, env).path).toBe('/etc/passwd');
  });

  it('collapses duplicate slashes and ./ segments', () => {
    expect(canonicalPath(`${proj}//src///./a.ts`, null, env).path).toBe(path.join(proj, 'src', 'a.ts'));
  });

  it('drops trailing slashes', () => {
    expect(canonicalPath(`${proj}/src/`, null, env).path).toBe(path.join(proj, 'src'));
    expect(canonicalPath(`${proj}/src//`, null, env).realPath).toBe(path.join(proj, 'src'));
  });

  it('treats //./x on POSIX as /x, not as a Windows device path', () => {
    expect(canonicalPath('//./etc/hosts', null, env).path).toBe('/etc/hosts');
  });

  it('keeps dotfiles as ordinary names', () => {
    const c = canonicalPath('.env', proj, env);
    expect(c.path).toBe(path.join(proj, '.env'));
    expect(c.realPath).toBe(path.join(proj, '.env'));
  });

  it('resolves a relative path against the base', () => {
    expect(canonicalPath('src/a.ts', proj, env).path).toBe(path.join(proj, 'src', 'a.ts'));
    expect(canonicalPath('./src/../src/a.ts', proj, env).path).toBe(path.join(proj, 'src', 'a.ts'));
  });

  it('resolves a relative path that climbs out of the base', () => {
    expect(canonicalPath('../outside/secret', proj, env).path).toBe(path.join(outside, 'secret'));
  });

  it('treats an empty path as the base itself (what path.resolve in the server does)', () => {
    expect(canonicalPath('', proj, env).path).toBe(proj);
  });

  it('expands a base that starts with ~', () => {
    expect(canonicalPath('notes.md', '~/docs', env).path).toBe(path.join(tmp, 'home', 'docs', 'notes.md'));
  });

  it('reports a relative path with no known base as a problem', () => {
    expect(canonicalPath('src/a.ts', null, env)).toEqual({
      input: 'src/a.ts',
      path: null,
      realPath: null,
      problem: 'relative path with unknown base',
    });
  });

  it('reports a relative path with a relative base as a problem', () => {
    expect(canonicalPath('a.ts', 'src', env).problem).toBe('relative path with a relative base');
  });

  it('keeps a backslash on POSIX as part of the file name', () => {
    const c = canonicalPath('a\\b', proj, env);
    expect(c.problem).toBeUndefined();
    expect(c.path).toBe(`${proj}/a\\b`);
  });

  it('keeps the Unicode form of the name for the filesystem but matches NFC and NFD alike', () => {
    const nfc = canonicalPath(`${proj}/caf\u00e9`, null, env);
    const nfd = canonicalPath(`${proj}/cafe\u0301`, null, env);
    expect(nfd.path).toBe(`${proj}/cafe\u0301`);
    expect(nfc.path).not.toBe(nfd.path);
    expect(toMatchForm(nfd.path as string, 'linux')).toBe(toMatchForm(nfc.path as string, 'linux'));
  });
});

posixOnly('canonicalPath: home directory', () => {
  it('expands ~ alone to the home directory', () => {
    expect(canonicalPath('~', null, env).path).toBe(path.join(tmp, 'home'));
  });

  it('expands ~/x without needing a base', () => {
    expect(canonicalPath('~/.ssh/id_rsa', null, env).path).toBe(path.join(tmp, 'home', '.ssh', 'id_rsa'));
  });

  it('expands ~ before resolving, so a base cannot turn ~/x into base/~/x', () => {
    expect(canonicalPath('~/x', proj, env).path).toBe(path.join(tmp, 'home', 'x'));
  });

  it('reports ~user as a problem', () => {
    expect(canonicalPath('~root/.ssh/id_rsa', proj, env)).toMatchObject({ path: null, problem: '~user paths are not supported' });
  });

  it('treats a ~ later in the path as an ordinary name', () => {
    expect(canonicalPath('a/~/b', proj, env).path).toBe(path.join(proj, 'a', '~', 'b'));
  });
});

posixOnly('canonicalPath: file: URIs and URLs', () => {
  it('decodes %2e%2e in a file: URI and resolves it', () => {
    expect(canonicalPath('file:///tmp/x/%2e%2e/y', null, env).path).toBe('/tmp/y');
  });

  it('decodes a file: URI pointing through the project to outside', () => {
    const uri = `${pathToFileURL(proj).href}/%2E%2E/outside/secret`;
    expect(canonicalPath(uri, null, env).path).toBe(path.join(outside, 'secret'));
  });

  it('decodes percent-encoded spaces', () => {
    expect(canonicalPath('file:///tmp/a%20b', null, env).path).toBe('/tmp/a b');
  });

  it('accepts file://localhost/', () => {
    expect(canonicalPath('file://localhost/etc/passwd', null, env).path).toBe('/etc/passwd');
  });

  it('reports an encoded slash (%2F) as a problem', () => {
    const c = canonicalPath('file:///tmp/a%2F..%2F..%2Fetc/passwd', null, env);
    expect(c.path).toBeNull();
    expect(c.problem).toMatch(/^bad file: URI/);
  });

  it('reports a file: URI with a remote host as a problem', () => {
    expect(canonicalPath('file://evil.example/share/x', null, env).problem).toMatch(/^bad file: URI/);
  });

  it('reports a NUL byte hidden as %00 in a file: URI', () => {
    expect(canonicalPath('file:///tmp/a%00b', null, env).problem).toBe('NUL byte in path');
  });

  it('reports an http URL as not a local path', () => {
    expect(canonicalPath('https://example.com/x', proj, env)).toMatchObject({ path: null, problem: 'a URL, not a local path' });
  });
});

posixOnly('canonicalPath: inputs that are never trusted', () => {
  it('reports a NUL byte', () => {
    expect(canonicalPath(`${proj}/a.txt\0.png`, null, env)).toMatchObject({ path: null, realPath: null, problem: 'NUL byte in path' });
  });

  it.each([
    ['C:\\Windows\\System32', 'Windows-style path on a POSIX host'],
    ['C:/Windows/System32', 'Windows-style path on a POSIX host'],
    ['c:\\x', 'Windows-style path on a POSIX host'],
    ['\\\\server\\share\\x', 'UNC network path'],
    ['\\\\?\\C:\\x', 'Windows device path (\\\\?\\ or \\\\.\\)'],
    ['\\\\.\\pipe\\x', 'Windows device path (\\\\?\\ or \\\\.\\)'],
  ])('reports the Windows form %s on POSIX', (input, problem) => {
    expect(canonicalPath(input, proj, env)).toMatchObject({ input, path: null, realPath: null, problem });
  });

  it('never throws on a value that is not a string', () => {
    const c = canonicalPath(42 as unknown as string, proj, env);
    expect(c).toMatchObject({ path: null, realPath: null, problem: 'path is not a string' });
  });
});

posixOnly('canonicalPath: symlinks', () => {
  it('resolves a symlink inside the project that points outside', () => {
    const c = canonicalPath('escape', proj, env);
    expect(c.path).toBe(path.join(proj, 'escape'));
    expect(c.realPath).toBe(path.join(outside, 'secret'));
  });

  // Only U+037E, U+1FEF and U+212A decompose to ASCII (';', '`', 'K'): an ASCII name holding one of
  // those has an equivalent on disk to find; any other ASCII name is not looked for (no listing).
  it.each([['\u212Aey', 'Key'], ['a\u037Eb', 'a;b'], ['x\u1FEF', 'x`']])('a missing ASCII name %j equal in NFC to the link %j on disk reads the link', (onDisk, asked) => {
    const dir = fs.mkdtempSync(path.join(tmp, "nfc-"));
    fs.symlinkSync(outside, path.join(dir, onDisk));
    const c = canonicalPath(path.join(dir, asked, 'secret'), null, env);
    expect(c.problem).toContain('Unicode NFC');
    expect(c.realPath).toBe(path.join(outside, 'secret'));
  });

  it('resolves a file below a symlinked directory', () => {
    expect(canonicalPath('linkdir/secret', proj, env).realPath).toBe(path.join(outside, 'secret'));
  });

  it('resolves a new file below a symlinked directory to the target directory', () => {
    const c = canonicalPath('linkdir/new/deeper.txt', proj, env);
    expect(c.path).toBe(path.join(proj, 'linkdir', 'new', 'deeper.txt'));
    expect(c.realPath).toBe(path.join(outside, 'new', 'deeper.txt'));
  });

  it('follows a dangling leaf symlink to its outside target (write-through-dangling-link)', () => {
    const c = canonicalPath(path.join(proj, 'dangling'), null, env);
    expect(c.path).toBe(path.join(proj, 'dangling'));
    expect(c.realPath).toBe(path.join(outside, 'newfile'));
    expect(c.problem).toBeUndefined();
  });

  it('follows a dangling leaf symlink with a relative target', () => {
    expect(canonicalPath('rel-dangling', proj, env).realPath).toBe(path.join(outside, 'later.txt'));
  });

  it("resolves a relative link target from the link's real directory, not its spelled one", () => {
    // proj/subdir-link/up is outside/sub/up -> ../secret = outside/secret (not proj/secret).
    expect(canonicalPath('subdir-link/up', proj, env).realPath).toBe(path.join(outside, 'secret'));
  });

  it('follows a chain of symlinks', () => {
    expect(canonicalPath('chain1', proj, env).realPath).toBe(path.join(outside, 'secret'));
  });

  it('follows a chain of symlinks that ends dangling', () => {
    expect(canonicalPath('dchain1', proj, env).realPath).toBe(path.join(outside, 'missing'));
  });

  it('reports a symlink loop as a problem and keeps the lexical path', () => {
    const c = canonicalPath('loop-a', proj, env);
    expect(c.path).toBe(path.join(proj, 'loop-a'));
    expect(c.realPath).toBeNull();
    expect(c.problem).toMatch(/symbolic links/);
  });

  it('reports a self-referencing symlink as a problem', () => {
    expect(canonicalPath('self/x', proj, env).problem).toMatch(/symbolic links/);
  });

  it('appends a missing tail to the real path of the nearest existing ancestor', () => {
    const c = canonicalPath(path.join(tmp, 'proj-link', 'new', 'dir', 'f.txt'), null, env);
    expect(c.path).toBe(path.join(tmp, 'proj-link', 'new', 'dir', 'f.txt'));
    expect(c.realPath).toBe(path.join(proj, 'new', 'dir', 'f.txt'));
  });

  it('appends the tail lexically below a regular file (ENOTDIR)', () => {
    const c = canonicalPath('src/a.ts/x', proj, env);
    expect(c.problem).toBeUndefined();
    expect(c.realPath).toBe(path.join(proj, 'src', 'a.ts', 'x'));
  });

  it('resolves a symlinked base', () => {
    expect(canonicalPath('src/a.ts', path.join(tmp, 'proj-link'), env).realPath).toBe(path.join(proj, 'src', 'a.ts'));
  });
});

describe('canonicalPath: win32 rules (lexical, no filesystem)', () => {
  const win: PathEnv = { home: 'C:\\Users\\me', platform: 'win32' };

  it('keeps a drive path and reports it as its own real path', () => {
    expect(canonicalPath('C:\\proj\\a.txt', null, win)).toEqual({ input: 'C:\\proj\\a.txt', path: 'C:\\proj\\a.txt', realPath: 'C:\\proj\\a.txt' });
  });

  it('normalises forward slashes, .. and the drive letter case', () => {
    expect(canonicalPath('c:/proj/../x//y/', null, win).path).toBe('C:\\x\\y');
  });

  it('resolves a relative path against the base', () => {
    expect(canonicalPath('src\\a.ts', 'C:\\proj', win).path).toBe('C:\\proj\\src\\a.ts');
  });

  it("gives a drive-less rooted path the base's drive", () => {
    expect(canonicalPath('\\Windows\\win.ini', 'D:\\proj', win).path).toBe('D:\\Windows\\win.ini');
  });

  it('reports a drive-less rooted path without a base', () => {
    expect(canonicalPath('\\Windows\\win.ini', null, win).problem).toBe('relative path with unknown base');
  });

  it('expands ~\\ with the Windows home', () => {
    expect(canonicalPath('~\\.ssh\\id_rsa', null, win).path).toBe('C:\\Users\\me\\.ssh\\id_rsa');
  });

  it('decodes a Windows file: URI', () => {
    expect(canonicalPath('file:///C:/proj/%2e%2e/x', null, win).path).toBe('C:\\x');
  });

  it.each([
    ['C:foo', 'drive-relative Windows path'],
    ['\\\\server\\share\\x', 'UNC network path'],
    ['//server/share/x', 'UNC network path'],
    ['file://server/share/x', 'UNC network path'],
    ['\\\\?\\C:\\x', 'Windows device path (\\\\?\\ or \\\\.\\)'],
    ['//?/C:/x', 'Windows device path (\\\\?\\ or \\\\.\\)'],
    ['\\\\.\\PhysicalDrive0', 'Windows device path (\\\\?\\ or \\\\.\\)'],
    ['C:\\proj\\secret.txt::$DATA', 'alternate data stream (name:stream) in path'],
    ['C:\\proj\\secret.txt:hidden', 'alternate data stream (name:stream) in path'],
    ['C:\\proj\\secret.txt.', 'path component ends with a dot or space (Windows strips it)'],
    ['C:\\proj\\secret.txt ', 'path component ends with a dot or space (Windows strips it)'],
    ['C:\\proj\\dir.\\x', 'path component ends with a dot or space (Windows strips it)'],
    ['C:\\PROGRA~1\\app', '8.3 short name in path'],
  ])('reports %s', (input, problem) => {
    expect(canonicalPath(input, 'C:\\proj', win)).toMatchObject({ input, realPath: null, problem });
  });
});

describe('isInside', () => {
  it('blocks similar directory names (prefix vulnerability)', () => {
    expect(isInside('/tmp/proj', '/tmp/proj-evil', 'linux')).toBe(false);
    expect(isInside('/tmp/proj', '/tmp/proj-evil/x', 'linux')).toBe(false);
    expect(isInside('/tmp/proj', '/tmp/projx', 'linux')).toBe(false);
  });

  it('counts the root itself and anything below it as inside', () => {
    expect(isInside('/tmp/proj', '/tmp/proj', 'linux')).toBe(true);
    expect(isInside('/tmp/proj', '/tmp/proj/a/b', 'linux')).toBe(true);
    expect(isInside('/', '/etc/passwd', 'linux')).toBe(true);
  });

  it('counts a name that merely starts with .. as inside', () => {
    expect(isInside('/tmp/proj', '/tmp/proj/..foo', 'linux')).toBe(true);
  });

  it('counts the parent and siblings as outside', () => {
    expect(isInside('/tmp/proj', '/tmp', 'linux')).toBe(false);
    expect(isInside('/tmp/proj', '/tmp/other/x', 'linux')).toBe(false);
  });

  it('refuses relative inputs instead of guessing', () => {
    expect(isInside('proj', 'proj/a', 'linux')).toBe(false);
    expect(isInside('/tmp/proj', 'a', 'linux')).toBe(false);
  });

  it('is case-sensitive on Linux', () => {
    expect(isInside('/tmp/Proj', '/tmp/proj/a', 'linux')).toBe(false);
  });

  it('is case-insensitive on macOS', () => {
    expect(isInside('/Users/me/Proj', '/users/ME/proj/a', 'darwin')).toBe(true);
    expect(isInside('/Users/me/Proj', '/Users/me/Proj-evil/a', 'darwin')).toBe(false);
  });

  it('treats NFC and NFD names alike on macOS', () => {
    expect(isInside('/Users/me/caf\u00e9', '/Users/me/cafe\u0301/a', 'darwin')).toBe(true);
  });

  it('is case-insensitive on Windows and refuses another drive', () => {
    expect(isInside('c:\\Proj', 'C:\\proj\\a.txt', 'win32')).toBe(true);
    expect(isInside('C:\\proj', 'D:\\proj\\a.txt', 'win32')).toBe(false);
    expect(isInside('C:\\proj', 'C:\\proj-evil\\a.txt', 'win32')).toBe(false);
  });

  it('works on real canonical paths', () => {
    const evil = canonicalPath(path.join(tmp, 'proj-evil', 'x'), null, { home: '/h', platform: process.platform });
    expect(isInside(proj, evil.realPath as string)).toBe(false);
  });
});

posixOnly('canonicalRoot', () => {
  it('expands ~ in a root', () => {
    expect(canonicalRoot('~', env)).toBe(path.join(tmp, 'home'));
  });

  it('resolves a root through a symlink', () => {
    expect(canonicalRoot(path.join(tmp, 'proj-link'), env)).toBe(proj);
  });

  it('resolves a relative root against the process cwd', () => {
    expect(canonicalRoot('.', env)).toBe(fs.realpathSync(process.cwd()));
  });

  it('keeps a root that does not exist yet, resolved', () => {
    expect(canonicalRoot(path.join(tmp, 'later', '..', 'future'), env)).toBe(path.join(tmp, 'future'));
  });
});

describe('toMatchForm', () => {
  it('turns Windows separators into forward slashes and upper-cases the drive', () => {
    expect(toMatchForm('c:\\Users\\me\\.ssh\\id_rsa', 'win32')).toBe('C:/Users/me/.ssh/id_rsa');
  });

  it('leaves POSIX paths alone apart from NFC', () => {
    expect(toMatchForm('/a\\b/cafe\u0301', 'linux')).toBe('/a\\b/caf\u00e9');
  });
});

describe('defaultPathEnv', () => {
  it('uses the real home directory and platform', () => {
    expect(defaultPathEnv()).toEqual({ home: os.homedir(), platform: process.platform });
  });
});

posixOnly('canonicalPath: `..` in kernel order (path_resolution(7))', () => {
  // The kernel looks `linkdir` up first and follows it; `..` then leaves the link's target, not the link.
  it('link/.. is the parent of the target; the lexical form stays the spelled one', () => {
    const c = canonicalPath('linkdir/../proj/.env', proj, env);
    expect(c.path).toBe(path.join(proj, 'proj', '.env'));
    expect(c.realPath).toBe(path.join(proj, '.env'));
  });

  it('an absolute path with link/.. walks the same way', () => {
    expect(canonicalPath(`${proj}/linkdir/../outside/secret`, null, env).realPath).toBe(path.join(outside, 'secret'));
  });

  it('a base with link/.. (a workdir the server chdir()s into) is walked through the join', () => {
    const c = canonicalPath('secret', `${proj}/linkdir/../outside`, env);
    expect(c.realPath).toBe(path.join(outside, 'secret'));
  });

  it('.. after a missing component: the walk goes on as if it were a directory made first, through the links after it (round 15 review, P1)', () => {
    expect(canonicalPath('nothere/../src/a.ts', proj, env).realPath).toBe(path.join(proj, 'src', 'a.ts'));
    expect(canonicalPath('nothere/deeper/../../linkdir/secret', proj, env)).toMatchObject({ realPath: path.join(outside, 'secret') });
    expect(canonicalPath('nothere/../linkdir/secret', proj, env).problem).toBeUndefined();
  });

  it('.. after a link names two files when the text and the kernel disagree: a problem naming both (round 15 review, P1c)', () => {
    // linkdir/.. is the link target's parent for the kernel, proj for a server that takes `..` as text.
    const c = canonicalPath('linkdir/../linkdir/secret', proj, env);
    expect(c.problem).toContain('names two files');
    expect(canonicalPath('src/../src/a.ts', proj, env).problem).toBeUndefined();
  });

  it('one decision walks each path once (the cache is keyed by the absolute path walked)', () => {
    const cache = new Map();
    canonicalPath('linkdir/../proj/.env', proj, env, cache);
    canonicalPath(`${proj}/linkdir/../proj/.env`, null, env, cache);
    // The kernel's walk, and the reading of a server that takes `..` as text (one each).
    expect([...cache.keys()]).toEqual([`${proj}/linkdir/../proj/.env`, `${proj}/proj/.env`]);
  });
});
