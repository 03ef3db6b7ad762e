/**
 * The report page's verification runtime: a lossless JSON parser, the canonical
 * encoder, SHA-256 and the chain checker, as ONE self-contained function.
 *
 * It references nothing outside its own body (no imports, no module-level values),
 * so `clientRuntime.toString()` is valid page script in the built CLI bundle and in
 * tests alike; the page calls `(<source>)()`. The same function runs in Node in the
 * tests, where it is checked against `src/canonical`, `src/journal` and python3.
 * Float repr and key order are src/canonical's own functions, passed in as `leaf`;
 * the other rules mirror `src/canonical/parse.ts`, `encode.ts`,
 * `src/journal/row.ts` and `chain.ts`; keep them in step (the tests enforce it).
 *
 * Value model in the page: objects are `Map`s (insertion order, last duplicate wins),
 * integers are safe `number`s or `bigint`s, floats are non-integral `number`s or a
 * `{ f: number }` box when integral, -0 or not finite (so `1.0` stays `1.0`).
 */

/** A float whose value alone would read as an integer (or is -0, NaN, +-Infinity). */
export interface PageFloat {
  f: number;
}
export type PageValue = null | boolean | number | bigint | string | PageFloat | PageValue[] | Map<string, PageValue>;

export interface PageFault {
  line: number | null;
  kind: string;
  message: string;
}

/** One line of the journal as the page sees it. */
export interface PageEntry {
  line: number;
  /** Byte offsets of the line in the journal (end excludes the newline). */
  start: number;
  end: number;
  /** The decoded line (lossy for invalid UTF-8, for display only). */
  text: string;
  /** The parsed row, when the line is a well-formed row. */
  row: Map<string, PageValue> | null;
  /** Recomputed step hash (well-formed rows only). */
  computed: string | null;
  faults: PageFault[];
}

export interface PageVerifyResult {
  ok: boolean;
  head_hash: string;
  steps: number;
  errors: PageFault[];
}

export interface PageVerifier {
  entries: PageEntry[];
  /** Number of lines in the journal (known up front). */
  total: number;
  /** Checks up to `maxLines` more lines; returns true when done. */
  run(maxLines: number): boolean;
  /** The result (complete once `run` returned true). */
  result(): PageVerifyResult;
}

export interface PageRuntime {
  parseJson(text: string): PageValue;
  canonical(v: PageValue): string;
  display(v: PageValue, indent?: number): string;
  pythonFloatRepr(x: number): string;
  compareCodePoints(a: string, b: string): number;
  encodeString(s: string): string;
  sha256Hex(bytes: Uint8Array): string;
  asciiBytes(s: string): Uint8Array;
  base64Bytes(b64: string): Uint8Array;
  decodeUtf8(bytes: Uint8Array, fatal: boolean): string;
  stepHash(row: Map<string, PageValue>): string;
  createVerifier(bytes: Uint8Array, expectedHead?: string | null): PageVerifier;
}

/** The leaf functions the runtime shares with `src/canonical` (self-contained, serializable). */
export interface RuntimeLeaves {
  pythonFloatRepr(x: number): string;
  compareCodePoints(a: string, b: string): number;
}

export function clientRuntime(leaf: RuntimeLeaves): PageRuntime {
  const ZERO = '0000000000000000000000000000000000000000000000000000000000000000';
  const MAX_DEPTH = 4096;
  const MAX_INT_DIGITS = 4300;
  const ROW_KEYS = [
    'blob_refs',
    'input_hash',
    'model',
    'prev_hash',
    'prompt',
    'seq',
    'step_hash',
    'tool_call',
    'tool_result',
    'ts',
  ];
  const HEX64 = /^[0-9a-f]{64}$/;

  function isFloatBox(v: PageValue | undefined): v is PageFloat {
    return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Map);
  }

  // ---- JSON parse (Python json.loads rules, lossless numbers) ----
  function parseError(reason: string, at: number): Error {
    const e = new Error(`${reason} at column ${at + 1}`);
    e.name = 'JsonParseError';
    return e;
  }

  function parseJson(text: string): PageValue {
    let i = 0;
    const n = text.length;
    const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
    const fail = (reason: string, at?: number): never => {
      throw parseError(reason, at === undefined ? i : at);
    };
    const skipWs = (): void => {
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
        else break;
      }
    };
    const parseString = (): string => {
      const start = ++i;
      let out = '';
      let run = start;
      for (;;) {
        if (i >= n) fail('unterminated string', start - 1);
        const c = text.charCodeAt(i);
        if (c === 0x22) {
          out += text.slice(run, i);
          i++;
          return out;
        }
        if (c < 0x20) fail('invalid control character in string');
        if (c !== 0x5c) {
          i++;
          continue;
        }
        out += text.slice(run, i);
        const e = text.charCodeAt(i + 1);
        if (e === 0x22) out += '"';
        else if (e === 0x5c) out += '\\';
        else if (e === 0x2f) out += '/';
        else if (e === 0x62) out += '\b';
        else if (e === 0x66) out += '\f';
        else if (e === 0x6e) out += '\n';
        else if (e === 0x72) out += '\r';
        else if (e === 0x74) out += '\t';
        else if (e === 0x75) {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('invalid \\uXXXX escape');
          out += String.fromCharCode(parseInt(hex, 16));
          i += 4;
        } else fail('invalid escape');
        i += 2;
        run = i;
      }
    };
    const parseNumber = (): PageValue => {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (m === null) return fail('expecting value');
      const token = m[0];
      const start = i;
      i += token.length;
      if (m[1] !== undefined || m[2] !== undefined) {
        const f = Number(token);
        return Number.isInteger(f) || Object.is(f, -0) || !Number.isFinite(f) ? { f } : f;
      }
      const digits = token.length - (token.charCodeAt(0) === 0x2d ? 1 : 0);
      if (digits <= 15) return Number(token);
      if (digits > MAX_INT_DIGITS) fail(`integer of ${digits} digits exceeds the ${MAX_INT_DIGITS}-digit limit`, start);
      const big = BigInt(token);
      return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
    };
    const literal = (word: string, value: PageValue): PageValue => {
      if (!text.startsWith(word, i)) fail('expecting value');
      i += word.length;
      return value;
    };
    const parseValue = (depth: number): PageValue => {
      if (depth > MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH} levels`);
      skipWs();
      const c = text.charCodeAt(i);
      if (c === 0x22) return parseString();
      if (c === 0x7b) {
        i++;
        const map = new Map<string, PageValue>();
        skipWs();
        if (text.charCodeAt(i) === 0x7d) {
          i++;
          return map;
        }
        for (;;) {
          skipWs();
          if (text.charCodeAt(i) !== 0x22) fail('expecting property name enclosed in double quotes');
          const key = parseString();
          skipWs();
          if (text.charCodeAt(i) !== 0x3a) fail("expecting ':' delimiter");
          i++;
          map.set(key, parseValue(depth + 1));
          skipWs();
          const d = text.charCodeAt(i);
          if (d === 0x2c) {
            i++;
            continue;
          }
          if (d === 0x7d) {
            i++;
            return map;
          }
          fail("expecting ',' delimiter");
        }
      }
      if (c === 0x5b) {
        i++;
        const arr: PageValue[] = [];
        skipWs();
        if (text.charCodeAt(i) === 0x5d) {
          i++;
          return arr;
        }
        for (;;) {
          arr.push(parseValue(depth + 1));
          skipWs();
          const d = text.charCodeAt(i);
          if (d === 0x2c) {
            i++;
            continue;
          }
          if (d === 0x5d) {
            i++;
            return arr;
          }
          fail("expecting ',' delimiter");
        }
      }
      if (c === 0x6e) return literal('null', null);
      if (c === 0x74) return literal('true', true);
      if (c === 0x66) return literal('false', false);
      if (c === 0x4e) return literal('NaN', { f: NaN });
      if (c === 0x49) return literal('Infinity', { f: Infinity });
      if (c === 0x2d) {
        if (text.startsWith('-Infinity', i)) return literal('-Infinity', { f: -Infinity });
        return parseNumber();
      }
      if (c >= 0x30 && c <= 0x39) return parseNumber();
      return fail('expecting value');
    };
    const value = parseValue(0);
    skipWs();
    if (i < n) fail('extra data');
    return value;
  }

  // ---- canonical encode (Python json.dumps(sort_keys=True, separators=(",", ":"))) ----
  // Python's float repr and code-point key order are src/canonical's own functions,
  // passed in (they are self-contained, so the page serializes them too).
  const { pythonFloatRepr, compareCodePoints } = leaf;

  const SHORT: Record<number, string> = {
    0x22: '\\"',
    0x5c: '\\\\',
    0x0a: '\\n',
    0x0d: '\\r',
    0x09: '\\t',
    0x08: '\\b',
    0x0c: '\\f',
  };
  function encodeString(s: string): string {
    let out = '"';
    let run = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) continue;
      out += s.slice(run, i);
      out += SHORT[c] ?? `\\u${c.toString(16).padStart(4, '0')}`;
      run = i + 1;
    }
    return `${out}${s.slice(run)}"`;
  }

  function canonical(v: PageValue, depth = 0): string {
    if (v === null) return 'null';
    if (v === true) return 'true';
    if (v === false) return 'false';
    if (typeof v === 'string') return encodeString(v);
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number') {
      if (Number.isInteger(v)) return Number.isSafeInteger(v) ? String(v === 0 ? 0 : v) : BigInt(v).toString();
      return pythonFloatRepr(v);
    }
    if (depth > MAX_DEPTH) throw new Error(`value nested deeper than ${MAX_DEPTH} levels`);
    if (Array.isArray(v)) {
      let out = '[';
      for (let i = 0; i < v.length; i++) out += (i > 0 ? ',' : '') + canonical(v[i] as PageValue, depth + 1);
      return `${out}]`;
    }
    if (v instanceof Map) {
      const keys = [...v.keys()].sort(compareCodePoints);
      let out = '{';
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i] as string;
        out += `${i > 0 ? ',' : ''}${encodeString(k)}:${canonical(v.get(k) as PageValue, depth + 1)}`;
      }
      return `${out}}`;
    }
    return pythonFloatRepr(v.f);
  }

  /** A readable JSON rendering for the detail pane: insertion order, indented, non-ASCII kept. */
  function display(v: PageValue, indent = 2): string {
    const str = (s: string): string => {
      let out = '"';
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        const hi = c >= 0xd800 && c <= 0xdbff;
        const lo = c >= 0xdc00 && c <= 0xdfff;
        if (hi && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
          out += s.slice(i, i + 2);
          i++;
        } else if (SHORT[c] !== undefined) out += SHORT[c];
        else if (c < 0x20 || c === 0x7f || hi || lo || c === 0x2028 || c === 0x2029)
          out += `\\u${c.toString(16).padStart(4, '0')}`;
        else out += s[i];
      }
      return `${out}"`;
    };
    const walk = (x: PageValue, pad: string): string => {
      if (typeof x === 'string') return str(x);
      if (x === null || typeof x !== 'object') return canonical(x);
      const inner = pad + ' '.repeat(indent);
      if (Array.isArray(x)) {
        if (x.length === 0) return '[]';
        return `[\n${x.map((e) => inner + walk(e, inner)).join(',\n')}\n${pad}]`;
      }
      if (x instanceof Map) {
        if (x.size === 0) return '{}';
        const parts: string[] = [];
        for (const [k, e] of x) parts.push(`${inner}${str(k)}: ${walk(e, inner)}`);
        return `{\n${parts.join(',\n')}\n${pad}}`;
      }
      return pythonFloatRepr(x.f);
    };
    return walk(v, '');
  }

  // ---- SHA-256 (FIPS 180-4), independent of WebCrypto ----
  const K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
  ]);
  const W = new Uint32Array(64);
  function sha256Hex(bytes: Uint8Array): string {
    const len = bytes.length;
    const total = Math.ceil((len + 9) / 64) * 64;
    const buf = new Uint8Array(total);
    buf.set(bytes);
    buf[len] = 0x80;
    const dv = new DataView(buf.buffer);
    dv.setUint32(total - 8, Math.floor(len / 0x20000000));
    dv.setUint32(total - 4, (len * 8) >>> 0);
    let h0 = 0x6a09e667,
      h1 = 0xbb67ae85,
      h2 = 0x3c6ef372,
      h3 = 0xa54ff53a;
    let h4 = 0x510e527f,
      h5 = 0x9b05688c,
      h6 = 0x1f83d9ab,
      h7 = 0x5be0cd19;
    for (let off = 0; off < total; off += 64) {
      for (let t = 0; t < 16; t++) W[t] = dv.getUint32(off + t * 4);
      for (let t = 16; t < 64; t++) {
        const a = W[t - 15] as number;
        const b = W[t - 2] as number;
        const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
        const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
        W[t] = ((W[t - 16] as number) + s0 + (W[t - 7] as number) + s1) | 0;
      }
      let a = h0,
        b = h1,
        c = h2,
        d = h3,
        e = h4,
        f = h5,
        g = h6,
        h = h7;
      for (let t = 0; t < 64; t++) {
        const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
        const ch = (e & f) ^ (~e & g);
        const t1 = (h + S1 + ch + (K[t] as number) + (W[t] as number)) | 0;
        const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
        const maj = (a & b) ^ (a & c) ^ (b & c);
        const t2 = (S0 + maj) | 0;
        h = g;
        g = f;
        f = e;
        e = (d + t1) | 0;
        d = c;
        c = b;
        b = a;
        a = (t1 + t2) | 0;
      }
      h0 = (h0 + a) | 0;
      h1 = (h1 + b) | 0;
      h2 = (h2 + c) | 0;
      h3 = (h3 + d) | 0;
      h4 = (h4 + e) | 0;
      h5 = (h5 + f) | 0;
      h6 = (h6 + g) | 0;
      h7 = (h7 + h) | 0;
    }
    let hex = '';
    for (const w of [h0, h1, h2, h3, h4, h5, h6, h7]) hex += (w >>> 0).toString(16).padStart(8, '0');
    return hex;
  }

  function asciiBytes(s: string): Uint8Array {
    const out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }

  function base64Bytes(b64: string): Uint8Array {
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const lossyUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  function decodeUtf8(bytes: Uint8Array, fatal: boolean): string {
    return (fatal ? strictUtf8 : lossyUtf8).decode(bytes);
  }

  // ---- journal rows and the chain (docs/format.md §2; src/journal/row.ts, chain.ts) ----
  function stepHash(row: Map<string, PageValue>): string {
    const payload = new Map<string, PageValue>();
    for (const k of ['prev_hash', 'input_hash', 'model', 'prompt', 'tool_call', 'tool_result'])
      payload.set(k, row.get(k) as PageValue);
    return sha256Hex(asciiBytes(canonical(payload)));
  }

  /** The shape checks of `rowFromValue`: a reason when the value is not a row. */
  function rowProblem(v: PageValue): string | null {
    if (!(v instanceof Map)) return 'line is not a JSON object';
    for (const k of ROW_KEYS) if (!v.has(k)) return `row has no "${k}" key`;
    if (typeof v.get('prev_hash') !== 'string') return '"prev_hash" is not a string';
    if (typeof v.get('step_hash') !== 'string') return '"step_hash" is not a string';
    if (typeof v.get('input_hash') !== 'string') return '"input_hash" is not a string';
    const seq = v.get('seq');
    if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0) return '"seq" is not a non-negative integer';
    const refs = v.get('blob_refs');
    if (!Array.isArray(refs) || !refs.every((r) => typeof r === 'string' && HEX64.test(r))) {
      return '"blob_refs" is not a list of SHA-256 hex digests';
    }
    const ts = v.get('ts');
    if (typeof ts !== 'number' && typeof ts !== 'bigint' && !isFloatBox(ts)) return '"ts" is not a number';
    return null;
  }

  // Hashes in full, as the CLI's fault messages (src/journal/chain.ts).
  const short = (h: string): string => h;

  function createVerifier(bytes: Uint8Array, expectedHead?: string | null): PageVerifier {
    // Line boundaries first (cheap), so progress has a denominator.
    const bounds: number[] = [];
    let s = 0;
    while (s < bytes.length) {
      let nl = bytes.indexOf(0x0a, s);
      if (nl < 0) nl = bytes.length;
      bounds.push(s, nl);
      s = nl + 1;
    }
    const total = bounds.length / 2;
    const entries: PageEntry[] = [];
    const errors: PageFault[] = [];
    let expectedSeq = 0;
    let prevHash = ZERO;
    let steps = 0;
    let done = false;

    const checkLine = (idx: number): void => {
      const start = bounds[idx * 2] as number;
      const end = bounds[idx * 2 + 1] as number;
      const line = idx + 1;
      const raw = bytes.subarray(start, end);
      const entry: PageEntry = { line, start, end, text: '', row: null, computed: null, faults: [] };
      entries.push(entry);
      const fault = (kind: string, message: string): void => {
        const f = { line, kind, message };
        entry.faults.push(f);
        errors.push(f);
      };
      if (raw.length === 0) {
        fault('malformed_json', 'empty line');
        return;
      }
      let text: string;
      try {
        text = decodeUtf8(raw, true);
      } catch {
        entry.text = decodeUtf8(raw, false);
        fault('malformed_json', 'invalid UTF-8 at column 1');
        return;
      }
      entry.text = text;
      let value: PageValue;
      try {
        value = parseJson(text);
      } catch (e) {
        fault('malformed_json', e instanceof RangeError ? 'line too large or too deeply nested' : (e as Error).message);
        return;
      }
      const problem = rowProblem(value);
      if (problem !== null) {
        fault('malformed_json', problem);
        return;
      }
      const row = value as Map<string, PageValue>;
      entry.row = row;
      const computed = stepHash(row);
      entry.computed = computed;
      const seq = row.get('seq') as number;
      const stored = row.get('step_hash') as string;
      const prev = row.get('prev_hash') as string;
      if (seq !== expectedSeq) fault('seq_mismatch', `seq ${seq}, expected ${expectedSeq}`);
      if (prev !== prevHash) {
        fault(
          'prev_hash_mismatch',
          `chain break: prev_hash ${short(prev)} does not match the previous step_hash ${short(prevHash)}`,
        );
      }
      if (computed !== stored)
        fault('step_hash_mismatch', `field tamper: stored step_hash ${short(stored)}, recomputed ${short(computed)}`);
      expectedSeq = seq + 1;
      prevHash = stored;
      steps++;
    };

    const finish = (): void => {
      if (bytes.length === 0) errors.push({ line: null, kind: 'empty_journal', message: 'journal has no steps' });
      const head = steps > 0 ? prevHash : ZERO;
      if (expectedHead !== undefined && expectedHead !== null && expectedHead !== head) {
        errors.push({ line: null, kind: 'head_mismatch', message: `head ${head}, expected ${expectedHead}` });
      }
      done = true;
    };

    return {
      entries,
      total,
      run(maxLines: number): boolean {
        if (done) return true;
        const stop = Math.min(total, entries.length + maxLines);
        while (entries.length < stop) checkLine(entries.length);
        if (entries.length >= total) finish();
        return done;
      },
      result(): PageVerifyResult {
        return {
          ok: done && errors.length === 0,
          head_hash: steps > 0 ? prevHash : ZERO,
          steps,
          errors: errors.slice(),
        };
      },
    };
  }

  return {
    parseJson,
    canonical: (v: PageValue) => canonical(v),
    display,
    pythonFloatRepr,
    compareCodePoints,
    encodeString,
    sha256Hex,
    asciiBytes,
    base64Bytes,
    decodeUtf8,
    stepHash,
    createVerifier,
  };
}
