import { createHash } from '../node-crypto.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import {
  ListPromptsResultSchema,
  ListResourceTemplatesResultSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
  PromptSchema,
  ResourceSchema,
  ResourceTemplateSchema,
  ResultSchema,
  ToolSchema,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { besideCache, type CacheNote } from '../cli/code-cache.js';
import { errorMessage } from '../errors.js';
import { escapeText, escapeTruncated } from '../latch/escape.js';
import type { Logger } from '../log.js';
import { MAX_DEPTH, nestsDeeperThan } from '../values.js';
import { answerProblem, schemaProblem, type SchemaIssue } from './invalid-answer.js';
import { megabytes } from './lines.js';
import { noteUrlIcons } from './url-icons.js';

/** What one server lists: read when it is ready and again when it says its lists changed. */
export interface ServerListing {
  tools: Tool[];
  resources: Resource[];
  templates: ResourceTemplate[];
  prompts: Prompt[];
}

/**
 * Pages through every list the server offers; raw requests, because Client.listTools() throws on one
 * bad outputSchema. The four lists are asked for at once: the last server to start is waited for
 * by the first tools/list, and four round trips one after the other would each wait for it again.
 */
export async function readListing(client: Client, options: { timeoutMs: number; maxBytes: number; server: string }, logger: Logger): Promise<ServerListing> {
  const caps = client.getServerCapabilities() ?? {};
  const list = <T>(method: string, key: string, page: PageSchema, item: ItemSchema<T>) => listAll(client, method, key, { page, item }, { timeout: options.timeoutMs }, options.maxBytes, logger);
  const [tools, resources, templates, prompts] = await Promise.all([
    caps.tools ? list('tools/list', 'tools', ListToolsResultSchema, ToolSchema) : [],
    caps.resources ? list('resources/list', 'resources', ListResourcesResultSchema, ResourceSchema) : [],
    // A server may offer resources without templates: a refused page ends the templates.
    caps.resources ? list('resources/templates/list', 'resourceTemplates', ListResourceTemplatesResultSchema, ResourceTemplateSchema).catch(() => []) : [],
    caps.prompts ? list('prompts/list', 'prompts', ListPromptsResultSchema, PromptSchema) : [],
  ]);
  const listing = { tools: await checkedTools(firstOfEachName(tools, 'tools/list', logger), logger), resources, templates, prompts: firstOfEachName(prompts, 'prompts/list', logger) };
  // Icons given by URL are not listed (round 25; url-icons.ts): said once, nothing looked up.
  noteUrlIcons(listing, options.server, logger);
  return listing;
}

/**
 * A name listed twice (on one page, or again on a later one) is the first entry with it: a call
 * names a tool, so a second definition could only be shown, never called. One warning a list.
 */
function firstOfEachName<T extends { name: string }>(entries: T[], method: string, logger: Logger): T[] {
  const seen = new Set<string>();
  const again: string[] = [];
  const kept = entries.filter((entry) => (seen.has(entry.name) ? !again.push(entry.name) : !!seen.add(entry.name)));
  if (again.length > 0) logger.warn({ dropped: again.length, first: escapeText(again[0]!) }, `dropping entries of ${method} whose name was listed before`);
  return kept;
}

/** The SDK schema of a whole page of one list. */
type PageSchema = Parameters<Client['request']>[1];

/** The SDK schema of one list entry. */
interface ItemSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly SchemaIssue[] } };
}

/**
 * Every page of one list. A page the schema refuses is asked for again and read entry by entry (a
 * page that parses whole, nearly all, costs what it did): an entry the schema refuses (a tool
 * without its inputSchema) is dropped with a warning that names it, and the rest is listed; before,
 * the server never started, and was started again and again with its backoff. A page that is not a
 * list of that kind fails the start with one line (the server's reason), not zod's dump.
 *
 * A list past the limits (docs/config.md, "limits"), or whose nextCursor repeats, ends there: what
 * was read is listed, with one warning naming the limit. A server that lists 20,000 resources
 * keeps its tools; a cursor that never ends no longer keeps the start going, or the list growing.
 * An entry nested deeper than MAX_DEPTH is dropped (one warning a list): every later walk of it
 * (the JSON of the client's list, the comparison of lists, the scans) recursed until the stack
 * overflowed, and the gateway exited. The JSON of the entries kept is at most `maxBytes`
 * (`limits.messageMB`): 60 pages of 9 MB were one string too long for V8, and the gateway exited.
 */
async function listAll<T>(client: Client, method: string, key: string, schemas: { page: PageSchema; item: ItemSchema<T> }, options: RequestOptions, maxBytes: number, logger: Logger): Promise<T[]> {
  const out: T[] = [];
  const cursors = new Set<string>();
  const deep: unknown[] = [];
  let bytes = 0;
  let cursor: string | undefined;
  for (let pages = 0; ; ) {
    const params: Record<string, string> = cursor ? { cursor } : {};
    let page: Record<string, unknown>;
    let items: unknown[];
    try {
      page = (await client.request({ method, params }, schemas.page, options)) as Record<string, unknown>;
      items = page[key] as unknown[];
    } catch (error) {
      if (schemaProblem(error) === null) throw error;
      ({ page, items } = await entryByEntry(client, { method, params }, key, schemas.item, options, logger));
    }
    let full = false;
    for (const item of items) {
      if (nestsDeeperThan(item)) {
        deep.push(item);
        continue;
      }
      bytes += Buffer.byteLength(JSON.stringify(item));
      if (bytes > maxBytes) {
        full = true;
        break;
      }
      out.push(item as T);
    }
    cursor = (page.nextCursor as string | undefined) || undefined;
    const stop =
      full ? `its entries pass ${megabytes(maxBytes)} MB of JSON`
      : out.length > MAX_LIST_ENTRIES ? `more than ${MAX_LIST_ENTRIES.toLocaleString('en-US')} entries`
      : cursor === undefined ? null
      : ++pages >= MAX_LIST_PAGES ? `more than ${MAX_LIST_PAGES} pages`
      : cursors.has(cursor) ? `its nextCursor "${escapeTruncated(cursor, 80)}" was already read`
      : null;
    if (deep.length > 0 && (stop !== null || cursor === undefined)) {
      logger.warn({ dropped: deep.length, first: nameOf(deep[0]) }, `dropping entries of ${method} nested deeper than ${MAX_DEPTH} levels, the most mcp-latch passes on (docs/config.md, "limits")`);
    }
    if (stop !== null) {
      out.length = Math.min(out.length, MAX_LIST_ENTRIES);
      logger.warn({ listed: out.length }, `${method} stopped: ${stop} (mcp-latch reads at most ${MAX_LIST_PAGES} pages, ${MAX_LIST_ENTRIES.toLocaleString('en-US')} entries and limits.messageMB (${megabytes(maxBytes)} MB) of JSON of one list); the first ${out.length.toLocaleString('en-US')} are listed`);
      return out;
    }
    if (cursor === undefined) return out;
    cursors.add(cursor);
  }
}

/**
 * What mcp-latch reads of one list of one server (docs/config.md, "limits"): a server chooses its
 * pages, and each is kept in memory and listed to the client.
 */
export const MAX_LIST_PAGES = 100;
export const MAX_LIST_ENTRIES = 10_000;

/** One page asked for again without its schema, and the entries of it the schema takes. */
async function entryByEntry<T>(client: Client, request: { method: string; params: Record<string, string> }, key: string, schema: ItemSchema<T>, options: RequestOptions, logger: Logger): Promise<{ page: Record<string, unknown>; items: T[] }> {
  const { method } = request;
  const page = (await client.request(request, ResultSchema, options).catch((error: unknown) => {
    const problem = schemaProblem(error);
    throw problem === null ? error : invalidList(method, problem);
  })) as Record<string, unknown>;
  const items = page[key];
  if (!Array.isArray(items)) throw invalidList(method, `${key}: expected array, received ${items === undefined ? 'undefined' : typeof items}`);
  if (page.nextCursor !== undefined && typeof page.nextCursor !== 'string') throw invalidList(method, `nextCursor: expected string, received ${typeof page.nextCursor}`);
  const out: T[] = [];
  let refused = 0;
  for (let index = 0; index < items.length; index++) {
    const parsed = schema.safeParse(items[index]);
    if (parsed.success) out.push(parsed.data);
    else if (++refused <= MAX_REFUSED_WARNINGS) logger.warn({ name: nameOf(items[index]), problem: answerProblem(parsed.error.issues, [key, index]) }, `dropping an entry of ${method} that the MCP schema refuses`);
  }
  // A server chooses how many: one line each was 20,000 lines for one page of 20,000.
  if (refused > MAX_REFUSED_WARNINGS) logger.warn({ more: refused - MAX_REFUSED_WARNINGS }, `dropping more entries of ${method} that the MCP schema refuses`);
  return { page, items: out };
}

/** Refused entries of one page told one by one; the rest are counted in one line. */
const MAX_REFUSED_WARNINGS = 10;

/** The entry's name, escaped: a server chose it, and the log is read in a terminal (JSON leaves bidi and C1 controls raw). */
function nameOf(item: unknown): string | undefined {
  const name = (item as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? escapeText(name) : undefined;
}

function invalidList(method: string, problem: string): Error {
  return new Error(`its ${method} answer is invalid: ${problem}`);
}

/**
 * SDK-based clients compile every outputSchema when listing and throw for the WHOLE list when one
 * does not compile (an unresolvable $ref): such a schema is dropped here, with a warning, and so is
 * one over MAX_OUTPUT_SCHEMA_BYTES (docs/config.md, "limits"), uncompiled: ajv's compile took 25 s
 * for 300 KB and blocked every call meanwhile. The tool stays. Each compile is followed by a turn
 * of the event loop, so other servers' calls are answered while a long list is checked, and what a
 * schema text gave is remembered (compiledSchemas), so a re-listing compiles only what is new.
 */
async function checkedTools(tools: Tool[], logger: Logger): Promise<Tool[]> {
  // Made for this listing, dropped with it: ajv keeps every schema it compiled.
  let ajv: AjvJsonSchemaValidator | null = null;
  const oversized: string[] = [];
  const out: Tool[] = [];
  if (tools.some((tool) => tool.outputSchema)) recallCompiledSchemas();
  for (const tool of tools) {
    if (!tool.outputSchema) {
      out.push(tool);
      continue;
    }
    const text = JSON.stringify(tool.outputSchema);
    if (Buffer.byteLength(text) > MAX_OUTPUT_SCHEMA_BYTES) {
      oversized.push(tool.name);
      out.push(withoutOutputSchema(tool));
      continue;
    }
    if (notedSchemas.has(text)) {
      out.push(tool);
      continue;
    }
    const key = createHash('sha256').update(text).digest('base64');
    let problem = compiledSchemas.get(key);
    if (problem === undefined) {
      ajv ??= new AjvJsonSchemaValidator();
      try {
        ajv.getValidator(tool.outputSchema as never);
        problem = null;
        noteCompiled(text);
      } catch (error) {
        problem = errorMessage(error);
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // Most recently used last: the oldest is forgotten first.
    compiledSchemas.delete(key);
    compiledSchemas.set(key, problem);
    if (compiledSchemas.size > MAX_LIST_ENTRIES) compiledSchemas.delete(compiledSchemas.keys().next().value!);
    if (problem === null) out.push(tool);
    else {
      logger.warn({ tool: escapeText(tool.name), err: escapeText(problem) }, 'dropping an outputSchema that does not compile');
      out.push(withoutOutputSchema(tool));
    }
  }
  if (oversized.length > 0) {
    logger.warn({ dropped: oversized.length, first: escapeText(oversized[0]!) }, `dropping outputSchemas over ${MAX_OUTPUT_SCHEMA_BYTES / 1024} KB of JSON, the most mcp-latch compiles (docs/config.md, "limits"); their tools are listed without them`);
  }
  return out;
}

/** The largest outputSchema listed, as JSON (docs/config.md, "limits"). */
export const MAX_OUTPUT_SCHEMA_BYTES = 16 * 1024;

/** By the SHA-256 of a schema's JSON, what compiling it gave (null: it compiles); one list's worth, least recently used forgotten. */
const compiledSchemas = new Map<string, string | null>();

/**
 * The JSON of the outputSchemas that compiled in an earlier start of this build: a note kept beside
 * the code cache (cli/code-cache.ts besideCache). Each start of a gateway in front of servers with
 * outputSchemas made an Ajv instance and compiled them again before its first list (~3.7 ms of CPU
 * with ten server-everything, while the servers boot on the same cores: docs/performance.md,
 * "Round 18: start"). The note holds the schemas' JSON, not their digests, so a schema found in it
 * is taken as compiled without hashing it: node:crypto (~2 ms to load) then waits until after the
 * first list ("Round 19: start"). Only schemas that compiled are noted; one that did not is
 * compiled again at each start. At most MAX_NOTED_BYTES of JSON are noted; past it, schemas are
 * compiled at each start as before.
 */
let compiledNote: CacheNote | undefined | null = null;
const notedSchemas = new Set<string>();
/** Schemas found to compile since the note was read or written. */
const compiledSince = new Set<string>();
let notedBytes = 0;
/** The most JSON the note of compiled schemas holds: a start reads it whole before its first list. */
export const MAX_NOTED_BYTES = 256 * 1024;

function noteCompiled(text: string): void {
  const bytes = Buffer.byteLength(text);
  if (notedSchemas.has(text) || compiledSince.has(text) || notedBytes + bytes > MAX_NOTED_BYTES) return;
  notedBytes += bytes;
  compiledSince.add(text);
}

function recallCompiledSchemas(): void {
  if (compiledNote !== null) return;
  compiledNote = besideCache('schemas');
  let noted: unknown;
  try {
    noted = JSON.parse(compiledNote?.read() ?? '[]');
  } catch {
    return;
  }
  if (!Array.isArray(noted)) return;
  for (const text of noted) {
    if (typeof text !== 'string' || notedSchemas.has(text)) continue;
    const bytes = Buffer.byteLength(text);
    if (bytes > MAX_OUTPUT_SCHEMA_BYTES || notedBytes + bytes > MAX_NOTED_BYTES) break;
    notedBytes += bytes;
    notedSchemas.add(text);
  }
}

/** Writes the note of schemas that compile when this start found new ones (serve calls it once a list is answered); what happened, or null for nothing to write. */
export function noteCompiledSchemas(): string | null {
  if (!compiledNote || compiledSince.size === 0) return null;
  for (const text of compiledSince) notedSchemas.add(text);
  compiledSince.clear();
  return compiledNote.write(JSON.stringify([...notedSchemas]));
}

function withoutOutputSchema(tool: Tool): Tool {
  const { outputSchema: _dropped, ...rest } = tool;
  return rest;
}
