/**
 * What kind of JSON-RPC message a value is, for the plain shapes whose answer is certain without
 * zod: true or false where the SDK's schema (types.js `JSONRPCResultResponseSchema`,
 * `JSONRPCErrorResponseSchema`, `JSONRPCRequestSchema`, `JSONRPCNotificationSchema`) is sure to say the same, undefined where
 * only the schema can tell. `npm run build` puts these in front of the SDK's `isJSONRPCResultResponse`,
 * `isJSONRPCErrorResponse`, `isJSONRPCRequest` and `isJSONRPCNotification` in the serve bundle (scripts/bundle.js): the SDK's
 * Protocol asks them of every message it reads, three times for an answer (onmessage, then twice in
 * `_onresponse`), and each asked zod to copy the answer's result, ~1 ms of CPU at its first use and
 * ~10–40 µs a message after, ~150 times before a ten-server list (docs/performance.md, "Round 25:
 * ten servers"). test/downstream/message-kinds.test.ts holds them to the schemas.
 */

const own = (value: object, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A result answer: `{"jsonrpc":"2.0","id":…,"result":{…}}` and nothing else, its id a string or a
 * safe integer (the schema's `z.number().int()`), its result an object without `_meta` (the
 * schema's looseObject checks that one key only). No `result` at all: not one.
 */
export function resultResponseKind(value: unknown): boolean | undefined {
  if (!isRecord(value)) return undefined;
  const result = value.result;
  if (result === undefined) return false;
  if (
    value.jsonrpc === '2.0' &&
    (typeof value.id === 'string' || Number.isSafeInteger(value.id)) &&
    isRecord(result) &&
    result._meta === undefined &&
    Object.keys(value).length === 3 &&
    own(value, 'jsonrpc') &&
    own(value, 'id') &&
    own(value, 'result')
  ) {
    return true;
  }
  return undefined;
}

/** No `error`: not an error answer (the schema requires one). */
export function errorResponseKind(value: unknown): boolean | undefined {
  return isRecord(value) && value.error === undefined ? false : undefined;
}

/**
 * A request: `jsonrpc` "2.0", a string or safe-integer id, a string method and no params or params
 * without `_meta`, and no other key (the schema is strict). No id, or a method that is not a
 * string: not a request (the schema requires both).
 */
export function requestKind(value: unknown): boolean | undefined {
  if (!isRecord(value)) return undefined;
  if (value.id === undefined || typeof value.method !== 'string') return false;
  return (typeof value.id === 'string' || Number.isSafeInteger(value.id)) && plainCall(value, REQUEST_KEYS) ? true : undefined;
}

/**
 * A notification: `jsonrpc` "2.0", a string method, no params or params without `_meta`, and no
 * other key (an id is one: the schema is strict). A method that is not a string: not one.
 */
export function notificationKind(value: unknown): boolean | undefined {
  if (!isRecord(value)) return undefined;
  if (typeof value.method !== 'string') return false;
  return plainCall(value, NOTIFICATION_KEYS) ? true : undefined;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);

/** `jsonrpc` "2.0", own keys among `keys` only, and params absent or an object without `_meta` (the schema's looseObject checks that one key only). */
function plainCall(value: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  if (value.jsonrpc !== '2.0' || !own(value, 'jsonrpc') || !own(value, 'method')) return false;
  for (const key of Object.keys(value)) if (!keys.has(key)) return false;
  const params = value.params;
  return params === undefined || (isRecord(params) && params._meta === undefined);
}
