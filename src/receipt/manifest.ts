import {
  canonical,
  canonicalOfRead,
  decodeUtf8,
  isJsonInteger,
  isJsonObject,
  JsonParseError,
  parse,
  type JsonValue,
} from '../canonical';
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
  const member = 'manifest.json';
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
  if (new Set(digests as string[]).size !== (digests as string[]).length) bad('"blob_digests" lists a digest twice');
  return {
    agent_id: v.agent_id as string,
    head_hash: v.head_hash as string,
    steps: v.steps as number,
    bernstein_version: v.bernstein_version as string,
    created_at: v.created_at as string,
    blob_digests: digests as string[],
    format_version: FORMAT_VERSION,
  };
}
