import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { DefinitionReport } from '../pins/check.js';
import { VERDICT_RANK, type CommandInfo, type Decision, type Kind, type PathReport, type Segment, type SubjectDecision, type Verdict } from '../policy/types.js';
import { isSafeCommand } from '../policy/safe.js';
import { ACCEPT_DEFINITION, definitionPayload, offersAccept, renderDefinition } from './definition-prompt.js';
import { cutShown, escapeName, escapeShown, escapeText, shownRule } from './escape.js';
import { readEdit, showsAsTyped, type CallEdit, type EditableField } from './edit.js';
import { changeSummary, type FileChange } from './file-change.js';
import { PRIVILEGE } from '../programs.js';
import { isPlainObject } from '../values.js';
import { assessRisk, riskLine, type Risk } from './risk.js';
import { HEIGHT_BOUND, MAX_PROMPT_ROWS, columnsOf, fieldWithin, fitSections, formRows, listWithin, rowsOf, type Section } from './prompt-height.js';
// escapeText and escapeJson mark look-alike words once this is loaded (escape.ts useLookAlikeMarker).
import './look-alike.js';

/**
 * The approval prompt (docs/approval.md): an `elicitation/create` form whose message a person can judge at a
 * glance, with every call-supplied value escaped, and the structured payload in
 * `_meta["mcp-latch/request"]`. Example message:
 *
 *   shell wants to run the tool run_command (kind: command).
 *
 *   Risk: medium — overwrites a file (redirection >)
 *   Command: npm run test -- --run > out.txt
 *     1. npm run test -- --run
 *        writes out.txt (redirection >)
 *     Runs in: /home/me/proj (the server's default)
 *   Paths:
 *     write /home/me/proj/out.txt (inside the workspace)
 *   Why it asks:
 *     - no rule matched `npm run test -- --run` (mode default) → ask
 *     - no rule matched write of /home/me/proj/out.txt (mode default) → ask
 *   Arguments: {"command":"npm run test -- --run > out.txt"}
 *   You may change before approving: command (the changed call is checked again and allowed once)
 *
 * A write shows its change before the paths: "Change: replaces a file of 120 bytes (new size 98
 * bytes)" and the first lines of the diff, each escaped and indented so it cannot pass for a line
 * of the prompt.
 */
export const ALLOW_ONCE = 'Allow once';
const ALLOW_SESSION = 'Allow for this session';
const ALWAYS_PREFIX = 'Always allow: ';
const DENY = 'Deny';

/**
 * Diff lines in the prompt text; the page and `_meta` carry more. Claude Code's form does not scroll
 * (its buttons fall below a short terminal), so the text stays bounded; 40 lines shows an ordinary
 * edit whole (docs/approval.md "What the prompt shows": at 20, most edits were "not shown").
 */
export const MAX_DIFF_LINES_IN_PROMPT = 40;

export interface PromptInput {
  server: string;
  tool: string;
  kind: Kind;
  decision: Decision;
  args: unknown;
  argsDigest: string;
  /** Rules "Always allow" would save; null when the call cannot be remembered. */
  rememberRules: string[] | null;
  /** "Always allow" is not offered because its rule would hold a credential (ask.ts promptInput). */
  rememberHoldsCredential?: boolean;
  /** Whether "Allow for this session" is offered (not when an ask rule made it ask). */
  offerSession: boolean;
  /** What a write will change (file-change.ts); absent or null when it is not a file write. */
  change?: FileChange | null;
  /** Where a command runs; absent or null when the call runs no command. */
  runsIn?: RunsIn | null;
  /** The tool's pin and scan findings (latch/definition-prompt.ts). */
  definition?: DefinitionReport;
  /** The arguments the person may change before approving (edit.ts); absent or empty when none. */
  editable?: EditableField[];
  /** The user whose call it is, on a team gateway (docs/team.md). */
  user?: string;
}

/** A command's working directory: `given` when the call names it, else the server's own. */
export interface RunsIn {
  dir: string | null;
  given: boolean;
}

/** An edit field of the form is named for its argument: `edit_command`. */
const EDIT_FIELD_PREFIX = 'edit_';
/** Longer values are edited on the approval page only: a form's text field is one line. */
const MAX_FORM_EDIT_CHARS = 2000;

export type PromptChoice = { type: 'once' } | { type: 'session' } | { type: 'always'; rules: string[] } | { type: 'accept' } | { type: 'deny' };

export function choiceLabels(input: PromptInput): string[] {
  // A call the text does not show in full is allowed once at most: nothing broader than what was read (docs/approval.md).
  return labelsFor(input, notShown(input).length === 0);
}

/** The choices when the call is shown whole (`whole`) or not. */
function labelsFor(input: PromptInput, whole: boolean): string[] {
  // A changed tool: accepting its new definition, or this call only; nothing broader is remembered.
  if (offersAccept(input.definition)) return whole ? [ACCEPT_DEFINITION, ALLOW_ONCE, DENY] : [ALLOW_ONCE, DENY];
  const labels = [ALLOW_ONCE];
  if (input.offerSession && whole) labels.push(ALLOW_SESSION);
  if (input.rememberRules && whole) labels.push(ALWAYS_PREFIX + input.rememberRules.map(shownRule).join(', '));
  labels.push(DENY);
  return labels;
}

/** Maps an answer's `decision` value back to what it means; null when it is not one of the offered choices. */
export function parseChoice(value: unknown, input: PromptInput): PromptChoice | null {
  if (typeof value !== 'string' || !choiceLabels(input).includes(value)) return null;
  if (value === ALLOW_ONCE) return { type: 'once' };
  if (value === ALLOW_SESSION) return { type: 'session' };
  if (value === DENY) return { type: 'deny' };
  if (value === ACCEPT_DEFINITION) return { type: 'accept' };
  return { type: 'always', rules: input.rememberRules ?? [] };
}

export function buildPrompt(input: PromptInput): ElicitRequestFormParams {
  return {
    mode: 'form',
    message: renderMessage(input),
    requestedSchema: { type: 'object', properties: formProperties(input, choiceLabels(input), rendered(input).edits), required: ['decision'] },
    _meta: { 'mcp-latch/request': requestPayload(input) },
  };
}

/** The form's fields under the message: the choices, the note, the edit fields (their rows count against the height: prompt-height.ts formRows). */
function formProperties(input: PromptInput, labels: string[], edits: readonly EditableField[]): FormProperties {
  return {
    decision: {
      type: 'string',
      title: 'Decision',
      // A server names its tools: escaped as in the message, and as short.
      description: `Allow or deny ${cutShown(escapeName(input.server), MAX_NAME_SHOWN).text}/${cutShown(escapeName(input.tool), MAX_NAME_SHOWN).text}`,
      enum: labels,
    },
    note: {
      type: 'string',
      title: 'Message to the assistant',
      description: 'Optional. Sent to the assistant with your decision.',
      maxLength: 2000,
    },
    ...editProperties(edits),
  };
}

type FormProperties = ElicitRequestFormParams['requestedSchema']['properties'];

const ROLE_TITLES: Record<EditableField['role'], string> = { command: 'Command', cwd: 'Working directory', path: 'Path', content: 'Content' };

/** The arguments a form field could edit: one-line values a text field shows as they are. */
function editCandidates(input: PromptInput): EditableField[] {
  return (input.editable ?? []).filter((field) => field.value.length <= MAX_FORM_EDIT_CHARS && showsAsTyped(field.value, false));
}

/** The fields the form offers for editing: the candidates its height leaves room for (see `rendered`). */
function formEditFields(input: PromptInput): readonly EditableField[] {
  return rendered(input).edits;
}

/** One string field per editable argument, prefilled with the call's value: an unchanged value is no edit. */
function editProperties(edits: readonly EditableField[]): FormProperties {
  const properties: FormProperties = {};
  for (const field of edits) {
    properties[EDIT_FIELD_PREFIX + field.arg] = {
      type: 'string',
      title: `${ROLE_TITLES[field.role]} (${field.arg})`,
      description: 'Change it to run that call once instead (checked against your rules again), or leave it.',
      default: field.value,
      maxLength: MAX_FORM_EDIT_CHARS,
    };
  }
  return properties;
}

/** The structured payload of docs/approval.md, for clients and tools that want more than the text. */
export function requestPayload(input: PromptInput): Record<string, unknown> {
  const info = input.decision.commandInfo;
  const change = input.change ?? null;
  const risk = riskOf(input);
  return {
    server: input.server,
    tool: input.tool,
    kind: input.kind,
    reason: input.decision.reason,
    rule: input.decision.rule,
    paths: input.decision.paths.map((path) => ({ path: path.path, realPath: path.realPath, access: path.access, inWorkspace: path.inWorkspace })),
    command: info?.raw ?? null,
    commandSignature: info?.signature ?? null,
    commandInfo: info,
    rememberable: input.rememberRules !== null,
    notShown: notShown(input),
    argsDigest: input.argsDigest,
    risk,
    runsIn: input.runsIn ?? null,
    change,
    diff: change?.diff ?? null,
    bytesBefore: change?.bytesBefore ?? null,
    bytesAfter: change?.bytesAfter ?? null,
    definition: definitionPayload(input.definition),
    editable: (input.editable ?? []).map((field) => ({ arg: field.arg, role: field.role })),
    ...(input.user !== undefined ? { user: input.user } : {}),
  };
}

/** The call's risk (risk.ts): a function of the call alone, so the prompt and the page agree. */
export function riskOf(input: PromptInput): Risk {
  return assessRisk(input.tool, input.decision, input.change ?? null);
}

export function renderMessage(input: PromptInput): string {
  return rendered(input).text;
}

/** Which parts of the call the prompt text cuts (the bounds below); empty when it shows everything that decides. */
export function notShown(input: PromptInput): string[] {
  return rendered(input).hidden;
}

/**
 * The prompt's bounds (docs/approval.md "What the prompt shows"). Each is applied where the text is
 * built, and what it cut is recorded there: the Risk line, the choices and `_meta` report the same cuts.
 */
const MAX_ARGS_SHOWN = 600;
const MAX_COMMAND_SHOWN = 400;
/** Commands listed (identical ones merged), those that decide first. */
const MAX_SEGMENTS_SHOWN = 12;
const MAX_SEGMENT_SHOWN = 200;
/** The line summing up the allowed commands past the list. */
const MAX_ALLOWED_SUMMARY = 400;
const MAX_SUBSTITUTIONS_SHOWN = 5;
const MAX_SUBSTITUTION_SHOWN = 120;
/** Distinct reasons listed (identical ones merged), denials first. */
const MAX_REASONS_SHOWN = 12;
/** Characters of a diff line shown, after runs of blanks are shortened. */
const MAX_DIFF_LINE_SHOWN = 500;
/**
 * Lines of a stdin text shown: all up to this many, else the first 20 and the last STDIN_TAIL_LINES;
 * 200 characters each. 30, not 40 since round 20: with the form's rows counted in the height, a
 * head and tail of 41 lines no longer fit beside a command's other parts.
 */
const MAX_STDIN_LINES_SHOWN = 30;
const STDIN_TAIL_LINES = 10;
const MAX_STDIN_LINE_SHOWN = 200;
const STDIN_ABOVE = '(shown above under Stdin)';
const DIFF_ABOVE = '(shown above as the diff)';
const COMMAND_ABOVE = '(shown above as the Command)';

/** The message, what it cut and the form's edit fields; one per input (choiceLabels, the message, the form and `_meta` all read it). */
const renderings = new WeakMap<PromptInput, Rendered>();

interface Rendered {
  text: string;
  hidden: string[];
  edits: readonly EditableField[];
}

/**
 * Which parts get the message's rows first (prompt-height.ts): the command and the resolved paths
 * carry the risk, and are never cut for the diff, the reasons or the arguments.
 */
const RANK = { notes: 0, commandText: 1, paths: 2, commands: 3, substitutions: 4, change: 5, stdin: 6, definition: 7, reasons: 8, allowed: 9, arguments: 10 } as const;

/** What the broader choices would save or allow, when the lines saying it do not fit with the rest. */
const CHOICES = 'what the broader choices cover';
/** The parts the Risk line names, in the order the message shows them. */
const PARTS = ['tool name', 'diff', 'change', 'command text', 'commands', 'substitutions', 'stdin', 'paths', 'reasons', 'arguments', 'definition', CHOICES];
/** The longest Risk line: its rows are kept for it before the parts are fitted. */
const LONGEST_RISK = riskCut(PARTS, true);
/** The server's and the tool's names in the first line (a name of 5,000 characters took 50 rows). */
const MAX_NAME_SHOWN = 200;

function riskCut(hidden: string[], byHeight: boolean): string {
  return `Risk: high — part of this call is not shown (${hidden.join(', ')}${byHeight ? `; ${HEIGHT_BOUND}` : ''}); review it on the approval page or deny`;
}

function rendered(input: PromptInput): Rendered {
  const known = renderings.get(input);
  if (known) return known;
  const cuts = new Set<string>();
  const shown = (text: string, max: number, part: string, json = false): string => {
    const bounded = escapeShown(text, max, json);
    if (bounded.cut) cuts.add(part);
    return bounded.text;
  };
  const info = input.decision.commandInfo;
  const sections: Section[] = [];
  if (input.change) sections.push(changeSection(input.change, shown, cuts));
  if (info) sections.push(...commandSections(info, input.decision, shown, cuts));
  if (info?.stdin) sections.push(stdinSection(info.stdin));
  if (input.runsIn) sections.push(lineSection(`  Runs in: ${renderRunsIn(input.runsIn)}`, 'paths', RANK.paths));
  if (input.decision.paths.length > 0) sections.push(pathsSection(input.decision.paths));
  sections.push(whySection(input.decision, cuts));
  sections.push(argumentsSection(input));
  const definition = renderDefinition(input.definition, cuts);
  if (definition.length > 0) sections.push({ part: 'definition', rank: RANK.definition, fit: (rows) => listWithin(definition, rows, (left) => (left > 0 ? `  … ${left} more line${left === 1 ? '' : 's'} about the definition` : null), (left) => `The tool's definition: ${left} lines about it not shown`) });

  // Names past ASCII are shown escaped: a look-alike of another server's name is seen as one (escapeName).
  const name = (text: string): string => {
    const bounded = cutShown(escapeName(text), MAX_NAME_SHOWN);
    if (bounded.cut) cuts.add('tool name');
    return bounded.text;
  };
  const first = `${name(input.server)} wants to run the tool ${name(input.tool)} (kind: ${input.kind}).`;
  const riskWhole = `Risk: ${riskLine(riskOf(input))}`;
  // Rows kept for the lines around the parts, as tall as they can be: the bound holds whatever is cut.
  const head = rowsOf([first, '', rowsOf(riskWhole) > rowsOf(LONGEST_RISK) ? riskWhole : LONGEST_RISK].join('\n'));
  // The rows the parts share: what the lines under them and the form (its choices, the note, the
  // edit fields) leave of the bound (round 19's leftover: the form's rows were not counted).
  const rowsFor = (showsWhole: boolean, edits: readonly EditableField[]) => MAX_PROMPT_ROWS - head - choiceRows(input, showsWhole) - formRows(Object.values(formProperties(input, labelsFor(input, showsWhole), edits)));
  // An edit field is offered in the form while each part keeps a row with the fewest choices; the
  // others are edited on the approval page.
  const edits = editCandidates(input);
  while (edits.length > 0 && rowsFor(false, edits) < sections.length) edits.pop();
  const fit = (showsWhole: boolean) => {
    const fitCuts = new Set(cuts);
    return { ...fitSections(sections, rowsFor(showsWhole, edits), fitCuts), cuts: fitCuts };
  };
  // The lines and choices of the broader choices are there only when nothing is cut: a fit that cuts
  // anyway (or has not a row for each part) is fitted again without them, so they take no rows from
  // the parts. When every part then fits, the choices are what does not: they are not offered
  // (allowed once at most).
  const whole = cuts.size === 0;
  let fitted = whole && rowsFor(true, edits) >= sections.length ? fit(true) : null;
  if (fitted === null || fitted.cuts.size > 0) {
    fitted = fit(false);
    if (whole && fitted.cuts.size === 0) fitted = { ...fitted, byHeight: true, cuts: new Set([CHOICES]) };
  }
  const hidden = PARTS.filter((part) => fitted.cuts.has(part));
  const lines = [first, '', hidden.length === 0 ? riskWhole : riskCut(hidden, fitted.byHeight), ...fitted.lines.flat(), ...choiceLines(input, hidden.length === 0)];
  const result = { text: lines.join('\n'), hidden, edits };
  renderings.set(input, result);
  return result;
}

/** Rows of the lines under the parts (the choices themselves are the form's: formRows). */
function choiceRows(input: PromptInput, whole: boolean): number {
  const lines = choiceLines(input, whole);
  return lines.length === 0 ? 0 : rowsOf(lines.join('\n'));
}

/** What each broader choice covers, and what may be edited; `whole`: nothing of the call is cut. */
function choiceLines(input: PromptInput, whole: boolean): string[] {
  const lines: string[] = [];
  if (offersAccept(input.definition) && whole) lines.push(`"${ACCEPT_DEFINITION}" pins it as it is now and allows this call.`);
  // A session grant is the rules "Always allow" would save, or the exact call (latch/ask.ts applyAnswer).
  const remembered = whole ? input.rememberRules?.map(shownRule).join(', ') : undefined;
  if (input.offerSession && whole) lines.push(`"Allow for this session" allows: ${remembered ?? 'this exact call'} (until the client disconnects)`);
  if (remembered) lines.push(`"Always allow" saves: ${remembered}`);
  else if (input.rememberHoldsCredential && whole) lines.push(`"Always allow" is not offered: its rule would hold a credential, and rules are saved in clear in the config. To remember this call, put the credential in an environment variable.`);
  const editable = input.editable ?? [];
  if (editable.length > 0) lines.push(`You may change before approving: ${editable.map((field) => escapeText(field.arg)).join(', ')} (the changed call is checked again and allowed once)`);
  return lines;
}

/** One line that is shown whole or not at all (it says so). */
function lineSection(line: string, part: string, rank: number): Section {
  return { part, rank, fit: (rows) => listWithin([line], rows, (left) => (left > 0 ? `${line.slice(0, line.indexOf(':') + 1)} not shown (${columnsOf(line)} characters)` : null)) };
}

/**
 * The arguments, fitted last: an argument shown above (as the diff, the Command or under Stdin) is
 * named so only when that part was shown whole, which the parts fitted before it decided.
 */
function argumentsSection(input: PromptInput): Section {
  return {
    part: 'arguments',
    rank: RANK.arguments,
    fit: (rows, cuts) => {
      const info = input.decision.commandInfo;
      // The stdin text is shown above, line by line, and a write's new content (an edit_file's edits)
      // as a diff shown whole: once is enough, and they must not fill this bound (a write of over 600
      // characters, edits of over 600, were "not shown").
      let args = info?.stdin && isPlainObject(input.args) ? { ...input.args, [info.stdin.arg]: STDIN_ABOVE } : input.args;
      for (const name of cuts.has('diff') ? [] : (input.change?.contentArgs ?? [])) if (isPlainObject(args) && args[name] !== undefined) args = { ...args, [name]: DIFF_ABOVE };
      // The command text shown whole on its Command line: the argument that carries it, once.
      if (info && !cuts.has('command text') && isPlainObject(args)) args = withCommandAbove(args, info.raw);
      const field = fieldWithin('Arguments: ', argumentsText(args), MAX_ARGS_SHOWN, rows, true);
      if (field.bounded) cuts.add('arguments');
      return field;
    },
  };
}

/** The arguments with each one whose value is the command's text, as sent, pointing at the Command line. */
function withCommandAbove(args: Record<string, unknown>, raw: string): Record<string, unknown> {
  let out = args;
  // A short one is shorter than the pointer.
  if (raw.length <= COMMAND_ABOVE.length) return args;
  for (const [key, value] of Object.entries(args)) if (value === raw) out = { ...out, [key]: COMMAND_ABOVE };
  return out;
}

/** Escapes, shortens runs of blanks and cuts a call-supplied text at `max`, recording `part` as not shown when it cuts. */
type Shown = (text: string, max: number, part: string) => string;

/**
 * The text a command reads as code (or xargs as words) from the call's stdin argument, line by line
 * (review-approve15 A2): all of it up to 30 lines, else the first 20 and the last 10; fewer from the
 * first when the rows left are fewer.
 */
function stdinSection(stdin: NonNullable<CommandInfo['stdin']>): Section {
  const text = stdin.text.split('\n');
  if (text.length > 1 && text.at(-1) === '') text.pop();
  const what = stdin.reader === 'xargs' ? 'the words xargs adds' : `code run by ${escapeText(stdin.reader)}`;
  const header = `  Stdin (argument ${escapeText(stdin.arg)}, ${text.length} line${text.length === 1 ? '' : 's'}), ${what}:`;
  const line = (value: string) => escapeShown(value, MAX_STDIN_LINE_SHOWN);
  const show = (values: string[]) => values.map((value) => `    | ${line(value).text}`);
  const cutIn = (values: string[]) => values.some((value) => line(value).cut);
  return {
    part: 'stdin',
    rank: RANK.stdin,
    fit: (rows, cuts) => {
      const head = text.length <= MAX_STDIN_LINES_SHOWN ? text : text.slice(0, MAX_STDIN_LINES_SHOWN - STDIN_TAIL_LINES);
      const tail = text.length <= MAX_STDIN_LINES_SHOWN ? [] : text.slice(text.length - STDIN_TAIL_LINES);
      const between = text.length - head.length - tail.length;
      const usual = [header, ...show(head), ...(between > 0 ? [`    … ${between} lines not shown …`, ...show(tail)] : [])];
      if (rowsOf(usual.join('\n')) <= rows) {
        if (between > 0 || cutIn([...head, ...tail])) cuts.add('stdin');
        return { lines: usual, cut: false };
      }
      const first = listWithin([header, ...show(head)], rows, (left) => {
        const count = text.length - Math.max(0, head.length - left);
        return count > 0 ? `    … ${count} more lines not shown` : null;
      }, () => `  Stdin (argument ${escapeText(stdin.arg)}): ${text.length} lines not shown`);
      if (cutIn(text.slice(0, Math.max(0, first.lines.length - 2)))) cuts.add('stdin');
      return first;
    },
  };
}

function changeSection(change: FileChange, shown: Shown, cuts: Set<string>): Section {
  const lines = [`Change: ${changeSummary(change)}${change.from ? ` from ${escapeText(change.from)}` : ''}: ${escapeText(change.path)}`];
  if (change.note) lines.push(`  (${change.note})`);
  let diffLines = 0;
  let beyond = 0;
  if (change.diff) {
    const diff = change.diff.split('\n');
    // Each line escaped on its own and indented: a diff line cannot forge a line of the prompt.
    for (const line of diff.slice(0, MAX_DIFF_LINES_IN_PROMPT)) lines.push(`    ${shown(line, MAX_DIFF_LINE_SHOWN, 'diff')}`);
    diffLines = Math.min(diff.length, MAX_DIFF_LINES_IN_PROMPT);
    beyond = Math.max(0, diff.length - MAX_DIFF_LINES_IN_PROMPT) + change.diffMore;
    if (beyond > 0 || change.cutLines > 0) cuts.add('diff');
  }
  // An edit whose result could not be worked out: the text does not show what it changes.
  if (change.action === 'edit' && change.diff === null) cuts.add('change');
  const more = (left: number) => {
    const count = Math.min(left, diffLines) + beyond;
    return count > 0 ? `    … ${count} more diff line${count === 1 ? '' : 's'}` : left > 0 ? '  … the change is not shown' : null;
  };
  return { part: change.diff ? 'diff' : 'change', rank: RANK.change, fit: (rows) => listWithin(lines, rows, more, (left) => `Change: not shown (${left + beyond} lines)`) };
}

function renderRunsIn(runsIn: RunsIn): string {
  if (runsIn.dir === null) return "the server's own working directory (not known to mcp-latch)";
  return `${escapeText(runsIn.dir)}${runsIn.given ? '' : " (the server's default)"}`;
}

/**
 * Every path with its access and workspace side, in the call's order; when they do not all fit,
 * those that decide first (a problem, outside the workspace, a write), then how many more.
 */
function pathsSection(paths: PathReport[]): Section {
  const lines = paths.map((path) => {
    const where = path.inWorkspace ? 'inside the workspace' : 'OUTSIDE the workspace';
    const real = path.realPath && path.realPath !== path.path ? ` -> real path ${escapeText(path.realPath)}` : '';
    const problem = path.problem ? ` [${escapeText(path.problem)}]` : '';
    return `  ${path.access === 'write' ? 'write' : 'read '} ${escapeText(path.path)}${real} (${where})${problem}`;
  });
  const weight = (path: PathReport) => (path.problem ? 0 : !path.inWorkspace ? 1 : path.access === 'write' ? 2 : 3);
  const decidingFirst = paths.map((path, index) => ({ line: lines[index]!, weight: weight(path), index })).sort((a, b) => a.weight - b.weight || a.index - b.index);
  return {
    part: 'paths',
    rank: RANK.paths,
    fit: (rows) => {
      const all = ['Paths:', ...lines];
      if (rowsOf(all.join('\n')) <= rows) return { lines: all, cut: false };
      return listWithin(['Paths:', ...decidingFirst.map((entry) => entry.line)], rows, (left) => `  … and ${Math.min(left, paths.length)} more path${left === 1 ? '' : 's'}`, () => `Paths: ${paths.length} not shown`);
    },
  };
}

/** " (×3)" after a line shown once for several identical ones. */
function times(count: number): string {
  return count > 1 ? ` (×${count})` : '';
}

/** Identical items as one, in the order of their first one, with their count. */
function merged<T>(items: T[], key: (item: T) => string): Array<{ item: T; count: number }> {
  const groups = new Map<string, { item: T; count: number }>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.count++;
    else groups.set(k, { item, count: 1 });
  }
  return [...groups.values()];
}

/** Every part that needs the person, with its verdict; identical reasons once with their count, denials first. */
function whySection(decision: Decision, cuts: Set<string>): Section {
  const parts = decision.subjects.filter((subject) => subject.verdict !== 'allow');
  const reasons = merged(parts, (part) => `${part.verdict} ${part.reason}`).sort((a, b) => VERDICT_RANK[b.item.verdict] - VERDICT_RANK[a.item.verdict]);
  if (reasons.length <= 1) {
    const only = reasons.length === 1 && parts.length > 1 ? `${reasons[0]!.item.reason}${times(reasons[0]!.count)}` : decision.reason;
    return { part: 'reasons', rank: RANK.reasons, fit: (rows) => fieldWithin('Why it asks: ', only, Infinity, rows) };
  }
  const lines = ['Why it asks:', ...reasons.slice(0, MAX_REASONS_SHOWN).map(({ item, count }) => `  - ${escapeText(item.reason)} → ${item.verdict}${times(count)}`)];
  const beyond = Math.max(0, reasons.length - MAX_REASONS_SHOWN);
  if (beyond > 0) cuts.add('reasons');
  const more = (left: number) => (left + beyond > 0 ? `  … and ${Math.min(left, lines.length - 1) + beyond} more` : null);
  return { part: 'reasons', rank: RANK.reasons, fit: (rows) => listWithin(lines, rows, more, () => `Why it asks: ${reasons.length} reasons not shown`) };
}

/** The weight of a command its rules (or the mode) allow: last in the list, and not counted against its bound. */
const ALLOWED = 4;

/**
 * How much a command decides the call, for the order of the list (lower first): denied; unanalysable
 * by itself; asking and not read-only; asking only because the whole text is unanalysable; allowed.
 */
function weight(segment: Segment, verdict: Verdict | undefined): number {
  if (verdict === 'deny') return 0;
  if ((segment.unanalyzable?.length ?? 0) > 0) return 1;
  if (verdict === 'allow') return ALLOWED;
  return isSafeCommand(segment) ? 3 : 2;
}

/** A redirection's operator (`>`, `2>>`, `&>`, `<<<`): the `via` of a path a redirection names (subjects/shell/walk.ts). */
const REDIRECTION = /^\d*[<>&]/;

type CommandGroup = { item: { index: number; text: string[]; cut: boolean; weight: number; byRule: boolean }; count: number };

/** A command of the list as its lines: its number, words and notes, then its redirections. */
function commandBlock({ item, count }: CommandGroup): string {
  return [`  ${item.index + 1}. ${item.text[0]}${times(count)}`, ...item.text.slice(1)].join('\n');
}

/** The Command line, the commands that need the person, those the rules allow, the substitutions and what cannot be analysed, each a part fitted on its own. */
function commandSections(info: CommandInfo, decision: Decision, shown: Shown, cuts: Set<string>): Section[] {
  const commandText: Section = {
    part: 'command text',
    rank: RANK.commandText,
    fit: (rows, cuts) => {
      const field = fieldWithin('Command: ', info.raw, MAX_COMMAND_SHOWN, rows);
      if (field.bounded) cuts.add('command text');
      return field;
    },
  };
  const verdicts = new Map<Segment, SubjectDecision>();
  for (const part of decision.subjects) if (part.subject.type === 'command') verdicts.set(part.subject.segment, part);
  // Each command as its lines (numbered by its place in the text); identical ones once, the deciding ones first.
  const blocks = info.segments.map((segment, index) => {
    const words = escapeShown(segment.words.join(' '), MAX_SEGMENT_SHOWN);
    const text = [`${words.text}${segmentNotes(segment)}`];
    for (const path of segment.paths) {
      // Only a redirection (`via` is its operator): a path from a word, a recursive copy's files or a
      // rule's candidate is listed under Paths, and "(redirection argument (recursive))" said what is not.
      if (!REDIRECTION.test(path.via)) continue;
      text.push(`     ${path.access === 'write' ? 'writes' : 'reads'} ${escapeText(path.path)} (redirection ${escapeText(path.via)})`);
    }
    const part = verdicts.get(segment);
    return { index, text, cut: words.cut, weight: weight(segment, part?.verdict), byRule: part?.by === 'rule' };
  });
  // A command allowed and one that asks are never merged: the allowed ones may be summarised below.
  const groups = merged(blocks, (block) => `${block.weight === ALLOWED ? 'allowed' : 'asks'}\n${block.text.join('\n')}`).sort((a, b) => a.item.weight - b.item.weight || a.item.index - b.item.index);
  // Only the commands that need the person count against the bound (a list of 12 that ask and 3 the
  // rules allow was "not shown"); the allowed ones fill what room is left, the rest on one line.
  const asking = groups.filter((group) => group.item.weight !== ALLOWED);
  const allowed = groups.filter((group) => group.item.weight === ALLOWED);
  const listed = asking.slice(0, MAX_SEGMENTS_SHOWN);
  if (listed.some((group) => group.item.cut) || asking.length > MAX_SEGMENTS_SHOWN) cuts.add('commands');
  const left = (from: number) => asking.slice(from).reduce((sum, group) => sum + group.count, 0);
  const commands: Section = {
    part: 'commands',
    rank: RANK.commands,
    fit: (rows) =>
      listWithin(listed.map(commandBlock), rows, (dropped) => {
        const count = left(listed.length - dropped);
        return count > 0 ? `  … and ${count} more command${count === 1 ? '' : 's'}` : null;
      }),
  };
  const room = Math.max(0, MAX_SEGMENTS_SHOWN - asking.length);
  const sections = [commandText, commands];
  if (allowed.length > 0) sections.push(allowedSection(allowed, room));
  const substitutions = merged(info.substitutions, (substitution) => `${substitution.kind} ${substitution.text}`);
  if (substitutions.length > 0) {
    const lines = substitutions.slice(0, MAX_SUBSTITUTIONS_SHOWN).map(({ item, count }) => `  ! ${item.kind} substitution runs: ${shown(item.text, MAX_SUBSTITUTION_SHOWN, 'substitutions')}${times(count)}`);
    const beyond = Math.max(0, substitutions.length - MAX_SUBSTITUTIONS_SHOWN);
    if (beyond > 0) cuts.add('substitutions');
    sections.push({ part: 'substitutions', rank: RANK.substitutions, fit: (rows) => listWithin(lines, rows, (dropped) => (dropped + beyond > 0 ? `  … and ${dropped + beyond} more substitutions` : null)) });
  }
  if (info.unanalyzable.length > 0) sections.push(lineSection(`  ! cannot be fully analysed: ${info.unanalyzable.map(escapeText).join(', ')}`, 'commands', RANK.notes));
  return sections;
}

/**
 * The commands the rules (or the mode) allow: listed in the room the 12 leave, the rest summed up on
 * one line of at most MAX_ALLOWED_SUMMARY characters. They need no one, so what does not fit is
 * counted, never marked not shown; their paths and redirections are decided on their own and listed
 * under Paths and "Why it asks" when they need the person.
 */
function allowedSection(allowed: CommandGroup[], room: number): Section {
  const total = allowed.reduce((sum, group) => sum + group.count, 0);
  const who = allowed.every((group) => group.item.byRule) ? 'your rules allow' : 'allowed without asking';
  return {
    part: null,
    rank: RANK.allowed,
    fit: (rows) => {
      for (let listed = Math.min(room, allowed.length); listed >= 0; listed--) {
        const lines = allowed.slice(0, listed).map(commandBlock);
        if (listed < allowed.length) lines.push(allowedSummary(allowed.slice(listed), who));
        if (rowsOf(lines.join('\n')) <= rows) return { lines, cut: false };
      }
      return { lines: [`  … and ${total} command${total === 1 ? '' : 's'} ${who}`], cut: false };
    },
  };
}

function allowedSummary(groups: CommandGroup[], who: string): string {
  const total = groups.reduce((sum, group) => sum + group.count, 0);
  let line = `  … and ${total} command${total === 1 ? '' : 's'} ${who}: `;
  let left = total;
  for (const [i, { item, count }] of groups.entries()) {
    const entry = `${i === 0 ? '' : '; '}${item.index + 1}. ${item.text[0]}${times(count)}`;
    if (line.length + entry.length > MAX_ALLOWED_SUMMARY) return `${line}${i === 0 ? '' : '; '}and ${left} more`;
    line += entry;
    left -= count;
  }
  return line;
}

function segmentNotes(segment: Segment): string {
  const notes: string[] = [];
  const wrappers = segment.wrappers.map((wrapper) => wrapper.split(/\s+/)[0] ?? '');
  if (wrappers.some((name) => PRIVILEGE.has(name)) || (segment.name && PRIVILEGE.has(segment.name))) notes.push('! runs as another user');
  if (segment.context === 'nested') notes.push('! run by another command');
  if (segment.context === 'substitution') notes.push('! inside a substitution');
  if ((segment.unanalyzable?.length ?? 0) > 0) notes.push(`! cannot be fully analysed: ${segment.unanalyzable!.map(escapeText).join(', ')}`);
  if (segment.assignments.length > 0) notes.push(`sets ${segment.assignments.map((a) => escapeText(a.split('=')[0] ?? '')).join(', ')}`);
  return notes.length > 0 ? `   [${notes.join('; ')}]` : '';
}

/** The arguments as JSON text for a person to read (the prompt and the approval page); escape before showing. */
export function argumentsText(value: unknown): string {
  try {
    return JSON.stringify(value ?? {}) ?? '{}';
  } catch {
    return '(arguments could not be shown)';
  }
}

/** What an elicitation answer means for the call. */
export type PromptAnswer =
  | { type: 'choice'; choice: PromptChoice; note: string | undefined; edit?: CallEdit }
  | { type: 'declined' }
  | { type: 'dismissed' }
  | { type: 'invalid' };

export function readAnswer(result: ElicitResult, input: PromptInput): PromptAnswer {
  if (result.action === 'decline') return { type: 'declined' };
  if (result.action === 'cancel') return { type: 'dismissed' };
  if (result.action !== 'accept' || !result.content) return { type: 'invalid' };
  const choice = parseChoice(result.content.decision, input);
  if (!choice) return { type: 'invalid' };
  const note = typeof result.content.note === 'string' ? result.content.note : undefined;
  const fields = formEditFields(input);
  const given: Record<string, unknown> = {};
  for (const field of fields) {
    const value = result.content[EDIT_FIELD_PREFIX + field.arg];
    if (value !== undefined) given[field.arg] = value;
  }
  const edit = readEdit(given, [...fields], isPlainObject(input.args) ? input.args : {});
  if (edit === 'invalid') return { type: 'invalid' };
  return { type: 'choice', choice, note, ...(edit ? { edit } : {}) };
}
