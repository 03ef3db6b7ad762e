// Programs carried in a generated file's last block comments, compiled only when run: the bin's
// (scripts/build-launcher.mjs) and the Action's (scripts/build-action.mjs). One packing at build time and one reader
// at run time for both: the reader is source text each generated file includes (they run as plain scripts).
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from 'node:zlib';

/** Brotli at its best, for `bytes` (told their length: the encoder plans for it). */
function brotliBest(bytes) {
  return brotliCompressSync(bytes, {
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY,
      [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}

/**
 * A program's bytes packed: brotli (at its best) in base64, which holds no `*` (so no comment escape) and no newline
 * (so a line comment can hold it), about a third of the text's bytes. A denser alphabet was measured and not kept:
 * basE91's scheme with the 94 printable characters but `*` made the bin 665 -> 612 KB (a start ~0.5 ms shorter) but
 * its decoder, run once and cold in V8's interpreter, took 3-8 ms where base64's takes 0.2-1.9, every start of a
 * program without its code cache (STEPCHAIN_CODE_CACHE=off, an unwritable state directory, no process.getuid).
 */
export function packBytes(bytes) {
  return brotliBest(bytes).toString('base64');
}

/**
 * Programs packed together: one brotli stream of their texts one after another, in base64 (`body`). A later text
 * is packed with the earlier ones behind it, so what it shares with them (the bin's entries are mostly modules of
 * the whole CLI) costs it a reference, not its bytes again: the bin's three programs 610 KB packed apart, 489 KB so.
 * Each text is read back from a prefix of the body, the shortest that unpacks as far as the text's end (brotli
 * unpacks a stream as far as its bytes go): `spans[i]` is that prefix, in characters of the body (`chars`, whole
 * base64 groups) and in the packed bytes they hold (`bytes`; -1 for the last text, whose prefix is the
 * whole stream, unpacked as one), and where the text lies in what it unpacks to (`from`, `length`). So the first
 * text's start reads and checks only its own prefix; put first what runs most.
 */
export function packJoint(texts) {
  const packed = brotliBest(Buffer.concat(texts));
  const body = packed.toString('base64');
  /** How many bytes the first `n` packed bytes unpack to. */
  const reach = (n) => {
    try {
      return brotliDecompressSync(packed.subarray(0, n), { finishFlush: zlibConstants.BROTLI_OPERATION_FLUSH }).length;
    } catch {
      return -1;
    }
  };
  let end = 0;
  const spans = texts.map((text, i) => {
    const from = end;
    end += text.length;
    if (i === texts.length - 1) return { chars: body.length, bytes: -1, from, length: text.length };
    let lo = 0;
    let hi = packed.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (reach(mid) >= end) hi = mid;
      else lo = mid + 1;
    }
    return { chars: Math.min(body.length, Math.ceil(lo / 3) * 4), bytes: lo, from, length: text.length };
  });
  // What the run-time reader will do (unpackCarried on each prefix), checked here: a prefix that did not unpack to
  // its text would be a bin whose program is refused as damaged on every start.
  for (const [i, span] of spans.entries()) {
    const prefix = Buffer.from(body.slice(0, span.chars), 'base64');
    const out =
      span.bytes < 0
        ? brotliDecompressSync(prefix)
        : brotliDecompressSync(prefix.subarray(0, span.bytes), {
            finishFlush: zlibConstants.BROTLI_OPERATION_FLUSH,
          });
    if (!out.subarray(span.from, span.from + span.length).equals(texts[i]))
      throw new Error(`packJoint: text ${i} does not unpack from its prefix`);
  }
  return { body, spans };
}

/**
 * The run-time reader, two functions of this file's (`__filename`'s) carried programs:
 * - `carriedBytes(fromEnd, length, closed = true, line = false)`: the `length` bytes of the block comment (`line`:
 *   the line comment) whose opening begins `fromEnd` bytes before the file's end, read alone (not the whole file), or
 *   undefined unless the comment's opening is before them and (`closed`: they are the whole comment) its close (`*\/`
 *   and a newline; a line comment's: the newline) after them: a file with bytes added or cut at its end (an
 *   editor's newline, a cut copy) would otherwise hand V8 other bytes. A prefix of a comment (packJoint's, `closed`
 *   false) is found by its opening alone: bytes added or cut anywhere after the opening move it, and changed bytes
 *   are the SHA-256 check's (below);
 * - `unpackCarried(bytes, length, packed = -1, from = 0)`: packed bytes (packBytes) unpacked, or undefined unless
 *   they unpack to `length` bytes; for a text of packJoint's, the text (`length` bytes at `from`) of what its prefix
 *   unpacks to: the whole stream (`packed` -1) unpacking to exactly its end, or the first `packed` bytes as far as
 *   they go, at least to its end. Brotli has no checksum: changed bytes of the same length can unpack to another
 *   text of that length, so whoever runs a packed program checks its bytes' SHA-256 first.
 */
export const CARRIED_READER = `function carriedBytes(fromEnd, length, closed = true, line = false) {
  const fs = require('node:fs');
  const fd = fs.openSync(__filename, 'r');
  try {
    const at = fs.fstatSync(fd).size - fromEnd;
    const close = line ? '\\n' : '*/\\n';
    const all = Buffer.allocUnsafe(length + 2 + (closed ? close.length : 0));
    let got = 0;
    if (at >= 0)
      for (let n = -1; got < all.length && n !== 0; got += n) n = fs.readSync(fd, all, got, all.length - got, at + got);
    if (got !== all.length || all.toString('latin1', 0, 2) !== (line ? '//' : '/*') || (closed && all.toString('latin1', length + 2) !== close)) return undefined;
    return all.subarray(2, length + 2);
  } finally {
    fs.closeSync(fd);
  }
}
function unpackCarried(bytes, length, packed = -1, from = 0) {
  const zlib = require('node:zlib');
  let out;
  try {
    const all = Buffer.from(bytes.toString('latin1'), 'base64');
    out =
      packed < 0
        ? zlib.brotliDecompressSync(all)
        : zlib.brotliDecompressSync(all.subarray(0, packed), { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  } catch {
    return undefined;
  }
  const enough = packed < 0 ? out.length === from + length : out.length >= from + length;
  return enough ? out.subarray(from, from + length) : undefined;
}
`;
