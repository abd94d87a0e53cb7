import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ListPromptsResultSchema,
  ListResourceTemplatesResultSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { SchemaValidators } from '../schema-validators.js';
import { schemaProblem } from './invalid-answer.js';

/** What one server lists: read when it is ready and again when it says its lists changed. */
export interface ServerListing {
  tools: Tool[];
  resources: Resource[];
  templates: ResourceTemplate[];
  prompts: Prompt[];
}

/** Every listing compiles each outputSchema again (re-listed on list_changed and restarts): one per schema text. */
const schemaChecker = new SchemaValidators(256);

/**
 * Pages through every list the server offers; raw requests, because Client.listTools() throws on one
 * bad outputSchema. The four lists are asked for at once: the last server to start is waited for
 * by the first tools/list, and four round trips one after the other would each wait for it again.
 */
export async function readListing(client: Client, timeoutMs: number, logger: Logger): Promise<ServerListing> {
  const caps = client.getServerCapabilities() ?? {};
  const options: RequestOptions = { timeout: timeoutMs };
  const params = (cursor: string | undefined) => (cursor ? { cursor } : {});
  const [tools, resources, templates, prompts] = await Promise.all([
    caps.tools ? listAll('tools/list', (cursor) => client.request({ method: 'tools/list', params: params(cursor) }, ListToolsResultSchema, options), (page) => page.tools) : [],
    caps.resources ? listAll('resources/list', (cursor) => client.request({ method: 'resources/list', params: params(cursor) }, ListResourcesResultSchema, options), (page) => page.resources) : [],
    // A server may offer resources without templates: a refused page ends the templates.
    caps.resources
      ? listAll(
          'resources/templates/list',
          (cursor): Promise<{ resourceTemplates: ResourceTemplate[]; nextCursor?: string | undefined }> =>
            client.request({ method: 'resources/templates/list', params: params(cursor) }, ListResourceTemplatesResultSchema, options).catch(() => ({ resourceTemplates: [] })),
          (page) => page.resourceTemplates,
        )
      : [],
    caps.prompts ? listAll('prompts/list', (cursor) => client.request({ method: 'prompts/list', params: params(cursor) }, ListPromptsResultSchema, options), (page) => page.prompts) : [],
  ]);
  return { tools: tools.map((tool) => checkedTool(tool, logger)), resources, templates, prompts };
}

async function listAll<P extends { nextCursor?: string | undefined }, T>(method: string, fetchPage: (cursor: string | undefined) => Promise<P>, items: (page: P) => T[]): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor).catch((error: unknown) => {
      // A page the schema refuses fails the start with one line (the server's reason), not zod's dump.
      const problem = schemaProblem(error);
      throw problem === null ? error : new Error(`its ${method} answer is invalid: ${problem}`);
    });
    out.push(...items(page));
    cursor = page.nextCursor || undefined;
  } while (cursor);
  return out;
}

/**
 * SDK-based clients compile every outputSchema when listing and throw for the WHOLE list when one
 * does not compile (an unresolvable $ref): such a schema is dropped here, with a warning.
 */
function checkedTool(tool: Tool, logger: Logger): Tool {
  if (!tool.outputSchema) return tool;
  try {
    schemaChecker.getValidator(tool.outputSchema as never);
    return tool;
  } catch (error) {
    logger.warn({ tool: tool.name, err: errorMessage(error) }, 'dropping an outputSchema that does not compile');
    const { outputSchema: _dropped, ...rest } = tool;
    return rest;
  }
}
