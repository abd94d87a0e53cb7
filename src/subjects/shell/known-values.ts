import { decodeAnsiC } from './words.js';

/**
 * Variables whose value the command text itself gives, for deny rules (docs/threat-model.md, "Deny
 * rules for every program"). bash expands parameters before it takes the first word as the command
 * (bash manual, "Simple Command Expansion"), so `x=rm; $x -rf y`, `a=(rm -rf y); "${a[@]}"`,
 * `${CMD:-rm} -rf y`, `v=x; x=rm; ${!v} -rf y` and `$(echo rm) -rf y` all run rm. The program word
 * is dynamic, so the call is already unanalysable; these readings only let deny rules see what the
 * command most likely runs.
 *
 *   x=rm; $x -rf y            → x=rm; rm -rf y
 *   for p in ls rm; do $p y; done  → … ls y …   and   … rm y …
 *
 * A text scan, not a parser, like the brace and `$IFS` readings of guards.ts: every `NAME=VALUE`
 * word, `NAME=(…)` array, `for NAME in …`, `read NAME <<< WORD` and `printf -v NAME TEXT` anywhere in
 * the text counts (also inside quotes and substitutions, which bash may evaluate), whatever control flow surrounds it (a value assigned in a branch that never runs
 * is one reading too much, never one too few). A wrong guess only adds commands for deny rules to
 * look at; the call is still judged on what was written.
 */

/** Readings made from one text; more alternatives than this are folded onto the last. */
const MAX_READINGS = 8;
/** A reading may be twice the text and this much longer; a value that holds its own expansion (`x=$x$x`) grows past it. */
const MAX_READING_GROWTH = 1_000;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** `NAME=`, `NAME+=`, `NAME[sub]=`, `NAME[sub]+=` at the start of a word. */
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\+?=/;
/**
 * The expansions replaced: `${!NAME}`, `${NAME}`, `${NAME[SUB]}`, `${NAME:-W}` and the other default
 * operators, `$NAME`, and `$(echo …)` / `` `echo …` `` / `$(printf TEXT)` with no expansion inside.
 */
const USE =
  /\$\{(!?)([A-Za-z_][A-Za-z0-9_]*)(?:\[([^\]$'"`]*)\])?(?:(:?[-=+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)|\$\(\s*(echo|printf)\s+([^()`$;&|<>\n]*)\)|`\s*(echo|printf)\s+([^()`$;&|<>\n]*)`/g;
/** The text before the start of a word (an optional opening quote after it). */
const WORD_START = /(^|[\s;&|(`])"?$/;
/** Names that are read in other ways (`$IFS`: guards.ts) or name no value the text can give. */
const SKIPPED = new Set(['IFS']);

/** Each possible value of a variable, as its elements (one for a scalar). */
type Values = Map<string, string[][]>;

/**
 * The text with each variable it sets replaced by the values it sets, one reading per
 * alternative; empty when no expansion has a known value (or a default word).
 */
export function readingsWithValues(text: string): string[] {
  if (!text.includes('$') && !text.includes('`')) return [];
  const uses = [...text.matchAll(USE)];
  if (uses.length === 0) return [];
  // Only assignments, `for`, `read` and `printf -v` give values; without them only defaults and `$(echo …)` are read.
  const values = /=|\bfor\b|\bread\b|\bprintf\b/.test(text) ? collectValues(text) : new Map<string, string[][]>();
  const states = quoteStates(text);
  const edits: Array<{ from: number; to: number; alternatives: string[] }> = [];
  for (const use of uses) {
    const at = use.index;
    const quoted = states[at] === DOUBLE;
    const [whole, bang, braced, subscript, operator, word, bare, program, args, ticked, tickedArgs] = use;
    let from = at;
    let to = at + whole.length;
    let alternatives: string[];
    if (program !== undefined || ticked !== undefined) {
      // Only where it starts a word (the program, or one a wrapper runs: `timeout 5 $(echo rm) x`).
      if (!WORD_START.test(text.slice(Math.max(0, at - 2), at))) continue;
      alternatives = [printed((program ?? ticked)!, (args ?? tickedArgs)!)];
    } else {
      const name = (braced ?? bare)!;
      if (SKIPPED.has(name)) continue;
      const given = bang ? (values.get(name) ?? []).flatMap((names) => names.filter((n) => NAME.test(n)).flatMap((n) => values.get(n) ?? [])) : (values.get(name) ?? []);
      // A value that holds its own variable (`x=$x$x`, `x=$(… $x …)`) only grows the text.
      const self = new RegExp(`\\$\\{?!?${name}\\b`);
      const known = given.filter((elements) => !elements.some((e) => self.test(e)));
      const all = subscript === '@' || subscript === '*';
      if (all && quoted && subscript === '@' && text[at - 1] === '"' && text[to] === '"') {
        // `"${a[@]}"`: each element one word.
        from--;
        to++;
        alternatives = known.map((elements) => elements.map((e) => `"${escapeDouble(e)}"`).join(' '));
      } else {
        alternatives = known.flatMap((elements) => (all ? [elements.join(' ')] : subscript !== undefined && !/^\d+$/.test(subscript) ? elements : [elements[Number(subscript ?? 0)] ?? '']));
        alternatives = alternatives.map((value) => (quoted ? escapeDouble(value) : value));
      }
      if (operator !== undefined) {
        const other = quoted ? escapeDouble(unquote(word!)) : word!;
        alternatives = operator.endsWith('+') ? [other, ''] : [...alternatives, other];
      }
    }
    if (alternatives.length > 0) edits.push({ from, to, alternatives: [...new Set(alternatives)] });
  }
  if (edits.length === 0) return [];
  const maxLength = 2 * text.length + MAX_READING_GROWTH;
  const count = Math.min(MAX_READINGS, Math.max(...edits.map((edit) => edit.alternatives.length)));
  const readings: string[] = [];
  for (let k = 0; k < count; k++) {
    let out = '';
    let last = 0;
    for (const edit of edits) {
      if (edit.from < last) continue; // `"${a[@]}"` took a quote another expansion needed
      out += text.slice(last, edit.from) + edit.alternatives[Math.min(k, edit.alternatives.length - 1)]!;
      last = edit.to;
    }
    out += text.slice(last);
    if (out !== text && out.length <= maxLength && !readings.includes(out)) readings.push(out);
  }
  return readings;
}

function isWord(word: string | undefined): word is string {
  return word !== undefined && !/^[;&|()<>\n]/.test(word);
}

/** What `echo WORDS` or `printf TEXT` prints, as text to put in place of the substitution. */
function printed(program: string, args: string): string {
  const words = args.trim();
  if (program === 'echo') return words.replace(/^(-[neE]+\s+)+/, '');
  return words.includes('%') ? words.replace(/^\S+\s*/, '') : words;
}

// ---------------------------------------------------------------------------------------------
// Where values come from
// ---------------------------------------------------------------------------------------------

/** How deep quoted strings and substitutions are searched for assignments (`'a[$(x=rm; $x y)]'`). */
const MAX_INNER_DEPTH = 4;

function collectValues(text: string, values: Values = new Map(), depth = 0): Values {
  const add = (name: string, elements: string[]): void => {
    if (SKIPPED.has(name)) return;
    const list = values.get(name) ?? [];
    if (list.length < 16) list.push(elements);
    values.set(name, list);
  };
  const words = shellWords(text);
  for (let i = 0; i < words.length; i++) {
    const { value: word, next } = words[i]!;
    // Assignments inside quotes and substitutions run too, when bash evaluates that text.
    if (depth < MAX_INNER_DEPTH) for (const inner of innerTexts(word)) collectValues(inner, values, depth + 1);
    const assignment = ASSIGNMENT.exec(word);
    if (assignment) {
      const rest = word.slice(assignment[0].length);
      if (rest === '' && next === '(') {
        // NAME=( a b c ): the words up to the closing parenthesis.
        const elements: string[] = [];
        i++;
        while (i + 1 < words.length && words[i + 1]!.value !== ')') elements.push(unquote(words[++i]!.value.replace(/^\[[^\]]*\]=/, '')));
        // NAME+=(…) appends to each value it had.
        const before = word.includes('+=') ? (values.get(assignment[1]!) ?? []) : [];
        for (const had of [...before]) add(assignment[1]!, [...had, ...elements]);
        add(assignment[1]!, elements);
      } else {
        // NAME[N]=VALUE sets element N.
        const index = Number(/^[A-Za-z_][A-Za-z0-9_]*\[(\d{1,2})\]/.exec(word)?.[1] ?? 0);
        add(assignment[1]!, [...(Array(index).fill('') as string[]), unquote(rest)]);
      }
      continue;
    }
    const following = (k: number): string | undefined => words[i + k]?.value;
    if (word === 'for' && NAME.test(following(1) ?? '') && following(2) === 'in') {
      for (let k = i + 3; k < words.length && !/^(;|do|\n)$/.test(words[k]!.value); k++) add(following(1)!, [unquote(words[k]!.value)]);
    } else if (word === 'read') {
      const names: string[] = [];
      let k = i + 1;
      for (; k < words.length && words[k]!.value !== '<<<' && !/^[;&|\n]/.test(words[k]!.value); k++) {
        const w = words[k]!.value;
        if (/^-[pdntu]$/.test(w)) k++;
        else if (NAME.test(w)) names.push(w);
      }
      const given = words[k]?.value === '<<<' ? words[k + 1]?.value : undefined;
      if (given !== undefined) {
        const value = unquote(given);
        for (const name of names) add(name, names.length === 1 ? [value] : value.split(/\s+/));
      }
    } else if (word === 'printf' && following(1) === '-v' && NAME.test(following(2) ?? '') && isWord(following(3))) {
      // printf -v NAME TEXT, or printf -v NAME FORMAT ARG: the argument is a value too.
      const format = unquote(following(3)!);
      if (!format.includes('%')) add(following(2)!, [format]);
      else if (isWord(following(4))) add(following(2)!, [unquote(following(4)!)]);
    }
  }
  return values;
}

/** The text inside each '…', "…", `$(…)`, `${…}` and backtick unit of a word. */
function innerTexts(word: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < word.length; ) {
    const end = skipUnit(word, i);
    const ch = word[i]!;
    if (ch === "'" || ch === '"' || ch === '`') out.push(word.slice(i + 1, end - 1));
    else if (ch === '$' && (word[i + 1] === '(' || word[i + 1] === '{')) out.push(word.slice(i + 2, end - 1));
    i = end;
  }
  return out;
}

interface ShellWord {
  value: string;
  /** The character right after the word ('' at the end). */
  next: string;
}

/**
 * The shell words of the text in order, operators (`;`, `|`, `<<<`, `(`, `)`, newlines) as words of
 * their own. Quotes, `$(…)`, `${…}` and backticks stay inside the word that holds them.
 */
function shellWords(text: string): ShellWord[] {
  const words: ShellWord[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === ' ' || ch === '\t') {
      i++;
      continue;
    }
    const operator = /^(<<<|&&|\|\||[;&|()<>\n])/.exec(text.slice(i, i + 3));
    if (operator) {
      words.push({ value: operator[0], next: text[i + operator[0].length] ?? '' });
      i += operator[0].length;
      continue;
    }
    const start = i;
    while (i < text.length && !/[\s;&|()<>]/.test(text[i]!)) i = skipUnit(text, i);
    words.push({ value: text.slice(start, i), next: text[i] ?? '' });
  }
  return words;
}

/** The index after the quoted string, expansion or escaped character starting at `i`. */
function skipUnit(text: string, i: number): number {
  const ch = text[i]!;
  if (ch === '\\') return i + 2;
  if (ch === "'") return closing(text, i + 1, "'") + 1;
  if (ch === '"') return closing(text, i + 1, '"') + 1;
  if (ch === '`') return closing(text, i + 1, '`') + 1;
  if (ch === '$' && (text[i + 1] === '(' || text[i + 1] === '{')) {
    const open = text[i + 1]!;
    const close = open === '(' ? ')' : '}';
    let level = 0;
    for (let j = i + 1; j < text.length; j++) {
      if (text[j] === '\\') j++;
      else if (text[j] === open) level++;
      else if (text[j] === close && --level === 0) return j + 1;
    }
    return text.length;
  }
  return i + 1;
}

function closing(text: string, from: number, quote: string): number {
  for (let i = from; i < text.length; i++) {
    if (quote !== "'" && text[i] === '\\') i++;
    else if (text[i] === quote) return i;
  }
  return text.length;
}

/** A word's text after quote removal (`'r'm` → rm, `$'\x72m'` → rm, `"a\$b"` → a$b). Expansions stay as written. */
function unquote(word: string): string {
  let out = '';
  for (let i = 0; i < word.length; i++) {
    const ch = word[i]!;
    if (ch === '\\') out += word[++i] ?? '';
    else if (ch === "'") {
      const end = closing(word, i + 1, "'");
      out += word.slice(i + 1, end);
      i = end;
    } else if (ch === '$' && word[i + 1] === "'") {
      const end = closing(word, i + 2, "'");
      out += decodeAnsiC(word.slice(i + 2, end));
      i = end;
    } else if (ch === '"') {
      const end = closing(word, i + 1, '"');
      out += word.slice(i + 1, end).replace(/\\([$`"\\\n])/g, '$1');
      i = end;
    } else out += ch;
  }
  return out;
}

/**
 * A value put inside "…": quotes and backslashes are escaped. `$` and backticks are not: a value
 * keeps its expansions as written (`k=$HOME/.ssh/id_rsa`), and the assignment expanded them.
 */
function escapeDouble(value: string): string {
  return value.replace(/[\\"]/g, '\\$&');
}

/** quoteStates: inside '…' or $'…'. */
export const SINGLE = 1;
/** quoteStates: inside "…". */
export const DOUBLE = 2;

/**
 * For each character: 0 unquoted, SINGLE inside '…' or $'…', DOUBLE inside "…". A `$( … )` starts
 * afresh, also inside "…" (`"$(a=(x y); "${a[@]}")"`: the inner quotes are its own); the
 * parentheses are counted, not parsed (a `case` pattern's `)` inside one is misread).
 */
export function quoteStates(text: string): Uint8Array {
  const states = new Uint8Array(text.length);
  let state = 0;
  let ansi = false;
  /** The state outside each open `$(`, and the parentheses open inside it. */
  const outer: number[] = [];
  let depth = 0;
  const depths: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    states[i] = state;
    if (state === SINGLE) {
      if (ch === "'") state = 0;
      else if (ch === '\\' && ansi && i + 1 < text.length) states[++i] = state;
      continue;
    }
    if (ch === '\\') {
      if (i + 1 < text.length) states[++i] = state;
    } else if (ch === '$' && text[i + 1] === '(') {
      outer.push(state);
      depths.push(depth);
      state = 0;
      depth = 0;
      states[++i] = state;
    } else if (outer.length > 0 && state === 0 && ch === '(') depth++;
    else if (outer.length > 0 && state === 0 && ch === ')') {
      if (depth > 0) depth--;
      else {
        state = outer.pop()!;
        depth = depths.pop()!;
      }
    } else if (ch === '"') state = state === DOUBLE ? 0 : DOUBLE;
    else if (ch === "'" && state === 0) {
      ansi = text[i - 1] === '$';
      state = SINGLE;
    }
  }
  return states;
}
