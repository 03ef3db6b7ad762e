import type { Gunzip } from 'node:zlib';

/**
 * The inflater's output buffers, handed back to it once their bytes are taken, so a large gzip is inflated into a
 * few buffers again and again rather than into a fresh one for each piece.
 *
 * Why: node's inflater (lib/zlib.js) writes its output into `_outBuffer`, a buffer of `chunkSize` bytes, and makes a
 * new one (`Buffer.allocUnsafe`) each time one is full: every inflated megabyte lands in memory the process has not
 * touched, a page fault for each 4 KiB on libuv's thread, which is the inflating archive's critical path (the
 * 210 MB member: 54-79 ms inflated into one reused buffer, 95-131 ms into a fresh one per megabyte, measured
 * apart). A buffer the inflater has moved off (it set `_outBuffer` to another) holds pieces it has handed on; once
 * the reading side has taken every piece handed on so far (`taken`, after a read loop that emptied the stream, whose
 * taker copies what it keeps: ArchiveScan), no piece of it is left unread, and it is given to the inflater the next
 * time it asks for a new one, instead of the new one.
 *
 * Only installed where the inflater is as read here (an own `_outBuffer` of `chunkSize` bytes): another Node's zlib
 * gets nothing from it and inflates as it always did.
 */
export class RecycledOutput {
  /** Buffers the inflater moved off, with pieces that may still be unread. */
  private readonly retired: Buffer[] = [];
  /** Buffers every piece of which was taken: the inflater's next ones. */
  private readonly free: Buffer[] = [];

  private constructor(private readonly size: number) {}

  /** Installed on `gunzip` (made with `chunkSize: size`); undefined when its output buffer is not one read here. */
  static install(gunzip: Gunzip, size: number): RecycledOutput | undefined {
    const own = Object.getOwnPropertyDescriptor(gunzip, '_outBuffer');
    const first: unknown = own?.value;
    if (own === undefined || own.configurable !== true || !Buffer.isBuffer(first) || first.length !== size)
      return undefined;
    const recycled = new RecycledOutput(size);
    let current: Buffer = first;
    Object.defineProperty(gunzip, '_outBuffer', {
      configurable: true,
      enumerable: own.enumerable ?? true,
      get: () => current,
      set: (made: Buffer) => {
        recycled.retire(current);
        current = recycled.free.pop() ?? made;
      },
    });
    return recycled;
  }

  /** Every piece the inflater handed on so far was taken: the buffers it moved off are its to use again. */
  taken(): void {
    // A few are enough: the stream holds one piece back, so the inflater is at most a buffer or two ahead.
    for (const b of this.retired.splice(0)) if (this.free.length < 4) this.free.push(b);
  }

  private retire(b: Buffer): void {
    if (b.length === this.size && b.byteOffset === 0 && b.buffer.byteLength === this.size) this.retired.push(b);
  }
}
