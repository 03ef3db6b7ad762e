import { encode, parse, type JsonObject, type JsonValue } from '../canonical';

/**
 * One entry a query matched, read only as far as its reader asks. A canonical line (src/audit/fast-entry.ts) is
 * not parsed for a table row or a JSON document: a field is its string literal's text, and the details' or the
 * entry's compact JSON is the line's own text without the spaces of its separators (a canonical line is what the
 * encoder writes, pretty; the compact encoding differs only there). Anything else was parsed by the walk (query does
 * not verify: a non-canonical entry is listed too) and is encoded as it was.
 *
 * The walk hands over the same object for every match: it holds the match until the walk moves on.
 */
export class AuditHit {
  /** The segment (its name inside the audit directory) and the 1-based line. */
  file = '';
  line = 0;
  /** The latin1 view of the block holding a canonical line, and the line's range in it. */
  private text = '';
  private start = 0;
  private end = 0;
  /** A canonical line's top-level values by key (start, end), else undefined (the entry was parsed). */
  private spans: Map<string, [number, number]> | undefined;
  private parsed: JsonObject | undefined;

  /** This hit is now the canonical line text[start..end) with these top-level values. */
  canonicalAt(
    file: string,
    line: number,
    text: string,
    start: number,
    end: number,
    spans: Map<string, [number, number]>,
  ): this {
    this.file = file;
    this.line = line;
    this.text = text;
    this.start = start;
    this.end = end;
    this.spans = spans;
    this.parsed = undefined;
    return this;
  }

  /** This hit is now an entry read the slow way. */
  parsedAt(file: string, line: number, entry: JsonObject): this {
    this.file = file;
    this.line = line;
    this.text = '';
    this.spans = undefined;
    this.parsed = entry;
    return this;
  }

  /** The entry as the parser reads its line. */
  entry(): JsonObject {
    this.parsed ??= parse(this.text.slice(this.start, this.end)) as JsonObject;
    return this.parsed;
  }

  /** A top-level field as `String(entry[key])` writes it (`undefined` when there is none; see textOf). */
  field(key: string): string {
    const span = this.spans?.get(key);
    if (span === undefined) return textOf(this.entry()[key]);
    const t = this.text;
    if (t.charCodeAt(span[0]) === 0x22) {
      const body = t.slice(span[0] + 1, span[1] - 1);
      return body.includes('\\') ? (JSON.parse(t.slice(span[0], span[1])) as string) : body;
    }
    return textOf(parse(t.slice(span[0], span[1])));
  }

  /**
   * `encode(entry.details, { separators: 'compact', allowNonFinite: true })`: keys sorted, as a canonical line has
   * them; `undefined` for an entry without details (query lists what verify faults), as a missing field reads.
   */
  detailsText(): string {
    const span = this.spans?.get('details');
    if (span === undefined) {
      const details = this.entry().details;
      return details === undefined ? 'undefined' : encode(details, COMPACT);
    }
    return compacted(this.text, span[0], span[1]).text;
  }

  /**
   * `encode(entry, { sortKeys: false, allowNonFinite: true })`: the entry's compact JSON, keys in the order the parsed
   * object holds them. That is the line's order but for keys that read as array indexes (`"7"`): JavaScript puts
   * them first, so such a line is encoded from its parse, as before. NaN stays bare here, as read: the `--json`
   * document's writer applies the output rule to the text (outputOfText, src/canonical/output.ts).
   */
  compactText(): string {
    if (this.spans !== undefined) {
      const c = compacted(this.text, this.start, this.end);
      if (!c.indexKey) return c.text;
    }
    return encode(this.entry(), AS_READ);
  }
}

const COMPACT = { separators: 'compact', allowNonFinite: true } as const;

/**
 * `String(v)`, but for a value it cannot convert: an object holding a `toString` key (`{"toString": 1}`, in an array
 * too) leaves JavaScript no method to call, a TypeError that was the command's internal error. Such a value is
 * shown as its compact JSON.
 */
function textOf(v: JsonValue | undefined): string {
  try {
    return String(v);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    return encode(v!, COMPACT);
  }
}
const AS_READ = { sortKeys: false, allowNonFinite: true } as const;

/**
 * Canonical text t[a..b) (pretty separators) as the compact encoder writes it: outside string literals the only
 * spaces are the separators' (pure ASCII, no whitespace elsewhere: src/canonical/text-scan.ts), so they are cut;
 * string literals are copied as they are. `indexKey`: some key is all digits (it may be an array index).
 */
function compacted(t: string, a: number, b: number): { text: string; indexKey: boolean } {
  let out = '';
  let run = a;
  let indexKey = false;
  for (let i = a; i < b; i++) {
    const c = t.charCodeAt(i);
    if (c === 0x20) {
      out += t.slice(run, i);
      run = i + 1;
    } else if (c === 0x22) {
      const close = literalEnd(t, i);
      // A key is a literal followed by `:`; all digits (no sign, no point) may read as an array index.
      if (t.charCodeAt(close + 1) === 0x3a && close > i + 1 && allDigits(t, i + 1, close)) indexKey = true;
      i = close;
    }
  }
  return { text: out + t.slice(run, b), indexKey };
}

/** The closing quote of the (canonical, so well-formed) string literal opened at `open`. */
function literalEnd(t: string, open: number): number {
  for (let q = t.indexOf('"', open + 1); ; q = t.indexOf('"', q + 1)) {
    let k = q - 1;
    while (t.charCodeAt(k) === 0x5c) k--;
    if ((q - 1 - k) % 2 === 0) return q; // an even run of backslashes before it: the quote is not escaped
  }
}

function allDigits(t: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) {
    const c = t.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}
