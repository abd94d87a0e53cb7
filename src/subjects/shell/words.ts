import type { SyntaxNode as Node } from './syntax.js';
import type { Word } from './options.js';

/**
 * Shell words from syntax nodes: quote removal for static words, raw text for the rest. Parts that
 * expand at run time (`$x`, `$(…)`, `"…$y…"`) make the word non-static and are handed back in
 * `pending` so the walker can look inside them. Unquoted glob and brace characters make a word
 * non-static too: `/bin/r?` and `{rm,-rf,/}` are not the literals they look like.
 *
 *   r''m        → rm (static)          "a;b"      → a;b (static)
 *   \rm         → rm (static)          $'\x72m'   → rm (static, ansi: never a static command name)
 *   *.log       → *.log (dynamic)      "$f"       → "$f" (dynamic; pending: the string)
 */

interface WordBuilder {
  value: string;
  /** The value with quoted and escaped characters replaced by `_`, to find unquoted patterns. */
  mask: string;
  isStatic: boolean;
  ansi: boolean;
  /** An assigned value: `{1..3}` is its text. */
  assigned?: boolean;
}

/**
 * The word spelled by `node` (from `from`, for `$"…"`, whose `$` is a separate token). An assigned
 * value (`assigned`) is neither brace-expanded nor globbed (bash manual, "Simple Command Expansion":
 * tilde, parameter, command and arithmetic expansion and quote removal only): `A={x,y}` is `{x,y}`.
 */
export function readWord(src: string, node: Node, pending: Node[], from = node.startIndex, assigned = false): Word {
  const raw = src.slice(from, node.endIndex);
  const b: WordBuilder = { value: '', mask: '', isStatic: true, ansi: false, assigned };
  readPart(src, node, b, pending);
  if (b.isStatic && !assigned && isPattern(b.mask)) b.isStatic = false;
  return { value: b.isStatic ? b.value : raw, raw, isStatic: b.isStatic, ansi: b.ansi };
}

function readPart(src: string, node: Node, b: WordBuilder, pending: Node[]): void {
  switch (node.type) {
    case 'word': {
      const text = src.slice(node.startIndex, node.endIndex);
      if (!text.includes('\\')) {
        b.value += text;
        b.mask += text;
        return;
      }
      for (let i = 0; i < text.length; i++) {
        if (text[i] === '\\' && i + 1 < text.length) {
          b.value += text[++i];
          b.mask += '_';
        } else {
          b.value += text[i];
          b.mask += text[i];
        }
      }
      return;
    }
    case 'number': {
      const text = src.slice(node.startIndex, node.endIndex);
      b.value += text;
      b.mask += text;
      return;
    }
    case 'raw_string': {
      const inner = src.slice(node.startIndex + 1, node.endIndex - 1);
      b.value += inner;
      b.mask += '_'.repeat(inner.length);
      return;
    }
    case 'ansi_c_string': {
      const decoded = decodeAnsiC(src.slice(node.startIndex + 2, node.endIndex - 1));
      b.value += decoded;
      b.mask += '_'.repeat(decoded.length);
      b.ansi = true;
      return;
    }
    case 'string': {
      if (node.children.every((c) => c.type === '"' || c.type === 'string_content')) {
        const inner = unescapeDoubleQuoted(src.slice(node.startIndex + 1, node.endIndex - 1));
        b.value += inner;
        b.mask += '_'.repeat(inner.length);
      } else {
        b.isStatic = false;
        pending.push(node);
      }
      return;
    }
    case 'concatenation':
    case 'command_name':
      for (const child of node.children) readPart(src, child, b, pending);
      return;
    case 'translated_string':
      // `$"rm"` is "rm" unless a message catalog (TEXTDOMAIN) translates it: its value is known
      // for deny rules, but like `$'…'` it never names a command an allow rule could match.
      for (const child of node.namedChildren) readPart(src, child, b, pending);
      b.ansi = true;
      return;
    case 'brace_expression':
      if (b.assigned) {
        const text = src.slice(node.startIndex, node.endIndex);
        b.value += text;
        b.mask += text;
        return;
      }
      b.isStatic = false;
      pending.push(node);
      return;
    default:
      b.isStatic = false;
      pending.push(node);
  }
}

/**
 * `NAME=value`, `NAME+=value`, `a[i]=v`, `a=(x y)` as one word. The argument of a declaration
 * builtin (`declared`: `export A={x,y}`) is a word bash brace-expands (bash 5.2 set A=y): its
 * patterns count.
 */
export function readAssignment(src: string, node: Node, pending: Node[], declared = false): Word {
  const raw = src.slice(node.startIndex, node.endIndex);
  const children = node.children;
  let value: Word | null = null;
  let isStatic = true;
  for (let k = 0; k < children.length; k++) {
    const child = children[k]!;
    const type = child.type;
    if (type === 'subscript') {
      isStatic = false;
      pending.push(child);
    } else if (k > 0 && type !== '=' && type !== '+=') {
      if (type === 'array') {
        isStatic = false;
        pending.push(child);
      } else {
        value = readWord(src, child, pending, child.startIndex, !declared);
      }
    }
  }
  if (value && !value.isStatic) isStatic = false;
  if (!isStatic || value === null) return { value: raw, raw, isStatic, ansi: false };
  return { value: raw.slice(0, raw.indexOf('=') + 1) + value.value, raw, isStatic: true, ansi: false };
}

/** Unquoted glob or brace-expansion characters (quoted and escaped ones are `_` in the mask). */
function isPattern(mask: string): boolean {
  return /[*?]|\[.*\]|\{[^{}]*(,|\.\.)[^{}]*\}/.test(mask);
}

/** Inside "…", a backslash only escapes $ ` " \ and newline. */
function unescapeDoubleQuoted(text: string): string {
  return text.includes('\\') ? text.replace(/\\([$`"\\\n])/g, (_, ch: string) => (ch === '\n' ? '' : ch)) : text;
}

const ANSI_SIMPLE: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/** The value of `$'…'` (bash's ANSI-C quoting); a NUL ends it, as in bash. */
export function decodeAnsiC(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch !== '\\' || i + 1 >= text.length) {
      out += ch;
      continue;
    }
    const next = text[++i]!;
    if (next in ANSI_SIMPLE) {
      out += ANSI_SIMPLE[next];
      continue;
    }
    let code: number;
    if (/[0-7]/.test(next)) {
      const digits = /^[0-7]{1,3}/.exec(text.slice(i))![0];
      code = parseInt(digits, 8);
      i += digits.length - 1;
    } else if (next === 'x' || next === 'u' || next === 'U') {
      const max = next === 'x' ? 2 : next === 'u' ? 4 : 8;
      const digits = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(text.slice(i + 1))?.[0];
      if (!digits) {
        out += `\\${next}`;
        continue;
      }
      code = parseInt(digits, 16);
      i += digits.length;
    } else if (next === 'c' && i + 1 < text.length) {
      code = text.charCodeAt(++i) & 0x1f;
    } else {
      out += `\\${next}`;
      continue;
    }
    if (code === 0) break;
    out += code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
  }
  return out;
}
