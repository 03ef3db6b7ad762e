import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/**
 * `src/util/hash.ts` for the report page: the same exports, with SHA-256 from
 * @noble/hashes instead of node:crypto. The page build (scripts/build-page.mjs)
 * puts this module in place of src/util/hash.ts, so the page hashes steps through
 * src/journal's own step-hash code; test/report.page.test.ts checks that the two
 * modules export the same names and agree.
 */
export const ZERO_HASH = '0'.repeat(64);
const HEX64 = /^[0-9a-f]{64}$/;
const utf8 = new TextEncoder();

export function sha256Hex(data: string | Uint8Array): string {
  return bytesToHex(sha256(typeof data === 'string' ? utf8.encode(data) : data));
}

/** A lowercase 64-digit SHA-256 hex string. */
export function isSha256Hex(s: unknown): s is string {
  return typeof s === 'string' && HEX64.test(s);
}
