import { escapeLines, escapeText, isPlainText } from '../latch/escape.js';
import { isPlainObject } from '../values.js';
import { isIP } from 'node:net';
import { isThisMachine } from './url-host.js';

/**
 * A listed tool, prompt, resource or template as a client shows it to a person: every text the
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
 *   kept only when safe      `icons`: a client fetches each `src` itself, unasked, so only an
 *                            https URL of another host, as written and as its name resolves
 *                            (shownIcon; round 23 review, F5; round 24), or a small
 *                            `data:image/…` icon is listed
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
  const changes: Record<string, unknown> = {};
  const display = 'uri' in source || 'uriTemplate' in source ? DISPLAY_OF_RESOURCE : DISPLAY;
  for (const key of display) if (typeof source[key] === 'string') changed(changes, key, source[key], escapeText(source[key]));
  if (typeof source.description === 'string') changed(changes, 'description', source.description, escapeLines(source.description));
  const { annotations, arguments: args } = source;
  if (isPlainObject(annotations) && typeof annotations.title === 'string') {
    const title = escapeText(annotations.title);
    if (title !== annotations.title) changes.annotations = { ...annotations, title };
  }
  for (const key of ['inputSchema', 'outputSchema'] as const) {
    if (!isPlainObject(source[key])) continue;
    const schema = schemaText(source[key], escapeText, escapeLines);
    if (schema !== source[key]) changes[key] = schema;
  }
  if (Array.isArray(source.icons)) {
    const hosts = iconHosts.get(entry);
    const icons = source.icons.filter((icon) => shownIcon(icon, hosts));
    if (icons.length !== source.icons.length) changes.icons = icons.length > 0 ? icons : undefined;
  }
  if (Array.isArray(args)) {
    const shownArgs = args.map((arg) => (isPlainObject(arg) ? shownArgument(arg) : arg));
    if (shownArgs.some((arg, index) => arg !== args[index])) changes.arguments = shownArgs;
  }
  return { entry: Object.keys(changes).length === 0 ? entry : { ...entry, ...changes } };
}

/** The longest `data:` icon listed, in characters. */
export const MAX_ICON_DATA_CHARS = 65_536;
const IMAGE_DATA = /^data:image\/(?:png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/]*={0,2}$/;

/**
 * Whether a listed icon may reach the client: the client fetches its `src` as soon as it shows the
 * entry, no person asked, so a server's icon must not send it to this machine (a local service's
 * port) or a local network, or anywhere but an https page of another host: as written (namedIconHost)
 * and, since round 24, as its name resolves (checked when the server's listing is read,
 * downstream/icon-hosts.ts, and kept per entry: `iconHosts`); or it is an image carried in the
 * listing itself. An entry whose hosts were never checked (a pinned definition listed in place of
 * a changed one) keeps its `data:` icons only (fail closed).
 */
function shownIcon(icon: unknown, hosts: ReadonlySet<string> | undefined): boolean {
  if (!isPlainObject(icon) || typeof icon.src !== 'string') return false;
  const { src } = icon;
  if (src.startsWith('data:')) return src.length <= MAX_ICON_DATA_CHARS && IMAGE_DATA.test(src);
  const host = namedIconHost(src);
  return host !== null && hosts !== undefined && hosts.has(host);
}

/**
 * The host of an icon's `src` when it is an https URL of a named host other than this machine as
 * written, as the WHATWG parser writes it, or null (`file:`, `http:`, `https://192.168.1.1/…`, names
 * like `localhost`, a user or password: round 23 review, F5).
 */
export function namedIconHost(src: string): string | null {
  if (!src.startsWith('https:') || src.length > 8_192 || !isPlainText(src)) return null;
  try {
    const url = new URL(src);
    // An address as the host (192.168.1.1, 169.254.169.254, [fd00::1]) is dropped whatever it is: a page's icon is named.
    const named = url.href === src && url.protocol === 'https:' && url.username === '' && url.password === '' && isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0 && !isThisMachine(url.hostname);
    return named ? url.hostname : null;
  } catch {
    return null;
  }
}

/**
 * Content blocks (a tools/call result's, a prompt's messages') with each `resource_link`'s icons
 * kept as a listed entry's are whose hosts were never resolved: its `data:` images only (round 24
 * review F3: `http://127.0.0.1:9222/json`, `https://169.254.169.254/…`, `file:///etc/passwd` in a
 * result's resource_link reached the client, which fetches icons as it shows the link). The blocks
 * as given when none has icons.
 */
export function linksShown<T>(blocks: readonly T[]): T[] {
  if (!blocks.some((block) => isPlainObject(block) && block.type === 'resource_link' && block.icons !== undefined)) return blocks as T[];
  return blocks.map((block) => {
    if (!isPlainObject(block) || block.type !== 'resource_link' || block.icons === undefined) return block;
    const icons = Array.isArray(block.icons) ? block.icons.filter((icon) => shownIcon(icon, undefined)) : [];
    const { icons: _given, ...rest } = block;
    return (icons.length > 0 ? { ...rest, icons } : rest) as T;
  });
}

/** Each listed entry's icon hosts that resolved to the internet only (downstream/icon-hosts.ts). */
const iconHosts = new WeakMap<object, ReadonlySet<string>>();

/** Notes the hosts of `entry`'s icons that may be listed (their names resolve to the internet only). */
export function setIconHosts(entry: object, hosts: ReadonlySet<string>): void {
  iconHosts.set(entry, hosts);
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
