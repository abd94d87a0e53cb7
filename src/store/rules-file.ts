import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { LatchError, errorMessage, type ConfigIssue } from '../errors.js';
import type { RuleList } from '../policy/types.js';

/**
 * Rules remembered in the user's own config file (docs/approval.md): re-read first so an edit the user made
 * a moment ago is kept, checked as a whole, then written atomically (lowdb → steno: temp file and
 * rename), so a crash leaves either the old or the new file, never half of one.
 *
 * Built as `new Low(new JSONFile(path), …)`: lowdb's presets switch to memory under NODE_ENV=test.
 */
export interface RulesWrite {
  /** Rules that were not in the list yet and were added. */
  added: string[];
  /** The file text as written, so the watcher can tell this write from a user's edit. */
  text: string;
}

export type ConfigCheck = (data: unknown) => ConfigIssue[];

export class RulesFile {
  /** Writes of this process, one after another, so two answers cannot interleave read-modify-write. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly check: ConfigCheck,
  ) {}

  add(list: RuleList, rules: string[]): Promise<RulesWrite> {
    const run = this.queue.then(() => this.write(list, rules));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(list: RuleList, rules: string[]): Promise<RulesWrite> {
    const db = new Low<Record<string, unknown>>(new JSONFile(this.path), {});
    try {
      await db.read();
    } catch (error) {
      throw new LatchError('STORE_WRITE_FAILED', `cannot add rules to ${this.path}: it is not valid JSON right now (${errorMessage(error)}); fix the file and try again`, { cause: error });
    }
    if (db.data === null || typeof db.data !== 'object' || Array.isArray(db.data)) {
      throw new LatchError('STORE_WRITE_FAILED', `cannot add rules to ${this.path}: the file does not hold a JSON object`);
    }
    const permissions = (db.data.permissions ??= {}) as Record<string, unknown>;
    if (typeof permissions !== 'object' || permissions === null || Array.isArray(permissions)) {
      throw new LatchError('STORE_WRITE_FAILED', `cannot add rules to ${this.path}: "permissions" is not an object`);
    }
    const current = (permissions[list] ??= []) as unknown;
    if (!Array.isArray(current)) throw new LatchError('STORE_WRITE_FAILED', `cannot add rules to ${this.path}: "permissions.${list}" is not a list`);
    const added = rules.filter((rule) => !current.includes(rule));
    current.push(...added);
    const issues = this.check(db.data);
    if (issues.length > 0) {
      const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
      throw new LatchError('STORE_WRITE_FAILED', `not adding ${rules.join(', ')} to ${this.path}: the result would be invalid (${detail})`, { issues });
    }
    const text = JSON.stringify(db.data, null, 2);
    if (added.length > 0) await db.write();
    return { added, text };
  }
}
