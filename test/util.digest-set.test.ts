import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { DigestBudget, DigestBudgetExceeded, DigestSet } from '../src/util/digest-set';
import { RefOrder } from '../src/util/digest-order';

const hexDigest = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));
/** Digests from a small pool (so repeats are common), or any. */
const digestPool = fc.array(hexDigest, { minLength: 1, maxLength: 12 });

type Op =
  | { op: 'addHex'; d: number }
  | { op: 'addBytes'; d: number; pad: number }
  | { op: 'addHexBytes'; d: number; pad: number }
  | { op: 'mark'; d: number; bits: number }
  | { op: 'has'; d: number }
  | { op: 'reserve'; n: number };

const op = (n: number): fc.Arbitrary<Op> =>
  fc.oneof(
    fc.record({ op: fc.constant('addHex' as const), d: fc.nat({ max: n - 1 }) }),
    fc.record({ op: fc.constant('addBytes' as const), d: fc.nat({ max: n - 1 }), pad: fc.nat({ max: 7 }) }),
    fc.record({ op: fc.constant('addHexBytes' as const), d: fc.nat({ max: n - 1 }), pad: fc.nat({ max: 7 }) }),
    fc.record({ op: fc.constant('mark' as const), d: fc.nat({ max: n - 1 }), bits: fc.integer({ min: 1, max: 255 }) }),
    fc.record({ op: fc.constant('has' as const), d: fc.nat({ max: n - 1 }) }),
    // Room made at once for more (a streamed manifest's size, learnt late): nothing held changes.
    fc.record({ op: fc.constant('reserve' as const), n: fc.nat({ max: 300 }) }),
  );

describe('DigestSet holds what a JS Set (and an array of first occurrences) holds', () => {
  it('adds, lookups, order, flags, against the model', () => {
    fc.assert(
      fc.property(
        digestPool.chain((pool) => fc.tuple(fc.constant(pool), fc.array(op(pool.length), { maxLength: 200 }))),
        fc.nat({ max: 40 }),
        ([pool, ops], expected) => {
          const set = new DigestSet(expected);
          const model = new Set<string>();
          const order: string[] = [];
          const flags = new Map<string, number>();
          for (const o of ops) {
            const d = 'd' in o ? pool[o.d]! : '';
            if (o.op === 'mark') {
              const i = set.indexOfHex(d);
              expect(i).toBe(order.indexOf(d));
              if (i >= 0) {
                set.mark(i, o.bits);
                flags.set(d, (flags.get(d) ?? 0) | o.bits);
              }
              continue;
            }
            if (o.op === 'reserve') {
              set.reserve(o.n);
              continue;
            }
            if (o.op === 'has') {
              expect(set.hasHex(d)).toBe(model.has(d));
              continue;
            }
            let added: boolean | undefined;
            if (o.op === 'addHex') added = set.addHex(d);
            else if (o.op === 'addBytes') {
              const b = Buffer.concat([Buffer.alloc(o.pad, 0xee), Buffer.from(d, 'hex'), Buffer.alloc(3, 0xee)]);
              added = set.add(b, o.pad);
            } else {
              const b = Buffer.from(`${'x'.repeat(o.pad)}${d}"`, 'latin1');
              added = set.addHexBytes(b, o.pad);
            }
            expect(added).toBe(!model.has(d));
            if (!model.has(d)) {
              model.add(d);
              order.push(d);
            }
          }
          expect(set.size).toBe(model.size);
          expect([...set.hex()]).toEqual(order);
          order.forEach((d, i) => {
            expect(set.indexOfHex(d)).toBe(i);
            expect(set.indexOf(Buffer.from(d, 'hex'))).toBe(i);
            expect(Buffer.from(set.bytesAt(i)).toString('hex')).toBe(d);
            expect(set.flags(i)).toBe(flags.get(d) ?? 0);
          });
          for (const d of pool) expect(set.hasHex(d)).toBe(model.has(d));
          // Another set's entries looked up here (what a verdict does per blob), and these there.
          const other = new DigestSet();
          for (const d of [...pool].reverse()) other.addHex(d);
          order.forEach((d, i) => expect(other.indexOfEntry(set, i)).toBe(other.indexOfHex(d)));
          for (let i = 0; i < other.size; i++) expect(set.indexOfEntry(other, i)).toBe(order.indexOf(other.hexAt(i)));
        },
      ),
      { numRuns: 300, seed: 2501 },
    );
  });

  it('many digests (its index and storage grown many times): every one found, none twice, order kept', () => {
    const n = 50_000;
    const set = new DigestSet();
    const hexes: string[] = [];
    for (let i = 0; i < n; i++) hexes.push(createHash('sha256').update(String(i)).digest('hex'));
    // Counted, not one expect per call: 100,000 expects were most of this test's time (each add takes microseconds).
    let added = 0;
    let again = 0;
    for (const h of hexes) if (set.addHex(h)) added++;
    for (const h of hexes) if (set.addHex(h)) again++;
    expect([added, again]).toEqual([n, 0]);
    expect(set.size).toBe(n);
    for (let i = 0; i < n; i += 997) expect(set.hexAt(i)).toBe(hexes[i]);
    expect(set.indexOfHex(hexes[n - 1]!)).toBe(n - 1);
    expect(set.hasHex(createHash('sha256').update('absent').digest('hex'))).toBe(false);
  });

  it('digests alike in all but a few bits (a hostile manifest picks them) are told apart', () => {
    const set = new DigestSet();
    const base = Buffer.alloc(32);
    const added: number[] = [];
    const found: number[] = [];
    for (let i = 0; i < 4096; i++) {
      const b = Buffer.from(base);
      b.writeUInt16BE(i, 30);
      if (!set.add(b)) added.push(i);
    }
    for (let i = 0; i < 4096; i++) {
      const b = Buffer.from(base);
      b.writeUInt16BE(i, 30);
      if (set.indexOf(b) !== i) found.push(i);
    }
    // The digests not added as new, and those not found where they were added: none (listed, not one expect each).
    expect(added).toEqual([]);
    expect(found).toEqual([]);
  });

  it('sameOrder: the same digests in the same order only', () => {
    fc.assert(
      fc.property(fc.array(hexDigest, { maxLength: 20 }), fc.array(hexDigest, { maxLength: 20 }), (a, b) => {
        const sa = new DigestSet();
        const sb = new DigestSet(b.length);
        for (const d of a) sa.addHex(d);
        for (const d of b) sb.addHex(d);
        const ua = [...new Set(a)];
        const ub = [...new Set(b)];
        expect(sa.sameOrder(sb)).toBe(ua.length === ub.length && ua.every((d, i) => d === ub[i]));
        expect(sa.sameOrder(sa)).toBe(true);
      }),
      { numRuns: 200, seed: 2502 },
    );
  });

  it('refuses what is not 64 lowercase hex digits', () => {
    const set = new DigestSet();
    const good = 'a'.repeat(64);
    for (const bad of [
      'A'.repeat(64),
      'a'.repeat(63),
      'a'.repeat(65),
      `${'a'.repeat(63)}g`,
      `${'a'.repeat(63)}\u0161`,
    ]) {
      expect(() => set.addHex(bad)).toThrow(TypeError);
      expect(set.hasHex(bad)).toBe(false);
    }
    // Bytes are read 64 at a time: those that are not 64 hex digits there.
    for (const bad of ['A'.repeat(64), 'a'.repeat(63), `${'a'.repeat(63)}g`, `${'a'.repeat(63)}\u0161`, `"${good}`])
      expect(set.addHexBytes(Buffer.from(bad, 'utf8'), 0)).toBeUndefined();
    expect(set.addHexBytes(Buffer.from(good), 1)).toBeUndefined();
    expect(set.size).toBe(0);
    expect(() => set.hexAt(0)).toThrow(RangeError);
  });
});

describe('DigestBudget: what the sets of one reading hold together', () => {
  const digest = (i: number): string => createHash('sha256').update(`budget ${i}`).digest('hex');

  it('counts every digest each set holds (a repeat within a set is no new one), and refuses the one past the limit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.tuple(fc.nat({ max: 2 }), fc.nat({ max: 30 })), { maxLength: 80 }),
        (limit, adds) => {
          const budget = new DigestBudget(limit);
          const sets = [new DigestSet(0, budget), new DigestSet(5, budget), new DigestSet(1000, budget)];
          const model = sets.map(() => new Set<string>());
          let refused = false;
          for (const [s, i] of adds) {
            const d = digest(i);
            const fresh = !model[s]!.has(d);
            const total = model.reduce((n, m) => n + m.size, 0);
            if (fresh && total === limit) {
              expect(() => sets[s]!.addHex(d)).toThrow(DigestBudgetExceeded);
              // Refused: not held, and the set works on.
              expect(sets[s]!.hasHex(d)).toBe(false);
              refused = true;
              break;
            }
            expect(sets[s]!.addHex(d)).toBe(fresh);
            model[s]!.add(d);
          }
          expect(budget.held).toBe(model.reduce((n, m) => n + m.size, 0) + (refused ? 1 : 0));
          sets.forEach((set, k) => expect([...set.hex()]).toEqual([...model[k]!]));
        },
      ),
    );
  });

  it('a set made for more digests than the budget has room for makes room for no more than that', () => {
    const budget = new DigestBudget(10);
    const set = new DigestSet(50_000_000, budget);
    for (let i = 0; i < 10; i++) set.addHex(digest(i));
    expect(() => set.addHex(digest(10))).toThrow(/more than 10 digests held/);
  });

  it("a RefOrder's refs that leave the list count against the budget beside the list", () => {
    const budget = new DigestBudget(5);
    const list = new DigestSet(3, budget);
    for (let i = 0; i < 3; i++) list.addHex(digest(i));
    const order = new RefOrder(list, budget);
    const packed = (...is: number[]): Uint8Array => Buffer.concat(is.map((i) => Buffer.from(digest(i), 'hex')));
    // In order: nothing more held.
    order.addPacked(packed(0, 1, 0));
    expect(budget.held).toBe(3);
    // Out of the list: the two refs so far are copied out (5 held), and a third is one too many.
    expect(() => order.addPacked(packed(7))).toThrow(DigestBudgetExceeded);
  });
});
