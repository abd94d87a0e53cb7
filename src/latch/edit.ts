import type { Kind } from '../policy/types.js';
import type { ToolClass } from '../subjects/kind.js';
import { escapeJson, escapeText, escapeTruncated, shownEnd } from './escape.js';
import { CONTENT_ARGS } from './file-change.js';

/**
 * Edit, then approve (docs/approval.md#edit-then-approve): instead of refusing `rm -rf build/`, the
 * person changes it to `rm -rf build/tmp` and approves that. Only what the person can read and
 * retype is offered: the command, a path, the working directory, a write's content, each a
 * top-level string argument.
 *
 *   editableFields(class, kind, args)  → [{ arg: 'command', role: 'command', value: 'rm -rf build/' }]
 *   readEdit({ command: 'rm -rf build/tmp' }, fields, args)
 *                                      → { args: { …args, command: 'rm -rf build/tmp' }, changes: [{ arg, before, after }] }
 *
 * The edited call is never trusted for being approved: the gateway inspects and decides it again
 * from scratch (a deny still denies; a call that could not be analysed is denied), runs it once,
 * remembers nothing, and tells the model what ran. Edits come only from the person's own answer
 * (the form's fields, the page's edit box); nothing in a tool call can name one.
 */
export type EditRole = 'command' | 'cwd' | 'path' | 'content';

export interface EditableField {
  /** The argument's name. */
  arg: string;
  role: EditRole;
  /** Its value in the call as the model sent it. */
  value: string;
}

export interface CallEdit {
  /** The call's arguments with the person's changes. */
  args: Record<string, unknown>;
  changes: Array<{ arg: string; before: string; after: string }>;
}

/** A longer value is not offered for editing (and an edit longer than this is refused). */
export const MAX_EDIT_CHARS = 20_000;
const SIMPLE_ARG = /^[A-Za-z_][\w-]{0,63}$/;

/**
 * The arguments the person may change, in the order shown. A value with characters that would be
 * shown escaped (controls, bidi, invisible ones; newlines and tabs only in content) is not offered:
 * in an input box it would be shown raw.
 */
export function editableFields(toolClass: ToolClass, kind: Kind, args: Record<string, unknown>): EditableField[] {
  const fields: EditableField[] = [];
  const offer = (arg: string | null | undefined, role: EditRole) => {
    if (!arg || !SIMPLE_ARG.test(arg) || fields.some((field) => field.arg === arg)) return;
    const value = args[arg];
    if (typeof value !== 'string' || value.length > MAX_EDIT_CHARS || !showsAsTyped(value, role === 'content')) return;
    fields.push({ arg, role, value });
  };
  const command = toolClass.selectCommand ? toolClass.selectCommand(args) : toolClass.command;
  if (command?.mode === 'shell') offer(command.arg, 'command');
  offer(toolClass.cwd, 'cwd');
  for (const path of toolClass.paths) offer(path.arg, 'path');
  if (kind === 'write') for (const name of CONTENT_ARGS) offer(name, 'content');
  return fields;
}

/** True when nothing in the text would be shown escaped, backslashes aside (and in content, newlines and tabs; not `\r`, which an input box drops). */
export function showsAsTyped(value: string, multiline: boolean): boolean {
  const plain = value.replace(multiline ? /[\\\n\t]/g : /\\/g, ' ');
  return escapeText(plain) === plain;
}

/** Why an edit in an answer was refused (readEdit said 'invalid'), for the person. */
export const EDIT_REFUSED = `the edit is refused: only the fields offered for this call can be changed, as text of at most ${MAX_EDIT_CHARS} characters, and none once the assistant was answered`;

/**
 * The person's edit from their answer: `given` maps argument names to new values. Null when nothing
 * changed (an empty or blank value changes nothing); 'invalid' when it names an argument not offered, or a value that is not a string or is
 * too long (the answer is then refused: a half-read edit must not run).
 */
export function readEdit(given: unknown, fields: EditableField[], args: Record<string, unknown>): CallEdit | null | 'invalid' {
  if (given === undefined) return null;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) return 'invalid';
  const changes: CallEdit['changes'] = [];
  for (const [arg, after] of Object.entries(given)) {
    const field = fields.find((candidate) => candidate.arg === arg);
    if (!field || typeof after !== 'string' || after.length > MAX_EDIT_CHARS) return 'invalid';
    // A box left empty is not an edit: a form client that does not fill in a string's default (new
    // in MCP 2025-11-25) sends "" for a field the person never touched (round 15 review, A7).
    if (after.trim() === '') continue;
    if (after !== field.value) changes.push({ arg, before: field.value, after });
  }
  if (changes.length === 0) return null;
  const edited = { ...args };
  for (const change of changes) edited[change.arg] = change.after;
  return { args: edited, changes };
}

/** `command "rm -rf build/" → "rm -rf build/tmp"`, escaped, for texts the model and the audit read. */
export function editSummary(edit: CallEdit): string {
  return edit.changes.map((change) => `${escapeText(change.arg)} "${escapeTruncated(change.before, 200)}" → "${escapeTruncated(change.after, 200)}"`).join('; ');
}

/** What the model is told when the edited call ran. */
export function editNotice(edit: CallEdit): string {
  const ran = JSON.stringify(edit.args);
  const end = shownEnd(ran, 1000);
  const shown = ran.length <= 1000 ? ran : `${ran.slice(0, end)}… (${ran.length - end} more characters)`;
  return `mcp-latch: the user changed this call before approving it (${editSummary(edit)}). The changed call ran, not the original; its arguments: ${escapeJson(shown)}`;
}
