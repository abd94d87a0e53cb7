import { USER_ID } from '../config/schema.js';
import { newToken } from '../team/identity.js';
import type { Output } from './output.js';

/** `mcp-latch token --user ID`: a new bearer token (shown once) and the `http.tokens` entry that stores only its hash. */
export function makeToken(options: { user: string; role: 'admin' | 'user' | 'approver' }, out: Output): number {
  if (!USER_ID.test(options.user)) {
    out.error('mcp-latch: --user may only use letters, digits, "_", ".", "@" and "-" (at most 128)');
    return 1;
  }
  const { token, entry } = newToken(options.user, options.role);
  out.line(options.role === 'approver' ? `Approver token for ${options.user} (for the approval page and /api, never an MCP client's config; it is not stored anywhere):` : `Token for ${options.user} (give it to them; it is not stored anywhere):`);
  out.line(`  ${token}`);
  out.line('Add this entry to "http.tokens" in the config:');
  out.line(`  ${JSON.stringify(entry)}`);
  return 0;
}
