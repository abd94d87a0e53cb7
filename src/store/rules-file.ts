import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { applyEdits, modify, type FormattingOptions } from 'jsonc-parser';
import { readJson } from '../config/json.js';
import { LatchError, type ConfigIssue } from '../errors.js';
import type { RuleList } from '../policy/types.js';
import { isPlainObject } from '../values.js';

/**
 * Rules remembered in the user's own config file (docs/rules.md): the file is read, only the rules
 * added are edited into its text (`jsonc-parser` edits: the user's formatting, order and other
 * entries stay as they were), the result is checked as a whole, and written to a temporary file
 * that replaces the config by rename, so a crash leaves the old or the new file, never half of one.
 *
 * The person's editor may save the same file meanwhile: just before the rename the file is read
 * again, and if it changed since it was read, the edit is made again on the new text (up to
 * MAX_ATTEMPTS times). The check and the rename run back to back, without yielding.
 */
export interface RulesWrite {
  /** Rules that were not in the list yet and were added. */
  added: string[];
  /** The file text as written, so the watcher can tell this write from a user's edit. */
  text: string;
}

export type ConfigCheck = (data: unknown) => ConfigIssue[];

const MAX_ATTEMPTS = 20;

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
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const text = this.read();
      const { added, next } = this.edited(text, list, rules);
      if (added.length === 0) return { added, text };
      const temp = join(dirname(this.path), `.${basename(this.path)}.${randomBytes(6).toString('hex')}.tmp`);
      writeFileSync(temp, next);
      if (this.read() !== text) {
        // The person saved the file meanwhile: edit their version instead.
        rmSync(temp, { force: true });
        await new Promise((done) => setTimeout(done, attempt));
        continue;
      }
      renameSync(temp, this.path);
      return { added, text: next };
    }
    throw new LatchError('STORE_WRITE_FAILED', `cannot add ${rules.join(', ')} to ${this.path}: the file changed every time it was about to be written (${MAX_ATTEMPTS} tries)`);
  }

  private read(): string {
    try {
      return readFileSync(this.path, 'utf8');
    } catch (error) {
      throw new LatchError('STORE_WRITE_FAILED', `cannot add rules to ${this.path}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** The text with the missing rules appended to `permissions.<list>`, checked as a whole config. */
  private edited(text: string, list: RuleList, rules: string[]): { added: string[]; next: string } {
    const read = readJson(text);
    if (!read.ok) {
      const detail = read.issues.map((issue) => issue.message).join('; ');
      throw new LatchError('STORE_WRITE_FAILED', `cannot add rules to ${this.path}: it is not valid JSON right now (${detail}); fix the file and try again`);
    }
    if (!isPlainObject(read.value)) throw new LatchError('STORE_WRITE_FAILED', `cannot add rules to ${this.path}: the file does not hold a JSON object`);
    const permissions = read.value.permissions ?? {};
    if (!isPlainObject(permissions)) throw new LatchError('STORE_WRITE_FAILED', `cannot add rules to ${this.path}: "permissions" is not an object`);
    const current = permissions[list] ?? [];
    if (!Array.isArray(current)) throw new LatchError('STORE_WRITE_FAILED', `cannot add rules to ${this.path}: "permissions.${list}" is not a list`);
    const added = [...new Set(rules)].filter((rule) => !current.includes(rule));
    const formatting = formattingOf(text);
    let next = text;
    for (const rule of added) next = applyEdits(next, modify(next, ['permissions', list, -1], rule, { formattingOptions: formatting, isArrayInsertion: true }));
    const result = readJson(next);
    const issues = result.ok ? this.check(result.value) : result.issues;
    if (issues.length > 0) {
      const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
      throw new LatchError('STORE_WRITE_FAILED', `not adding ${rules.join(', ')} to ${this.path}: the result would be invalid (${detail})`, { issues });
    }
    return { added, next };
  }
}

/** The file's own indentation and line ends, for the lines an edit adds. */
function formattingOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}
