import { ChainChecker } from './chain';
import { fastRow, type FastRow } from './fast-line';
import { FaultList, MAX_LISTED_FAULTS } from './faults';
import { parsesAsJson } from './json-syntax';
import { pyStrip, splitSegment, type LineEnd } from './lines';
import { decodeUtf8, lineTooLong, longLineRefused, MAX_LINE_BYTES } from '../canonical';
import { digestBytesAt, digestBytesOfHex, DigestSet } from '../util/digest-set';
import type { RefSink } from '../util/digest-order';
import { isSha256Hex } from '../util/hash';
import { readRowLine, ROW_KEYS, unhashedKeys, type RowView } from './row';
import { wasmScanner, WASM_BLOCK_CAP, type BlockRecord, type WasmScanner } from './wasm/scanner';
import { LongRowCheck } from './long-row';
import { markSearch, nextQuoted, type MarkSearch } from './marked';

export { nextQuoted };

export type {
  ChunkOptions,
  ChunkSummary,
  EntrySink,
  MarkedRows,
  RecoveryInfo,
  SliceSeed,
  UnhashedRows,
} from './chunk-types';
import type { ChunkOptions, ChunkSummary, EntrySink, SliceSeed } from './chunk-types';

export const BLOCK = 16 * 1024 * 1024;
/** Blocks for the WebAssembly scanner: small enough to stay in cache between scan, copy and hash. */
export const WASM_BLOCK = 1024 * 1024;

/** The end of the block of whole lines starting at pos: about `size` bytes, or one longer line. */
function blockEndOf(buf: Buffer, pos: number, to: number, size: number): number {
  const end = Math.min(to, pos + size);
  if (end >= to) return to;
  const nl = buf.lastIndexOf(0x0a, end - 1);
  return nl >= pos ? nl + 1 : Math.min(to, buf.indexOf(0x0a, end) + 1 || to);
}

/**
 * Walks `buf[from..to)` (line-aligned); `base` is the absolute offset of buf[0].
 * A trap in the WebAssembly scanner (a bug of ours: it checks its bounds) is not
 * fatal: the slice is walked again by the JS path.
 */
export function scanChunk(
  buf: Buffer,
  from: number,
  to: number,
  base: number,
  options: ChunkOptions,
  seed?: SliceSeed,
  onEntry?: EntrySink,
  refSink?: RefSink,
): ChunkSummary {
  return withJsFallback(options, (o) => {
    const walker = new ChunkWalker(base + from, base + to, o, seed, onEntry, refSink);
    const wasm = o.wasm === false || o.fast === false || onEntry !== undefined ? undefined : wasmScanner();
    const limit = o.longLineBytes;
    const size = wasm === undefined ? BLOCK : WASM_BLOCK;
    let pos = from;
    while (pos < to) {
      // With a long-line limit, blocks are of lines no longer than it, or of one longer line (blockEndOf).
      const blockEnd = blockEndOf(buf, pos, to, limit === undefined ? size : Math.min(size, limit));
      const ending = buf[blockEnd - 1] === 0x0a ? 'lf' : 'eof';
      if (limit !== undefined && blockEnd - pos - (ending === 'lf' ? 1 : 0) > limit) {
        const check = walker.longCheck();
        check.push(buf, pos, ending === 'lf' ? blockEnd - 1 : blockEnd);
        walker.longLine(check, base + pos, ending);
      } else if (wasm !== undefined && blockEnd - pos <= WASM_BLOCK_CAP) {
        wasm.ensure(blockEnd - pos);
        buf.copy(wasm.mem, wasm.data, pos, blockEnd);
        walker.wasmBlock(wasm, blockEnd - pos, base + pos);
      } else walker.jsBlock(buf, pos, blockEnd, base);
      pos = blockEnd;
    }
    return walker.finish();
  });
}

/** The lines of `buf[from..to)` (whole lines) that hold the searched value as a JSON string: their rows read. */
function noteMarked(buf: Buffer, from: number, to: number, m: MarkSearch): void {
  const lines = buf.subarray(from, to);
  for (let at = nextQuoted(lines, m.tail); at >= 0;) {
    const nl = lines.indexOf(0x0a, at);
    const end = nl < 0 ? lines.length : nl + 1;
    const start = lines.lastIndexOf(0x0a, at) + 1;
    scanChunk(lines, start, end, 0, { strict: false, fast: false }, undefined, (_line, _view, row) => {
      if (row === undefined) return;
      if (row.blob_refs.length > 0) m.blobRefs = true;
      const fields = row as unknown as Record<string, unknown>;
      for (const k of ROW_KEYS) if (fields[k] === m.value) m.fields.add(k);
    });
    at = end >= lines.length ? -1 : nextQuoted(lines, m.tail, end); // the line is read: on to the next one
  }
}

/** Walks with the scanner; a trap in it (a bug of ours: it checks its bounds) walks again without. */
export function withJsFallback(options: ChunkOptions, walk: (o: ChunkOptions) => ChunkSummary): ChunkSummary {
  try {
    return walk(options);
  } catch (e) {
    if (options.wasm !== false && typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError) {
      return walk({ ...options, wasm: false });
    }
    throw e;
  }
}

/** The walk of one slice, line by line, fed block by block. */
export class ChunkWalker {
  readonly out: ChunkSummary;
  readonly chain = new ChainChecker();
  private readonly faults = new FaultList();
  private line = 0;
  /** Refs the fast paths push, moved into `refSet` after each line. */
  private readonly refStage: string[] | undefined;
  private readonly refSet: Set<string> | undefined;
  /** With `collectRefs: 'packed'`: the refs as raw bytes (instead of refSet). */
  private refDigests: DigestSet | undefined;
  /** More distinct refs than `maxRefs` were met: none is kept. */
  private refsOver = false;
  /** One ref's raw bytes, on their way to the caller's sink. */
  private readonly refBytes = new Uint8Array(32);
  private readonly rec: BlockRecord = { start: 0, end: 0, terminated: false, row: undefined, stored: -1 };
  private readonly fast: boolean;
  /** The chain's previous hash is 64 hex digits (fastRow may then take a matching link on trust). */
  private prevIsHex = false;
  /** With `markedValue`: the value, its JSON text after the opening quote, and what its lines said so far. */
  private readonly marked: MarkSearch | undefined;
  /** The longest line read (undefined: MAX_LINE_BYTES). */
  get maxLineBytes(): number | undefined {
    return this.options.maxLineBytes;
  }
  /** Lines longer than this are checked as they come, never held (undefined: none). */
  get longLineBytes(): number | undefined {
    return this.options.longLineBytes;
  }

  constructor(
    start: number,
    end: number,
    private readonly options: ChunkOptions,
    seed?: SliceSeed,
    private readonly onEntry?: EntrySink,
    /**
     * With `collectRefs: 'packed'`: where the refs go as they are read, in row order, instead of being collected
     * for `refBytes` (a slice walked in order on the caller's thread: a receipt's million refs then need no set of
     * their own; a repeat, or the same refs again after a walk redone, is the sink's to ignore).
     */
    private readonly refSink?: RefSink,
  ) {
    this.out = { start, end, lines: 0, rows: 0, seeded: seed !== undefined, faults: { list: [], omitted: 0 } };
    if (seed !== undefined) {
      this.chain.expectedSeq = seed.steps;
      this.chain.prevHash = seed.prevHash;
      this.prevIsHex = seed.prevHash !== null && isSha256Hex(seed.prevHash);
    }
    if (options.collectRefs) {
      this.refStage = [];
      if (options.collectRefs === 'packed') this.refDigests = refSink === undefined ? new DigestSet() : undefined;
      else this.refSet = new Set<string>();
    }
    if (options.indexEvery !== undefined) {
      this.out.index = [];
      this.out.indexPrev = [];
    }
    if (options.recovery) this.out.recovery = { nonParsing: 0 };
    if (options.markedValue !== undefined) this.marked = markSearch(options.markedValue);
    // Entries need each row parsed: every line takes the lossless path then.
    this.fast = options.fast !== false && onEntry === undefined;
  }

  /** The block of whole lines loaded in the scanner's memory (len bytes at wasm.data), at absolute offset `at`. */
  wasmBlock(wasm: WasmScanner, len: number, at: number): void {
    const mem = wasm.mem;
    const base = at - wasm.data;
    const rec = this.rec;
    const { chain, out } = this;
    const indexEvery = this.options.indexEvery ?? 0;
    // The offset in `mem` of the step_hash digits the chain now ends in, while they are in this
    // block; `pending` while chain.prevHash has not been made a string of them yet.
    let link = -1;
    let pending = false;
    if (this.marked !== undefined) noteMarked(mem, wasm.data, wasm.data + len, this.marked);
    wasm.start(len);
    for (let n = wasm.batch(); n > 0; n = wasm.batch()) {
      for (let k = 0; k < n; k++) {
        if (link >= 0 && (indexEvery === 0 || out.rows % indexEvery !== 0)) {
          const stored = wasm.linkedRow(k, chain.expectedSeq, link);
          if (stored >= 0) {
            // An ordinary row (linked, in sequence, its hash recomputed): what row() does for it.
            const line = ++this.line;
            chain.expectedSeq++;
            chain.steps++;
            out.rows++;
            link = stored;
            pending = true;
            if (out.recovery !== undefined) {
              this.parsed(line, base + wasm.lineEnd(k) + 1, 'lf');
              out.recovery.lastEnding = 'lf';
            }
            if (this.refStage === undefined) continue;
            if (this.options.collectRefs === 'packed') this.packedRefs(wasm, k);
            else {
              wasm.refsOf(k, this.refStage);
              this.takeRefs();
            }
            continue;
          }
        }
        if (pending) {
          chain.prevHash = mem.toString('latin1', link, link + 64);
          this.prevIsHex = true;
          pending = false;
        }
        wasm.record(k, this.refStage, rec);
        const fast = rec.row ?? this.lineFastRow(mem, rec.start, rec.end);
        this.segment(mem, rec.start, rec.end, rec.terminated, base, fast);
        link = rec.stored;
      }
    }
    if (pending) {
      chain.prevHash = mem.toString('latin1', link, link + 64);
      this.prevIsHex = true;
    }
  }

  /** `buf[pos..blockEnd)` (whole lines) by the JS fast path, on a latin1 view of the block. */
  jsBlock(buf: Buffer, pos: number, blockEnd: number, base: number): void {
    if (this.marked !== undefined) noteMarked(buf, pos, blockEnd, this.marked);
    let text: string | undefined;
    if (this.fast) {
      try {
        text = buf.toString('latin1', pos, blockEnd);
      } catch {
        text = undefined; // a line too long for one string: the slow path reports it
      }
    }
    let a = pos;
    while (a < blockEnd) {
      const nl = buf.indexOf(0x0a, a);
      const terminated = nl >= 0 && nl < blockEnd;
      const b = terminated ? nl : blockEnd;
      const fast =
        b > a && text !== undefined ? fastRow(text, a - pos, b - pos, this.expectedPrev(), this.refStage) : undefined;
      this.segment(buf, a, b, terminated, base, fast);
      a = b + 1;
    }
  }

  finish(): ChunkSummary {
    const { out, chain } = this;
    out.lines = this.line;
    if (out.rows > 0) out.last = { step_hash: chain.prevHash };
    out.faults = { list: this.faults.list, omitted: this.faults.omitted };
    if (this.refsOver) out.refsOver = true;
    else if (this.refDigests !== undefined) out.refBytes = this.refDigests.packed();
    else if (this.refSet !== undefined) out.refs = Array.from(this.refSet);
    if (this.marked !== undefined) out.marked = { fields: [...this.marked.fields], blobRefs: this.marked.blobRefs };
    return out;
  }

  /** The link fastRow may take on trust (it needs no hex check when it matches). */
  private expectedPrev(): string | undefined {
    return this.prevIsHex && this.chain.prevHash !== null ? this.chain.prevHash : undefined;
  }

  /** fastRow on one line the WebAssembly scanner left to JS. */
  private lineFastRow(buf: Buffer, a: number, b: number): FastRow | undefined {
    if (b <= a) return undefined;
    let text: string;
    try {
      text = buf.toString('latin1', a, b);
    } catch {
      return undefined; // a line too long for one string: the slow path reports it
    }
    return fastRow(text, 0, b - a, this.expectedPrev(), this.refStage);
  }

  /**
   * One `\n`-delimited segment `buf[a..b)` (`lf`: a `\n` follows), `base` the
   * absolute offset of buf[0]. A fast row is one canonical line; anything else is
   * split into the reference's lines and read losslessly.
   */
  private segment(buf: Buffer, a: number, b: number, lf: boolean, base: number, fast: FastRow | undefined): void {
    if (fast !== undefined) {
      this.row(++this.line, fast, undefined, true, lf ? 'lf' : 'eof', base + a, base + (lf ? b + 1 : b));
      this.prevIsHex = true; // a fast row's step_hash is hex (it matched the recomputed hash, or passed the digit check)
      this.takeRefs();
      return;
    }
    if (a === b && lf) {
      this.blank(++this.line, 'lf'); // an empty line: skipped, as the reference skips it
      return;
    }
    splitSegment(buf, a, b, lf, (s, e, next, ending) => this.slowLine(buf, s, e, base + s, base + next, ending));
  }

  private blank(line: number, ending: LineEnd): void {
    if (this.out.recovery !== undefined) this.out.recovery.lastEnding = ending;
    if (this.options.strict) this.faults.add({ line, kind: 'non_canonical', message: 'blank line' });
  }

  private addRef(ref: string): void {
    if (this.refsOver) return;
    if (this.refDigests !== undefined) {
      this.refDigests.addHex(ref);
      this.overRefs();
    } else if (this.refSet !== undefined) this.refSet.add(ref);
    else {
      // `collectRefs: 'packed'` with a sink (a sink given for hex strings is not used: they stay in `refs`).
      if (!digestBytesOfHex(ref, this.refBytes))
        throw new TypeError(`not a SHA-256 hex digest: ${JSON.stringify(ref)}`);
      this.refSink!.addPacked(this.refBytes);
    }
  }

  /**
   * Record k's refs read from the scanner's memory as raw digests, no string made of each (`collectRefs: 'packed'`):
   * a receipt walk's refs were most of what it allocated (100 hex strings a row of a 1,000,000-digest receipt), and
   * the young generation filling that fast moved each 1 MiB piece a gzip inflated into the old one before it was let
   * go (collected only by a full collection: ~70 MB more peak).
   */
  private packedRefs(wasm: WasmScanner, k: number): void {
    const mem = wasm.mem;
    for (let j = 0, n = wasm.refCount(k); j < n; j++) {
      const at = wasm.refAt(k, j);
      if (this.refsOver) return;
      if (this.refDigests !== undefined) {
        if (this.refDigests.addHexBytes(mem, at) === undefined) throw notADigest(mem, at);
        this.overRefs();
      } else {
        if (!digestBytesAt(mem, at, this.refBytes)) throw notADigest(mem, at);
        this.refSink!.addPacked(this.refBytes);
      }
    }
  }

  /** Past `maxRefs` distinct refs, the slice keeps none (`refsOver`). */
  private overRefs(): void {
    const max = this.options.maxRefs;
    if (max !== undefined && this.refDigests !== undefined && this.refDigests.size > max) {
      this.refsOver = true;
      this.refDigests = undefined;
    }
  }

  private takeRefs(): void {
    const stage = this.refStage;
    if (stage === undefined || stage.length === 0) return;
    for (const r of stage) this.addRef(r);
    stage.length = 0;
  }

  /** The check of the next line, one longer than `longLineBytes`, for its bytes as they come (then `longLine`). */
  longCheck(): LongRowCheck {
    // Its refs go where a fast row's go, as they are read (those of a line that turns out not to be a row too:
    // every reader of a receipt counts them alike, and such a receipt fails).
    const onRef = this.refStage === undefined ? undefined : (ref: string): void => this.addRef(ref);
    return new LongRowCheck(this.expectedPrev(), onRef, this.marked?.value);
  }

  /**
   * The line `check` was given (at absolute offset `at`), longer than `longLineBytes`: a canonical row the fast path
   * takes is a row, as that path's are; anything else is one non_canonical fault, since a line of any other kind
   * would have to be held to be read; longer than MAX_LINE_BYTES, the fault every reader gives such a line.
   */
  longLine(check: LongRowCheck, at: number, ending: LineEnd): void {
    const length = check.length;
    if (length > (this.maxLineBytes ?? MAX_LINE_BYTES)) return this.unreadLine(length, at, ending);
    const row = check.finish();
    if (row === undefined) {
      this.faults.add({
        line: ++this.line,
        kind: 'non_canonical',
        message: longLineRefused(length, this.longLineBytes),
      });
      return;
    }
    for (const field of row.marked) this.marked?.fields.add(field);
    this.row(++this.line, row, undefined, true, ending, at, at + length + (ending === 'lf' ? 1 : 0));
    this.prevIsHex = true;
  }

  /**
   * A line of `length` bytes (its terminator not counted) longer than MAX_LINE_BYTES, at offset `at`: one
   * malformed line, as slowLine takes one that is not JSON (a torn-tail candidate in recovery), its bytes never held.
   * A reader that splits lines at carriage returns too (Python's text mode) numbers the lines after it differently
   * when it holds one.
   */
  unreadLine(length: number, at: number, ending: LineEnd): void {
    const line = ++this.line;
    const reason = lineTooLong(length, this.maxLineBytes);
    const rec = this.out.recovery;
    if (rec !== undefined) {
      rec.lastEnding = ending;
      rec.nonParsing++;
      rec.firstNonParsing ??= { line, offset: at, reason };
      return;
    }
    this.faults.add({ line, kind: 'malformed_json', message: reason });
  }

  private slowLine(buf: Buffer, s: number, e: number, at: number, next: number, ending: LineEnd): void {
    const line = ++this.line;
    const { faults } = this;
    const bytes = buf.subarray(s, e);
    const read = readRowLine(bytes);
    if (read.kind === 'blank') return this.blank(line, ending);
    if (this.out.recovery !== undefined) this.out.recovery.lastEnding = ending;
    if (read.kind === 'malformed') {
      const rec = this.out.recovery;
      if (rec !== undefined) {
        if (!parsesAsJson(bytes)) {
          // A torn-tail candidate: the stitcher decides (docs/journal.md, "Recovery on open").
          rec.nonParsing++;
          rec.firstNonParsing ??= { line, offset: at, reason: read.reason };
          return;
        }
        this.parsed(line, next, ending);
      }
      faults.add({ line, kind: 'malformed_json', message: read.reason });
      return;
    }
    if (this.refStage !== undefined && read.row !== undefined) for (const r of read.row.blob_refs) this.addRef(r);
    // A row of the right shape has the ten keys; more are keys no hash covers (only the slow path sees them).
    if (read.row !== undefined && !read.canonical && Object.keys(read.value).length > ROW_KEYS.length) {
      const u = (this.out.unhashed ??= { list: [], count: 0 });
      u.count++;
      if (u.list.length < MAX_LISTED_FAULTS) u.list.push({ line, keys: unhashedKeys(Object.keys(read.value)) });
    }
    if (this.onEntry !== undefined)
      this.onEntry(
        line,
        read.view,
        read.row,
        read.row === undefined ? undefined : read.canonical ? bytes : Buffer.from(pyStrip(decodeUtf8(bytes)), 'utf8'),
        read.canonical,
      );
    this.row(line, read.view, read.shape, read.canonical, ending, at, next);
    this.prevIsHex = read.view.step_hash !== undefined && isSha256Hex(read.view.step_hash);
  }

  /** A line that parses as JSON (recovery's view). */
  private parsed(line: number, next: number, ending: LineEnd): void {
    const rec = this.out.recovery!;
    rec.firstParsing ??= line;
    if (rec.firstNonParsing !== undefined) rec.parsingAfterNonParsing ??= line;
    rec.lastParsing = { line, next, ending };
  }

  private row(
    line: number,
    view: RowView,
    shape: string | undefined,
    canonical: boolean,
    ending: LineEnd,
    at: number,
    next: number,
  ): void {
    const { out, chain, options, faults } = this;
    if (out.recovery !== undefined) {
      this.parsed(line, next, ending);
      out.recovery.lastEnding = ending;
    }
    if (out.first === undefined) {
      out.first = { line, seq: view.seq, prev_hash: view.prev_hash };
      if (!out.seeded) {
        // Assume the rows before this slice are this row's seq, and its link holds (the stitcher checks both).
        const seq = view.seq;
        out.guessedBase = typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : -1;
        chain.expectedSeq = out.guessedBase;
        chain.prevHash = view.prev_hash ?? null;
      }
    }
    if (shape !== undefined) faults.add({ line, kind: 'malformed_json', message: shape });
    chain.check(line, view, faults);
    if (options.strict) {
      if (!canonical && shape === undefined) {
        faults.add({ line, kind: 'non_canonical', message: 'line bytes are not the canonical encoding of the row' });
      }
      if (ending === 'eof') faults.add({ line, kind: 'non_canonical', message: 'last line has no trailing newline' });
      else if (ending !== 'lf')
        faults.add({ line, kind: 'non_canonical', message: 'line ends with a carriage return' });
    }
    if (out.index !== undefined && out.rows % options.indexEvery! === 0) {
      out.index.push(out.rows, at, line);
      out.indexPrev!.push(view.prev_hash ?? '');
    }
    out.rows++;
  }
}

/** What a ref that the scanner took for a digest is when it is not one (a fault of the scanner's, not a verdict). */
function notADigest(mem: Buffer, at: number): TypeError {
  return new TypeError(`not a SHA-256 hex digest: ${JSON.stringify(mem.toString('latin1', at, at + 64))}`);
}
