import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { basename, dirname, join } from 'node:path';
import vm from 'node:vm';
import { crc32 } from 'node:zlib';
import { codeCacheDirectory } from '../config/locate.js';
import { readFilePages } from '../file-pages.js';
import { underCacheFlags } from './v8-flags.js';

/**
 * Loads the gateway's bundle (dist/serve/gateway.cjs, what `serve` loads once its servers are
 * spawned) with V8's code cache: compiling its ~1.1 MB of
 * JavaScript again at every start, and the functions the start-up runs, was a large part of the
 * gateway's CPU by the first tools/list, and every MCP client session starts `serve`
 * (docs/performance.md, "V8's code cache for the serve bundle"). Node 20 has no
 * module.enableCompileCache(), so the bundle is CommonJS compiled here through vm.Script with
 * `cachedData`.
 *
 * The cache is made on this machine, after the first tools/list of a start that had none (or had
 * one V8 refused), so it holds the functions the start-up compiled, and made again after the first
 * tools/call is answered, so it also holds the call path's: compiling those lazily was half of the
 * gateway's instructions for a client's first call (docs/performance.md, "Round 12: the first shell
 * command"). Each file says which of the two it is, and a start that loaded one made after a list
 * only writes it again after its first call. V8 refuses a cache made by
 * another V8 or under other V8 flags, or for a source of another length; the file's name carries
 * a digest of the bundle, the Node version and Node's flags, so another build never meets it.
 * V8 checks no checksum of a code cache in release builds (a damaged one could crash it), so the
 * file starts with the CRC-32 of the rest, checked before V8 sees it.
 *
 * Security: a code cache is code. It is read only from a directory of the user's own that nobody
 * else can write (the same trust as the config file, which names the commands the gateway
 * runs), and only when it is a regular file of the user's that nobody else can write; a tool
 * call's write there is denied like one of the config (policy.ts, docs/threat-model.md).
 */
export type CodeCacheStatus = 'accepted' | 'rejected' | 'damaged' | 'absent' | 'unsafe' | 'source-maps';

/** When a cache is made: after the first tools/list, or after the first tools/call was answered (with the call path's code). */
export type CodeCacheStage = 'list' | 'call';

export interface CodeCache {
  /** What happened to the cache at load: used, refused by V8, not what was written, none yet, not trusted, not used (source maps). */
  readonly status: CodeCacheStatus;
  readonly file: string | undefined;
  /** Writes the cache now, made at `stage`, unless the one loaded (or one written by this start) was made at it or later; what happened, in words. */
  save(stage: CodeCacheStage): string;
}

/** A stage's byte in the file; a later stage holds more of the code. */
const STAGES: Record<CodeCacheStage, number> = { list: 1, call: 2 };

export interface LoadedBundle {
  exports: unknown;
  codeCache: CodeCache;
}

/** Caches of another build left longer than this are removed when a cache is written. */
const STALE_MS = 30 * 24 * 3600 * 1000;
const PREFIX = 'serve-';
const SUFFIX = '.v8cache';
/** A note's file (`besideCache`): `serve-<kind>-<build>.json`. */
const NOTE_SUFFIX = '.json';

/** The bundle is one function expression taking CommonJS's parameters (scripts/bundle.js). */
type BundleFunction = (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;

/** Every bundle this process loaded with a cache, in order: serve saves them all (`saveCodeCaches`). */
const loadedCaches: Array<{ bundle: string; codeCache: CodeCache }> = [];

/** Saves the cache of every bundle loaded so far (the gateway's, the shell model's once loaded); what happened to each. */
export function saveCodeCaches(stage: CodeCacheStage): Array<{ file: string | undefined; outcome: string }> {
  return loadedCaches.map(({ codeCache }) => ({ file: codeCache.file, outcome: codeCache.save(stage) }));
}

/** What happened at load to the cache of the bundle loaded from `bundle` (a path), if this process loaded it with loadBundle. */
export function codeCacheStatusOf(bundle: string): CodeCacheStatus | undefined {
  return loadedCaches.find((loaded) => loaded.bundle === bundle)?.codeCache.status;
}

export interface LoadOptions {
  /**
   * The bundle is a CommonJS module others `require` (serve.cjs, whose modules the gateway's bundle
   * takes from it): it is put in the require cache under its path, as Node's loader would.
   */
  asModule?: boolean;
  /** The notes kept beside the caches (`besideCache`) are this bundle's build's: the gateway's. */
  notes?: boolean;
}

export function loadBundle(bundle: string, env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): LoadedBundle {
  const loaded = loadBundleOnce(bundle, env, options);
  loadedCaches.push({ bundle, codeCache: loaded.codeCache });
  return loaded;
}

function loadBundleOnce(bundle: string, env: NodeJS.ProcessEnv, { asModule = false, notes = false }: LoadOptions): LoadedBundle {
  const require = createRequire(bundle);
  const compiled = new Module(bundle) as Module & { _compile(source: string, filename: string): void };
  compiled.filename = bundle;
  compiled.paths = require.resolve.paths('x') ?? [];
  if (asModule) require.cache[bundle] = compiled;
  try {
    // vm.Script gets no source map from Node 20 (stack traces would point into the bundle): with
    // source maps on, Node's own CommonJS loader compiles it, calling the function, without the cache.
    if (process.sourceMapsEnabled) {
      compiled._compile(`${readFileSync(bundle, 'latin1')}\n.call(this, exports, require, module, __filename, __dirname)`, bundle);
      compiled.loaded = true;
      return { exports: compiled.exports, codeCache: { status: 'source-maps', file: undefined, save: () => 'not used with source maps' } };
    }
    const loaded = runCompiled(bundle, env, compiled, require, notes);
    compiled.loaded = true;
    return loaded;
  } catch (error) {
    if (asModule) delete require.cache[bundle];
    throw error;
  }
}

function runCompiled(bundle: string, env: NodeJS.ProcessEnv, module: Module, require: NodeJS.Require, notes: boolean): LoadedBundle {
  const { script, status, stage, directory, file } = compileBundle(bundle, env, notes);
  (script.runInThisContext() as BundleFunction)(module.exports, require, module, bundle, dirname(bundle));
  // The script is kept only to be saved: a cache made after a call is not written again.
  let toSave = status === 'unsafe' || stage === STAGES.call ? null : script;
  let held = stage;
  return {
    exports: module.exports,
    codeCache: {
      status,
      file,
      save: (wanted) => {
        if (!toSave || STAGES[wanted] <= held) return `not written (${status}, made after the first ${held === STAGES.call ? 'call' : 'list'})`;
        const outcome = save(toSave, directory, file, STAGES[wanted]);
        held = STAGES[wanted];
        if (held === STAGES.call) toSave = null;
        return outcome;
      },
    },
  };
}

/**
 * The bundle compiled, with its code cache when there is a good one. A function of its own so that
 * the file's bytes and the cache's (~2.2 MB outside V8's heap) are garbage before the bundle's
 * start-up runs: held in loadBundle's frame across it, they were promoted by its collections and
 * stayed resident until the first full collection, ~2 s after the first list (docs/performance.md,
 * "Round 9: the start-up's buffers").
 */
function compileBundle(bundle: string, env: NodeJS.ProcessEnv, notes: boolean): { script: vm.Script; status: CodeCacheStatus; stage: number; directory: string; file: string } {
  // Outside malloc, as the cache's file (readTrusted): a 1.2-1.4 MB block freed raised glibc's thresholds (file-pages.ts).
  const text = readFilePages(bundle);
  // Once: a CRC-32 of the gateway's 1.2 MB costs ~0.3 ms of CPU (docs/performance.md, "Round 20: start").
  const build = `${text.length.toString(16)}-${crc32(text).toString(16)}`;
  const source = text.toString('latin1'); // ASCII (scripts/bundle.js)
  const directory = codeCacheDirectory(env);
  // The gateway's build names the notes kept beside the caches.
  if (notes) notesOf ??= { directory, build };
  // V8 refuses a cache made under other flags: each set of them (Node's command line, NODE_OPTIONS)
  // has its own file, or starts with and without a flag would rewrite one file in turn.
  // CRC-32 of the file's bytes, not a SHA-256 of its text: that made a 1.2 MB buffer freed at once,
  // which raised glibc's mmap threshold, and a gateway with a shell tool then kept +6 MiB resident
  // (docs/performance.md). The name only picks the file; V8 and the cache's checksum check the rest.
  const flags = `${process.version}\0${process.arch}\0${process.execArgv.join('\0')}\0${env.NODE_OPTIONS ?? ''}`;
  // The bundle's name too: serve's, the gateway's and the shell model's caches are told apart by it.
  const file = join(directory, `${PREFIX}${basename(bundle, '.cjs')}-${build}-${crc32(flags).toString(16)}${SUFFIX}`);
  const trusted = trustedDirectory(directory);
  const read = trusted ? readTrusted(file) : undefined;
  const cached = read && intact(read);
  // The bundle has no import() (scripts/bundle.js): Node 20 loses a cached script's dynamic import.
  const script = underCacheFlags(() => new vm.Script(source, { filename: bundle, cachedData: cached?.data }));
  const status: CodeCacheStatus = trusted === false ? 'unsafe' : read === undefined ? 'absent' : cached === undefined ? 'damaged' : script.cachedDataRejected ? 'rejected' : 'accepted';
  return { script, status, stage: status === 'accepted' ? cached!.stage : 0, directory, file };
}

/** true: the user's own directory nobody else can write; undefined: none yet; false: anything else. */
function trustedDirectory(directory: string): boolean | undefined {
  try {
    const stats = lstatSync(directory);
    return stats.isDirectory() && ownedAndPrivate(stats);
  } catch {
    return undefined;
  }
}

function ownedAndPrivate(stats: { uid: number; mode: number }): boolean {
  return process.platform === 'win32' || (stats.uid === process.getuid!() && (stats.mode & 0o022) === 0);
}

/** The cache file's bytes, when it is a regular file of the user's nobody else can write (not a link). */
function readTrusted(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    return stats.isFile() && ownedAndPrivate(stats) ? readFilePages(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The file: the CRC-32 of the rest, the stage it was made at (STAGES), three zero bytes, V8's data.
 * V8 copies a cache that does not start 8-byte aligned before it reads it (1.2 MB malloc'd and
 * freed at every start, which raised glibc's thresholds as file-pages.ts says): the data starts
 * at the 8th byte, and the file's bytes at a page.
 */
const CHECK_BYTES = 4;
const HEADER_BYTES = 8;

/** V8's data and the stage it was made at, when the checksum matches. */
function intact(file: Buffer): { data: Buffer; stage: number } | undefined {
  if (file.length <= HEADER_BYTES || file.readUInt32BE(0) !== crc32(file.subarray(CHECK_BYTES))) return undefined;
  return { data: file.subarray(HEADER_BYTES), stage: file[CHECK_BYTES]! };
}

/** Written whole under a temporary name, then renamed: a reader sees the old file or the new one. */
function save(script: vm.Script, directory: string, file: string, stage: number): string {
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    if (trustedDirectory(directory) !== true) return `not written: ${directory} is not a directory only this user can write`;
    const temporary = `${file}.${process.pid}.tmp`;
    const header = Buffer.alloc(HEADER_BYTES);
    header[CHECK_BYTES] = stage;
    const content = Buffer.concat([header, underCacheFlags(() => script.createCachedData())]);
    content.writeUInt32BE(crc32(content.subarray(CHECK_BYTES)));
    writeFileSync(temporary, content, { mode: 0o600, flag: 'wx' });
    renameSync(temporary, file);
    removeStale(directory, basename(file));
    return `written to ${file}`;
  } catch (error) {
    return `not written: ${(error as Error).message}`;
  }
}

function removeStale(directory: string, keep: string): void {
  for (const name of readdirSync(directory)) {
    if (name === keep || !name.startsWith(PREFIX) || !(name.endsWith(SUFFIX) || name.endsWith(NOTE_SUFFIX) || name.endsWith('.tmp'))) continue;
    const path = join(directory, name);
    if (Date.now() - statSync(path).mtimeMs > STALE_MS) rmSync(path, { force: true });
  }
}

/** Where the notes of the build loaded live (`besideCache`); undefined before a bundle is loaded with a cache. */
let notesOf: { directory: string; build: string } | undefined;

/** A small text file of this build, kept beside its code cache with the same trust. */
export interface CacheNote {
  /** Its text, when the file is there and is a regular file of the user's nobody else can write in a directory nobody else can write. */
  read(): string | undefined;
  /** Written whole (a temporary file renamed over it); what happened, in words. */
  write(text: string): string;
}

/**
 * A note of `kind` for the gateway's build loaded in this process, beside its code cache: what an
 * earlier start of the same build worked out and a later one need not work out again (which
 * outputSchemas compile, downstream/listing.ts). Undefined when no bundle was loaded with a cache
 * (source maps on, or the gateway's code run from dist/ as a library or by the tests). Files of
 * other builds are removed as stale caches are. Security: read under the code cache's own rules
 * (the user's directory and file, nobody else can write either), and a note only spares work that
 * gives the same answer.
 */
export function besideCache(kind: string): CacheNote | undefined {
  if (!notesOf || process.sourceMapsEnabled) return undefined;
  const { directory } = notesOf;
  const file = join(directory, `${PREFIX}${kind}-${notesOf.build}${NOTE_SUFFIX}`);
  return {
    read: () => (trustedDirectory(directory) === true ? readTrusted(file)?.toString('utf8') : undefined),
    write: (text) => {
      try {
        mkdirSync(directory, { recursive: true, mode: 0o700 });
        if (trustedDirectory(directory) !== true) return `not written: ${directory} is not a directory only this user can write`;
        const temporary = `${file}.${process.pid}.tmp`;
        writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
        renameSync(temporary, file);
        return `written to ${file}`;
      } catch (error) {
        return `not written: ${(error as Error).message}`;
      }
    },
  };
}
