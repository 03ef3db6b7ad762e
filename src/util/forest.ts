/**
 * A forest from nodes that name their parent (forks by their parent session, subagents by their parent journal):
 * each node under its parent, a node whose parent is unknown (or itself) a root; every level sorted by `order`.
 */
export function forestOf<N extends { children: N[] }>(
  nodes: Iterable<N>,
  parentOf: (n: N) => N | undefined,
  order: (a: N, b: N) => number,
): N[] {
  const roots: N[] = [];
  for (const n of nodes) {
    const parent = parentOf(n);
    if (parent !== undefined && parent !== n) parent.children.push(n);
    else roots.push(n);
  }
  const sortAll = (list: N[]): void => {
    list.sort(order);
    for (const n of list) sortAll(n.children);
  };
  sortAll(roots);
  return roots;
}
