import type { Fault } from '../journal';
import { LONG_LINE_BYTES, MAX_LINE_BYTES } from '../canonical';
import {
  ChunkWalker,
  scanChunk,
  type ChunkOptions,
  type ChunkSummary,
  type MarkedRows,
  type SliceSeed,
} from '../journal/chunk';
import type { LongRowCheck } from '../journal/long-row';
import { FaultList } from '../journal/faults';
import { scanSlices, walkRanges, type DescriptorSource } from '../journal/parallel';
import { SliceRefsOver, stitchVerify, type Stitched } from '../journal/stitch';
import { InputError } from '../errors';
import { cannotRead } from './read-file';
import { defineLazyList, DigestSet, type DigestBudget } from '../util/digest-set';
import { RefOrder } from '../util/digest-order';
import { ZERO_HASH } from '../util/hash';
import { REDACTABLE_FIELDS, REDACTED, type RedactField } from './redaction';

/** The chain walk of a receipt's journal member: what the verdict needs of it, whatever its size. */
export interface JournalWalk {
  head: string;
  steps: number;
  /** The rows' blob refs, first occurrence, unique (hex strings, made from `refSet` when first read). */
  refs: string[];
  /** The same refs, 32 bytes each (what a receipt's verdict compares); not enumerable, so not in a copy or JSON. */
  readonly refSet: DigestSet;
  faults: Fault[];
  /** Faults counted but not listed (the list is capped). */
  omitted: number;
  /** The redactable fields some row holds as `<<redacted>>` (see `redactedFields`). */
  redacted: RedactField[];
}

/**
 * Bytes of whole lines walked at a time: the memory the walk holds, beside one line longer than this (up to
 * MAX_LINE_BYTES: a longer one passes unread).
 */
const SLICE_BYTES = 8 * 1024 * 1024;
/**
 * A piece at least this big has its whole lines walked where they are, not copied into the buffer first (a plain
 * receipt's file pieces; gunzip hands over small ones, gathered into slices).
 */
const DIRECT_BYTES = 1024 * 1024;
/**
 * The buffer's first size: it grows to SLICE_BYTES as bytes come (the same slices walked). Most journals in a receipt
 * are small, and an 8 MiB buffer made for each walk was most of what a small receipt's verify allocated: a process
 * verifying many had V8 collect its heap every few (external memory counts toward its next collection).
 */
const FIRST_BYTES = 64 * 1024;
/**
 * The strict walk, with the rows' blob refs and the lines that hold the redaction mark (MarkedRows); a line longer
 * than LONG_LINE_BYTES checked as it comes, never held (ChunkOptions.longLineBytes), in every way a receipt is read.
 */
const OPTIONS: ChunkOptions = {
  strict: true,
  collectRefs: 'packed',
  markedValue: REDACTED,
  longLineBytes: LONG_LINE_BYTES,
};

/** A receipt listing this many digests or more has its journal walked on one thread (JournalWalker.walkFile). */
export const IN_ORDER_MIN_REFS = 65_536;

/**
 * The strict chain walk (docs/format.md §2: canonical, newline-terminated lines)
 * of journal bytes that arrive in pieces: line-aligned slices are walked as they
 * fill, each seeded with where the chain stands (the journal's chunk walker: the
 * same faults, in line order, as walking the bytes whole), so memory holds one
 * slice, not the journal.
 */
export class JournalWalker {
  private buf: Buffer;
  private fill = 0;
  /** Absolute offset of buf[0]. */
  private base = 0;
  private steps = 0;
  private lines = 0;
  private prev: string | null = ZERO_HASH;
  private faults = new FaultList();
  /**
   * Held as raw bytes: a receipt may name millions (src/util/digest-set.ts); or, once the list they should be is
   * known (`expectRefs`), checked against it as they come (RefOrder).
   */
  private refs: DigestSet | RefOrder;
  /** The row keys some line holding the redaction mark holds it as (MarkedRows). */
  private readonly marked = new Set<string>();
  /** Some row lists a blob: then no field counts as redacted (publish empties every blob_refs). */
  private anyBlobRefs = false;
  /** Inside a line longer than the longest held: its check, fed as its bytes come (they are not kept). */
  private long: { walker: ChunkWalker; check: LongRowCheck } | undefined;
  /** The walk's options: OPTIONS, with this walker's limits. */
  private readonly options: ChunkOptions;
  /** A line longer than this is not held (the smaller of the longest read and the longest held). */
  private readonly heldLineBytes: number;

  /**
   * `sliceBytes`: whole lines walked at a time; `directBytes`: the smallest piece walked where it is;
   * `longLineBytes`: the longest line held (tests make all three small, to put slice ends, both ways of walking and
   * long lines everywhere). `budget`: what the refs held count against.
   */
  constructor(
    sliceBytes = SLICE_BYTES,
    private readonly directBytes = DIRECT_BYTES,
    private readonly maxLineBytes = MAX_LINE_BYTES,
    private readonly budget?: DigestBudget,
    longLineBytes = LONG_LINE_BYTES,
  ) {
    this.refs = new DigestSet(0, budget);
    this.options = { ...OPTIONS, maxLineBytes, longLineBytes };
    this.heldLineBytes = Math.min(maxLineBytes, longLineBytes);
    // A line ended inside the buffer is then never longer than the longest held (a test's limit may be below it).
    this.sliceBytes = Math.min(sliceBytes, this.heldLineBytes + 1);
    this.buf = Buffer.allocUnsafe(Math.min(FIRST_BYTES, this.sliceBytes));
  }
  private readonly sliceBytes: number;

  /**
   * The rows' refs should be `digests`, in that order (the receipt's manifest, read before its journal): they are
   * checked against it rather than collected again. Only on a walker that has been handed nothing yet.
   */
  expectRefs(digests: DigestSet): void {
    if (this.base !== 0 || this.fill !== 0) throw new Error('JournalWalker.expectRefs: bytes were pushed already');
    this.refs = new RefOrder(digests, this.budget);
  }

  push(piece: Buffer): void {
    let i = 0;
    if (this.long !== undefined) {
      // Inside a line too long to hold: its bytes go to its check as they come, to its end.
      const nl = piece.indexOf(0x0a);
      if (nl < 0) return this.long.check.push(piece);
      this.long.check.push(piece, 0, nl);
      this.endLong('lf');
      i = nl + 1;
    }
    // A piece longer than the longest read may hold a longer line: copied, as small pieces are, to be let pass.
    if (piece.length - i >= this.directBytes && piece.length - i <= this.maxLineBytes) {
      if (this.fill > 0) {
        // The buffered line's end: only the bytes up to this piece's first newline are copied.
        const nl = piece.indexOf(0x0a, i);
        if (nl < 0) return this.append(piece, i);
        this.append(piece.subarray(i, nl + 1), 0);
        this.walk(this.buf, 0, this.fill);
        this.fill = 0;
        i = nl + 1;
      }
      // A big piece's whole lines are walked where they are (no copy); the rest waits for the next piece.
      const last = piece.lastIndexOf(0x0a, piece.length - 1);
      if (last >= i) {
        this.walk(piece, i, last + 1);
        i = last + 1;
      }
    }
    this.append(piece, i);
  }

  /** Copies piece[i..] into the buffer, walking its whole lines as it fills. */
  private append(piece: Buffer, i: number): void {
    while (i < piece.length) {
      if (this.fill === this.buf.length) {
        this.makeRoom();
        if (this.long !== undefined) return this.push(piece.subarray(i));
      }
      const n = Math.min(this.buf.length - this.fill, piece.length - i);
      piece.copy(this.buf, this.fill, i, i + n);
      this.fill += n;
      i += n;
    }
  }

  finish(): JournalWalk {
    if (this.long !== undefined) this.endLong('eof');
    else if (this.fill > 0) {
      // The last line, with no newline, may be one byte longer than the longest held (the buffer's size then).
      const tail = this.fill - 1 - this.buf.lastIndexOf(0x0a, this.fill - 1);
      if (tail <= this.heldLineBytes) this.walk(this.buf, 0, this.fill);
      else {
        this.walk(this.buf, 0, this.fill - tail);
        this.startLong(this.fill - tail);
        this.endLong('eof');
      }
    }
    if (this.steps === 0)
      this.faults.add({
        line: null,
        kind: 'empty_journal',
        message: this.lines === 0 ? 'journal has no steps' : 'journal has no steps (no line holds a row)',
      });
    const redacted: RedactField[] =
      this.anyBlobRefs || this.refs.size > 0 ? [] : REDACTABLE_FIELDS.filter((f) => this.marked.has(f));
    const refs = this.refs instanceof RefOrder ? this.refs.refs() : this.refs;
    const walk = {
      head: this.steps > 0 ? (this.prev ?? '') : ZERO_HASH,
      steps: this.steps,
      faults: this.faults.list,
      omitted: this.faults.omitted,
      redacted,
    } as JournalWalk;
    Object.defineProperty(walk, 'refSet', { value: refs, enumerable: false });
    return defineLazyList(walk, 'refs', () => refs.hex());
  }

  /**
   * The buffer is full: walk its whole lines, keep the rest (or grow, for one line longer than the buffer; a line
   * longer than the longest held is checked as it comes instead: the buffer goes back to its first size).
   */
  private makeRoom(): void {
    // Not yet a slice's size: grown, nothing walked (a slice is walked when sliceBytes are in, as ever).
    if (this.buf.length < this.sliceBytes) return this.grow(Math.min(this.buf.length * 2, this.sliceBytes));
    const nl = this.buf.lastIndexOf(0x0a, this.fill - 1);
    if (nl < 0 && this.fill > this.heldLineBytes) return this.startLong(0);
    if (nl < 0) return this.grow(Math.min(this.buf.length * 2, this.heldLineBytes + 1));
    this.walk(this.buf, 0, nl + 1);
    this.buf.copy(this.buf, 0, nl + 1, this.fill);
    this.fill -= nl + 1;
  }

  /** The buffer made `size` bytes, what it holds kept. */
  private grow(size: number): void {
    const bigger = Buffer.allocUnsafe(size);
    this.buf.copy(bigger, 0, 0, this.fill);
    this.buf = bigger;
  }

  /** Walks bytes[from..to) (whole lines, or the journal's last bytes) from where the chain stands. */
  private walk(bytes: Buffer, from: number, to: number): void {
    const seed: SliceSeed = { steps: this.steps, prevHash: this.prev };
    this.absorb(scanChunk(bytes, from, to, this.base - from, this.options, seed, undefined, this.refs), to - from);
  }

  /**
   * A line longer than the longest held begins with the buffer's bytes from `from` (its end is not in them): they go
   * to its check, and the buffer goes back to its first size.
   */
  private startLong(from: number): void {
    const seed: SliceSeed = { steps: this.steps, prevHash: this.prev };
    const walker = new ChunkWalker(this.base, this.base, this.options, seed, undefined, this.refs);
    const check = walker.longCheck();
    check.push(this.buf, from, this.fill);
    this.long = { walker, check };
    this.fill = 0;
    this.buf = Buffer.allocUnsafe(Math.min(FIRST_BYTES, this.sliceBytes));
  }

  /** The long line ended (at a newline, or the journal's end): its row or fault, as a walk of it would give. */
  private endLong(ending: 'lf' | 'eof'): void {
    const { walker, check } = this.long!;
    this.long = undefined;
    const bytes = check.length + (ending === 'lf' ? 1 : 0);
    walker.longLine(check, this.base, ending);
    this.absorb(walker.finish(), bytes);
  }

  /** What the walk of `bytes` bytes found, taken in: its faults (numbered on), rows, marks and where it ends. */
  private absorb(s: ChunkSummary, bytes: number): void {
    for (const f of s.faults.list)
      this.faults.add(
        f.line === null
          ? f
          : {
              ...f,
              line: f.line + this.lines,
              ...(f.last_line === undefined ? {} : { last_line: f.last_line + this.lines }),
            },
      );
    if (s.faults.omitted > 0) this.faults.addOmitted(s.faults.omitted);
    this.noteMarked(s.marked);
    this.steps += s.rows;
    if (s.last !== undefined) this.prev = s.last.step_hash;
    this.lines += s.lines;
    this.base += bytes;
  }

  private noteMarked(m: MarkedRows | undefined): void {
    for (const f of m?.fields ?? []) this.marked.add(f);
    if (m?.blobRefs === true) this.anyBlobRefs = true;
  }

  /**
   * The whole journal, bytes [from, to) of a file its caller holds open, walked where they lie (read block by
   * block into the line scanner, as `stepchain verify` reads a journal file, on this thread) instead
   * of pushed: the same walk (faults, lines, head, refs, marks) as pushing those bytes. Only on a walker that has
   * been handed nothing yet.
   */
  walkFile(source: DescriptorSource, from: number, to: number, env: NodeJS.ProcessEnv = process.env): void {
    if (this.base !== 0 || this.fill !== 0) throw new Error('JournalWalker.walkFile: bytes were pushed already');
    let stitched: Stitched;
    try {
      // Seeded with the genesis, as a pushed slice is: unseeded, a first row whose seq is not 0 had the stitch walk
      // the first slice again (read twice, its refs collected again). Among threads (~15% faster on the bench's
      // 100,000-step receipt) while the refs each slice holds until the stitch are few: a manifest listing fewer
      // than IN_ORDER_MIN_REFS digests. Else one range on this thread, its refs handed as read to the check (a
      // million refs held ~75 MB more among threads).
      // A slice among threads keeps at most as many distinct refs as the manifest lists (`maxRefs`): one with more
      // belongs to a receipt that fails, and the walk is done again on this thread, the refs checked as read.
      const sink = this.refs;
      const genesis: SliceSeed = { steps: this.steps, prevHash: this.prev };
      const inOrder = (): Stitched => {
        const range = walkRanges(source, [[from, to]], [genesis], this.options, env, undefined, sink);
        return stitchVerify(source, range, this.options, env, undefined, sink);
      };
      if (sink instanceof RefOrder && sink.listed < IN_ORDER_MIN_REFS) {
        const options: ChunkOptions = { ...this.options, maxRefs: sink.listed };
        try {
          const slices = scanSlices(source, from, to, options, env, undefined, genesis);
          stitched = stitchVerify(source, slices, options, env, undefined, sink);
        } catch (e) {
          if (!(e instanceof SliceRefsOver)) throw e;
          stitched = inOrder();
        }
      } else stitched = inOrder();
    } catch (e) {
      // An OS error reading the file names it, as the stream's reads do (a file cut meanwhile says so already).
      if (e instanceof InputError || typeof (e as NodeJS.ErrnoException).code !== 'string') throw e;
      throw cannotRead(source.path, e);
    }
    this.faults = stitched.faults;
    this.noteMarked(stitched.marked);
    this.steps = stitched.steps;
    if (stitched.steps > 0) this.prev = stitched.head;
    this.lines = stitched.lines;
    this.base = to - from;
  }
}
