import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { LineTags } from '../../src/agents/window-index';

/**
 * What the window-index tests share: session lines that carry their own tags (`{"t": [[id, key], ...]}`, padded),
 * the tags read back from them, and the index file's layout constants (src/agents/window-index-file.ts).
 */

/** The tags a test line names (none for any other line: a torn one, a filler). */
export const lineTags: LineTags = (line) => {
  try {
    const v = JSON.parse(line) as { t?: unknown };
    return Array.isArray(v.t) ? (v.t as [string, string][]) : [];
  } catch {
    return [];
  }
};

/** A session line naming the call `id` under `key`, `pad` bytes of filler after it. */
export const taggedLine = (id: string, key: string, pad = 0): string =>
  JSON.stringify({ t: [[id, key]], p: 'x'.repeat(pad) });

/** The HMAC's domain of an index file (the first bytes it covers). */
export const INDEX_DOMAIN = 'stepchain window index v2\n';

/** A length rounded up to the index file's 8-byte alignment. */
export const pad8 = (b: number): number => Math.ceil(b / 8) * 8;

/** An index file's parts as laid out: the head, each segment (each without its HMAC), and the HMACs in order. */
export function indexParts(file: string): { head: Buffer; segs: Buffer[]; macs: Buffer[] } {
  const b = readFileSync(file);
  const headEnd = 8 + pad8(b.readUInt32LE(0));
  const segs: Buffer[] = [];
  const macs = [b.subarray(headEnd, headEnd + 32)];
  for (let at = headEnd + 32; at < b.length;) {
    const size = 56 + pad8(b.readUInt32LE(at + 48) * 20);
    segs.push(b.subarray(at, at + size));
    macs.push(b.subarray(at + size, at + size + 32));
    at += size + 32;
  }
  return { head: b.subarray(0, headEnd), segs, macs };
}

/** What a holder of `key` can write: the head and the segments, each followed by the HMAC of all before it. */
export function signedIndex(key: Uint8Array, head: Buffer, segs: Buffer[]): Buffer {
  const out: Buffer[] = [];
  for (const part of [head, ...segs]) {
    out.push(part);
    out.push(createHmac('sha256', key).update(INDEX_DOMAIN).update(Buffer.concat(out)).digest());
  }
  return Buffer.concat(out);
}
