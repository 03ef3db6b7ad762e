// Programs carried in a generated file's last block comments, compiled only when run: the bin's
// (scripts/build-launcher.mjs) and the Action's (scripts/build-action.mjs). One packing at build time and one reader
// at run time for both: the reader is source text each generated file includes (they run as plain scripts).
import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';

/**
 * A program's bytes packed: brotli (at its best) in base64, which holds no `*` (so no comment escape), about a third
 * of the text's bytes.
 */
export function packBytes(bytes) {
  return brotliCompressSync(bytes, {
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY,
      [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  }).toString('base64');
}

/**
 * The run-time reader, two functions of this file's (`__filename`'s) carried programs:
 * - `carriedBytes(fromEnd, length)`: the `length` bytes of the block comment whose opening begins `fromEnd` bytes
 *   before the file's end, read alone (not the whole file), or undefined unless the comment's opening is before them
 *   and its close and a newline after them: a file with bytes added or cut at its end (an editor's newline, a cut
 *   copy) would otherwise hand V8 other bytes;
 * - `unpackCarried(bytes, length)`: packed bytes (packBytes) unpacked, or undefined unless they unpack to `length`
 *   bytes. Brotli has no checksum: changed bytes of the same length can unpack to another text of that length, so
 *   whoever runs a packed program checks its bytes' SHA-256 first.
 */
export const CARRIED_READER = `function carriedBytes(fromEnd, length) {
  const fs = require('node:fs');
  const fd = fs.openSync(__filename, 'r');
  try {
    const at = fs.fstatSync(fd).size - fromEnd;
    const all = Buffer.allocUnsafe(length + 5);
    let got = 0;
    if (at >= 0)
      for (let n = -1; got < all.length && n !== 0; got += n) n = fs.readSync(fd, all, got, all.length - got, at + got);
    if (got !== all.length || all.toString('latin1', 0, 2) !== '/*' || all.toString('latin1', length + 2) !== '*/\\n') return undefined;
    return all.subarray(2, length + 2);
  } finally {
    fs.closeSync(fd);
  }
}
function unpackCarried(bytes, length) {
  let out;
  try {
    out = require('node:zlib').brotliDecompressSync(Buffer.from(bytes.toString('latin1'), 'base64'));
  } catch {
    return undefined;
  }
  return out.length === length ? out : undefined;
}
`;
