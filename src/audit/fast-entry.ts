import { literalValue, scanObject, scanText, type ScanStyle } from '../canonical/text-scan';

/**
 * The fast path of `audit verify` (and of `audit query`'s filters). An audit
 * line that is byte-for-byte `json.dumps(entry, sort_keys=True)` holds the
 * HMAC's pre-image, `json.dumps(entry without hmac, sort_keys=True)`, as its
 * own text with the `"hmac": …` member and one `, ` cut out: removing a key
 * changes neither the order of the others nor how any of them is written. So
 * once the line is checked to be canonical, the HMAC is computed from the
 * line's bytes, with no parse tree and no re-encode (the slow path parsed the
 * line, encoded it to check it, then encoded it again for the HMAC).
 *
 * The check is the validator of canonical text (src/canonical/text-scan.ts) in its pretty style (pure ASCII, `, ` and
 * `: ` separators, sorted unique keys, canonical escapes and numbers). It is
 * deliberately narrower than canonical: NaN and infinities, integers of more
 * than 15 digits (past 4,300 a rule, see ENTRY_STYLE), nesting deeper than 64, a `hmac` or `prev_hmac` that is
 * not a plain string, or a missing entry key are all left to the slow path,
 * which decides (a line this path takes is one the slow path finds canonical,
 * with every key, so the verdict is the same).
 */
export interface FastAuditLine {
  /** The stored `prev_hmac` and `hmac` (plain strings: no escapes). */
  prev: string;
  hmac: string;
  /** The HMAC's pre-image after the chain's previous hmac: the line without its `hmac` member. */
  body: string;
  /** Where each top-level value lies in the text (start, end), by key as written. */
  spans: Map<string, [number, number]>;
}

/** Every key an entry has (src/audit/entry.ts ENTRY_KEYS and `hmac`), in the order the canonical form sorts them. */
const REQUIRED = ['actor', 'details', 'event_type', 'hmac', 'prev_hmac', 'resource_id', 'resource_type', 'timestamp'];

/**
 * An entry's values (src/canonical/text-scan.ts): Python's default separators; deeper values are rare in an audit
 * entry, and integers past 15 digits (read as bigint beyond 2^53, printed back as such), NaN and the infinities are
 * left to the slow path (with the project's own limits).
 *
 * Of these, one is a rule: an integer of more than 4,300 digits must never be taken. The parser refuses it, as
 * Python's json.loads does (src/canonical/parse.ts MAX_INT_DIGITS), so its line is malformed_json, not a verified
 * entry; and a query hit would parse it on demand (test/audit.fast-path.test.ts, "limits", fails with `intOk`
 * unbounded). The 15 digits and `nonFinite: false` are margins, not rules: both paths and python3 write an integer
 * of up to 4,300 digits back digit for digit and NaN/±Infinity as Python does, so taking them changes no verdict,
 * HMAC pre-image or query output (the same tests and the random-log ones pass with 30 digits and with
 * `nonFinite: true`). Any new limit on the slow path's side must be mirrored here.
 */
const ENTRY_STYLE: ScanStyle = {
  pretty: true,
  maxDepth: 64,
  nonFinite: false,
  intOk: (token) => (token.charCodeAt(0) === 0x2d ? token.length - 1 : token.length) <= 15,
};

let s = '';

/** A plain string value (no escapes) at `span`, else undefined. */
function plainString(span: [number, number] | undefined): string | undefined {
  if (span === undefined || s.charCodeAt(span[0]) !== 0x22) return undefined;
  const body = s.slice(span[0] + 1, span[1] - 1);
  return body.includes('\\') ? undefined : body;
}

/**
 * The line `text[a..b)` (a latin1 view of its bytes) when it is a canonical
 * entry this path takes, else undefined (the slow path then decides).
 */
export function fastAuditLine(text: string, a: number, b: number): FastAuditLine | undefined {
  s = text;
  scanText(text, ENTRY_STYLE);
  if (s.charCodeAt(a) !== 0x7b) return undefined;
  const spans = new Map<string, [number, number]>();
  let hmacMember: [number, number] | undefined;
  let end: number;
  try {
    end = scanObject(a, 0, (k0, k1, v0, v1) => {
      const key = literalValue(k0, k1);
      spans.set(key, [v0, v1]);
      if (key === 'hmac') hmacMember = [k0, v1];
    });
  } catch (e) {
    // The string regex backtracks on its own stack: a string of megabytes overflows it.
    if (!(e instanceof RangeError)) throw e;
    return undefined;
  }
  if (end !== b || hmacMember === undefined) return undefined;
  for (const k of REQUIRED) if (!spans.has(k)) return undefined;
  const prev = plainString(spans.get('prev_hmac'));
  const hmac = plainString(spans.get('hmac'));
  if (prev === undefined || hmac === undefined) return undefined;
  // `actor` sorts before `hmac`, so the member has a `, ` before it: cut it with the member.
  const body = s.slice(a, hmacMember[0] - 2) + s.slice(hmacMember[1], b);
  return { prev, hmac, body, spans };
}
