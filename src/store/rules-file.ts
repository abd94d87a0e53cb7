import { readFileSync } from 'node:fs';
import type { FormattingOptions } from 'jsonc-parser';
import { writeFileAtomic } from '../clients/backup.js';
import { withFileLock } from './file-lock.js';
import { readJson, valueRange } from '../config/json.js';
import { BoundReached, LatchError, type ConfigIssue } from '../errors.js';
import type { RuleList } from '../policy/types.js';
import { isPlainObject } from '../values.js';

/**
 * Rules remembered in the user's own config file (docs/rules.md): the file is read, only the rules
 * added are edited into its text (appended on lines of their own, or `jsonc-parser` edits: the
 * user's formatting, order and other entries stay as they were), the result is checked as a whole
 * (or by what changed, from text the caller checked: KnownValid), and written to a temporary file
 * that replaces the config by rename, so a crash leaves the old or the new file, never half of one.
 *
 * The person's editor may save the same file meanwhile: just before the rename the file is read
 * again, and if it changed since it was read, the edit is made again on the new text (up to
 * MAX_ATTEMPTS times). The check and the rename run back to back, without yielding.
 */
export interface RulesWrite {
  /** Rules that were not in the list yet and were added (or, for `remove`, that were there and were removed). */
  added: string[];
  /** The file text as written, so the watcher can tell this write from a user's edit. */
  text: string;
}

export type ConfigCheck = (data: unknown) => ConfigIssue[];

/**
 * What the caller already checked (a gateway: the config it runs): text that passed the whole
 * check, and the check of rules alone. An edit of that very text that only adds rules to a list
 * already there (or removes one) is checked by its rules alone: the rest is the text that passed.
 * The whole check of a config of thousands of remembered rules, before the gateway checked it again
 * to load it, was a good part of each "Always allow" (docs/performance.md, "Round 18: remembered
 * rules at scale").
 */
export interface KnownValid {
  text(): string;
  rules(list: RuleList, rules: string[], where: string, firstIndex: number): ConfigIssue[];
}

const MAX_ATTEMPTS = 20;

/** jsonc-parser loads with the first edit appendToList does not make: most gateways never need it (docs/performance.md, "Memory"). */
let jsonc: Promise<typeof import('jsonc-parser')> | undefined;

export class RulesFile {
  /** Writes of this process, one after another, so two answers cannot interleave read-modify-write. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly check: ConfigCheck,
    private readonly known?: KnownValid,
  ) {}

  /**
   * Adds rules to `permissions.<list>`, or with `user` to that user's overlay `users.<user>.permissions.<list>`.
   * With `most`, a BoundReached rejection, nothing written, when the list would hold more: counted on
   * the text being edited, under the queue and the file's lock, so adds made at once cannot pass it together.
   */
  add(list: RuleList, rules: string[], user?: string, most?: number): Promise<RulesWrite> {
    return this.queued((real) => this.write(real, keyPath(list, user), rules, 'add', most));
  }

  /** Removes one rule from the same list; `added` holds it when it was there. */
  remove(list: RuleList, rule: string, user?: string): Promise<RulesWrite> {
    return this.queued((real) => this.write(real, keyPath(list, user), [rule], 'remove'));
  }

  /** The rules of a list as the file holds them now (empty when it has none or cannot be read). */
  list(list: RuleList, user?: string): string[] {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      return [];
    }
    const read = readJson(text);
    let value: unknown = read.ok ? read.value : undefined;
    for (const key of keyPath(list, user)) value = isPlainObject(value) ? value[key] : undefined;
    return Array.isArray(value) ? value.filter((rule): rule is string => typeof rule === 'string') : [];
  }

  /**
   * One after another in this process, and under the file's lock across processes (file-lock.ts),
   * read and written at the real path that lock is of: through the name, a link re-pointed during
   * the write made it read one file and write another (round 19).
   */
  private queued(write: (real: string) => Promise<RulesWrite>): Promise<RulesWrite> {
    const run = this.queue.then(() => withFileLock(this.path, write));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(real: string, path: string[], rules: string[], edit: 'add' | 'remove', most?: number): Promise<RulesWrite> {
    let editor: typeof import('jsonc-parser') | null = null;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const text = this.read(real);
      const made = this.edited(editor, text, path, rules, edit, most);
      if (made === null) {
        // An edit appendToList does not make: jsonc-parser's (read with the first such edit).
        editor = await (jsonc ??= import('jsonc-parser'));
        // Awaited: the file may have changed meanwhile, and is read again.
        continue;
      }
      const { added, next } = made;
      if (added.length === 0) return { added, text };
      // Through a symlink to its target, keeping the file's mode: a 0600 config holding a secret
      // stays 0600 (round 12 review, F10).
      if (!writeFileAtomic(real, next, undefined, () => this.read(real) === text)) {
        // The person saved the file meanwhile: edit their version instead.
        await new Promise((done) => setTimeout(done, attempt));
        continue;
      }
      return { added, text: next };
    }
    throw new LatchError('STORE_WRITE_FAILED', `cannot add ${rules.join(', ')} to ${this.path}: the file changed every time it was about to be written (${MAX_ATTEMPTS} tries)`);
  }

  private read(real: string): string {
    try {
      return readFileSync(real, 'utf8');
    } catch (error) {
      throw new LatchError('STORE_WRITE_FAILED', `cannot add rules to ${this.path}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** The text with the missing rules appended to the list at `path` (or the rule removed), checked as a whole config (or, from text known valid, by what changed: KnownValid). */
  private edited(editor: typeof import('jsonc-parser') | null, text: string, path: string[], rules: string[], edit: 'add' | 'remove', most?: number): { added: string[]; next: string } | null {
    const read = readJson(text);
    if (!read.ok) {
      const detail = read.issues.map((issue) => issue.message).join('; ');
      throw new LatchError('STORE_WRITE_FAILED', `cannot add rules to ${this.path}: it is not valid JSON right now (${detail}); fix the file and try again`);
    }
    if (!isPlainObject(read.value)) throw new LatchError('STORE_WRITE_FAILED', `cannot add rules to ${this.path}: the file does not hold a JSON object`);
    let current: unknown = read.value;
    let there = true;
    path.forEach((key, index) => {
      there &&= (current as Record<string, unknown>)[key] !== undefined;
      const value = (current as Record<string, unknown>)[key] ?? (index === path.length - 1 ? [] : {});
      const shape = index === path.length - 1 ? Array.isArray(value) : isPlainObject(value);
      if (!shape) throw new LatchError('STORE_WRITE_FAILED', `cannot change rules in ${this.path}: "${path.slice(0, index + 1).join('.')}" is not ${index === path.length - 1 ? 'a list' : 'an object'}`);
      current = value;
    });
    const list = current as unknown[];
    const index = edit === 'remove' ? list.indexOf(rules[0]) : -1;
    const added = edit === 'add' ? [...new Set(rules)].filter((rule) => !list.includes(rule)) : index < 0 ? [] : [rules[0]!];
    if (added.length === 0) return { added, next: text };
    if (most !== undefined && list.length + added.length > most) throw new BoundReached(list.length, `${path.join('.')} in ${this.path} holds ${list.length} rules; adding ${added.length} would pass ${most}`);
    let next = edit === 'add' && there ? appendToList(text, path, added) : null;
    if (next === null) {
      if (editor === null) return null;
      const { applyEdits, modify } = editor;
      const formatting = formattingOf(text);
      next = text;
      if (edit === 'add') for (const rule of added) next = applyEdits(next, modify(next, [...path, -1], rule, { formattingOptions: formatting, isArrayInsertion: true }));
      else next = applyEdits(next, modify(next, [...path, index], undefined, { formattingOptions: formatting }));
    }
    const result = readJson(next);
    const issues = !result.ok ? result.issues : listIssues(result.value, path, list, added, edit) ?? (there && text === this.known?.text() ? this.known.rules(path[path.length - 1] as RuleList, added, path.join('.'), list.length) : this.check(result.value));
    if (issues.length > 0) {
      const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
      throw new LatchError('STORE_WRITE_FAILED', `not adding ${rules.join(', ')} to ${this.path}: the result would be invalid (${detail})`, { issues });
    }
    return { added, next };
  }
}

/**
 * An issue when the list at `path` of the edited file is not what it was with `added` appended (or
 * removed): the edit touched something else. Null when it is.
 */
function listIssues(value: unknown, path: string[], before: unknown[], added: string[], edit: 'add' | 'remove'): ConfigIssue[] | null {
  let after: unknown = value;
  for (const key of path) after = isPlainObject(after) ? after[key] : undefined;
  const removed = edit === 'remove' ? before.indexOf(added[0]) : -1;
  const expected = edit === 'add' ? [...before, ...added] : before.filter((_rule, index) => index !== removed);
  if (Array.isArray(after) && after.length === expected.length && after.every((rule, index) => rule === expected[index])) return null;
  return [{ path: path.join('.'), message: 'the edit did not give the list expected' }];
}

/**
 * `text` with `rules` appended to the list at `path`, each on a line of its own indented as the
 * list's first entry is: the edit "Always allow" makes, without jsonc-parser's tree of the whole
 * file (~25 ms of a first remember with 5,000 rules; docs/performance.md, "Round 18: remembered
 * rules at scale"). Null when the list is empty or not one entry a line (jsonc-parser lays it out).
 */
function appendToList(text: string, path: string[], rules: string[]): string | null {
  const range = valueRange(text, path);
  if (range === null || text[range.start] !== '[') return null;
  const lead = /^\[(\r?\n[ \t]*)[^\s\]]/.exec(text.slice(range.start, range.start + 256));
  if (lead === null) return null;
  let last = range.end - 2;
  while (' \t\r\n'.includes(text[last]!)) last -= 1;
  const lines = rules.map((rule) => `,${lead[1]}${JSON.stringify(rule)}`).join('');
  return `${text.slice(0, last + 1)}${lines}${text.slice(last + 1)}`;
}

function keyPath(list: RuleList, user: string | undefined): string[] {
  return user === undefined ? ['permissions', list] : ['users', user, 'permissions', list];
}

/** The file's own indentation and line ends, for the lines an edit adds. */
function formattingOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}
