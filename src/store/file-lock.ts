import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { LatchError, errorMessage } from '../errors.js';

/**
 * A lock across processes around a read-modify-write of one file (the config's rules, the pins
 * lock file, the approval page state file): several gateways of one config (`init --wrap`) and the
 * CLI write them, and each re-read then rename let a write made in between be lost, a deny rule
 * `mcp-latch deny` reported as added included (round 17 review S3, S4; docs/rules.md).
 *
 * `FILE.lock` is created with O_EXCL and holds `pid host time`, FILE being the file's real path
 * (lockName): a config reached through a link, or as `./x` and as `/abs/x`, is one file, and the
 * processes writing it through different spellings took different locks and lost each other's
 * writes (round 17 review, "Several gateways on one config"; docs/threat-model.md). A lock whose holder is gone (same
 * host, its pid not running: a kill -9 mid-write) or that is older than STALE_MS (every write under
 * it takes milliseconds) is broken. A lock that cannot be taken within WAIT_MS fails with an error
 * naming the file: never a write without it. Hand-written rather than proper-lockfile: that one
 * holds a refresh timer per lock, recovers a dead holder's lock only after its stale time (≥ 2 s, a
 * gateway restarted after a crash waits that long) and hooks process exit and signals through
 * signal-exit; here the dead holder is seen at once, and there is no timer and no hook.
 */
const WAIT_MS = 20_000;
const STALE_MS = 10_000;

/**
 * `work` is given the file's real path, and reads and writes that path only, never `file` again.
 * A link re-pointed while another process held the old target's lock (or while this one waited)
 * split the writers in two: one read the old target through the link and wrote the new one,
 * another took the new target's lock, and rules each reported added were lost or copied between
 * the two files (round 19; test/store/file-lock.test.ts "re-pointed"). Now the name is resolved,
 * its lock taken, the name resolved again, and when it moved meanwhile the lock is let go and the
 * new target's taken instead; whatever the link does after that, the work is on the file whose lock
 * it holds, so every writer of one file holds that file's lock (docs/threat-model.md, "Several
 * gateways on one config").
 * `limits`: for tests. A wait longer than the stale time lets a lock no holder can be checked for be broken before giving up.
 */
export async function withFileLock<T>(file: string, work: (real: string) => Promise<T>, limits = { waitMs: WAIT_MS, staleMs: STALE_MS }): Promise<T> {
  const deadline = performance.now() + limits.waitMs;
  for (;;) {
    const lock = lockName(file);
    const mine = await take(file, lock, deadline, limits);
    if (lockName(file) === lock) {
      try {
        return await work(lock.slice(0, -'.lock'.length));
      } finally {
        await release(lock, mine);
      }
    }
    // Re-pointed while the lock was taken: that file is no longer the one named.
    await release(lock, mine);
    if (performance.now() > deadline) throw new LatchError('STORE_WRITE_FAILED', `cannot write ${file}: the file it names changed every time its lock was taken (waited ${limits.waitMs / 1000} s)`);
  }
}

/** Takes `lock` (O_EXCL), waiting for its holder and breaking a stale one; returns what it wrote in it. */
async function take(file: string, lock: string, deadline: number, limits: { waitMs: number; staleMs: number }): Promise<string> {
  const mine = `${process.pid} ${hostname()} ${Date.now()}`;
  for (let attempt = 0; ; attempt += 1) {
    try {
      const handle = await open(lock, 'wx', 0o600);
      try {
        await handle.writeFile(mine);
      } catch (error) {
        // Made but not written (a full disk: an empty file needs no block): an empty lock names no
        // holder, so every later taker waited STALE_MS for it, an approved call with its pin
        // (review of round 20 faults, F6). Ours: removed.
        await handle.close().catch(() => undefined);
        await unlink(lock).catch(() => undefined);
        throw error;
      }
      await handle.close();
      return mine;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new LatchError('STORE_WRITE_FAILED', `cannot lock ${file} (${lock}): ${errorMessage(error)}`, { cause: error });
    }
    if (await breakStale(lock, limits.staleMs)) continue;
    if (performance.now() > deadline) throw new LatchError('STORE_WRITE_FAILED', `cannot write ${file}: ${lock} is held by another process (waited ${limits.waitMs / 1000} s); if no mcp-latch is writing, remove it`);
    await new Promise((done) => setTimeout(done, Math.min(5 + attempt * 5, 50) * (0.5 + Math.random())));
  }
}

/** Only our own lock: one broken as stale and taken by another stays theirs. */
async function release(lock: string, mine: string): Promise<void> {
  if ((await readFile(lock, 'utf8').catch(() => '')) === mine) await unlink(lock).catch(() => undefined);
}

/**
 * The lock of `file`: `REAL.lock`, REAL the file's real path (every link followed, `.` and `..`
 * taken out, relative to the working directory). A file not there yet (the pins' lock file before
 * the first pin) is named by its folder's real path; a link to a target not there yet is followed
 * to that target's name (at most 40 links, the kernel's bound), so every spelling of one file
 * takes one lock, also before the file is made. Exported for tests.
 */
export function lockName(file: string): string {
  let path = resolve(file);
  for (let links = 0; links < 40; links += 1) {
    try {
      return `${realpathSync.native(path)}.lock`;
    } catch {
      // Not there: a dangling link is followed by hand, anything else named by its folder.
    }
    let target: string;
    try {
      if (!lstatSync(path).isSymbolicLink()) break;
      target = readlinkSync(path);
    } catch {
      break;
    }
    path = resolve(dirname(path), target);
  }
  try {
    return `${resolve(realpathSync.native(dirname(path)), basename(path))}.lock`;
  } catch {
    return `${path}.lock`;
  }
}

/** Removes the lock when its holder is gone or it is older than STALE_MS; true when it did. */
async function breakStale(lock: string, staleMs: number): Promise<boolean> {
  let text: string;
  let age: number;
  try {
    text = await readFile(lock, 'utf8');
    age = Date.now() - (await stat(lock)).mtimeMs;
  } catch {
    return true; // released meanwhile: try again
  }
  const [pid, host] = text.split(' ');
  const dead = host === hostname() && pid !== undefined && /^\d+$/.test(pid) && !running(Number(pid));
  // A lock being written has no text yet: only its age makes it stale.
  if (!dead && age < staleMs) return false;
  // Moved aside first, so that of two processes breaking it only one removes it, and compared
  // after: a fresh lock taken meanwhile by a third is put back.
  const aside = `${lock}.${process.pid}.stale`;
  try {
    await rename(lock, aside);
  } catch {
    return true;
  }
  if ((await readFile(aside, 'utf8').catch(() => '')) !== text) await rename(aside, lock).catch(() => undefined);
  else await unlink(aside).catch(() => undefined);
  return true;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
