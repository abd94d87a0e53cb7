import type { Language, Node, Tree } from 'web-tree-sitter';

/**
 * A parsed command as plain JavaScript objects, read out of the grammar's tree in one pass right
 * after parsing (the tree is then deleted). The walk looks at each node several times (its type,
 * its children, its text); through web-tree-sitter's Node each look crosses into WASM and copies
 * the node in and out, which cost more than the parse itself (docs/performance.md#decision-time).
 * The properties keep web-tree-sitter's names, so code written against its Node reads the same.
 */
export class SyntaxNode {
  readonly children: SyntaxNode[] = [];
  private named: SyntaxNode[] | null = null;

  constructor(
    readonly type: string,
    readonly isNamed: boolean,
    readonly startIndex: number,
    readonly endIndex: number,
    /** Set once, when the node is placed (plain-text.ts builds children before their parent). */
    public parent: SyntaxNode | null,
    /** Its position among its parent's children. */
    private index: number,
  ) {}

  /** Places `child`, made without a parent, as this node's last child. */
  append(child: SyntaxNode): void {
    child.parent = this;
    child.index = this.children.length;
    this.children.push(child);
  }

  /** Puts `child` in the place of the child at `index` (precedence.ts rebuilds statements in place). */
  replaceChild(index: number, child: SyntaxNode): void {
    child.parent = this;
    child.index = index;
    this.children[index] = child;
    this.named = null;
  }

  get namedChildren(): SyntaxNode[] {
    return (this.named ??= this.children.filter((child) => child.isNamed));
  }

  child(index: number): SyntaxNode | null {
    return this.children[index] ?? null;
  }

  get lastChild(): SyntaxNode | null {
    return this.children[this.children.length - 1] ?? null;
  }

  get previousSibling(): SyntaxNode | null {
    return this.parent?.children[this.index - 1] ?? null;
  }

  /** This node and every node below it of this type, in document order. */
  descendantsOfType(type: string): SyntaxNode[] {
    const found: SyntaxNode[] = [];
    const stack: SyntaxNode[] = [this];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.type === type) found.push(node);
      for (let k = node.children.length - 1; k >= 0; k--) stack.push(node.children[k]!);
    }
    return found;
  }
}

export interface SyntaxTree {
  readonly rootNode: SyntaxNode;
  /** An ERROR or MISSING node somewhere in the tree. */
  readonly hasError: boolean;
  /**
   * Set by the plain-text reader only (plain-text.ts): its command names in text order, all the
   * sh-dialect check needs of a tree in that subset (dialect.ts dashReadsPlainOtherwise).
   */
  readonly commandNames?: readonly string[];
}

/**
 * The WASM exports the one-pass read calls directly. web-tree-sitter keeps a tree cursor in its
 * transfer buffer between these calls; its TreeCursor class copies the cursor out and back in
 * around every call (about 20 memory accesses per node), which is the cost this avoids.
 */
export interface CursorExports {
  _ts_tree_root_node_wasm(tree: number): void;
  _ts_node_has_error_wasm(tree: number): number;
  _ts_tree_cursor_new_wasm(tree: number): void;
  _ts_tree_cursor_delete_wasm(tree: number): void;
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
}

const CURSOR_EXPORTS: ReadonlyArray<keyof CursorExports> = [
  '_ts_tree_root_node_wasm',
  '_ts_node_has_error_wasm',
  '_ts_tree_cursor_new_wasm',
  '_ts_tree_cursor_delete_wasm',
  '_ts_tree_cursor_goto_first_child_wasm',
  '_ts_tree_cursor_goto_next_sibling_wasm',
  '_ts_tree_cursor_goto_parent_wasm',
  '_ts_tree_cursor_current_node_type_id_wasm',
  '_ts_tree_cursor_start_index_wasm',
  '_ts_tree_cursor_end_index_wasm',
];

/** The module object given to Parser.init(), if it holds every export the direct read needs. */
export function cursorExports(module: Record<string, unknown>): CursorExports | null {
  return CURSOR_EXPORTS.every((name) => typeof module[name] === 'function') ? (module as unknown as CursorExports) : null;
}

/** Type names and named flags by type id, for one language. */
export class NodeTypes {
  private readonly named: Array<boolean | undefined> = [];
  constructor(private readonly language: Language) {}

  name(id: number): string {
    return this.language.types[id] || 'ERROR';
  }

  isNamed(id: number): boolean {
    return (this.named[id] ??= id === 0xffff || this.language.nodeTypeIsNamed(id));
  }
}

/** Reads `tree` through the WASM exports directly (see CursorExports). */
export function readTreeDirect(exports: CursorExports, types: NodeTypes, tree: Tree): SyntaxTree {
  const address = (tree as unknown as { 0: number })[0];
  const e = exports;
  e._ts_tree_root_node_wasm(address);
  const hasError = e._ts_node_has_error_wasm(address) === 1;
  e._ts_tree_root_node_wasm(address);
  e._ts_tree_cursor_new_wasm(address);
  try {
    const current = (parent: SyntaxNode | null, index: number): SyntaxNode => {
      const id = e._ts_tree_cursor_current_node_type_id_wasm(address);
      return new SyntaxNode(types.name(id), types.isNamed(id), e._ts_tree_cursor_start_index_wasm(address), e._ts_tree_cursor_end_index_wasm(address), parent, index);
    };
    const root = current(null, 0);
    let parent = root;
    if (e._ts_tree_cursor_goto_first_child_wasm(address) === 1) {
      walk: for (;;) {
        const node = current(parent, parent.children.length);
        parent.children.push(node);
        if (e._ts_tree_cursor_goto_first_child_wasm(address) === 1) {
          parent = node;
          continue;
        }
        while (e._ts_tree_cursor_goto_next_sibling_wasm(address) !== 1) {
          if (parent === root) break walk;
          e._ts_tree_cursor_goto_parent_wasm(address);
          parent = parent.parent!;
        }
      }
    }
    return { rootNode: root, hasError };
  } finally {
    e._ts_tree_cursor_delete_wasm(address);
  }
}

/** Reads `tree` through web-tree-sitter's public Node API: the reference the direct read is checked against. */
export function readTreePublic(tree: Tree): SyntaxTree {
  const top = tree.rootNode;
  const root = new SyntaxNode(top.type, top.isNamed, top.startIndex, top.endIndex, null, 0);
  const stack: Array<[Node, SyntaxNode]> = [[top, root]];
  while (stack.length > 0) {
    const [node, copy] = stack.pop()!;
    for (const child of node.children) {
      const made = new SyntaxNode(child.type, child.isNamed, child.startIndex, child.endIndex, copy, copy.children.length);
      copy.children.push(made);
      stack.push([child, made]);
    }
  }
  return { rootNode: root, hasError: top.hasError };
}

/** The same types, offsets and shape (for the check of the direct read at start-up). */
export function sameTree(a: SyntaxTree, b: SyntaxTree): boolean {
  if (a.hasError !== b.hasError) return false;
  const stack: Array<[SyntaxNode, SyntaxNode]> = [[a.rootNode, b.rootNode]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (x.type !== y.type || x.isNamed !== y.isNamed || x.startIndex !== y.startIndex || x.endIndex !== y.endIndex || x.children.length !== y.children.length) return false;
    for (let k = 0; k < x.children.length; k++) stack.push([x.children[k]!, y.children[k]!]);
  }
  return true;
}
