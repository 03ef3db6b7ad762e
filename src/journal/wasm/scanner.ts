// Named, not a namespace import: a bundle makes a copy of a namespace's every export when it starts (a hook call).
import { createHash, hash } from 'node:crypto';
import { isPythonFloatRepr } from '../../canonical';
import type { FastRow } from '../fast-line';
import { SCAN_WASM_BASE64 } from './scan-wasm.generated';

/**
 * The WebAssembly line scanner (src/journal/wasm/assembly/scan.ts) from JS: one
 * instance per thread, a block of whole lines copied into its memory, one record
 * per line back. A record is either an accepted canonical row (fastRow's result,
 * once its float tokens pass pythonFloatRepr and its payload is hashed here) or
 * a line deferred to JS (fastRow, then the slow path), so results never differ
 * from the JS fast path's. Float tokens the scanner does not show to be Python's
 * repr of their value (it shows every repr; what is left is some other spelling)
 * are checked here by isPythonFloatRepr, one short string each.
 */
export const REC_SIZE = 64;
/** Lines in a block larger than this are walked by the JS path. */
export const WASM_BLOCK_CAP = 16 * 1024 * 1024;
/** Memory grows to a larger block only when a long line needs it. */
const INITIAL_CAP = 2 * 1024 * 1024;
const MAX_RECS = 4096;
const align = (v: number): number => Math.ceil(v / 64) * 64;
const MAX_FLOATS = 65536;

interface Exports {
  memory: WebAssembly.Memory;
  heapBase(): number;
  next(): number;
  scan(
    from: number,
    end: number,
    rec: number,
    maxRecs: number,
    scratch: number,
    scratchCap: number,
    floats: number,
    maxFloats: number,
  ): number;
  linked(rec: number, link: number, digest: number): number;
  decideFloat(a: number, b: number): number;
}

export interface BlockRecord {
  /** The line's offsets in the scanner's memory (end at its newline or the block end). */
  start: number;
  end: number;
  terminated: boolean;
  /** fastRow's result for the line; undefined when JS must decide. */
  row: FastRow | undefined;
  /** With a row: the offset of its step_hash digits in the scanner's memory. */
  stored: number;
}

const oneShot = hash as ((alg: string, data: Uint8Array, enc: 'hex') => string) | undefined;
function sha256(view: Uint8Array): string {
  return oneShot !== undefined ? oneShot('sha256', view, 'hex') : createHash('sha256').update(view).digest('hex');
}

/** Buffer's own latin1 decoder where Node has it (toString's argument checks cost more than a short token). */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice?: (start: number, end: number) => string })
  .latin1Slice;
const latin1 = (b: Buffer, start: number, end: number): string =>
  latin1Slice !== undefined ? latin1Slice.call(b, start, end) : b.toString('latin1', start, end);
/** Its latin1 encoder, for the same reason (a digest's 64 hex digits written per row). */
const latin1Write = (Buffer.prototype as unknown as { latin1Write?: (s: string, at: number, n: number) => number })
  .latin1Write;

export class WasmScanner {
  private readonly x: Exports;
  /** The scanner's memory; blocks are loaded at `data` (see `ensure`). Replaced when memory grows. */
  mem!: Buffer;
  readonly data: number;
  private i32!: Int32Array;
  /** The memory as a plain byte array: a row's payload is hashed through a view of it (cheaper than a Buffer's). */
  private u8!: Uint8Array;
  private f64!: Float64Array;
  private readonly rec: number;
  private readonly floats: number;
  /** 64 bytes where a recomputed hash's hex digits are written for `linkedRow`. */
  private readonly digest: number;
  /** Room for a block at `data` (a payload scratch area of the same size follows it). */
  private cap = 0;
  private scratch = 0;
  private blockEnd = 0;
  private pos = 0;

  constructor(instance: WebAssembly.Instance) {
    this.x = instance.exports as unknown as Exports;
    this.rec = align(this.x.heapBase());
    this.floats = align(this.rec + MAX_RECS * REC_SIZE);
    this.digest = align(this.floats + MAX_FLOATS * 8);
    this.data = align(this.digest + 64);
    this.ensure(INITIAL_CAP);
  }

  /** Makes room for a block of `len` bytes at `data` (growing memory, which replaces `mem`). */
  ensure(len: number): void {
    if (len <= this.cap) return;
    if (len > WASM_BLOCK_CAP) throw new RangeError(`block of ${len} bytes`);
    const cap = Math.min(WASM_BLOCK_CAP, Math.max(len, 2 * this.cap));
    // 64 bytes of room after the largest block: the scanner writes zero bytes at a block's end (block.ts, GUARD).
    const scratch = align(this.data + cap + 64);
    const total = scratch + cap + 64;
    const have = this.x.memory.buffer.byteLength;
    if (total > have) this.x.memory.grow(Math.ceil((total - have) / 65536));
    const ab = this.x.memory.buffer;
    this.mem = Buffer.from(ab);
    this.u8 = new Uint8Array(ab);
    this.i32 = new Int32Array(ab);
    this.f64 = new Float64Array(ab);
    this.cap = cap;
    this.scratch = scratch;
  }

  /** Starts on the block of whole lines loaded at `data` (len bytes). */
  start(len: number): void {
    if (len < 0 || len > this.cap) throw new RangeError(`block of ${len} bytes`);
    this.blockEnd = this.data + len;
    this.pos = this.data;
  }

  /** Scans the next batch of lines; returns their count (0 at the block end). */
  batch(): number {
    if (this.pos >= this.blockEnd) return 0;
    const n = this.x.scan(this.pos, this.blockEnd, this.rec, MAX_RECS, this.scratch, this.cap, this.floats, MAX_FLOATS);
    this.pos = this.x.next();
    return n;
  }

  /** Record k of the batch: the line's offsets in `mem`, and its row when accepted. */
  record(k: number, refs: string[] | undefined, out: BlockRecord): BlockRecord {
    const r = (this.rec + k * REC_SIZE) >> 2;
    const i32 = this.i32;
    const start = i32[r]!;
    out.start = start;
    out.end = i32[r + 1]!;
    out.terminated = i32[r + 3] === 1;
    out.row = i32[r + 2] === 0 ? this.accepted(r, k, refs) : undefined;
    out.stored = out.row === undefined ? -1 : i32[r + 5]!;
    return out;
  }

  /**
   * The common case, with no string made of either hash: when record k is an
   * accepted row that ends in a newline, whose floats left to JS pass, has
   * seq `seq`, has the 64 bytes at `link` as its prev_hash and its recomputed
   * hash as its step_hash, the offset of its step_hash digits in `mem`; else -1
   * (the caller then reads the record in full).
   */
  linkedRow(k: number, seq: number, link: number): number {
    const r = (this.rec + k * REC_SIZE) >> 2;
    const i32 = this.i32;
    if (i32[r + 2] !== 0 || i32[r + 3] !== 1 || this.f64[(r >> 1) + 6] !== seq || !this.floatsPass(r)) return -1;
    const payload = i32[r + 6]!;
    const hex = sha256(this.u8.subarray(payload, payload + i32[r + 7]!));
    if (latin1Write !== undefined) latin1Write.call(this.mem, hex, this.digest, 64);
    else this.mem.write(hex, this.digest, 64, 'latin1');
    return this.x.linked(r << 2, link, this.digest) === 1 ? i32[r + 5]! : -1;
  }

  /** Record k's line end (its newline's offset in `mem`, or the block end). */
  lineEnd(k: number): number {
    return this.i32[((this.rec + k * REC_SIZE) >> 2) + 1]!;
  }

  /** How many blob refs record k (an accepted row) holds. */
  refCount(k: number): number {
    return this.i32[((this.rec + k * REC_SIZE) >> 2) + 8]!;
  }

  /** Where record k's j-th blob ref's 64 hex digits are in `mem` (refsOf reads them as a string). */
  refAt(k: number, j: number): number {
    return this.i32[(this.rec + k * REC_SIZE) >> 2]! + 15 + 67 * j;
  }

  /** Pushes record k's blob refs (an accepted row's). */
  refsOf(k: number, refs: string[]): void {
    const r = (this.rec + k * REC_SIZE) >> 2;
    const start = this.i32[r]!;
    const nrefs = this.i32[r + 8]!;
    for (let j = 0; j < nrefs; j++) {
      const at = start + 15 + 67 * j;
      refs.push(this.mem.toString('latin1', at, at + 64));
    }
  }

  /**
   * Whether the scanner alone takes `token` (ASCII) as Python's repr of its value, as it
   * does inside a row: true when it proves it, false when it leaves the token to JS
   * (isPythonFloatRepr). For tests; it uses the block area, so not between start and batch.
   */
  decidesFloat(token: string): boolean {
    const n = this.mem.write(token, this.data, 'latin1');
    return this.x.decideFloat(this.data, this.data + n) === 1;
  }

  /** The float tokens of the record at r (index into i32) that the scanner left to JS are Python's reprs. */
  private floatsPass(r: number): boolean {
    const i32 = this.i32;
    const f0 = i32[r + 9]!;
    const nf = i32[r + 10]!;
    for (let f = f0; f < f0 + nf; f++) {
      const at = (this.floats >> 2) + f * 2;
      if (!isPythonFloatRepr(latin1(this.mem, i32[at]!, i32[at + 1]!))) return false;
    }
    return true;
  }

  private accepted(r: number, k: number, refs: string[] | undefined): FastRow | undefined {
    const i32 = this.i32;
    const mem = this.mem;
    if (!this.floatsPass(r)) return undefined;
    const prev = i32[r + 4]!;
    const stored = i32[r + 5]!;
    const payload = i32[r + 6]!;
    const computedHash = sha256(mem.subarray(payload, payload + i32[r + 7]!));
    if (refs !== undefined) this.refsOf(k, refs);
    return {
      seq: this.f64[(r >> 1) + 6]!,
      prev_hash: mem.toString('latin1', prev, prev + 64),
      step_hash: mem.toString('latin1', stored, stored + 64),
      computedHash,
    };
  }
}

let compiled: WebAssembly.Module | null | undefined;
let instance: WasmScanner | null | undefined;

/**
 * The compiled scanner module (undefined where WebAssembly with SIMD is not
 * available). Worker threads are handed the caller's, so they share its
 * compiled (and optimised) code instead of compiling their own.
 */
export function wasmModule(): WebAssembly.Module | undefined {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(Buffer.from(SCAN_WASM_BASE64, 'base64'));
    } catch {
      compiled = null;
    }
  }
  return compiled ?? undefined;
}

/** Uses a module compiled by another thread (see wasmModule). */
export function adoptWasmModule(module: unknown): void {
  if (compiled === undefined && typeof WebAssembly !== 'undefined' && module instanceof WebAssembly.Module)
    compiled = module;
}

/**
 * This thread's scanner, or undefined where WebAssembly (with SIMD) is not
 * available; the JS fast path then does the work.
 */
export function wasmScanner(): WasmScanner | undefined {
  if (instance === undefined) {
    const module = wasmModule();
    try {
      instance = module === undefined ? null : new WasmScanner(new WebAssembly.Instance(module, {}));
    } catch {
      instance = null;
    }
  }
  return instance ?? undefined;
}
