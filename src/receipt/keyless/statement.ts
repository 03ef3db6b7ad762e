import { canonical, isJsonObject, JsonParseError, parseBytes, type JsonValue } from '../../canonical';
import { isSha256Hex } from '../../util/hash';

/** The in-toto predicate type of a stepchain receipt's attestation (`gh attestation verify --predicate-type`). */
export const RECEIPT_PREDICATE_TYPE = 'https://stepchain.dev/receipt/v1';
export const IN_TOTO_STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The DSSE payload type of an in-toto statement. */
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

/**
 * The in-toto Statement v1 a keyless receipt signs: one subject, the receipt
 * file (its base name and the sha256 of all its bytes, so a gzipped receipt is
 * named by what is on disk, as `gh attestation verify FILE` digests it; a receipt
 * streamed to its file is hashed as it is written), and the
 * receipt's manifest as the predicate. The manifest is embedded as its canonical
 * bytes, so the predicate is byte for byte the `manifest.json` it vouches for.
 */
export function receiptStatement(name: string, receiptSha256: string, manifestBytes: Uint8Array): Buffer {
  if (!isSha256Hex(receiptSha256))
    throw new Error(`receiptStatement: not a SHA-256 digest: ${JSON.stringify(receiptSha256)}`);
  const subject = JSON.stringify([{ name, digest: { sha256: receiptSha256 } }]);
  const text =
    `{"_type":${JSON.stringify(IN_TOTO_STATEMENT_TYPE)},"subject":${subject},` +
    `"predicateType":${JSON.stringify(RECEIPT_PREDICATE_TYPE)},"predicate":${Buffer.from(manifestBytes).toString('utf8')}}`;
  return Buffer.from(text, 'utf8');
}

/** What a signed statement says, read from the DSSE payload (nothing here is trusted yet). */
export interface ReceiptStatement {
  subjects: { name: string; sha256: string | undefined }[];
  predicateType: string | undefined;
  /** The predicate in canonical form (compare with `manifest.json`), or undefined when there is none. */
  predicateCanonical: string | undefined;
}

/** Reads an in-toto statement; throws a one-line Error when the payload is not one. */
export function readStatement(payload: Uint8Array): ReceiptStatement {
  let doc: JsonValue;
  try {
    doc = parseBytes(payload);
  } catch (e) {
    if (e instanceof JsonParseError) throw new Error(`the signed payload is not JSON: ${e.message}`, { cause: e });
    throw e;
  }
  if (!isJsonObject(doc)) throw new Error('the signed payload is not a JSON object');
  if (doc['_type'] !== IN_TOTO_STATEMENT_TYPE)
    throw new Error(`the signed payload is not an in-toto Statement v1 (_type ${JSON.stringify(doc['_type'])})`);
  const rawSubjects = doc['subject'];
  if (!Array.isArray(rawSubjects)) throw new Error('the statement has no subject list');
  const subjects = rawSubjects.map((s) => {
    if (!isJsonObject(s) || typeof s['name'] !== 'string') throw new Error('a statement subject has no name');
    const digest = s['digest'];
    const sha256 = isJsonObject(digest) && typeof digest['sha256'] === 'string' ? digest['sha256'] : undefined;
    return { name: s['name'], sha256 };
  });
  const predicate = doc['predicate'];
  return {
    subjects,
    predicateType: typeof doc['predicateType'] === 'string' ? doc['predicateType'] : undefined,
    predicateCanonical: predicate === undefined ? undefined : canonical(predicate),
  };
}
