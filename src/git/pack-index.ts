import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { lstatUnder, READ_FLAGS } from '../util/nofollow';

/** A version-2 pack index opens with its magic and version, then the fan-out table (256 big-endian counts). */
const FANOUT = 8;
const NAMES = FANOUT + 256 * 4;

/**
 * The offset of `oid` (40 hex) in the pack of the version-2 index `rel` under `gitDir` (never through a link), or
 * undefined: not there, or not an index read here (a 64-bit offset, another version, a file too short for what its
 * fan-out table counts).
 *
 * Reads what git's own lookup reads, not the whole index: the fan-out table, the names in the range the object's
 * first byte gives (~1/256 of them), and the one offset. The whole index was read on every hook call (readRepoInfo
 * looks for HEAD's commit in the packs, where a clone keeps it): 8.4 MB for a 300,000-object repository, 7.5 ms of
 * readRepoInfo there against 1.3 ms on the bench's small pack.
 */
export function packOffset(gitDir: string, rel: string, oid: string): number | undefined {
  if (lstatUnder(gitDir, rel).kind !== 'file') return undefined;
  let fd: number;
  try {
    fd = openSync(path.join(gitDir, rel), READ_FLAGS);
  } catch {
    return undefined; // gone, or swapped for a link after the lstat (ELOOP)
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const at = (offset: number, length: number): Buffer | undefined => {
      if (offset + length > st.size) return undefined;
      const b = Buffer.allocUnsafe(length);
      let got = 0;
      for (let n = -1; got < length && n !== 0; got += n) n = readSync(fd, b, got, length - got, offset + got);
      return got === length ? b : undefined;
    };
    const head = at(0, NAMES);
    if (head === undefined || head.readUInt32BE(0) !== 0xff744f63 || head.readUInt32BE(4) !== 2) return undefined;
    const want = Buffer.from(oid, 'hex');
    const first = want[0]!;
    const lo = first === 0 ? 0 : head.readUInt32BE(FANOUT + 4 * (first - 1));
    const hi = head.readUInt32BE(FANOUT + 4 * first);
    const n = head.readUInt32BE(FANOUT + 4 * 255);
    // Names (20 bytes each), CRC-32s and offsets (4 bytes each) of `n` objects: a shorter file is not one read here.
    if (st.size < NAMES + n * 28 || lo > hi || hi > n) return undefined;
    const names = at(NAMES + lo * 20, (hi - lo) * 20);
    if (names === undefined) return undefined;
    let a = 0;
    let b = hi - lo;
    while (a < b) {
      const mid = (a + b) >>> 1;
      const c = names.compare(want, 0, 20, mid * 20, mid * 20 + 20);
      if (c === 0) {
        const off = at(NAMES + n * 24 + (lo + mid) * 4, 4)?.readUInt32BE(0);
        return off === undefined || off & 0x80000000 ? undefined : off; // a 64-bit offset: git reads it
      }
      if (c < 0) a = mid + 1;
      else b = mid;
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}
