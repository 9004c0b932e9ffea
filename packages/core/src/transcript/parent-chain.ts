/**
 * The walk from a transcript entry back along its parents: how a transcript's active branch is
 * found (the newest entry back to the root), in the store, the import and the lossless engine's
 * bootstrap alike.
 */

/** A walk from an entry back along its parents (see `parentChain`). */
export interface ParentChain<Node> {
  /** Root first. */
  chain: Node[];
  /** The parent id the walk did not find (null when it reached a root or met a cycle). */
  missing: string | null;
  /** The walk stopped at an entry it had already passed: the parents form a cycle. */
  cycle: boolean;
}

/**
 * The entries from `leafId` back along their parents, root first. It stops at a root, at a parent
 * that is not among `nodes`, or at the first entry met twice, so a parent cycle in a damaged file
 * never repeats an entry (a context would repeat it, and an engine would store it again).
 */
export function parentChain<Node extends { parentId: string | null }>(
  nodes: ReadonlyMap<string, Node>,
  leafId: string | null,
): ParentChain<Node> {
  const chain: Node[] = [];
  const seen = new Set<string>();
  let id = leafId;
  while (id !== null) {
    if (seen.has(id)) return { chain: chain.reverse(), missing: null, cycle: true };
    const node = nodes.get(id);
    if (node === undefined) return { chain: chain.reverse(), missing: id, cycle: false };
    seen.add(id);
    chain.push(node);
    id = node.parentId;
  }
  return { chain: chain.reverse(), missing: null, cycle: false };
}
