import { beforeAll, expect, test } from 'vitest';
import { initShellParser, isDirectTreeRead, loadedParser, readTree } from '../../src/subjects/shell/parser.js';
import { readTreePublic, sameTree, type SyntaxNode } from '../../src/subjects/shell/syntax.js';
import { rng } from '../helpers/random.js';

/**
 * The walk reads each parse through web-tree-sitter's WASM exports directly (syntax.ts). It must
 * give the very tree the public Node API gives, on well-formed text and on text full of errors.
 */

beforeAll(initShellParser);


const FRAGMENTS = ['ls', ' ', '-la', '&&', '||', '|', ';', '&', '\n', '(', ')', '{ ', ' }', '$(', '`', '"', "'", '$', '${', '}', '[[', ']]', '[', ']', '((', '))', '<<EOF\n', '\nEOF\n', "<<'E'\n", '<<<', '>', '>>', '2>&1', '<(', 'if ', 'then ', 'fi', 'for x in ', 'do ', 'done', 'case $x in a) ', ';;', 'esac', 'f() ', '=', 'a[1]', '#c', '\\', '\\\n', 'é', '😀', '$((1+2))', '*', '?', '~/', 'time ', 'coproc ', '$"x"', "$'\\x72'", '-eq', '=~', 'x=1 '];

function texts(): string[] {
  const r = rng(20261126);
  const out = ['', ' ', 'ls &&', 'echo "é $(id)" > ü', 'cat <<EOF\n$x `y`\nEOF\n', "bash -c 'rm -rf x'"];
  for (let i = 0; i < 1500; i++) {
    let text = '';
    const parts = 1 + Math.floor(r() * 12);
    for (let k = 0; k < parts; k++) text += FRAGMENTS[Math.floor(r() * FRAGMENTS.length)];
    out.push(text);
  }
  return out;
}

function count(node: SyntaxNode): number {
  return 1 + node.children.reduce((sum, child) => sum + count(child), 0);
}

test('the direct read is the one in use', () => {
  expect(isDirectTreeRead()).toBe(true);
});

test('the direct read gives the tree the public API gives, errors and missing nodes included', () => {
  const parser = loadedParser()!;
  let errors = 0;
  let nodes = 0;
  for (const text of texts()) {
    const tree = parser.parse(text)!;
    try {
      const direct = readTree(tree);
      const reference = readTreePublic(tree);
      if (!sameTree(direct, reference)) expect.fail(`the reads differ on ${JSON.stringify(text)}`);
      if (direct.hasError) errors++;
      nodes += count(direct.rootNode);
    } finally {
      tree.delete();
    }
  }
  // The texts exercise both kinds of tree.
  expect(errors).toBeGreaterThan(300);
  expect(nodes).toBeGreaterThan(20_000);
});
