import { createHash, randomBytes, timingSafeEqual } from '../node-crypto.js';
import { chmodSync, lstatSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { LatchError } from '../errors.js';

/**
 * The secret of a team gateway with no `http.tokens` or `http.oauth` (docs/team.md#identity): made
 * at start, kept in memory and in a file only the user can read, and required on every request as
 * `Authorization: Bearer <secret>`. A port on 127.0.0.1 is open to every user and process of the
 * machine; this file is what tells the person's own clients from them (docs/threat-model.md).
 */
export class LocalSecret {
  private constructor(
    readonly file: string,
    private readonly digest: Buffer,
    private readonly text: string,
  ) {}

  /**
   * A new secret, written to `file` (replacing the last run's) by an exclusive create of a
   * temporary file at mode 0600 and a rename. Refuses a file there that is a link, not a regular
   * file, another user's, or readable by others: someone else put it there or widened it.
   */
  static create(file: string, platform: NodeJS.Platform = process.platform): LocalSecret {
    const posix = platform !== 'win32';
    if (posix) refuseUnsafe(file);
    // A prefix gives it a shape the redaction knows (`mls_[redacted]`, redact.ts TOKEN_SHAPES; round 19).
    const text = `mls_${randomBytes(32).toString('base64url')}`;
    const temp = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
    try {
      writeFileSync(temp, `${text}\n`, { mode: 0o600, flag: 'wx' });
      // The umask may have taken more than the group and other bits: the owner must read it.
      if (posix) chmodSync(temp, 0o600);
      renameSync(temp, file);
    } catch (error) {
      rmSync(temp, { force: true });
      throw new LatchError('HTTP_SECRET_UNUSABLE', `could not write the gateway's secret to ${file}: ${(error as Error).message}`, { cause: error });
    }
    return new LocalSecret(file, sha256(text), text);
  }

  /** Whether `authorization` is `Bearer <this secret>`; compared in constant time. */
  accepts(authorization: string | undefined): boolean {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '');
    return match !== null && timingSafeEqual(sha256(match[1]!), this.digest);
  }

  /** Removes the file when the gateway stops, unless a later run has replaced it. */
  remove(): void {
    try {
      if (readFileSync(this.file, 'utf8').trim() === this.text) rmSync(this.file, { force: true });
    } catch {
      // Gone already, or unreadable: nothing of this run's to remove.
    }
  }
}

function refuseUnsafe(file: string): void {
  let stat;
  try {
    stat = lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new LatchError('HTTP_SECRET_UNUSABLE', `cannot check the gateway's secret file ${file}: ${(error as Error).message}`, { cause: error });
  }
  const fix = `remove it (rm "${file}") and start again`;
  if (!stat.isFile()) throw new LatchError('HTTP_SECRET_UNUSABLE', `the gateway's secret file ${file} is not a regular file (a link or a directory); ${fix}`);
  if (stat.uid !== process.getuid?.()) throw new LatchError('HTTP_SECRET_UNUSABLE', `the gateway's secret file ${file} belongs to another user (uid ${stat.uid}); ${fix}`);
  if ((stat.mode & 0o077) !== 0) throw new LatchError('HTTP_SECRET_UNUSABLE', `the gateway's secret file ${file} can be read or written by other users (mode ${(stat.mode & 0o777).toString(8)}); ${fix}`);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
