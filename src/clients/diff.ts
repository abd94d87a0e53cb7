/**
 * A unified diff of two texts, for `init --dry-run`. Only the servers block of a client file changes,
 * so the common head and tail are cut first and the line LCS runs on the small middle; that keeps a
 * multi-megabyte `~/.claude.json` cheap.
 *
 *   --- /home/me/.cursor/mcp.json
 *   +++ /home/me/.cursor/mcp.json (wrapped)
 *   @@ -2,4 +2,7 @@
 *      "mcpServers": {
 *   -    "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"] }
 *   +    "mcp-latch": {
 *   …
 */

type Op = { kind: ' ' | '-' | '+'; line: string };

/** The largest middle (old lines × new lines) compared line by line; beyond it the middle is shown replaced whole. */
const MAX_CELLS = 4_000_000;

/** `diff -u`-style text of the change from `oldText` to `newText`; empty when they are equal. */
export function unifiedDiff(oldText: string, newText: string, oldLabel: string, newLabel: string, context = 3): string {
  if (oldText === newText) return '';
  const a = splitLines(oldText);
  const b = splitLines(newText);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;

  const ops: Op[] = a.slice(0, head).map((line) => ({ kind: ' ', line }));
  ops.push(...middleOps(a.slice(head, a.length - tail), b.slice(head, b.length - tail)));
  ops.push(...a.slice(a.length - tail).map((line): Op => ({ kind: ' ', line })));
  return [`--- ${oldLabel}`, `+++ ${newLabel}`, ...hunks(ops, context)].join('\n');
}

/** Lines without their terminator; a missing final newline is marked the way diff(1) does. */
function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  else lines[lines.length - 1] += '\n\\ No newline at end of file';
  return lines;
}

function middleOps(a: string[], b: string[]): Op[] {
  if (a.length * b.length > MAX_CELLS) return [...a.map((line): Op => ({ kind: '-', line })), ...b.map((line): Op => ({ kind: '+', line }))];
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i++]! });
      j++;
    } else if (j < b.length && (i === a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) ops.push({ kind: '+', line: b[j++]! });
    else ops.push({ kind: '-', line: a[i++]! });
  }
  // Removals first within each changed run, as diff(1) prints them.
  const ordered: Op[] = [];
  let run: Op[] = [];
  const flush = () => {
    ordered.push(...run.filter((op) => op.kind === '-'), ...run.filter((op) => op.kind === '+'));
    run = [];
  };
  for (const op of ops) {
    if (op.kind === ' ') {
      flush();
      ordered.push(op);
    } else run.push(op);
  }
  flush();
  return ordered;
}

function hunks(ops: Op[], context: number): string[] {
  const changed = ops.map((op, index) => (op.kind === ' ' ? -1 : index)).filter((index) => index >= 0);
  const out: string[] = [];
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, changed[k]! - context);
    let end = changed[k]!;
    while (k < changed.length && changed[k]! <= end + 2 * context) end = changed[k++]!;
    const stop = Math.min(ops.length, end + context + 1);
    let oldStart = 1;
    let newStart = 1;
    for (const op of ops.slice(0, start)) {
      if (op.kind !== '+') oldStart++;
      if (op.kind !== '-') newStart++;
    }
    const slice = ops.slice(start, stop);
    const oldCount = slice.filter((op) => op.kind !== '+').length;
    const newCount = slice.filter((op) => op.kind !== '-').length;
    out.push(`@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@`);
    out.push(...slice.map((op) => `${op.kind}${op.line}`));
  }
  return out;
}
