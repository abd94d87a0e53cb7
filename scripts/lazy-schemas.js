// The SDK's types.js made each of its ~750 zod schemas when the gateway's bundle was evaluated,
// ~12 ms of CPU beside the booting servers, and a start uses few of them before its first list
// (docs/performance.md, "Round 26: the ten-server start"). scripts/bundle.js rewrites that file
// with `lazySchemas`: each top-level `const XSchema = …` is made at its first use. Inside the file
// every reference reads the schema itself (`XSchema$()`), so the schemas it composes hold no
// stand-in; what other modules import is a stand-in (src/lazy-schema.ts) until the first touch,
// which makes the schema and puts it in the exported binding, so later reads of it get the schema.
import ts from 'typescript';

/** The rewritten text; throws, stopping the build, on any top-level form it does not know. */
export function lazySchemas(text, file) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const lazy = new Map();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const { declarations } = statement.declarationList;
    const declaration = declarations[0];
    if (!declaration || !ts.isIdentifier(declaration.name) || !declaration.initializer) continue;
    const name = declaration.name.text;
    const makesSchema = /\bz\s*\.|Schema\b/.test(declaration.initializer.getText(source)) && !ts.isArrowFunction(declaration.initializer) && !(ts.isIdentifier(declaration.initializer) && !lazy.has(declaration.initializer.text));
    if (!makesSchema) continue;
    if (declarations.length !== 1 || !(statement.declarationList.flags & ts.NodeFlags.Const) || !name.endsWith('Schema')) {
      throw new Error(`lazy-schemas: ${file}: a top-level declaration that makes a schema is not one \`const …Schema = …\`: ${statement.getText(source).slice(0, 120)}`);
    }
    const exported = statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword) ?? false;
    lazy.set(name, { statement, initializer: declaration.initializer, exported });
  }
  if (lazy.size === 0) throw new Error(`lazy-schemas: ${file}: no schema found`);

  // Every reference to a lazy schema, as an edit: [start, end, replacement].
  const edits = [];
  const visit = (node) => {
    if (ts.isIdentifier(node) && lazy.has(node.text)) {
      const parent = node.parent;
      const declared = ts.isVariableDeclaration(parent) && parent.name === node && lazy.get(node.text).initializer === parent.initializer;
      const propertyName =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        (ts.isPropertyAssignment(parent) && parent.name === node) ||
        (ts.isMethodDeclaration(parent) && parent.name === node) ||
        (ts.isExportSpecifier(parent) || ts.isImportSpecifier(parent));
      if (!declared && !propertyName) {
        if (ts.isShorthandPropertyAssignment(parent)) edits.push([node.getStart(source), node.getEnd(), `${node.text}: ${node.text}$()`]);
        else if ((ts.isParameter(parent) || ts.isVariableDeclaration(parent) || ts.isFunctionDeclaration(parent) || ts.isClassDeclaration(parent)) && parent.name === node) throw new Error(`lazy-schemas: ${file}: ${node.text} is declared again inside the file`);
        else edits.push([node.getStart(source), node.getEnd(), `${node.text}$()`]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);

  // Each declaration: the schema's maker; the binding other modules import is declared at the top.
  const bindings = [];
  for (const [name, { statement, initializer, exported }] of lazy) {
    const start = statement.getStart(source);
    const inner = edits.filter(([from]) => from >= initializer.getStart(source) && from < initializer.getEnd());
    for (const edit of inner) edits.splice(edits.indexOf(edit), 1);
    const made = applyEdits(text.slice(initializer.getStart(source), initializer.getEnd()), inner.map(([from, to, by]) => [from - initializer.getStart(source), to - initializer.getStart(source), by]));
    if (exported) bindings.push(`export let ${name} = lazySchema(() => ${name}$());`);
    const assign = exported ? `, ${name} = ${name}$v` : '';
    edits.push([start, statement.getEnd(), `let ${name}$v;\nconst ${name}$ = () => ${name}$v ?? ((${name}$v = ${made})${assign}, ${name}$v);`]);
  }
  // The exported bindings first: a schema made while the file is still evaluated finds its binding.
  const lastImport = source.statements.filter((statement) => ts.isImportDeclaration(statement)).at(-1);
  edits.push([lastImport?.getEnd() ?? 0, lastImport?.getEnd() ?? 0, `\n${bindings.join('\n')}\n`]);
  return { text: applyEdits(text, edits), schemas: lazy.size };
}

function applyEdits(text, edits) {
  const sorted = [...edits].sort((a, b) => b[0] - a[0]);
  let out = text;
  for (const [from, to, by] of sorted) out = out.slice(0, from) + by + out.slice(to);
  return out;
}
