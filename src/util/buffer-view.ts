/**
 * Bytes as a Buffer, the same memory (no copy). The library's byte inputs are typed Uint8Array where a caller may hand
 * any (a TextEncoder's output, a fetch body, a view into shared memory), while the readers behind them use Buffer's
 * methods (copy, equals, indexOf with an offset): a plain Uint8Array reached them as "buf.copy is not a function".
 * Every entry that takes bytes passes them through here once.
 */
export function bufferView(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
