import { randomBytes } from 'node:crypto';
import { checkLimit } from './limits';

/** A SHA-256 digest's bytes. */
const DIGEST = 32;
const WORDS = DIGEST / 4;
/** Slots per digest at most: the index is at most half full, so a probe ends soon. */
const MIN_SLOTS = 16;

/**
 * The hash's multipliers, drawn once per process: the digests a receipt names are the stranger's choice (a manifest
 * may list any 64 hex digits), so slots follow no bits they could pick to pile their digests into one run.
 */
const KEYS = new Uint32Array(randomBytes(4 * (WORDS + 1)).buffer);
for (let i = 0; i < KEYS.length; i++) KEYS[i]! |= 1;

/** A lowercase hex digit's value, or -1 (every other byte). */
const HEX = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) HEX['0123456789abcdef'.charCodeAt(i)] = i;

/**
 * How many digests the sets of one reading may hold together: a receipt's verify holds every digest it lists, refers
 * to or bundles (~40 bytes each), so a receipt naming millions would take memory without bound; past the limit a set
 * refuses to hold more (DigestBudgetExceeded, which the reading turns into its verdict). Every set given the budget
 * counts each digest it holds, a digest two sets hold twice.
 */
export class DigestBudget {
  /** Digests held so far, by all the sets given this budget. */
  held = 0;
  constructor(readonly limit: number) {
    // Checked here, where every reader's budget is made: a NaN limit sized the first set to NaN slots.
    checkLimit(limit, 'maxDigests');
  }

  /** One more digest held; throws DigestBudgetExceeded once more than `limit` are. */
  take(): void {
    if (++this.held > this.limit) throw new DigestBudgetExceeded(this.limit);
  }

  /** `n` digests no longer held (a set dropped, its digests read again into another). */
  release(n: number): void {
    this.held = Math.max(0, this.held - n);
  }

  /** How many more digests may be held. */
  get room(): number {
    return Math.max(0, this.limit - this.held);
  }
}

/** A set given a DigestBudget was asked to hold more digests than the budget allows. */
export class DigestBudgetExceeded extends Error {
  override name = 'DigestBudgetExceeded';
  constructor(readonly limit: number) {
    super(`more than ${limit} digests held`);
  }
}

/**
 * Distinct SHA-256 digests in the order first added, 32 raw bytes each in one buffer (a 64-character hex string in
 * a JS Set costs ~100 bytes more), with an open-addressing index over them and one byte of flags beside each: what
 * a receipt's verdict compares across its members (the manifest's list, the chain's refs, the bundled blobs) for
 * millions of blobs in tens of MB. About 40 bytes a digest when its size was given (41 once a flag is set), up to ~2x
 * while it grows.
 */
export class DigestSet {
  private data: Uint8Array;
  private words: Uint32Array;
  /** Digests room is made for. */
  private cap: number;
  /** One byte a digest, made when a flag is first set (most sets never hold one). */
  private flagBytes: Uint8Array | undefined;
  /** Slot -> the digest's index + 1 (0: empty); a power of two, at least twice the count. */
  private slots: Uint32Array;
  private count = 0;
  /** The digest being looked up, aligned for word reads. */
  private readonly probe = new Uint32Array(WORDS);
  private readonly probeBytes = new Uint8Array(this.probe.buffer);

  /**
   * `expected`: how many digests it will hold, when known (no growing then); room is made for no more than the
   * budget has left (one past it: the digest that exceeds it is refused after it was placed).
   */
  constructor(
    expected = 0,
    private readonly budget?: DigestBudget,
  ) {
    const cap = Math.max(8, budget === undefined ? expected : Math.min(expected, budget.room + 1));
    this.cap = cap;
    this.data = new Uint8Array(cap * DIGEST);
    this.words = new Uint32Array(this.data.buffer);
    this.slots = new Uint32Array(slotsFor(cap));
  }

  get size(): number {
    return this.count;
  }

  /** Adds 32 raw bytes, bytes[at..at+32); false when already held. */
  add(bytes: Uint8Array, at = 0): boolean {
    this.load(bytes, at);
    return this.addProbe();
  }

  /** Adds a digest as 64 lowercase hex digits; false when already held. Throws on any other string. */
  addHex(hex: string): boolean {
    this.loadHex(hex);
    return this.addProbe();
  }

  /**
   * Adds the digest written as 64 lowercase hex digits at text[at..at+64) (ASCII bytes); false when already held.
   * Returns undefined, adding nothing, when those bytes are not such digits.
   */
  addHexBytes(text: Uint8Array, at: number): boolean | undefined {
    if (!digestBytesAt(text, at, this.probeBytes)) return undefined;
    return this.addProbe();
  }

  /** The index (order added) of a digest given as hex, or -1 (also for a string that is not 64 lowercase hex digits). */
  indexOfHex(hex: string): number {
    if (!this.tryLoadHex(hex)) return -1;
    return this.find();
  }

  /** The index here of `other`'s i-th digest, or -1 (nothing is allocated: a verdict asks this per blob). */
  indexOfEntry(other: DigestSet, i: number): number {
    other.check(i);
    const from = other.words;
    const p = this.probe;
    for (let k = 0, o = i * WORDS; k < WORDS; k++) p[k] = from[o + k]!;
    return this.find();
  }

  /** The index of the digest at bytes[at..at+32), or -1. */
  indexOf(bytes: Uint8Array, at = 0): number {
    this.load(bytes, at);
    return this.find();
  }

  /**
   * bytes[at..at+32) into the probe, byte by byte: a view made for a copy (`subarray`) a digest was most of what a
   * receipt walk allocated (a million refs checked, ~100 MB of young garbage, which had each 1 MiB piece of a gzip
   * moved to the old generation before it was let go).
   */
  private load(bytes: Uint8Array, at: number): void {
    if (at < 0 || at + DIGEST > bytes.length) throw new RangeError(`DigestSet: no digest at ${at}`);
    const p = this.probeBytes;
    for (let i = 0; i < DIGEST; i++) p[i] = bytes[at + i]!;
  }

  hasHex(hex: string): boolean {
    return this.indexOfHex(hex) >= 0;
  }

  /** The i-th digest added, as 64 lowercase hex digits. */
  hexAt(i: number): string {
    this.check(i);
    return Buffer.from(this.data.buffer, this.data.byteOffset + i * DIGEST, DIGEST).toString('hex');
  }

  /** The i-th digest's raw bytes (a view: valid until the next add). */
  bytesAt(i: number): Uint8Array {
    this.check(i);
    return this.data.subarray(i * DIGEST, (i + 1) * DIGEST);
  }

  /** Every digest's raw bytes, in order, 32 each (a view: valid until the next add; a copy is `packed`). */
  view(): Uint8Array {
    return this.data.subarray(0, this.count * DIGEST);
  }

  /** The i-th digest's flags (8 bits, 0 when added). */
  flags(i: number): number {
    this.check(i);
    return this.flagBytes?.[i] ?? 0;
  }

  /** Sets bits of the i-th digest's flags. */
  mark(i: number, bits: number): void {
    this.check(i);
    const flags = (this.flagBytes ??= new Uint8Array(this.cap));
    flags[i] = flags[i]! | bits;
  }

  /** Adds each 32 bytes of `packed` in order (what `packed()` gave). */
  addPacked(packed: Uint8Array): void {
    for (let at = 0; at + DIGEST <= packed.length; at += DIGEST) this.add(packed, at);
  }

  /** The digests in order, 32 bytes each, in a buffer of their own (to post to another thread). */
  packed(): Uint8Array {
    return this.data.slice(0, this.count * DIGEST);
  }

  /** The same digests in the same order. */
  sameOrder(other: DigestSet): boolean {
    if (other.count !== this.count) return false;
    const n = this.count * DIGEST;
    return Buffer.from(this.data.buffer, this.data.byteOffset, n).equals(
      Buffer.from(other.data.buffer, other.data.byteOffset, n),
    );
  }

  /** Every digest as hex, in the order added (each string made as it is reached). */
  *hex(): IterableIterator<string> {
    for (let i = 0; i < this.count; i++) yield this.hexAt(i);
  }

  private check(i: number): void {
    if (!Number.isInteger(i) || i < 0 || i >= this.count) throw new RangeError(`DigestSet: no digest ${i}`);
  }

  private loadHex(hex: string): void {
    if (!this.tryLoadHex(hex)) throw new TypeError(`not a SHA-256 hex digest: ${JSON.stringify(hex)}`);
  }

  private tryLoadHex(hex: string): boolean {
    return digestBytesOfHex(hex, this.probeBytes);
  }

  /** The probe's first slot: a multilinear hash under this process's keys, its top bits. */
  private home(): number {
    const p = this.probe;
    let h = KEYS[WORDS]!;
    for (let w = 0; w < WORDS; w++) h = (h + Math.imul(p[w]! ^ (h >>> 15), KEYS[w]!)) | 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    return (h ^ (h >>> 13)) >>> 0;
  }

  /** The probe's index, or -1. */
  private find(): number {
    const mask = this.slots.length - 1;
    for (let s = this.home() & mask; ; s = (s + 1) & mask) {
      const v = this.slots[s]!;
      if (v === 0) return -1;
      if (this.probeIs(v - 1)) return v - 1;
    }
  }

  private probeIs(i: number): boolean {
    const w = this.words;
    const p = this.probe;
    const o = i * WORDS;
    for (let k = 0; k < WORDS; k++) if (w[o + k] !== p[k]) return false;
    return true;
  }

  private addProbe(): boolean {
    const mask = this.slots.length - 1;
    let s = this.home() & mask;
    for (; ; s = (s + 1) & mask) {
      const v = this.slots[s]!;
      if (v === 0) break;
      if (this.probeIs(v - 1)) return false;
    }
    this.budget?.take();
    if (this.count === this.cap) this.grow();
    const i = this.count++;
    this.words.set(this.probe, i * WORDS);
    if (2 * this.count > this.slots.length) this.reindex();
    else this.slots[s] = i + 1;
    return true;
  }

  /**
   * Room for `expected` digests in all, when that is learnt after the set was made (a streamed manifest's size, once
   * enough of it arrived to trust): the set and its index grow once, not by doubling on the way (a million digests
   * added to a set made for 15,000: 150 ms more, most of it placing them again in each larger index).
   */
  reserve(expected: number): void {
    // Never room for more than the budget lets the set hold (one past it: see the constructor).
    if (this.budget !== undefined) expected = Math.min(expected, this.count + this.budget.room + 1);
    if (expected > this.cap) this.grow(expected);
    const slots = slotsFor(expected);
    if (slots > this.slots.length) this.reindex(slots);
  }

  /** Room for twice as many digests, or `to` (the index grows as they are added). */
  private grow(to = this.cap * 2): void {
    const cap = to;
    const data = new Uint8Array(cap * DIGEST);
    data.set(this.data);
    if (this.flagBytes !== undefined) {
      const flags = new Uint8Array(cap);
      flags.set(this.flagBytes);
      this.flagBytes = flags;
    }
    this.cap = cap;
    this.data = data;
    this.words = new Uint32Array(data.buffer);
  }

  /** A bigger index, every digest placed again (the last one added included). */
  private reindex(length = this.slots.length * 2): void {
    const slots = new Uint32Array(length);
    const mask = slots.length - 1;
    const p = this.probe;
    const saved = p.slice();
    for (let i = 0; i < this.count; i++) {
      p.set(this.words.subarray(i * WORDS, (i + 1) * WORDS));
      let s = this.home() & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = i + 1;
    }
    p.set(saved);
    this.slots = slots;
  }
}

/**
 * Writes the digest spelled by the 64 lowercase hex digits at text[at..at+64) (ASCII bytes) into out[0..32); false,
 * with out left partly written, for any other bytes. A digest read from bytes with no string made of it.
 */
export function digestBytesAt(text: Uint8Array, at: number, out: Uint8Array): boolean {
  if (at < 0 || at + 2 * DIGEST > text.length) return false;
  for (let i = 0; i < DIGEST; i++) {
    const hi = HEX[text[at + 2 * i]!]!;
    const lo = HEX[text[at + 2 * i + 1]!]!;
    if ((hi | lo) < 0) return false;
    out[i] = (hi << 4) | lo;
  }
  return true;
}

/**
 * Writes the digest spelled by `hex` (64 lowercase hex digits) into out[0..32); false, with out left partly
 * written, for any other string. The one reading of a hex digest every holder of raw digests uses.
 */
export function digestBytesOfHex(hex: string, out: Uint8Array): boolean {
  if (typeof hex !== 'string' || hex.length !== 2 * DIGEST) return false;
  for (let i = 0; i < DIGEST; i++) {
    const a = hex.charCodeAt(2 * i);
    const b = hex.charCodeAt(2 * i + 1);
    const hi = a < 256 ? HEX[a]! : -1;
    const lo = b < 256 ? HEX[b]! : -1;
    if ((hi | lo) < 0) return false;
    out[i] = (hi << 4) | lo;
  }
  return true;
}

/** Index slots for `n` digests: a power of two of at least 2n (and MIN_SLOTS). */
function slotsFor(n: number): number {
  let s = MIN_SLOTS;
  while (s < 2 * n) s *= 2;
  return s;
}

/**
 * Defines `key` on `target` as a list made by `make` when first read, and kept (an assignment replaces it, and
 * calls `replaced`): the hex strings of a DigestSet, made only for a caller that reads them (a verdict compares the
 * set). `make` is a list's items one at a time: `lazyListItems` hands them out without the list (a `--json`
 * document writes a million of them a piece at a time).
 */
export function defineLazyList<T extends object>(
  target: T,
  key: string,
  make: () => Iterable<string>,
  replaced?: () => void,
): T {
  let list: string[] | undefined;
  let items: Map<string, LazyList> | undefined = LAZY_LISTS.get(target);
  if (items === undefined) LAZY_LISTS.set(target, (items = new Map()));
  const lazy = items;
  const get = (): string[] => {
    lazy.delete(key);
    return (list ??= Array.from(make()));
  };
  lazy.set(key, { get, make });
  return Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get,
    set: (v: string[]) => {
      lazy.delete(key);
      list = v;
      replaced?.();
    },
  });
}

/** A list defineLazyList made a getter of, not made yet: its getter, and the maker of its items. */
interface LazyList {
  get: () => string[];
  make: () => Iterable<string>;
}

/** The lists defined by defineLazyList and not made (nor replaced) yet, by object and key. */
const LAZY_LISTS = new WeakMap<object, Map<string, LazyList>>();

/**
 * The items of `target[key]`: made one at a time when it is still a list of defineLazyList's not made yet (the list
 * is not made: each call makes them anew), else whatever the key holds now.
 */
export function lazyListItems<T extends object, K extends keyof T & string>(target: T, key: K): Iterable<string> {
  const lazy = LAZY_LISTS.get(target)?.get(key);
  const own = Object.getOwnPropertyDescriptor(target, key);
  return lazy !== undefined && own?.get === lazy.get ? lazy.make() : (target[key] as Iterable<string>);
}
