import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { structuredPatch } from 'diff';
import { decide, type CallFacts, type PolicyState } from '../policy/decide.js';
import type { PathSubject } from '../policy/types.js';
import { isPlainObject } from '../values.js';
import { escapeText } from './escape.js';
import { head } from '../code-points.js';

/**
 * What a write will change, shown before it changes: "creates a new file", "replaces a file of N
 * bytes", and a unified diff computed from the current file and the call's arguments (an
 * `edit_file`'s edits are applied to a copy in memory). Three steps, only the middle one touches
 * the disk:
 *
 *   planChange(facts, args)        → { action: 'write', target, content }     (pure)
 *   readCurrent(target, mayRead)   → { state: 'file', text, bytes }           (reads, if the policy lets it)
 *   describeChange(plan, current)  → { action: 'replace', bytesBefore: 120, bytesAfter: 98, diff: '--- …' }
 *
 * Security: the file is read only when a read of it would not be denied by the rules (the caller's
 * `mayRead`), at its resolved real path, without following a symlink put there since.
 */
export interface FileChange {
  /** create: writes a file that does not exist; replace: overwrites one; edit: changes parts; move: renames. */
  action: 'create' | 'replace' | 'edit' | 'move';
  /** The file that changes (a move's destination). */
  path: string;
  /** A move's source. */
  from: string | null;
  /** The size of the file at `path` now; null when it does not exist or was not read (see `note`). */
  bytesBefore: number | null;
  /** Its size after the call; null when not known. */
  bytesAfter: number | null;
  /** A unified diff (raw text, lines cut at MAX_LINE), at most MAX_DIFF_LINES lines; null when none can be shown. */
  diff: string | null;
  /** Diff lines left out. */
  diffMore: number;
  /** Diff lines cut at MAX_LINE characters (each ends "… (N more characters)"): the prompt then says the diff is not shown in full. */
  cutLines: number;
  /** Why there is no diff, or what to keep in mind ("reading it is denied by a rule"). */
  note: string | null;
  /**
   * The arguments the diff stands for, when the diff is worked out from them alone: a write's whole
   * new content, server-filesystem `edit_file`'s `edits`, Desktop Commander `edit_block`'s
   * `old_string` and `new_string`. The prompt shows them once, as the diff, when the diff is shown
   * whole (docs/approval.md "What the prompt shows").
   */
  contentArgs?: readonly string[];
}

export type ChangePlan =
  | { action: 'write'; target: PathSubject; content: string; append: boolean; args: readonly string[] }
  | { action: 'edit'; target: PathSubject; edits: Array<{ oldText: string; newText: string }>; byLines: boolean; args: readonly string[] }
  | { action: 'move'; source: PathSubject; target: PathSubject };

export type CurrentFile =
  | { state: 'missing' }
  | { state: 'file'; text: string; bytes: number }
  | { state: 'unreadable'; bytes: number | null; note: string };

export const MAX_DIFF_LINES = 200;
/** Characters kept of a diff line; the prompt shows fewer, once runs of blanks are shortened (docs/approval.md "What the prompt shows"). */
const MAX_LINE = 2000;
/** Files and contents above this are not compared (the diff would not be read anyway). */
const MAX_COMPARE_BYTES = 512 * 1024;
/** Bounds on the diff algorithm's work (changed lines, milliseconds); beyond them the change is summarised by sizes only. */
const MAX_EDIT_LENGTH = 1000;
const MAX_DIFF_MS = 1000;
/** Arguments that hold a write tool's whole new content. */
export const CONTENT_ARGS = ['content', 'contents', 'text', 'file_text', 'data', 'body'];

/** The change a call would make, from its facts and arguments; null when it is not a file write mcp-latch can describe. */
export function planChange(facts: CallFacts, args: Record<string, unknown>): ChangePlan | null {
  if (facts.kind !== 'write') return null;
  const writes = facts.subjects.filter((subject): subject is PathSubject => subject.type === 'path' && subject.access === 'write');
  if (writes.some((subject) => subject.path === null || subject.problem)) return null;

  if (facts.tool === 'move_file') {
    // Found by the text given: each end's `via` names the tree it moves (inspect.ts movedSubjects).
    const source = writes.find((subject) => subject.input === args.source);
    const target = writes.find((subject) => subject.input === args.destination);
    return source && target && writes.length === 2 ? { action: 'move', source, target } : null;
  }
  const [target] = writes;
  if (!target || writes.length !== 1) return null;
  const edits = editsOf(args);
  if (edits) return { action: 'edit', target, ...edits };
  const contentArg = CONTENT_ARGS.find((name) => typeof args[name] === 'string');
  if (!contentArg) return null;
  return { action: 'write', target, content: args[contentArg] as string, append: args['mode'] === 'append', args: [contentArg] };
}

/**
 * server-filesystem `edit_file` edits (`byLines`: it also matches line by line ignoring each line's
 * blanks), or desktop-commander's single `edit_block` replacement (exact only: a near match is reported, not applied).
 */
function editsOf(args: Record<string, unknown>): { edits: Array<{ oldText: string; newText: string }>; byLines: boolean; args: readonly string[] } | null {
  const edits = args['edits'];
  if (Array.isArray(edits) && edits.length > 0 && edits.every((edit) => isPlainObject(edit) && typeof edit['oldText'] === 'string' && typeof edit['newText'] === 'string')) {
    return { edits: edits.map((edit) => ({ oldText: (edit as Record<string, string>)['oldText']!, newText: (edit as Record<string, string>)['newText']! })), byLines: true, args: ['edits'] };
  }
  const { old_string: oldText, new_string: newText, expected_replacements: count } = args;
  if (typeof oldText === 'string' && typeof newText === 'string' && (count === undefined || count === 1)) return { edits: [{ oldText, newText }], byLines: false, args: ['old_string', 'new_string'] };
  return null;
}

/**
 * What a call will change, for the prompt and the page; null when it is not a file write that can
 * be described. Never throws: a failure to read shows as the change's note.
 */
export async function fileChangeOf(facts: CallFacts, args: Record<string, unknown>, policy: PolicyState): Promise<FileChange | null> {
  const plan = planChange(facts, args);
  if (!plan) return null;
  const mayRead = readableUnder(policy, facts);
  const safely = (subject: PathSubject) => readCurrent(subject, mayRead).catch((error: unknown): CurrentFile => ({ state: 'unreadable', bytes: null, note: `the current file could not be read (${String(error)})` }));
  const current = await safely(plan.target);
  const source = plan.action === 'move' ? await safely(plan.source) : null;
  return describeChange(plan, current, source);
}

/** Security: the gateway reads a file to diff it only when the rules would not deny reading it. */
function readableUnder(policy: PolicyState, facts: Pick<CallFacts, 'server' | 'tool'>): (subject: PathSubject) => boolean {
  return (subject) => {
    const read: CallFacts = { server: facts.server, tool: facts.tool, kind: 'read', kindTrusted: true, subjects: [{ ...subject, access: 'read' }], commandInfo: null, digest: () => '' };
    return decide(read, policy).verdict !== 'deny';
  };
}

/**
 * Reads the current file for a diff. `mayRead` is asked first; the file is opened at its real path
 * with O_NOFOLLOW (and O_NONBLOCK, so a FIFO cannot hang the prompt) and must be a regular file.
 */
async function readCurrent(target: PathSubject, mayRead: (subject: PathSubject) => boolean): Promise<CurrentFile> {
  if (target.realPath === null) return { state: 'unreadable', bytes: null, note: 'the path could not be resolved' };
  if (!mayRead(target)) return { state: 'unreadable', bytes: null, note: 'the current file is not shown: reading it is denied by a rule' };
  let handle;
  try {
    handle = await open(target.realPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { state: 'missing' };
    if (code === 'ELOOP') return { state: 'unreadable', bytes: null, note: 'the path is a symbolic link now; it was not followed' };
    return { state: 'unreadable', bytes: null, note: `the current file could not be read (${code ?? 'error'})` };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { state: 'unreadable', bytes: null, note: 'the path is not a regular file' };
    if (stat.size > MAX_COMPARE_BYTES) return { state: 'unreadable', bytes: stat.size, note: `the current file is too large to compare (over ${MAX_COMPARE_BYTES} bytes)` };
    const buffer = await handle.readFile();
    if (buffer.includes(0)) return { state: 'unreadable', bytes: buffer.length, note: 'the current file is binary; no diff is shown' };
    return { state: 'file', text: buffer.toString('utf8'), bytes: buffer.length };
  } finally {
    await handle.close();
  }
}

/**
 * The change as the person sees it. `current` is the target's state; for a move, `source` is the
 * source's state (its size is what moves).
 */
export function describeChange(plan: ChangePlan, current: CurrentFile, source: CurrentFile | null = null): FileChange {
  const path = plan.target.path ?? plan.target.input;
  const before = current.state === 'missing' ? null : current.bytes;
  if (plan.action === 'move') {
    const moved = source && source.state !== 'missing' ? source.bytes : null;
    const note = current.state === 'unreadable' ? current.note : null;
    return { action: 'move', path, from: plan.source.path ?? plan.source.input, bytesBefore: before, bytesAfter: moved, diff: null, diffMore: 0, cutLines: 0, note };
  }
  const base: Omit<FileChange, 'bytesAfter' | 'diff' | 'diffMore' | 'cutLines' | 'note'> = {
    action: plan.action === 'edit' ? 'edit' : current.state === 'missing' ? 'create' : 'replace',
    path,
    from: null,
    bytesBefore: before,
  };
  if (current.state === 'unreadable') {
    const after = plan.action === 'write' && !plan.append ? Buffer.byteLength(plan.content) : null;
    return { ...base, bytesAfter: after, diff: null, diffMore: 0, cutLines: 0, note: current.note };
  }
  const oldText = current.state === 'file' ? current.text : '';
  let newText: string;
  let note: string | null = null;
  if (plan.action === 'write') newText = plan.append ? oldText + plan.content : plan.content;
  else {
    if (current.state === 'missing') return { ...base, bytesAfter: null, diff: null, diffMore: 0, cutLines: 0, note: 'the file does not exist, so the edit will fail' };
    const edited = applyEdits(oldText, plan.edits, plan.byLines);
    if (edited === null) {
      return { ...base, bytesAfter: null, diff: null, diffMore: 0, cutLines: 0, note: `an edit's old text is not in the file${plan.byLines ? ', not even ignoring indentation' : ' exactly'}, so what it would change cannot be shown (the server should refuse it)` };
    }
    newText = edited.text;
    if (edited.byLines) note = 'an edit matched only ignoring indentation, as the server matches it: the diff shows the indentation the server gives the new text';
  }
  const bytesAfter = Buffer.byteLength(newText);
  if (bytesAfter > MAX_COMPARE_BYTES) return { ...base, bytesAfter, diff: null, diffMore: 0, cutLines: 0, note: `the new content is too large to compare (over ${MAX_COMPARE_BYTES} bytes)` };
  const diff = unifiedDiff(path, oldText, newText);
  if (!diff) return { ...base, bytesAfter, diff: null, diffMore: 0, cutLines: 0, note: 'too many changes to compare line by line' };
  return { ...base, bytesAfter, diff: diff.text, diffMore: diff.more, cutLines: diff.cutLines, note: diff.text === '' ? 'the content stays the same' : note, contentArgs: plan.args };
}

/**
 * Edits applied in order to a copy, each replacing the first exact occurrence (line endings
 * normalised as the server does); null when one does not match. `byLines`: server-filesystem's
 * fallback (its lib.js applyFileEdits, 2026.8.31), followed step for step: the first run of lines
 * equal to the old text's lines once each is trimmed, replaced by the new text's lines re-indented
 * from the first matched line (review-approve15 A2: such an edit was shown as "no diff, Risk: low"
 * and wrote a `curl … | sh` line).
 */
export function applyEdits(text: string, edits: Array<{ oldText: string; newText: string }>, byLines = false): { text: string; byLines: boolean } | null {
  let result = normalizeLineEndings(text);
  let matchedByLines = false;
  for (const edit of edits) {
    const oldText = normalizeLineEndings(edit.oldText);
    const newText = normalizeLineEndings(edit.newText);
    if (oldText !== '' && result.includes(oldText)) {
      result = result.replace(oldText, () => newText);
      continue;
    }
    const lines = byLines && oldText !== '' ? replaceLines(result, oldText, newText) : null;
    if (lines === null) return null;
    result = lines;
    matchedByLines = true;
  }
  return { text: result, byLines: matchedByLines };
}

/** server-filesystem's line-by-line match ignoring each line's surrounding blanks; null when no run of lines matches. */
function replaceLines(content: string, oldText: string, newText: string): string | null {
  const oldLines = oldText.split('\n');
  const contentLines = content.split('\n');
  for (let i = 0; i <= contentLines.length - oldLines.length; i++) {
    if (!oldLines.every((oldLine, j) => oldLine.trim() === contentLines[i + j]!.trim())) continue;
    const originalIndent = /^\s*/.exec(contentLines[i]!)?.[0] ?? '';
    const newLines = newText.split('\n').map((line, j) => {
      if (j === 0) return originalIndent + line.trimStart();
      const oldIndent = /^\s*/.exec(oldLines[j] ?? '')?.[0] ?? '';
      const newIndent = /^\s*/.exec(line)?.[0] ?? '';
      if (oldIndent && newIndent) return originalIndent + ' '.repeat(Math.max(0, newIndent.length - oldIndent.length)) + line.trimStart();
      return line;
    });
    contentLines.splice(i, oldLines.length, ...newLines);
    return contentLines.join('\n');
  }
  return null;
}

function normalizeLineEndings(text: string): string {
  return text.replace(/\r\n/g, '\n');
}

/**
 * A unified diff of two texts (3 lines of context), cut at MAX_DIFF_LINES lines of at most MAX_LINE
 * characters; `more` counts the lines left out, `cutLines` the lines cut. '' when the texts are equal; null when the texts
 * differ too much for the bounded algorithm.
 */
export function unifiedDiff(path: string, oldText: string, newText: string): { text: string; more: number; cutLines: number } | null {
  if (oldText === newText) return { text: '', more: 0, cutLines: 0 };
  const patch = structuredPatch(path, path, oldText, newText, undefined, undefined, { context: 3, maxEditLength: MAX_EDIT_LENGTH, timeout: MAX_DIFF_MS });
  if (!patch) return null;
  // The path on its header's one line: a line break in it drew a line of its own into the diff, a fake
  // `+…` line of the file (round 29 review F29-2). The prompt and the page escape each line again.
  const label = escapeText(path);
  const lines = [`--- ${oldText === '' ? '/dev/null' : label}`, `+++ ${label}`];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    lines.push(...hunk.lines);
  }
  const kept = lines.slice(0, MAX_DIFF_LINES);
  const cutLines = kept.filter((line) => line.length > MAX_LINE).length;
  const text = kept.map((line) => (line.length <= MAX_LINE ? line : `${head(line, MAX_LINE)}… (${line.length - head(line, MAX_LINE).length} more characters)`)).join('\n');
  return { text, more: Math.max(0, lines.length - MAX_DIFF_LINES), cutLines };
}

/** "creates a new file of 98 bytes", "replaces a file of 120 bytes (new size 98 bytes)", for the prompt and the page. */
export function changeSummary(change: FileChange): string {
  const size = (bytes: number | null) => (bytes === null ? 'unknown size' : `${bytes} byte${bytes === 1 ? '' : 's'}`);
  switch (change.action) {
    case 'create':
      return `creates a new file (${size(change.bytesAfter)})`;
    case 'replace':
      return `replaces a file of ${size(change.bytesBefore)} (new size ${size(change.bytesAfter)})`;
    case 'edit':
      return `edits a file of ${size(change.bytesBefore)}${change.bytesAfter === null ? '' : ` (new size ${size(change.bytesAfter)})`}`;
    case 'move':
      return `moves a file${change.bytesAfter === null ? '' : ` of ${size(change.bytesAfter)}`}${change.bytesBefore === null ? ' to a new name' : `, replacing a file of ${size(change.bytesBefore)}`}`;
  }
}
