import { escapeText } from '../latch/escape.js';
import { decide } from '../policy/decide.js';
import { inspectResourceRead, lazyDigest } from '../subjects/inspect.js';
import type { CallContext } from './ports.js';

/**
 * A server's answer (a tools/call result, a prompt's messages) may embed a resource, its contents
 * with its URI (`{type: "resource", resource: {uri, text | blob}}`): what a `resources/read` of that
 * URI would return, handed to the model without one. When a deny rule refuses that read (a
 * `Read(**\/.env)` under a search tool's answer embedding `file:///w/.env`), the block is replaced by
 * a text saying what was withheld and why; the rest of the answer is passed on (round 32 review
 * P32-5; docs/threat-model.md). Deny and ask rules, not the mode: the call itself was let through,
 * and a read outside the workspace "needs a rule" by the mode, not by anyone's word; an ask rule's
 * person cannot be asked inside an answer, so its file is withheld like a denied one. A check that
 * throws or cannot decide withholds (fail closed). Returns `blocks` itself when nothing is withheld.
 *
 * At most MAX_EMBEDDED_CHECKED are checked in one answer, the rest withheld (one text says how many): each check resolves a
 * path, and an answer of 10,000 embedded resources (MAX_ANSWER_ENTRIES) took ~230 ms more of the
 * gateway's one thread, every server's calls waiting meanwhile (load 27).
 */
export function withheldEmbedded<T>(blocks: readonly T[], server: string, context: Pick<CallContext, 'inspectContext' | 'policy'>): readonly T[] {
  let out: T[] | null = null;
  let checked = 0;
  // Past the limit: each further one dropped, and one text in the place of the first says how many.
  let past: { text: string } | null = null;
  let pastCount = 0;
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index]!;
    const uri = embeddedUri(block);
    if (uri !== null && ++checked > MAX_EMBEDDED_CHECKED) {
      out ??= blocks.slice(0, index);
      pastCount += 1;
      if (past === null) out.push((past = { type: 'text', text: '' } as { text: string }) as T);
      continue;
    }
    const why = uri === null ? null : deniedRead(server, uri, context);
    if (why !== null) (out ??= blocks.slice(0, index)).push({ type: 'text', text: `mcp-latch withheld the resource ${escapeText(uri!)} that ${escapeText(server)} embedded in its answer: ${escapeText(why)}. Its contents were not passed on.` } as T);
    else if (out !== null) out.push(block);
  }
  if (past !== null) past.text = `mcp-latch withheld ${pastCount} more resources that ${escapeText(server)} embedded in its answer: it checks at most ${MAX_EMBEDDED_CHECKED} of one answer (MAX_EMBEDDED_CHECKED; docs/config.md, "limits"). Their contents were not passed on.`;
  return out ?? blocks;
}

/**
 * A `resources/read` answer's contents with each one under a URI other than `uri` (the one read,
 * which was decided) decided as an embedded resource is: a read may answer with several contents,
 * each under its own URI (a folder, a collection), and `file:///w/` answered with `w/secret/id`'s
 * contents under its own URI past `deny: Read(w/secret/**)` (round 33 review, P33-3). A withheld one
 * keeps its URI, its text saying why; at most MAX_EMBEDDED_CHECKED are checked, the rest withheld.
 * Returns `contents` itself when nothing is withheld.
 */
export function withheldContents<T extends { uri: string }>(contents: readonly T[], uri: string, server: string, context: Pick<CallContext, 'inspectContext' | 'policy'>): readonly T[] {
  let out: T[] | null = null;
  let checked = 0;
  for (let index = 0; index < contents.length; index++) {
    const content = contents[index]!;
    if (content.uri === uri) {
      if (out !== null) out.push(content);
      continue;
    }
    const why = ++checked > MAX_EMBEDDED_CHECKED ? `it checks at most ${MAX_EMBEDDED_CHECKED} of one answer (MAX_EMBEDDED_CHECKED; docs/config.md, "limits")` : deniedRead(server, content.uri, context);
    if (why === null) {
      if (out !== null) out.push(content);
      continue;
    }
    (out ??= contents.slice(0, index)).push({ uri: content.uri, mimeType: 'text/plain', text: `mcp-latch withheld the resource ${escapeText(content.uri)} that ${escapeText(server)} gave in its answer to the read of ${escapeText(uri)}: ${escapeText(why)}. Its contents were not passed on.` } as unknown as T);
  }
  return out ?? contents;
}

/** The most embedded resources of one answer whose URI is decided; the rest are withheld (docs/config.md, "limits"). */
export const MAX_EMBEDDED_CHECKED = 100;

/** The URI of an embedded resource block, or null for any other block. */
function embeddedUri(block: unknown): string | null {
  if (typeof block !== 'object' || block === null || (block as { type?: unknown }).type !== 'resource') return null;
  const resource = (block as { resource?: unknown }).resource;
  const uri = typeof resource === 'object' && resource !== null ? (resource as { uri?: unknown }).uri : undefined;
  return typeof uri === 'string' ? uri : '';
}

/** Why a read of `uri` is refused or held for a person by a rule (or cannot be checked), or null. */
function deniedRead(server: string, uri: string, context: Pick<CallContext, 'inspectContext' | 'policy'>): string | null {
  try {
    const decision = decide(inspectResourceRead(server, uri, context.inspectContext(), lazyDigest(server, 'resources/read', { uri })), context.policy());
    return decision.verdict !== 'allow' && decision.by !== 'mode' ? decision.reason : null;
  } catch (error) {
    return `mcp-latch could not check a read of it (${error instanceof Error ? error.message : String(error)})`;
  }
}
