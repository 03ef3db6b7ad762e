/**
 * A forest from nodes that name their parent (forks by their parent session, subagents by their parent journal):
 * each node under its parent, a node whose parent is unknown, itself or its own descendant a root; every level sorted by
 * `order`.
 */
export function forestOf<N extends { children: N[] }>(
  nodes: Iterable<N>,
  parentOf: (n: N) => N | undefined,
  order: (a: N, b: N) => number,
): N[] {
  const roots: N[] = [];
  // Parents named in a loop (a under b under a, from hostile files) would hide every node of the loop from the
  // roots: a node whose parent descends from it is a root instead, so every node is listed once.
  const linked = new Map<N, N>();
  const descendsFrom = (x: N | undefined, n: N): boolean => {
    for (; x !== undefined; x = linked.get(x)) if (x === n) return true;
    return false;
  };
  for (const n of nodes) {
    const parent = parentOf(n);
    if (parent !== undefined && !descendsFrom(parent, n)) {
      parent.children.push(n);
      linked.set(n, parent);
    } else roots.push(n);
  }
  const sortAll = (list: N[]): void => {
    list.sort(order);
    for (const n of list) sortAll(n.children);
  };
  sortAll(roots);
  return roots;
}
