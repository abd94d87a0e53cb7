import { escapeLines, escapeText, isPlainText } from '../latch/escape.js';
import { isPlainObject } from '../values.js';

/**
 * A listed tool, prompt, resource or template as a client shows it to a person — and the same
 * objects outside listings (shownItem: a result's resource_link, a sampling request's tools; a
 * read's mimeType, a prompt's description, completion values): every text the
 * server wrote for display escaped, and refused when a value the client sends back cannot be shown
 * as it is (docs/threat-model.md, "What a server sends through the protocol"; round 17 review of
 * hostile servers, 5, and round 19):
 *
 *   escaped (escapeText)     `title`, `annotations.title`, a resource's or template's `name` (a
 *                            display name: reads go by URI), `mimeType`, a prompt argument's `title`
 *   escaped (escapeLines)    `description`, a prompt argument's `description`: paragraphs the model
 *                            reads too, so their line breaks stay
 *   must be plain text       a prompt argument's `name` (the client sends it back as the key of
 *                            its value), a resource's `uri`, a template's `uriTemplate`: escaping
 *                            them would change what the server gets, so an entry with one holding
 *                            a control, bidi or invisible character or a line break is not listed
 *
 *   in a tool's inputSchema and outputSchema (schemaText): every `title` (escapeText) and
 *                            `description` (escapeLines) at any depth, and `enumNames` labels
 *   kept only when safe      `icons`: a client fetches each `src` itself, unasked, so only a
 *                            small `data:image/…` icon is listed (shownIcon; round 23 review,
 *                            F5; round 25: no icon given by URL)
 *
 * Tool and prompt names are the gateway's exposed names (catalog.ts: letters, digits, `_`, `-`).
 * Not covered: a tool schema's property names and enum, const and default values, which the call
 * sends back (the model reads them; their strings are scanned, docs/pins.md).
 */
export type ShownEntry<T> = { entry: T } | { unshowable: string };

/**
 * Each server entry's shown form, made once per entry object: a listing is kept until it changes,
 * and clients list it again and again (a 10,000-tool listing would be escaped at every tools/list).
 */
const shownForms = new WeakMap<object, ShownEntry<object>>();

export function shownEntry<T extends object>(entry: T): ShownEntry<T> {
  let shown = shownForms.get(entry);
  if (shown === undefined) {
    shown = shownFormOf(entry);
    shownForms.set(entry, shown);
  }
  return shown as ShownEntry<T>;
}

function shownFormOf<T extends object>(entry: T): ShownEntry<T> {
  const source = entry as Record<string, unknown>;
  const unshowable = sentBackProblem(source);
  if (unshowable !== null) return { unshowable };
  const changes = textChanges(source);
  const { arguments: args } = source;
  if (Array.isArray(source.icons)) {
    const icons = source.icons.filter(shownIcon);
    if (icons.length !== source.icons.length) changes.icons = icons.length > 0 ? icons : undefined;
  }
  if (Array.isArray(args)) {
    const shownArgs = args.map((arg) => (isPlainObject(arg) ? shownArgument(arg) : arg));
    if (shownArgs.some((arg, index) => arg !== args[index])) changes.arguments = shownArgs;
  }
  return { entry: Object.keys(changes).length === 0 ? entry : { ...entry, ...changes } };
}

/** The display texts of an entry or item escaped (the table above): only the keys that change. */
function textChanges(source: Record<string, unknown>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  const display = 'uri' in source || 'uriTemplate' in source ? DISPLAY_OF_RESOURCE : DISPLAY;
  for (const key of display) if (typeof source[key] === 'string') changed(changes, key, source[key], escapeText(source[key]));
  if (typeof source.description === 'string') changed(changes, 'description', source.description, escapeLines(source.description));
  const { annotations } = source;
  if (isPlainObject(annotations) && typeof annotations.title === 'string') {
    const title = escapeText(annotations.title);
    if (title !== annotations.title) changes.annotations = { ...annotations, title };
  }
  for (const key of ['inputSchema', 'outputSchema'] as const) {
    if (!isPlainObject(source[key])) continue;
    const schema = schemaText(source[key], escapeText, escapeLines);
    if (schema !== source[key]) changes[key] = schema;
  }
  return changes;
}

/**
 * An item outside a listing shown as a listed entry is (shownFormOf's texts, withShownIcons' icons):
 * a resource_link in a tools/call result or a prompt's messages, a tool a server's sampling request
 * offers. Clients render a link as a chip by its title or name and show the offered tools in their
 * sampling approval: an ANSI clear or a bidi override there read as the gateway's (round 26 review
 * P4). What is sent back stays as written: a link's `uri`, a tool's `name` (the model calls it by name).
 * The same object when nothing changes.
 */
export function shownItem<T extends Record<string, unknown>>(item: T): T {
  const changes = textChanges(item);
  const shown = Object.keys(changes).length === 0 ? item : { ...item, ...changes };
  return item.icons !== undefined ? withShownIcons(shown) : shown;
}

/** The longest `data:` icon listed, in characters. */
export const MAX_ICON_DATA_CHARS = 65_536;
const IMAGE_DATA = /^data:image\/(?:png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/]*={0,2}$/;

/**
 * Whether a listed icon may reach the client: only an image carried in the listing itself. A
 * client fetches an icon's `src` as soon as it shows the entry, no person asked, and resolves its
 * host itself, after anything the gateway could check: until round 25 an https icon whose name
 * resolved to the internet when the listing was read was listed, and a name answering the client's
 * lookup with 127.0.0.1 or 192.168.1.1 (DNS rebinding) sent that fetch there; each render told the
 * icon's host the person's address and when they looked (the spec's "same origin as the server",
 * which no downstream host is for mcp-latch's clients). docs/threat-model.md, "Round 25: icons".
 */
function shownIcon(icon: unknown): boolean {
  if (!isPlainObject(icon) || typeof icon.src !== 'string') return false;
  const { src } = icon;
  return src.startsWith('data:') && src.length <= MAX_ICON_DATA_CHARS && IMAGE_DATA.test(src);
}

/**
 * Content blocks (a tools/call result's, a prompt's messages') with each `resource_link`'s icons
 * kept as a listed entry's are: its `data:` images only (round 24
 * review F3: `http://127.0.0.1:9222/json`, `https://169.254.169.254/…`, `file:///etc/passwd` in a
 * result's resource_link reached the client, which fetches icons as it shows the link). The blocks
 * as given when none has icons.
 */
export function linksShown<T>(blocks: readonly T[]): T[] {
  if (!blocks.some((block) => isPlainObject(block) && (block.type === 'resource_link' || block.type === 'resource'))) return blocks as T[];
  const shown = blocks.map((block) => {
    if (!isPlainObject(block)) return block;
    if (block.type === 'resource_link') return shownItem(block) as T;
    // An embedded resource's mimeType, as a read's (contentsShown).
    if (block.type === 'resource' && isPlainObject(block.resource)) {
      const [resource] = contentsShown([block.resource]);
      return resource === block.resource ? block : ({ ...block, resource } as T);
    }
    return block;
  });
  return shown.every((block, index) => block === blocks[index]) ? (blocks as T[]) : shown;
}

/** A resources/read's contents (or an embedded resource) with each `mimeType` escaped: clients show it beside the text (round 26 review P4). The same array when none changes. */
export function contentsShown<T>(contents: readonly T[]): T[] {
  const shown = contents.map((item) => {
    if (!isPlainObject(item) || typeof item.mimeType !== 'string') return item;
    const mimeType = escapeText(item.mimeType);
    return mimeType === item.mimeType ? item : ({ ...item, mimeType } as T);
  });
  return shown.every((item, index) => item === contents[index]) ? (contents as T[]) : shown;
}

/**
 * A completion/complete result with the values that cannot be shown as they are dropped: the client
 * lists each as a choice and sends the one picked back as the argument's value, so escaping one
 * would change what the server gets (as a prompt argument's name: sentBackProblem). `total` is
 * lowered by as many. The same object when every value is plain text (round 26 review P4).
 */
export function completionShown<T extends { completion: { values: string[]; total?: number } }>(result: T): T {
  const { values } = result.completion;
  if (values.every((value) => isPlainText(value))) return result;
  const plain = values.filter((value) => isPlainText(value));
  const { total } = result.completion;
  return { ...result, completion: { ...result.completion, values: plain, ...(typeof total === 'number' ? { total: Math.max(plain.length, total - (values.length - plain.length)) } : {}) } };
}

/** An item (a resource_link, a tool offered for sampling) with its `icons` kept as a listed entry's are (shownIcon); without `icons` when none is. */
export function withShownIcons<T extends Record<string, unknown>>(item: T): T {
  const icons = Array.isArray(item.icons) ? item.icons.filter(shownIcon) : [];
  const { icons: _given, ...rest } = item;
  return (icons.length > 0 ? { ...rest, icons } : rest) as unknown as T;
}

const DISPLAY = ['title', 'mimeType'] as const;
const DISPLAY_OF_RESOURCE = ['title', 'mimeType', 'name'] as const;

function changed(changes: Record<string, unknown>, key: string, before: string, after: string): void {
  if (after !== before) changes[key] = after;
}

function shownArgument(arg: Record<string, unknown>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if (typeof arg.title === 'string') changed(changes, 'title', arg.title, escapeText(arg.title));
  if (typeof arg.description === 'string') changed(changes, 'description', arg.description, escapeLines(arg.description));
  return Object.keys(changes).length === 0 ? arg : { ...arg, ...changes };
}

/** Which value the client sends back cannot be shown as it is, described (escaped); null when none. */
function sentBackProblem(source: Record<string, unknown>): string | null {
  for (const key of ['uri', 'uriTemplate'] as const) {
    const value = source[key];
    if (typeof value === 'string' && !isPlainText(value)) return `its ${key} "${escapeText(value)}"`;
  }
  if (Array.isArray(source.arguments)) {
    for (const arg of source.arguments) {
      if (isPlainObject(arg) && typeof arg.name === 'string' && !isPlainText(arg.name)) return `its argument name "${escapeText(arg.name)}"`;
    }
  }
  return null;
}

/**
 * A JSON Schema (a tool's, or the form of a server's question: server-input.ts) with the text a
 * client shows escaped: every `title` (`title`), `description` (`description`) and `enumNames`
 * label (`title`), at any depth; values the answer sends back (`const`, `enum`, `default`) and
 * property names are left as they are. The same object when nothing in it changes.
 */
export function schemaText(value: unknown, title: (text: string) => string, description: (text: string) => string, key = ''): unknown {
  if (typeof value === 'string') return key === 'title' ? title(value) : key === 'description' ? description(value) : value;
  if (Array.isArray(value)) {
    const items = key === 'enumNames' ? value.map((item) => (typeof item === 'string' ? title(item) : item)) : value.map((item) => schemaText(item, title, description));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  if (!isPlainObject(value) || key === 'const' || key === 'enum' || key === 'default') return value;
  let changed: Record<string, unknown> | null = null;
  for (const [name, item] of Object.entries(value)) {
    // The members of `properties` are schemas under the server's names: a property named `description` is not a description.
    const shown = schemaText(item, title, description, key === 'properties' ? '' : name);
    if (shown !== item) (changed ??= { ...value })[name] = shown;
  }
  return changed ?? value;
}
