import fc from 'fast-check';
import { forestOf } from '../src/util/forest';

/** The fork tree's and the subagent tree's forest (util/forest.ts), on parents named by hostile files. */
interface Node {
  id: number;
  parent: number | null;
  children: Node[];
}

function forest(parents: (number | null)[]): Node[] {
  const nodes = parents.map((parent, id): Node => ({ id, parent, children: [] }));
  return forestOf(
    nodes,
    (n) => (n.parent === null ? undefined : nodes[n.parent]),
    (a, b) => a.id - b.id,
  );
}

function everyId(roots: Node[]): number[] {
  const out: number[] = [];
  const walk = (list: Node[]): void => {
    for (const n of list) {
      out.push(n.id);
      walk(n.children);
    }
  };
  walk(roots);
  return out;
}

test('parents named in a loop: every node listed once, the loop broken at a root', () => {
  // 0 under 1 under 0; 2 under itself; 3 under 4 under 5 under 3; 6 under an unknown parent.
  const roots = forest([1, 0, 2, 5, 3, 4, 99]);
  expect(everyId(roots).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  expect(roots.map((n) => n.id)).toEqual([1, 2, 5, 6]);
});

test('whatever parents the nodes name, each node is in the forest exactly once', () => {
  fc.assert(
    fc.property(
      fc
        .integer({ min: 1, max: 12 })
        .chain((n) => fc.array(fc.option(fc.nat(n), { nil: null }), { minLength: n, maxLength: n })),
      (parents) => {
        const ids = everyId(forest(parents));
        expect(ids.sort((a, b) => a - b)).toEqual(parents.map((_p, i) => i));
      },
    ),
  );
});
