import { spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { analyseCommand } from '../../src/subjects/shell/command.js';
import { initShellParser, readPlain } from '../../src/subjects/shell/parser.js';
import { rebuildPrecedence } from '../../src/subjects/shell/precedence.js';
import { sameTree, type SyntaxNode, type SyntaxTree } from '../../src/subjects/shell/syntax.js';
import { tempDir } from '../helpers/gateway.js';
import { grammar } from '../helpers/grammar-tree.js';
import { rng } from '../helpers/random.js';

/**
 * precedence.ts rebuilds bash's reading of lists, pipelines, `!`, redirections after a list and
 * heredoc rests from the grammar's tree. Checked against bash itself on seeded texts of those
 * shapes (the bash manual's "Pipelines", "Lists of Commands", "Redirections", "Here Documents"):
 *
 *   - what runs, in which order, with which input and output: every command `sN` prints its input
 *     and its name on stdout and `eN` on stderr and returns a chosen status; the rebuilt tree,
 *     evaluated by the rules of the manual, must print what bash prints;
 *   - the working directory the walk claims for each command (pipeline stages and groups inside
 *     them are subshells, `cd` in a list is not): every command `pN` logs bash's $PWD, which must be
 *     the walk's cwd wherever the walk claims one.
 */

beforeAll(initShellParser);

function pick<T>(r: () => number, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)]!;
}

/** A text generator over the shapes above; `stage(k)` writes the k-th command. */
function generate(r: () => number, stage: (k: number) => string, extra: { groups?: boolean; errexit?: boolean } = {}): string {
  let k = 0;
  let line = '';
  const lines: string[] = [];
  let bodies: string[] = [];
  const newline = (): void => {
    lines.push(line, ...bodies);
    line = '';
    bodies = [];
  };
  const oneStage = (negated: boolean): void => {
    const id = k++;
    // `! { …; }`: the grammar reads a command named `{`, the walk blanks the `!` (guard d).
    if (extra.groups && r() < (negated ? 0.4 : 0.15)) {
      const open = r() < 0.5;
      line += open ? `( cd a && ${stage(k++)} )` : `{ cd a && ${stage(k++)}; }`;
    } else {
      line += stage(id);
    }
    for (let n = Math.floor(r() * 2.5); n > 0; n--) line += pick(r, [' 2>&1', ' >/dev/null', ' 2>/dev/null', ' >&2']);
    // The grammar fails on two heredocs in one line and on `<<E|` (the walk asks): not generated.
    if (bodies.length === 0 && r() < 0.15) {
      line += ` <<E${id} `;
      bodies.push(`h${id}`, `E${id}`);
    }
  };
  // The grammar misreads a heredoc on a line that ends in an operator (the walk asks): an operator
  // ends a line only when no heredoc is pending.
  const pipeline = (): void => {
    const negated = r() < 0.15;
    if (negated) line += pick(r, ['! ', '!  ']);
    oneStage(negated);
    for (let n = Math.floor(r() * 3.2); n > 0; n--) {
      const op = pick(r, [' | ', ' | ', '|', ' |& ', ' |\n']);
      line += bodies.length > 0 ? op.trimEnd() : op;
      if (line.endsWith('\n')) {
        line = line.slice(0, -1);
        newline();
      }
      oneStage(false);
    }
  };
  const list = (): void => {
    pipeline();
    for (let n = Math.floor(r() * 3.2); n > 0; n--) {
      const op = pick(r, [' && ', ' || ', '&&', ' &&\n', ' || # why\n', ' && # a | b && c\n']);
      line += bodies.length > 0 ? op.replace(/ ?#.*/, '').trimEnd() : op.trimEnd();
      if (op.endsWith('\n') && bodies.length === 0) newline();
      else line += op.startsWith(' ') ? ' ' : '';
      pipeline();
    }
  };
  list();
  for (let n = r() < 0.3 ? 1 : 0; n > 0; n--) {
    if (r() < 0.5) line += '; ';
    else newline();
    list();
  }
  newline();
  // `set -e` (bash manual, "The Set Builtin"): a failure stops the shell, except in a `&&`/`||`
  // list before its last command or after `!`.
  return (extra.errexit && r() < 0.4 ? 'set -e; ' : '') + lines.join('\n') + '\n';
}

/** The tree the walk reads: the plain-text reader's or the grammar's, rebuilt. */
function rebuilt(text: string): SyntaxTree {
  const tree = readPlain(text) ?? grammar(text);
  if (!rebuildPrecedence(tree.rootNode, text)) return { rootNode: tree.rootNode, hasError: true };
  return tree;
}

/** Runs `texts` in one bash, each in a subshell after `prelude(k)`; returns each one's stdout. */
function runBash(texts: string[], prelude: (k: number) => string, dir: string): string[] {
  const script = texts.map((text, k) => `${prelude(k)}\n( eval '${text.replaceAll("'", "'\\''")}' ) 2>/dev/null; wait; printf '\\n#@#\\n'`).join('\n');
  const file = join(dir, 'script.sh');
  writeFileSync(file, script);
  const bash = spawnSync('bash', [file], { encoding: 'utf8', cwd: dir, maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'pipe'] });
  expect(bash.stderr).toBe('');
  return bash.stdout.split('\n#@#\n').slice(0, texts.length);
}

// ---------------------------------------------------------------------------------------------
// What runs, and where its input and output go
// ---------------------------------------------------------------------------------------------

type Sink = { out: string } | null;
interface Fds {
  1: Sink;
  2: Sink;
}

/** Evaluates a rebuilt tree by the bash manual's rules; throws on a node it does not know. */
class Evaluator {
  constructor(
    private readonly text: string,
    private readonly statuses: number[],
  ) {}

  run(root: SyntaxNode): string {
    const out = { out: '' };
    this.statement(root, '', { 1: out, 2: null });
    return out.out;
  }

  private slice(node: SyntaxNode): string {
    return this.text.slice(node.startIndex, node.endIndex);
  }

  private statement(node: SyntaxNode, input: string, fds: Fds, pipeErr = false): number {
    switch (node.type) {
      case 'program': {
        let status = 0;
        for (const child of node.children) if (child.type !== ';' && child.type !== 'comment') status = this.statement(child, input, fds);
        return status;
      }
      case 'list': {
        const [left, op, right] = node.children.filter((c) => c.type !== 'comment');
        const status = this.statement(left!, input, fds);
        if ((op!.type === '&&') === (status === 0)) return this.statement(right!, '', fds);
        return status;
      }
      case 'negated_command':
        return this.statement(node.children[1]!, input, fds) === 0 ? 1 : 0;
      case 'pipeline': {
        const parts = node.children.filter((c) => c.type !== 'comment');
        let data = input;
        let status = 0;
        for (let k = 0; k < parts.length; k += 2) {
          const last = k === parts.length - 1;
          const pipe = { out: '' };
          status = this.statement(parts[k]!, data, { 1: last ? fds[1] : pipe, 2: fds[2] }, parts[k + 1]?.type === '|&');
          data = pipe.out;
        }
        return status;
      }
      case 'redirected_statement': {
        const [body, ...redirects] = node.children;
        let within: Fds = { ...fds };
        let stdin = input;
        for (const redirect of redirects) {
          if (redirect.type === 'heredoc_redirect') {
            stdin = this.slice(redirect.children.find((c) => c.type === 'heredoc_body')!).replace(/\n+$/, '');
            continue;
          }
          if (redirect.type !== 'file_redirect') throw new Error(`redirect ${redirect.type}`);
          const fd = redirect.children[0]!.type === 'file_descriptor' ? Number(this.slice(redirect.children[0]!)) : 1;
          const target = this.slice(redirect.lastChild!);
          within = { ...within, [fd]: target === '/dev/null' ? null : within[Number(target) as 1 | 2] };
        }
        if (pipeErr) within = { ...within, 2: within[1] };
        return this.statement(body!, stdin, within);
      }
      case 'command': {
        const name = this.slice(node);
        const id = Number(name.slice(1));
        const sink = pipeErr ? fds[1] : fds[2];
        if (fds[1]) fds[1].out += `${input}${id};`;
        if (sink) sink.out += `e${id};`;
        return this.statuses[id]!;
      }
      default:
        throw new Error(`unknown node ${node.type} in ${JSON.stringify(this.text)}`);
    }
  }
}

test('on 150 seeded texts, the rebuilt tree runs what bash runs, with the input and output bash gives each command', () => {
  const r = rng(20261127);
  const COUNT = Number(process.env.COUNT ?? 150);
  const dir = realpathSync(tempDir('precedence-'));
  const texts: string[] = [];
  while (texts.length < COUNT) texts.push(generate(r, (k) => `s${k}`));
  const statuses = texts.map((text) => Array.from({ length: (text.match(/s\d+/g) ?? []).length + 1 }, () => (r() < 0.6 ? 0 : 1)));
  const functions = Array.from({ length: 40 }, (_, k) => `s${k}() { local i; IFS= read -r -d '' i; i=\${i%$'\\n'}; printf '%s${k};' "$i"; printf 'e${k};' >&2; return $S${k}; }`).join('\n');
  const printed = runBash(texts, (k) => `${k === 0 ? functions : ''}\n${statuses[k]!.map((s, id) => `S${id}=${s}`).join(' ')}`, dir);
  const wrong: string[] = [];
  const shapes = new Set<string>();
  let errors = 0;
  for (let k = 0; k < texts.length; k++) {
    const tree = rebuilt(texts[k]!);
    // The grammar fails on some heredocs (the walk then asks): nothing to compare.
    if (tree.hasError) {
      errors++;
      continue;
    }
    let ours: string;
    try {
      ours = new Evaluator(texts[k]!, statuses[k]!).run(tree.rootNode);
    } catch (error) {
      ours = String(error);
    }
    if (ours !== printed[k]) wrong.push(`${JSON.stringify(texts[k])}: bash ${JSON.stringify(printed[k])}, tree ${JSON.stringify(ours)}`);
    for (const match of texts[k]!.matchAll(/\|&|<<|#|!|&&\n|\|\n/g)) shapes.add(match[0]);
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(errors).toBeLessThan(texts.length / 8);
  expect([...shapes].sort()).toEqual(['!', '#', '&&\n', '<<', '|\n', '|&'].sort());
}, 180_000);

test('the plain-text reader and the grammar give the same rebuilt tree', () => {
  const r = rng(7);
  let compared = 0;
  for (let n = 0; n < 3000; n++) {
    const text = generate(r, (k) => pick(r, ['git status', 'npm run test', 'tail -n 20', `cat f${k}`, 'cd src'])).trimEnd();
    const plain = readPlain(text);
    if (plain === null) continue;
    rebuildPrecedence(plain.rootNode, text);
    const tree = grammar(text);
    rebuildPrecedence(tree.rootNode, text);
    expect(sameTree(plain, tree), text).toBe(true);
    compared++;
  }
  expect(compared).toBeGreaterThan(250);
});

// ---------------------------------------------------------------------------------------------
// Working directories
// ---------------------------------------------------------------------------------------------

/** A directory eight `a`s deep, and a start four levels down in it, where `cd a` and `cd ..` work several times. */
function cwdTree(prefix: string): string {
  let start = realpathSync(tempDir(prefix));
  for (let depth = 0; depth < 8; depth++) {
    start = join(start, 'a');
    mkdirSync(start);
  }
  return resolve(start, '../../../..');
}

/**
 * Runs each text in bash from `start`, where every command `pN` logs bash's $PWD and returns a
 * seeded status, and compares the walk's cwd of each `pN` that ran with it.
 */
function cwdsAgainstBash(texts: string[], start: string, r: () => number): { wrong: string[]; known: number; unknown: number; errors: number } {
  const statuses = texts.map(() => Array.from({ length: 40 }, () => (r() < 0.7 ? 0 : 1)));
  const log = join(start, '..', 'log');
  const functions = Array.from({ length: 40 }, (_, k) => `p${k}() { printf '${k} %s\\n' "$PWD" >> ${log}; return $S${k}; }`).join('\n');
  const script = texts.map((text, k) => `${k === 0 ? functions : ''}\ncd ${start}; ${statuses[k]!.map((s, id) => `S${id}=${s}`).join(' ')}; ( eval '${text}' ) 2>/dev/null; wait; printf '#\\n' >> ${log}`).join('\n');
  const file = join(start, '..', 'script.sh');
  writeFileSync(file, script);
  const bash = spawnSync('bash', [file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  expect(bash.stderr).toBe('');
  const logs = spawnSync('cat', [log], { encoding: 'utf8' }).stdout.split('#\n');
  const wrong: string[] = [];
  let known = 0;
  let unknown = 0;
  let errors = 0;
  for (let k = 0; k < texts.length; k++) {
    const info = analyseCommand(texts[k]!, { cwd: start });
    if (!info.parseOk) {
      errors++;
      if (process.env.SHOW) console.log('PARSE', JSON.stringify(texts[k]), info.unanalyzable);
      continue;
    }
    for (const entry of logs[k]!.split('\n').filter(Boolean)) {
      const [id, pwd] = entry.split(' ');
      // Round 32: after `cd X;` the rest is walked in X and where the shell was, so a command may have
      // several segments: bash's directory must be one of them (or one is unknown).
      const cwds = info.segments.filter((s) => s.words[0] === `p${id}`).map((s) => s.cwd);
      if (cwds.length === 0) continue;
      if (cwds.includes(null)) unknown++;
      else if (cwds.some((cwd) => resolve(cwd!) === pwd)) known++;
      else wrong.push(`${JSON.stringify(texts[k])}: p${id} ran in ${pwd}, the walk says ${cwds.join(' or ')}`);
    }
  }
  return { wrong, known, unknown, errors };
}

test('on 150 seeded texts, every cwd the walk claims for a command is the one bash runs it in', () => {
  const r = rng(20261128);
  const COUNT = Number(process.env.COUNT ?? 150);
  const start = cwdTree('precedence-cwd-');
  const texts: string[] = [];
  while (texts.length < COUNT) {
    texts.push(generate(r, (k) => (r() < 0.35 ? pick(r, ['cd a', 'cd a', 'cd ..', 'cd nowhere']) : `p${k}`), { groups: true, errexit: true }));
  }
  const { wrong, known, unknown, errors } = cwdsAgainstBash(texts, start, r);
  expect(wrong.slice(0, 5)).toEqual([]);
  // The walk knows most of them: a `cd` after `||` or a failed cd leaves the cwd unknown (after `;`, round 32 reads both).
  expect(known).toBeGreaterThan(3 * unknown);
  expect(errors).toBeLessThan(texts.length / 5);
}, 180_000);

/**
 * Statements under `set -e` (bash manual, "The Set Builtin"): lists, `!`, groups, subshells and
 * `if` conditions around `cd`s that succeed or fail, each followed by more statements.
 */
function errexitText(r: () => number): string {
  let k = 0;
  const simple = (): string => (r() < 0.45 ? pick(r, ['cd a', 'cd a', 'cd ..', 'cd nowhere']) : `p${k++}`);
  const sequence = (depth: number, most: number): string => {
    const statements = [statement(depth)];
    for (let n = Math.floor(r() * most); n > 0; n--) statements.push(statement(depth));
    return statements.join(pick(r, ['; ', '\n']));
  };
  const stage = (depth: number): string => {
    const x = r();
    if (depth > 1 || x < 0.6) return simple();
    if (x < 0.75) return `{ ${sequence(depth + 1, 2)}; }`;
    if (x < 0.85) return `( ${sequence(depth + 1, 2)} )`;
    return `if ${sequence(depth + 1, 1)}; then ${sequence(depth + 1, 1)}; fi`;
  };
  const pipeline = (depth: number): string => (r() < 0.2 ? '! ' : '') + stage(depth) + (r() < 0.1 ? ` | ${stage(depth)}` : '');
  const statement = (depth: number): string => {
    let out = pipeline(depth);
    for (let n = Math.floor(r() * 2.5); n > 0; n--) out += pick(r, [' && ', ' || ']) + pipeline(depth);
    return out;
  };
  return `set -e; ${sequence(0, 4)}; p${k}`;
}

test('on 300 seeded texts under set -e, every cwd the walk claims for a command is the one bash runs it in', () => {
  const r = rng(20261129);
  const start = cwdTree('precedence-errexit-');
  const texts = Array.from({ length: Number(process.env.COUNT ?? 300) }, () => errexitText(r));
  const { wrong, known, unknown, errors } = cwdsAgainstBash(texts, start, r);
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(errors).toBe(0);
  // Both are many: a `cd` in a list or after `!` leaves the cwd unknown, after `;` it is known.
  expect(known).toBeGreaterThan(300);
  expect(unknown).toBeGreaterThan(100);
}, 180_000);

// ---------------------------------------------------------------------------------------------
// Words before redirections (dropped-words.ts)
// ---------------------------------------------------------------------------------------------

test('on 400 seeded commands with words and redirections mixed, the walk sees the arguments bash passes', () => {
  const r = rng(5);
  const dir = realpathSync(tempDir('precedence-words-'));
  writeFileSync(join(dir, 'f'), '');
  const WORDS = ['-', '-', '-5', '--', 'x', '5', '-x', '0', '_', '-0', '+5', 'x5', '5x'];
  const REDIRECTS = [' 2>e', ' >f', ' -5>f', ' -0>f', ' 5>f', ' 2>&1', ' 3<f', ' <f', ' >&2', ' 2>>e'];
  const texts: string[] = [];
  while (texts.length < 400) {
    let text = 'p ';
    for (let n = 1 + Math.floor(r() * 5); n > 0; n--) text += r() < 0.55 ? ` ${pick(r, WORDS)}` : pick(r, REDIRECTS);
    if (r() < 0.2) text += ` <<E${r() < 0.5 ? ` ${pick(r, WORDS)}` : ''}\nh\nE`;
    texts.push(text);
  }
  const script = `p() { for a; do printf '[%s]' "$a"; done >&9; }\n${texts.map((text) => `( eval '${text}' ) 9>&1 2>/dev/null; echo`).join('\n')}\n`;
  writeFileSync(join(dir, 'script.sh'), script);
  const bash = spawnSync('bash', [join(dir, 'script.sh')], { encoding: 'utf8', cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const printed = bash.stdout.split('\n');
  const wrong: string[] = [];
  let compared = 0;
  for (let k = 0; k < texts.length; k++) {
    const info = analyseCommand(texts[k]!, { cwd: dir });
    if (!info.parseOk) continue;
    compared++;
    const segment = info.segments.find((s) => s.words[0] === 'p');
    const ours = segment ? segment.words.slice(1).map((word) => `[${word}]`).join('') : '<none>';
    if (ours !== printed[k]) wrong.push(`${JSON.stringify(texts[k])}: bash ${printed[k]}, walk ${ours}`);
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(compared).toBeGreaterThan(350);
}, 120_000);
