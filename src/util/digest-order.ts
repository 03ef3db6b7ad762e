import { DigestSet, type DigestBudget } from './digest-set';

/** Where a walk's blob refs go, 32 raw bytes each, in the order the rows hold them (repeats included or not). */
export interface RefSink {
  addPacked(packed: Uint8Array): void;
}

const DIGEST = 32;

/**
 * A chain's blob refs, distinct in first-occurrence order, checked as they come against the list they should be
 * (a receipt's manifest, read before its journal): while they keep to it, they are a prefix of that list, so only
 * how far they reached is kept, not a second set of the same digests (a receipt of 300,000 blobs held 21 MB for
 * it, a million 42 MB). Where they leave it (a ref the list does not have, or has further on), the refs so far are
 * copied out of the list and collected from then on as a DigestSet does: the same refs either way (`refs`).
 */
export class RefOrder implements RefSink {
  /** The list's first `reached` digests are the refs so far. */
  private reached = 0;
  /** The refs, collected once they left the list. */
  private own: DigestSet | undefined;

  /** `budget`: what the refs collected once they leave the list count against (with the list's own digests). */
  constructor(
    private readonly expected: DigestSet,
    private readonly budget?: DigestBudget,
  ) {}

  addPacked(packed: Uint8Array): void {
    for (let at = 0; at + DIGEST <= packed.length; at += DIGEST) {
      if (this.own !== undefined) {
        this.own.add(packed, at);
        continue;
      }
      const i = this.expected.indexOf(packed, at);
      if (i === this.reached) this.reached++;
      else if (i < 0 || i > this.reached) {
        this.own = this.prefix();
        this.own.add(packed, at);
      }
      // else: an earlier ref again.
    }
  }

  /** How many digests the list holds. */
  get listed(): number {
    return this.expected.size;
  }

  /** How many distinct refs so far. */
  get size(): number {
    return this.own?.size ?? this.reached;
  }

  /** The refs, distinct, in first-occurrence order: the expected list itself when they are all of it, in order. */
  refs(): DigestSet {
    if (this.own !== undefined) return this.own;
    return this.reached === this.expected.size ? this.expected : this.prefix();
  }

  private prefix(): DigestSet {
    const set = new DigestSet(this.reached, this.budget);
    for (let i = 0; i < this.reached; i++) set.add(this.expected.bytesAt(i));
    return set;
  }
}
