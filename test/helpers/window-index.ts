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
