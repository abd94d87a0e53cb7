/**
 * Whether a URI matches a resource template, in time linear in the URI: the same language as the
 * SDK's `new UriTemplate(t).match(uri) !== null` (node_modules/@modelcontextprotocol/sdk/dist/esm/
 * shared/uriTemplate.js), which builds a backtracking regex — `{+a}{+b}…{+j}Z` became
 * `^(.+)(.+)…(.+)Z$`, and reading a 37-character URI that did not match stalled the gateway 14.8 s
 * (docs/threat-model.md, "A server's listing"). Here every way the regex could go is followed at
 * once, so each character of the URI is read once.
 *
 *   compileTemplate('file:///{+path}')?.matches('file:///a/b')  → true
 */

/** The longest URI matched against the templates (docs/config.md, "limits"). */
export const MAX_TEMPLATE_URI = 8192;
/** The longest template matched: a longer one matches nothing, with a warning (docs/config.md, "limits"). */
export const MAX_TEMPLATE_LENGTH = 1024;

type Test = (code: number) => boolean;

/** The SDK's `[^/,]` (a value), `[^&]` (a query value) and `.` (no line terminators). */
const VALUE: Test = (code) => code !== 0x2f && code !== 0x2c;
const QUERY_VALUE: Test = (code) => code !== 0x26;
const ANY: Test = (code) => code !== 0x0a && code !== 0x0d && code !== 0x2028 && code !== 0x2029;
const CLASSES = [VALUE, QUERY_VALUE, ANY] as const;
const OPERATORS = ['+', '#', '.', '/', '?', '&'];

/**
 * The regex as positions, one bit each (bit 0: nothing read yet), run bit-parallel: after each
 * character of the URI a set of bits says which positions the text read so far can end on. Each
 * character costs a few operations on a number of (positions) bits, whatever the template.
 */
export class TemplateMatcher {
  /** The literal text before the first expression: most URIs differ from most templates there. */
  private prefix: string | null = null;
  private positions = 0;
  /** The position the next part follows, and the shift that reaches it (2 after an exploded value, whose comma sits between). */
  private end = 0;
  private step = 1;
  private readonly literals = new Map<number, bigint>();
  private readonly classes = [0n, 0n, 0n];
  /** Positions that repeat (`X+`), commas of exploded values (back to their value, never forward), values followed past their comma. */
  private loops = 0n;
  private commas = 0n;
  private skips = 0n;

  private position(): bigint {
    this.positions += this.step;
    this.step = 1;
    return 1n << BigInt(this.positions);
  }

  private literalAt(bit: bigint, code: number): void {
    this.literals.set(code, (this.literals.get(code) ?? 0n) | bit);
  }

  literal(text: string): void {
    this.prefix ??= text;
    for (let index = 0; index < text.length; index++) this.literalAt(this.position(), text.charCodeAt(index));
    this.end = this.positions;
  }

  /** `(X+)`, or `(X+(?:,X+)*)` when exploded. */
  value(test: Test, exploded = false): void {
    this.prefix ??= '';
    const bit = this.position();
    this.classes[CLASSES.indexOf(test as (typeof CLASSES)[number])]! |= bit;
    this.loops |= bit;
    this.end = this.positions;
    if (exploded) {
      this.literalAt(bit << 1n, 0x2c);
      this.commas |= bit << 1n;
      this.skips |= bit;
      this.step = 2;
    }
  }

  matches(uri: string): boolean {
    if (this.prefix !== null && !uri.startsWith(this.prefix)) return false;
    let read = 1n;
    for (let index = 0; index < uri.length && read !== 0n; index++) {
      const code = uri.charCodeAt(index);
      let accepts = this.literals.get(code) ?? 0n;
      CLASSES.forEach((test, at) => {
        if (test(code)) accepts |= this.classes[at]!;
      });
      read = (((read & ~this.commas) << 1n) | (read & this.loops) | ((read & this.commas) >> 1n) | ((read & this.skips) << 2n)) & accepts;
    }
    return (read & (1n << BigInt(this.end))) !== 0n;
  }
}

/**
 * The automaton of a template, built as the SDK's `parse` and `partToRegExp` build its regex; null
 * for a template the SDK refuses or whose match it cannot complete (an expression with no name
 * threw in `match`), which match nothing.
 */
export function compileTemplate(template: string): TemplateMatcher | null {
  const matcher = new TemplateMatcher();
  let expressions = 0;
  for (let index = 0; index < template.length; ) {
    const open = template.indexOf('{', index);
    if (open === -1) {
      matcher.literal(template.slice(index));
      break;
    }
    matcher.literal(template.slice(index, open));
    const close = template.indexOf('}', open);
    if (close === -1 || ++expressions > 10_000) return null;
    const expression = template.slice(open + 1, close);
    const operator = OPERATORS.find((op) => expression.startsWith(op)) ?? '';
    const exploded = expression.includes('*');
    const names = expression
      .slice(operator.length)
      .split(',')
      .map((name) => name.replace('*', '').trim())
      .filter((name) => name.length > 0);
    if (operator === '?' || operator === '&') {
      names.forEach((name, at) => {
        matcher.literal(`${at === 0 ? operator : '&'}${name}=`);
        matcher.value(QUERY_VALUE);
      });
    } else {
      if (names.length === 0) return null;
      if (operator === '+' || operator === '#') matcher.value(ANY);
      else {
        if (operator === '.' || operator === '/') matcher.literal(operator);
        matcher.value(VALUE, exploded && operator !== '.');
      }
    }
    index = close + 1;
  }
  return matcher;
}
