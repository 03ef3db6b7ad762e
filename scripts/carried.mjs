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
 * Bytes as the body of a block comment, in the fewest characters a comment can hold as text: printable ASCII but
 * `*` (94 characters, so no `*\/` can close the comment, and the file stays one-byte text that a terminal shows as
 * text). basE91's scheme with 94: two characters are 8,836 values, so a 13-bit group of the bytes' bits takes a 14th
 * bit when its value is under 644 (8,836 - 8,192); ~1.22 characters a byte, where base64 takes 1.33, and Node reads
 * and V8 scans every byte of the bin at each start. An even number of characters from the start encodes a prefix of
 * the bytes (decode94 gives whole bytes only).
 */
export function encode94(bytes) {
  const out = Buffer.allocUnsafe(Math.ceil((bytes.length * 16) / 13) + 2);
  let o = 0;
  let bits = 0;
  let n = 0;
  const put = (v) => {
    out[o++] = v < 10 ? 32 + v : 33 + v;
  };
  for (const x of bytes) {
    bits |= x << n;
    n += 8;
    if (n > 13) {
      let v = bits & 8191;
      if (v > 643) {
        bits >>>= 13;
        n -= 13;
      } else {
        v = bits & 16383;
        bits >>>= 14;
        n -= 14;
      }
      put(v % 94);
      put((v / 94) | 0);
    }
  }
  if (n > 0) {
    put(bits % 94);
    if (n > 7 || bits > 93) put((bits / 94) | 0);
  }
  return out.toString('latin1', 0, o);
}

/**
 * encode94's characters (a Buffer of them) as the bytes they encode, or undefined for a character it does not write.
 * The same function runs at build time and in the generated files (CARRIED_READER holds its text).
 */
export function decode94(chars) {
  const out = Buffer.allocUnsafe(Math.ceil((chars.length * 7) / 8) + 1);
  let o = 0;
  let bits = 0;
  let n = 0;
  let v = -1;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c < 32 || c === 42 || c > 126) return undefined;
    const d = c < 42 ? c - 32 : c - 33;
    if (v < 0) v = d;
    else {
      v += d * 94;
      bits |= v << n;
      n += (v & 8191) > 643 ? 13 : 14;
      do {
        out[o++] = bits & 255;
        bits >>>= 8;
        n -= 8;
      } while (n > 7);
      v = -1;
    }
  }
  if (v >= 0) out[o++] = (bits | (v << n)) & 255;
  return out.subarray(0, o);
}

/**
 * The fewest characters of encode94's `body` (an even number, or all of it) that decode to at least `bytes` bytes:
 * each pair carries 13 or 14 bits, as its value says.
 */
function charsFor(body, bytes) {
  let got = 0;
  for (let i = 0; i + 1 < body.length; i += 2) {
    if (got >> 3 >= bytes) return i;
    const c1 = body.charCodeAt(i);
    const c2 = body.charCodeAt(i + 1);
    const v = (c1 < 42 ? c1 - 32 : c1 - 33) + (c2 < 42 ? c2 - 32 : c2 - 33) * 94;
    got += (v & 8191) > 643 ? 13 : 14;
  }
  return got >> 3 >= bytes ? body.length - (body.length % 2) : body.length;
}

/** A program's bytes packed: brotli (at its best), encode94'd; about a third of the text's bytes. */
export function packBytes(bytes) {
  return encode94(brotliBest(bytes));
}

/**
 * Programs packed together: one brotli stream of their texts one after another, encode94'd (`body`). A later text
 * is packed with the earlier ones behind it, so what it shares with them (the bin's entries are mostly modules of
 * the whole CLI) costs it a reference, not its bytes again: the bin's three programs 610 KB packed apart, 489 KB so.
 * Each text is read back from a prefix of the body, the shortest that unpacks as far as the text's end (brotli
 * unpacks a stream as far as its bytes go): `spans[i]` is that prefix, in characters of the body (`chars`, an even
 * number: whole bytes) and in the packed bytes they hold (`bytes`; -1 for the last text, whose prefix is the
 * whole stream, unpacked as one), and where the text lies in what it unpacks to (`from`, `length`). So the first
 * text's start reads and checks only its own prefix; put first what runs most.
 */
export function packJoint(texts) {
  const packed = brotliBest(Buffer.concat(texts));
  const body = encode94(packed);
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
    return { chars: charsFor(body, lo), bytes: lo, from, length: text.length };
  });
  // What the run-time reader will do (unpackCarried on each prefix), checked here: a prefix that did not unpack to
  // its text would be a bin whose program is refused as damaged on every start.
  for (const [i, span] of spans.entries()) {
    const prefix = decode94(Buffer.from(body.slice(0, span.chars), 'latin1'));
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
 * - `unpackCarried(bytes, length, packed = -1, from = 0)`: packed bytes (packBytes: decode94, below) unpacked, or undefined unless
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
    const all = decode94(bytes);
    if (all === undefined) return undefined;
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
${decode94.toString()}
`;
