import {
  canonical,
  canonicalOfRead,
  MAX_LINE_BYTES,
  decodeUtf8,
  isJsonInteger,
  isJsonObject,
  JsonParseError,
  parse,
  type JsonValue,
} from '../canonical';
import { defineLazyList, DigestSet, type DigestBudget } from '../util/digest-set';
import { isSha256Hex } from '../util/hash';
import { isSafeId } from '../util/ids';
import { ReceiptFormatError } from './tar';

/** The receipt manifest of docs/format.md §3 (`manifest.json` = `canonical(manifest)`). */
export interface Manifest {
  agent_id: string;
  head_hash: string;
  steps: number;
  /** The producer's name and version (the key name is part of the format). */
  bernstein_version: string;
  /** `YYYY-MM-DDTHH:MM:SSZ`, UTC. */
  created_at: string;
  /** The refs of all steps, first-occurrence order, no duplicates. */
  blob_digests: string[];
  format_version: number;
}

export const FORMAT_VERSION = 1;
export const MANIFEST_KEYS = [
  'agent_id',
  'bernstein_version',
  'blob_digests',
  'created_at',
  'format_version',
  'head_hash',
  'steps',
] as const;
const CREATED_AT = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$/;

/** `YYYY-MM-DDTHH:MM:SSZ` for a date (UTC, whole seconds). */
export function formatCreatedAt(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** Unix seconds of a `created_at` (the archive's member mtime). */
export function createdAtSeconds(createdAt: string): number {
  const t = Date.parse(createdAt);
  return Number.isFinite(t) ? Math.floor(t / 1000) : 0;
}

export function encodeManifest(m: Manifest): Buffer {
  const v: JsonValue = {
    agent_id: m.agent_id,
    head_hash: m.head_hash,
    steps: m.steps,
    bernstein_version: m.bernstein_version,
    created_at: m.created_at,
    blob_digests: m.blob_digests,
    format_version: m.format_version,
  };
  return Buffer.from(canonical(v), 'utf8');
}

/** The refs of all steps, first-occurrence order, no duplicates. */
export function blobDigestsOf(refLists: Iterable<readonly string[]>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const refs of refLists) {
    for (const r of refs) {
      if (!seen.has(r)) {
        seen.add(r);
        out.push(r);
      }
    }
  }
  return out;
}

/**
 * Reads `manifest.json`: strict UTF-8 JSON, an object, byte-identical to its
 * canonical re-encoding (what is signed is exactly what is read), the keys of
 * format 1 with their types, and a known `format_version`. Throws
 * ReceiptFormatError with kind `manifest_not_json`, `manifest_not_canonical`,
 * `manifest_invalid` or `unknown_format_version`.
 */
export function parseManifest(bytes: Buffer): Manifest {
  return readManifest(bytes).manifest;
}

const MEMBER = 'manifest.json';
const LISTED_TWICE = '"blob_digests" lists a digest twice';
/** The digests' array as canonical JSON writes it: `"blob_digests":[` then `"<64 hex>"` joined by commas, then `]`. */
export const DIGESTS_KEY = Buffer.from('"blob_digests":[', 'latin1');
/** One listed digest's bytes: its quotes, its 64 digits and the comma or bracket after it. */
export const LISTED = 67;

/**
 * `parseManifest`, and its blob digests held compactly (32 bytes each; `blob_digests` is made from them when first
 * read). A manifest is mostly its digests (67 bytes each): read as text and parsed, a million of them held ~600 MB
 * (the text, its re-encoding, a string and a Set entry each). When the digests' array has the one form a canonical
 * manifest gives it, it is read straight into the set and the rest, with `[]` in its place, is read as before: the
 * same checks, in the same order, on the same bytes (the array is canonical JSON of hex digits, so the whole is
 * canonical exactly when that rest is, with the array where canonical JSON puts it). Anything else (a fault, an
 * array of another form) is read the general way, so every fault is said as before.
 */
export function readManifest(bytes: Buffer, budget?: DigestBudget): ReadManifest {
  const held = budget?.held ?? 0;
  const listed = readListed(bytes, budget);
  if (listed !== undefined) return listed;
  // What the fast reading held is dropped: the general reading holds the digests again.
  budget?.release(budget.held - held);
  // The general reading (text parsed: several times its size) only for a manifest no larger than a streamed verify
  // collects whole (manifest-stream.ts): every reader of the same bytes says the same.
  if (bytes.length > GENERAL_MANIFEST_MAX_BYTES) throw manifestTooLarge(bytes.length);
  return readManifestText(bytes, budget);
}

/**
 * The most bytes of a manifest read the general way (as text parsed: several times its size in memory). A canonical
 * manifest of any size is read straight from its bytes, or as it streams (its digests into a set); one that is not,
 * and is larger than this, is the fault `manifest_too_large` (no producer writes such a manifest).
 */
export const GENERAL_MANIFEST_MAX_BYTES = 16 * 1024 * 1024;

/** A manifest over GENERAL_MANIFEST_MAX_BYTES whose bytes are not a canonical manifest's. */
export function manifestTooLarge(size: number): ReceiptFormatError {
  return new ReceiptFormatError(
    'manifest_too_large',
    `manifest.json is ${size} bytes and not in canonical form: a manifest read the general way is at most ${GENERAL_MANIFEST_MAX_BYTES} bytes (16 MiB)`,
    MEMBER,
  );
}

/** A manifest as read, its digests held compactly. */
export interface ReadManifest {
  manifest: Manifest;
  digests: DigestSet;
  /**
   * Where the digests' array lies in the bytes, `[` at `open` to `]` before `end`, when it has the one form a
   * canonical manifest gives it (the bytes are then the rest and the digests, nothing else: held-manifest.ts).
   */
  listed?: { open: number; end: number };
}

/** The fast reading, or undefined for the general one. */
function readListed(bytes: Buffer, budget?: DigestBudget): ReadManifest | undefined {
  const key = bytes.indexOf(DIGESTS_KEY);
  if (key < 0) return undefined;
  const open = key + DIGESTS_KEY.length - 1;
  let end = open + 1;
  let count = 0;
  if (bytes[end] !== 0x5d) {
    // `"` 64 digits `"` and `,` or `]`: the count is known from where the `]` is, when the form holds.
    const close = bytes.indexOf(0x5d, end);
    if (close < 0 || (close + 1 - end) % LISTED !== 0) return undefined;
    count = (close + 1 - end) / LISTED;
  }
  const digests = new DigestSet(count, budget);
  let twice = false;
  for (let i = 0; i < count; i++, end += LISTED) {
    const last = i === count - 1;
    if (bytes[end] !== 0x22 || bytes[end + 65] !== 0x22 || bytes[end + 66] !== (last ? 0x5d : 0x2c)) return undefined;
    const added = digests.addHexBytes(bytes, end + 1);
    if (added === undefined) return undefined;
    if (!added) twice = true;
  }
  if (count === 0) end++;
  const rest = Buffer.concat([bytes.subarray(0, open), Buffer.from('[]'), bytes.subarray(end)]);
  return readListedRest(rest, { open, end }, bytes.length, digests, twice);
}

/**
 * The fast reading's end, once the digests' array was read into `digests` (`twice`: one of them was listed twice):
 * the rest of the manifest, `[]` in the array's place (`rest`), read as text; the array where canonical JSON writes
 * it; then the general reading's last check. Undefined where the general reading is to name the fault. One rule
 * for the bytes read whole (readListed) and streamed (manifest-stream.ts). `size`: the whole manifest's bytes.
 */
export function readListedRest(
  rest: Buffer,
  listed: { open: number; end: number },
  size: number,
  digests: DigestSet,
  twice: boolean,
): ReadManifest | undefined {
  // Text too long for a string is the general reading's fault to name.
  if (size > MAX_LINE_BYTES) return undefined;
  let manifest: Manifest;
  try {
    manifest = readManifestText(rest).manifest;
  } catch (e) {
    if (e instanceof ReceiptFormatError) return undefined;
    throw e;
  }
  // The array read is the manifest's own: where canonical JSON writes blob_digests' value, after the two keys before it.
  const before = canonical({ agent_id: manifest.agent_id, bernstein_version: manifest.bernstein_version });
  if (Buffer.byteLength(before) - 1 + ',"blob_digests":'.length !== listed.open) return undefined;
  // The general reading's last check, reached as it would be (every other one held).
  if (twice) throw new ReceiptFormatError('manifest_invalid', `manifest ${LISTED_TWICE}`, MEMBER);
  // `blob_digests` is made from the set when first read: a verdict reads the set, a caller that asks gets the strings.
  return {
    manifest: defineLazyList(manifest, 'blob_digests', () => digests.hex()),
    digests,
    listed,
  };
}

/** The general reading, as text parsed (every fault named here; readManifest's reference in tests). */
export function readManifestText(bytes: Buffer, budget?: DigestBudget): { manifest: Manifest; digests: DigestSet } {
  const member = MEMBER;
  let text: string;
  let v: JsonValue;
  try {
    text = decodeUtf8(bytes);
    v = parse(text);
  } catch (e) {
    if (e instanceof JsonParseError)
      throw new ReceiptFormatError('manifest_not_json', `manifest is not JSON: ${e.message}`, member);
    if (e instanceof RangeError)
      throw new ReceiptFormatError('manifest_not_json', 'manifest is too large or too deeply nested', member);
    throw e;
  }
  if (!isJsonObject(v)) throw new ReceiptFormatError('manifest_invalid', 'manifest is not a JSON object', member);
  // The version decides how to read the rest, so it is checked first.
  const fv = v.format_version;
  if (!isJsonInteger(fv))
    throw new ReceiptFormatError('manifest_invalid', 'manifest has no integer "format_version"', member);
  if (fv !== FORMAT_VERSION) {
    throw new ReceiptFormatError(
      'unknown_format_version',
      `format_version ${String(fv)} is not supported (this reader knows ${FORMAT_VERSION})`,
      member,
    );
  }
  let canon: string | undefined;
  try {
    canon = canonicalOfRead(v);
  } catch {
    canon = undefined;
  }
  if (canon !== text) {
    throw new ReceiptFormatError(
      'manifest_not_canonical',
      'manifest.json is not canonical JSON (sorted keys, no whitespace, no trailing newline)',
      member,
    );
  }
  const extra = Object.keys(v).filter((k) => !(MANIFEST_KEYS as readonly string[]).includes(k));
  if (extra.length > 0)
    throw new ReceiptFormatError('manifest_invalid', `manifest has unknown keys: ${extra.join(', ')}`, member);
  const bad = (why: string): never => {
    throw new ReceiptFormatError('manifest_invalid', `manifest ${why}`, member);
  };
  if (typeof v.agent_id !== 'string' || !isSafeId(v.agent_id)) bad('"agent_id" is not a safe id');
  if (!isSha256Hex(v.head_hash)) bad('"head_hash" is not 64 lowercase hex digits');
  if (!isJsonInteger(v.steps) || typeof v.steps === 'bigint' || v.steps < 0)
    bad('"steps" is not a non-negative integer');
  if (typeof v.bernstein_version !== 'string') bad('"bernstein_version" is not a string');
  if (typeof v.created_at !== 'string' || !CREATED_AT.test(v.created_at))
    bad('"created_at" is not YYYY-MM-DDTHH:MM:SSZ');
  const digests = v.blob_digests;
  if (!Array.isArray(digests) || !digests.every((d) => isSha256Hex(d)))
    bad('"blob_digests" is not a list of SHA-256 hex digests');
  const set = new DigestSet((digests as string[]).length, budget);
  for (const d of digests as string[]) if (!set.addHex(d)) bad(LISTED_TWICE);
  const manifest: Manifest = {
    agent_id: v.agent_id as string,
    head_hash: v.head_hash as string,
    steps: v.steps as number,
    bernstein_version: v.bernstein_version as string,
    created_at: v.created_at as string,
    blob_digests: digests as string[],
    format_version: FORMAT_VERSION,
  };
  return { manifest, digests: set };
}
