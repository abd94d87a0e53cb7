import { EDIT_REFUSED, readEdit } from '../latch/edit.js';
import { FORGET_CONFIRM_MS, type TeamStore, type Identity } from './store.js';
import { isPlainObject } from '../values.js';

/**
 * The interactions API (docs/team.md#the-interactions-api), JSON over the gateway's HTTP server and
 * behind its authentication. A user sees and answers only their own calls and rules; an admin may
 * also read (never answer or change) everyone's. Answering and forgetting take the user's approver
 * credential once one is configured (Identity.approves; docs/team.md#approvers).
 *
 *   GET    /api/me                    → { user, role }
 *   GET    /api/pending[?user=ID|*]   → { pending: PendingCall[] }   (another user's: admin only)
 *   GET    /api/pending/ID            → PendingCall
 *   POST   /api/pending/ID            { decision, note?, edit? } → { decided: true }
 *   GET    /api/rules[?user=ID]       → { user, rules }              (another user's: admin only)
 *   DELETE /api/rules                 { rule } → { removed: true } (202 with `unconfirmed` when a replica did not confirm in time)
 */
const MAX_NOTE = 2000;

export type JsonReply = (status: number, body: unknown) => void;

export async function handleApi(path: string, query: URLSearchParams, method: string, body: unknown, identity: Identity, store: TeamStore, reply: JsonReply): Promise<void> {
  const own = identity.user;
  const mayRead = (user: string) => user === own || identity.role === 'admin';
  const forbidden = () => reply(403, { error: 'this belongs to another user' });
  // Security: a client's token does not answer once its user has an approver credential: a model holding it would answer its own calls.
  const notApprover = () => reply(403, { error: `this token is ${own}'s client token; answer with ${own}'s approver credential (an http.tokens entry with role "approver", or an OAuth token with http.oauth.approveScope; docs/team.md#approvers)` });

  if (path === '/api/me' && method === 'GET') return reply(200, identity);

  if (path === '/api/pending' && method === 'GET') {
    const asked = query.get('user') ?? own;
    if (!mayRead(asked === '*' ? '' : asked)) return forbidden();
    return reply(200, { pending: await store.list(asked === '*' ? null : asked) });
  }

  const item = /^\/api\/pending\/([A-Za-z0-9_-]{1,64})$/.exec(path);
  if (item) {
    const call = await store.get(item[1]!);
    if (method === 'GET') {
      if (!call) return reply(404, { error: 'no such pending call (it was answered, withdrawn, or never existed)' });
      return mayRead(call.user) ? reply(200, call) : forbidden();
    }
    if (method !== 'POST') return reply(405, { error: 'use GET or POST' });
    const answer = body;
    if (!call) return reply(404, { error: 'no such pending call (it was answered, withdrawn, or never existed)' });
    // Security: only the call's own user answers it; an admin's role is to read.
    if (call.user !== own) return forbidden();
    if (!identity.approves) return notApprover();
    if (!isPlainObject(answer)) return reply(400, { error: 'the body must be a JSON object: {"decision": "…", "note": "…"}' });
    const { decision, note } = answer;
    if (typeof decision !== 'string' || !(decision === 'decline' || call.choices.includes(decision))) {
      return reply(400, { error: `decision must be one of: ${[...call.choices, 'decline'].map((choice) => JSON.stringify(choice)).join(', ')}` });
    }
    if (note !== undefined && (typeof note !== 'string' || note.length > MAX_NOTE)) return reply(400, { error: `note must be a string of at most ${MAX_NOTE} characters` });
    const { edit } = answer;
    if (edit !== undefined) {
      // An edited call is allowed once and remembers nothing, as on the local page.
      if (decision !== 'Allow once') return reply(400, { error: 'an edited call can only be allowed once: send "decision": "Allow once" with "edit"' });
      if (readEdit(edit, call.retryUntil === null ? call.editable : [], call.args) === 'invalid') return reply(400, { error: EDIT_REFUSED });
    }
    const given = edit === undefined ? {} : { edit: edit as Record<string, string> };
    const outcome = await store.decide(call.id, { decision, ...(typeof note === 'string' ? { note } : {}), ...given, by: own, at: new Date().toISOString() });
    if (outcome === 'decided') return reply(200, { decided: true });
    return reply(outcome === 'settled' ? 409 : 404, { error: outcome === 'settled' ? 'this call was already answered or withdrawn' : 'no such pending call' });
  }

  if (path === '/api/rules' && method === 'GET') {
    const asked = query.get('user') ?? own;
    if (!mayRead(asked)) return forbidden();
    return reply(200, { user: asked, rules: await store.rememberedRules(asked) });
  }

  if (path === '/api/rules' && method === 'DELETE') {
    const request = body;
    if (!identity.approves) return notApprover();
    if (!isPlainObject(request) || typeof request.rule !== 'string') return reply(400, { error: 'the body must be {"rule": "…"}' });
    const removed = await store.forget(own, request.rule);
    if (!removed) return reply(404, { error: 'you have no such remembered rule' });
    // In force on every replica that confirmed (store.forget); one that did not may still allow it for a while.
    if (removed.unconfirmed === 0) return reply(200, { removed: true });
    const unheard = removed.unheard ?? 0;
    const waited = removed.unconfirmed - unheard;
    const why = [
      ...(waited > 0 ? [`${waited} replica(s) did not confirm within ${FORGET_CONFIRM_MS / 1000} s that it no longer holds there (unreachable, overloaded, or of before round 24)`] : []),
      ...(unheard > 0 ? [`${unheard} replica(s) known only by a heartbeat key had nothing subscribed that could hear it (of before round 25 with its subscriber down, or a key another client of Redis wrote), and were not waited for`] : []),
    ];
    return reply(202, { removed: true, unconfirmed: removed.unconfirmed, error: `the rule is removed from the team store, but ${why.join('; and ')}; see the log: calls reaching them may still be allowed by it until they read the store again` });
  }

  return reply(404, { error: 'no such API path' });
}

