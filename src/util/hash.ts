import { createHash } from 'node:crypto';

export const ZERO_HASH = '0'.repeat(64);
const HEX64 = /^[0-9a-f]{64}$/;

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A lowercase 64-digit SHA-256 hex string. */
export function isSha256Hex(s: unknown): s is string {
  return typeof s === 'string' && HEX64.test(s);
}
