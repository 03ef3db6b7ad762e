import fc from 'fast-check';
import path from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { inspect, isDeepStrictEqual } from 'node:util';
import { canonical, pythonFloatRepr, type JsonValue } from '../src/canonical';
import { Journal, verifyJournalBytes, verifyJournalFile } from '../src/journal';
import { fastRow, type FastRow } from '../src/journal/fast-line';
import { wasmScanner, WASM_BLOCK_CAP, type BlockRecord } from '../src/journal/wasm/scanner';
import { cli } from './helpers/cli';
import { expectAgreementOnCorruptions, LINE_MUTATIONS, plainVerify as plain, testSeed } from './helpers/journal-edits';
import { tempDir } from './helpers/tmp';

/**
 * The WebAssembly line scanner is a faster twin of `fastRow`: every line it
 * accepts, fastRow accepts with the same result (seq, links, recomputed hash,
 * blob refs); everything else it leaves to JS. Checked line by line on random
 * rows and corruptions, and end to end against the JS fast path and the plain
 * lossless walk.
 */
const root = tempDir();
const seed = testSeed();
const OFF = { STEPCHAIN_WASM: '0' };

const scanner = wasmScanner();

interface Line {
  start: number;
  end: number;
  terminated: boolean;
  row: FastRow | undefined;
  refs: string[];
}

/** The scanner's records for a block of whole lines. */
function wasmLines(block: Buffer): Line[] {
  const w = scanner!;
  block.copy(w.mem, w.data);
  w.start(block.length);
  const rec: BlockRecord = { start: 0, end: 0, terminated: false, row: undefined, stored: -1 };
  const lines: Line[] = [];
  for (let n = w.batch(); n > 0; n = w.batch()) {
    for (let k = 0; k < n; k++) {
      const refs: string[] = [];
      w.record(k, refs, rec);
      lines.push({ start: rec.start - w.data, end: rec.end - w.data, terminated: rec.terminated, row: rec.row, refs });
    }
  }
  return lines;
}

/** The block's lines as the JS walk splits them. */
function jsSplit(block: Buffer): { start: number; end: number; terminated: boolean }[] {
  const out = [];
  let a = 0;
  while (a < block.length) {
    const nl = block.indexOf(0x0a, a);
    const end = nl < 0 ? block.length : nl;
    out.push({ start: a, end, terminated: nl >= 0 });
    a = end + 1;
  }
  return out;
}

/** Every line the scanner accepts, fastRow accepts the same way; returns how many it accepted. */
function agreeLineByLine(block: Buffer): { accepted: number; jsAccepted: number } {
  const got = wasmLines(block);
  const split = jsSplit(block);
  // jest's matcher only on a difference: this runs ~2,400 times (the properties below), and every expect() builds
  // all of jest's matchers; isDeepStrictEqual is the stricter, the matcher shows what differs.
  const spans = got.map(({ start, end, terminated }) => ({ start, end, terminated }));
  if (!isDeepStrictEqual(spans, split)) expect(spans).toEqual(split);
  const text = block.toString('latin1');
  let accepted = 0;
  let jsAccepted = 0;
  // The lines that differ, compared once (an expect a line was much of the callers' time); isDeepStrictEqual is
  // stricter than toEqual.
  const wrong: string[] = [];
  for (const l of got) {
    const refs: string[] = [];
    const js = l.end > l.start ? fastRow(text, l.start, l.end, undefined, refs) : undefined;
    if (js !== undefined) jsAccepted++;
    if (l.row !== undefined) accepted++;
    const [have, want] =
      l.row !== undefined
        ? [
            { row: l.row, refs: l.refs },
            { row: js, refs },
          ]
        : [l.refs, []];
    if (!isDeepStrictEqual(have, want)) wrong.push(`line at ${l.start}: ${inspect(have)}, want ${inspect(want)}`);
  }
  if (wrong.length > 0) expect(wrong.slice(0, 5)).toEqual([]);
  return { accepted, jsAccepted };
}

// A journal the scanner takes whole: plain ASCII keys (escaped keys are ordered by JS).
const dir = path.join(root, '.sdd', 'runtime', 'journal', 'w');
const j = Journal.open(dir, { durability: 'none' });
j.appendMany(
  Array.from({ length: 40 }, (_, i) => ({
    input: Buffer.from(`input ${i % 6}`),
    blobs: i % 4 ? [Buffer.from(`blob ${i % 9}`), Buffer.from(`blob ${i % 5}`)] : [],
    model: i % 3 ? 'm' : null,
    prompt:
      i % 5
        ? `étape ${i} "quoted" \\ / 😀 \u0001\u007f\uffff`
        : [i, -i, 1e300, 1.5e-7, 0.1, -0.0001, null, true, false, {}, []],
    tool_call: {
      name: 'edit',
      args: {
        n: 10n ** 20n + BigInt(i),
        ratio: i / 4,
        list: [1, 2.5, null, true],
        big: 12345678.901234,
        tiny: 1e-5,
        Z: [[[{}]]],
      },
    },
    tool_result: i % 7 ? { ok: true, out: 'a\nb\tc\u0001\b\f\r' } : null,
    ts: 1796199133 + i / 3,
  })),
);
const baseText = readFileSync(j.file, 'utf8');
const baseLines = baseText.split('\n').slice(0, -1);

/** A row line with `value` as its tool_call (the hash then mismatches, the same on both paths). */
const withToolCall = (value: string): string =>
  baseLines[1]!.replace(/"tool_call":.*,"tool_result":/, () => `"tool_call":${value},"tool_result":`);
const withToolResult = (value: string): string =>
  baseLines[1]!.replace(/"tool_result":.*,"ts":/, () => `"tool_result":${value},"ts":`);
const withTs = (token: string): string => baseLines[1]!.replace(/"ts":[^}]*\}$/, () => `"ts":${token}}`);

describe(`the WebAssembly scanner agrees with fastRow (seed ${seed})`, () => {
  it('is available here (Node has WebAssembly with SIMD)', () => {
    expect(scanner).toBeDefined();
  });

  it("accepts every canonical row of a journal, with fastRow's results", () => {
    const { accepted, jsAccepted } = agreeLineByLine(Buffer.from(baseText));
    expect(accepted).toBe(baseLines.length);
    expect(jsAccepted).toBe(baseLines.length);
  });

  it('targeted lines: escapes, key order, numbers, nesting, truncation', () => {
    const key = (a: string, b: string): string => withToolCall(`{${a}:1,${b}:2}`);
    const cases = [
      withToolCall('"a\\/b"'),
      withToolCall('"\\u00E9"'),
      withToolCall('"\\u00e9"'),
      withToolCall('"\\u0041"'),
      withToolCall('"\\u007f"'),
      withToolCall('"\\u001f"'),
      withToolCall('"\\u0009"'),
      withToolCall('"\\u000b"'),
      withToolCall('"\\t\\n\\r\\b\\f\\"\\\\"'),
      withToolCall('"\\x"'),
      withToolCall('"\\u12"'),
      // Runs of \u escapes (non-ASCII text), a wrong one at each place in the run.
      withToolCall('"\\u65e5\\u672c\\u8a9e"'),
      withToolCall('"\\u65e5\\u672C"'),
      withToolCall('"\\u65e5\\u0041\\u8a9e"'),
      withToolCall('"\\u65e5\\u8a9e\\u0009"'),
      withToolCall('"\\u65e5\\u001f\\u007f\\u0080"'),
      withToolCall('"\\u65e5\\u12"'),
      withToolCall('"\\u65e5\\u12g4x"'),
      withToolCall('"\\u65e5\\\\u8a9e\\n\\u8a9e"'),
      withToolCall('"\\u65e5\\ud83d\\ude00x\\u00e9"'),
      withToolCall('"tab\there"'),
      withToolCall('"\x7f"'),
      withToolCall('"é"'),
      withToolCall('"\ud83d\ude00"'),
      key('"b"', '"a"'),
      key('"a"', '"a"'),
      key('"a"', '"ab"'),
      key('"ab"', '"a"'),
      key('"A"', '"a"'),
      key('"\\uffff"', '"\\ud83d\\ude00"'),
      key('"\\ud83d\\ude00"', '"\\uffff"'),
      key('"\\u00e9"', '"z"'),
      key('"z"', '"\\u00e9"'),
      withToolCall('{"a":1,"a":1}'),
      withToolCall('{"a":1,}'),
      withToolCall('{"a" :1}'),
      withToolCall('[1,]'),
      withToolCall('[1 ,2]'),
      ...[
        '-0',
        '0',
        '-1',
        '01',
        '1.0',
        '1',
        '1e+16',
        '1e16',
        '1E+16',
        '1.5e-07',
        '1e-05',
        '0.0001',
        '0.00001',
        '-0.0',
        '0.0',
        '0.00',
        '1.50',
        '123.0',
        '120.0',
        '1.',
        '.5',
        '-',
        '--1',
        '+1',
        '1e',
        '1e+',
        'NaN',
        'Infinity',
        '-Infinity',
        'nan',
        '-NaN',
        'Infinityx',
        'nul',
        'nulll',
        'tru',
        'fals',
        `1${'0'.repeat(4299)}`,
        `1${'0'.repeat(4300)}`,
        `-1${'0'.repeat(4298)}`,
        `-1${'0'.repeat(4299)}`,
        '123456789012345.0',
        '1234567890123456.0',
        '12345678901234567.0',
        '0.1234567890123456',
        '0.123456789012345',
        '9007199254740993.0',
        '1e+300',
        '1e300',
        '5e-324',
        '2.2250738585072014e-308',
        '0.30000000000000004',
        '0.3',
        '100.5',
        '1796199133.3333333',
        '1796199133.333333',
        '1796199133.33333',
      ].map((t) => withToolCall(t)),
      ...[
        '1796199133.0',
        '1796199133',
        '1.0e9',
        '1e+16',
        '-0.0',
        '1796199133.50',
        'NaN',
        '"x"',
        '1796199133.1234567',
      ].map((t) => withTs(t)),
      withToolCall(`${'['.repeat(511)}${']'.repeat(511)}`),
      withToolCall(`${'['.repeat(513)}${']'.repeat(513)}`),
      withToolCall(`${'['.repeat(514)}${']'.repeat(514)}`),
      withToolCall(`${'{"a":'.repeat(513)}1${'}'.repeat(513)}`),
      withToolCall(`${'{"a":'.repeat(514)}1${'}'.repeat(514)}`),
      withToolCall(`${'['.repeat(5000)}`),
      // Objects and arrays mixed to the limit, and each object's keys ordered against its own previous key
      // once the values nested inside it are closed.
      withToolCall(`${'{"a":['.repeat(256)}1${']}'.repeat(256)}`),
      withToolCall(`${'{"a":['.repeat(256)}{}${']}'.repeat(256)}`),
      withToolCall(`${'{"a":['.repeat(257)}1${']}'.repeat(257)}`),
      withToolCall('{"a":{"c":1},"b":2}'),
      withToolCall('{"b":{"a":1},"a":2}'),
      withToolCall('{"a":[{"z":1},{"a":2}],"b":[[],{}],"c":{"b":{"a":[]}},"d":{}}'),
      withToolCall('{"a":[{"z":1},{"a":2}],"b":[[],{}],"c":{"b":{"a":[]}},"c":{}}'),
      withToolCall('{"a":[{"b":1,"a":2}]}'),
      withToolCall('[{"a":1},{"a":1,"a":2}]'),
      withToolCall('{"a":{"b":1},"a\\u00e9":{"z":1},"b":{"c":2}}'),
      withToolCall('{"a":[1,]}'),
      withToolCall('{"a":[1}'),
      withToolCall('{"a":{"b":1]}'),
      withToolCall('{"a":1,}'),
      withToolCall('[{]'),
      baseLines[1]!.replace('"blob_refs":[', '"blob_refs":["x",'),
      baseLines[1]!.replace('"blob_refs":["', '"blob_refs":["A'),
      baseLines[1]!.replace(/"prev_hash":"./, '"prev_hash":"Z'),
      baseLines[1]!.replace(/"step_hash":"./, '"step_hash":"Z'),
      baseLines[1]!.replace(/"input_hash":"./, '"input_hash":"Z'),
      baseLines[1]!.replace(/"seq":\d+/, '"seq":01'),
      baseLines[1]!.replace(/"seq":\d+/, '"seq":1234567890123456'),
      baseLines[1]!.replace(/"seq":\d+/, '"seq":123456789012345'),
      baseLines[1]!.replace(/"seq":\d+/, '"seq":-1'),
      baseLines[1]!.replace(/"seq":\d+/, '"seq":1.0'),
      baseLines[1]!.replace('"model"', '"modeL"'),
      `${baseLines[1]!} `,
      `${baseLines[1]!}}`,
      `${baseLines[1]!}\r`,
      `{${baseLines[1]!}`,
      '',
      '{',
      '{"blob_refs":[',
      'garbage',
    ];
    for (let cut = 0; cut < baseLines[1]!.length; cut += 7) cases.push(baseLines[1]!.slice(0, cut));
    // A run of \u escapes cut at every byte (the block ends inside it).
    const run = withToolCall('"\\u65e5\\u672c\\u8a9e"');
    for (let cut = run.indexOf('\\u65e5'); cut <= run.indexOf('\\u8a9e') + 6; cut++) cases.push(run.slice(0, cut));
    for (const c of cases) {
      agreeLineByLine(Buffer.from(`${c}\n`, 'utf8'));
      agreeLineByLine(Buffer.from(c, 'utf8')); // without its newline
    }
    // One block of all of them, and a few of the tricky ones with their verdicts pinned.
    agreeLineByLine(Buffer.from(`${cases.join('\n')}\n`));
    const verdict = (line: string): boolean => wasmLines(Buffer.from(`${line}\n`))[0]!.row !== undefined;
    expect(verdict(baseLines[1]!)).toBe(true);
    expect(verdict(withToolCall('"\\u00e9"'))).toBe(true);
    expect(verdict(withToolCall('"a\\/b"'))).toBe(false);
    expect(verdict(withToolCall('"\\u00E9"'))).toBe(false);
    expect(verdict(withToolCall('"\\u0041"'))).toBe(false);
    expect(verdict(run)).toBe(true);
    expect(verdict(withToolCall('"\\u65e5\\u0041\\u8a9e"'))).toBe(false);
    expect(verdict(withToolCall('"\\u65e5\\u672C"'))).toBe(false);
    expect(verdict(withToolCall('"é"'))).toBe(false);
    expect(verdict(key('"b"', '"a"'))).toBe(false);
    expect(verdict(key('"a"', '"a"'))).toBe(false);
    expect(verdict(withToolCall('-0'))).toBe(false);
    expect(verdict(withToolCall('1e16'))).toBe(false);
    expect(verdict(withToolCall('1e+16'))).toBe(true);
    expect(verdict(withToolCall('1.50'))).toBe(false);
    expect(verdict(withToolCall(`${'['.repeat(514)}${']'.repeat(514)}`))).toBe(false);
  });

  it('hex digests: every position, every neighbour of the hex ranges', () => {
    const line = baseLines[1]!;
    const lines: string[] = [];
    for (const key of ['blob_refs":["', 'input_hash":"', 'prev_hash":"', 'step_hash":"']) {
      const at = line.indexOf(key) + key.length;
      for (let k = 0; k < 64; k++) {
        for (const c of '/:`gAF0f9a\u0000') lines.push(line.slice(0, at + k) + c + line.slice(at + k + 1));
      }
    }
    const { accepted } = agreeLineByLine(Buffer.from(`${lines.join('\n')}\n`));
    // Only the digit and a-f substitutions stay hex.
    expect(accepted).toBe(4 * 64 * 4);
  });

  it('float tokens: accepted exactly when they are repr of their value', () => {
    const digits = (n: number): fc.Arbitrary<string> =>
      fc.array(fc.constantFrom(...'0123456789'), { minLength: 1, maxLength: n }).map((a) => a.join(''));
    const token = fc.oneof(
      fc.double({ noNaN: true }).map((x) => pythonFloatRepr(x)),
      fc.double({ noNaN: true, min: -1e6, max: 1e6 }).map((x) => pythonFloatRepr(x)),
      fc.tuple(fc.boolean(), digits(18), digits(18)).map(([neg, a, b]) => `${neg ? '-' : ''}${a}.${b}`),
      fc.tuple(digits(3), digits(17)).map(([z, b]) => `0.${'0'.repeat(z.length)}${b}`),
      fc
        .tuple(digits(17), fc.integer({ min: -330, max: 330 }))
        .map(([m, e]) => `${m[0]}.${m.slice(1) || '0'}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`),
    );
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 8 }), (tokens) => {
        const lines = tokens.map((t, k) => (k % 2 ? withTs(t) : withToolCall(`[${t},{"x":${t}}]`)));
        const block = Buffer.from(`${lines.join('\n')}\n`);
        agreeLineByLine(block);
        // Where both decide, they decide the same.
        const got = wasmLines(block);
        tokens.forEach((t, k) => {
          const canonicalToken = pythonFloatRepr(Number(t)) === t;
          if (got[k]!.row !== undefined && !canonicalToken)
            expect({ token: t, canonicalToken }).toEqual({ token: t, canonicalToken: true });
        });
      }),
      { seed, numRuns: 300 },
    );
  });

  it('random JSON values and byte-level corruptions', () => {
    const value = fc.jsonValue({ maxDepth: 4 }).map((v) => canonical(v as JsonValue));
    const alphabet = '"\\{}[],:0123456789eE.+-utnfalsrNIy /\u00e9\u007f\x01\n';
    const corrupt = fc.array(fc.tuple(fc.nat(), fc.nat(3), fc.constantFrom(...alphabet)), { maxLength: 3 });
    fc.assert(
      fc.property(fc.array(fc.tuple(value, corrupt), { minLength: 1, maxLength: 6 }), (rows) => {
        const lines = rows.map(([v, edits]) => {
          let l = withToolCall(v);
          for (const [at, op, c] of edits) {
            const k = at % (l.length + 1);
            if (op === 0) l = l.slice(0, k) + c + l.slice(k);
            else if (op === 1) l = l.slice(0, k) + l.slice(k + 1);
            else l = l.slice(0, k) + c + l.slice(k + 1);
          }
          return l;
        });
        agreeLineByLine(Buffer.from(`${lines.join('\n')}\n`, 'utf8'));
      }),
      { seed, numRuns: 500 },
    );
  });

  // The scanner takes a string's special bytes from one 16-byte mask (an escape clearing the bits it spans), a
  // short string or key from the mask alone, and an integer inline: each at every place in a 16-byte window,
  // accepted exactly when fastRow accepts it (the two verdicts, not only the accepted rows).
  it('strings dense with escapes, at every offset of a 16-byte window', () => {
    const pieces = [
      ...'ab Z~',
      '\\"',
      '\\\\',
      '\\n',
      '\\t',
      '\\r',
      '\\b',
      '\\f',
      '\\/',
      '\\u0001',
      '\\u001f',
      '\\u007f',
      '\\u00e9',
      '\\ud83d\\ude00',
      '\\u00E9',
      '\\u0041',
      '\\u000a',
      '\\u12',
      '\\x',
      '\\',
      '"',
      '\x01',
      '\x7f',
      'é',
    ];
    fc.assert(
      fc.property(
        fc.nat(31),
        fc.array(fc.constantFrom(...pieces), { maxLength: 40 }),
        fc.constantFrom('', ']', '}'),
        (pad, parts, tail) => {
          const body = parts.join('');
          const lines = [
            withToolCall(`["${'x'.repeat(pad)}${body}"]`),
            withToolCall(`{"${'k'.repeat(pad % 17)}${body}":1}`),
            withToolCall(`["${body}${'y'.repeat(pad)}"${tail}`),
          ];
          const { accepted, jsAccepted } = agreeLineByLine(Buffer.from(`${lines.join('\n')}\n`, 'utf8'));
          if (accepted !== jsAccepted) expect(accepted).toBe(jsAccepted);
          // Near the block's end (the last line, no newline after it): the bytes after the 16-byte windows.
          const last = withToolResult(`"${'z'.repeat(pad % 7)}${body}"`);
          const end = agreeLineByLine(Buffer.from(last, 'utf8'));
          if (end.accepted !== end.jsAccepted) expect(end.accepted).toBe(end.jsAccepted);
        },
      ),
      { seed, numRuns: 400 },
    );
  });

  // scanString takes a string 16 or 64 bytes a mask, and escapeEnd runs of `\u` escapes two at a time (strings.ts,
  // escapePair), leaving any other escape to its byte-by-byte rule: runs of every kind of `\u` escape and plain
  // text, each of them at every offset modulo 64 (every lane of a pair and of both masks), and near the block end.
  it('runs of \\u escapes: every kind, at every offset modulo 64 and near the block end', () => {
    const hex4 = (u: number): string => u.toString(16).padStart(4, '0');
    // Written as `\u` in a canonical string: no literal (0x20..0x7e) and no short form (b t n f r).
    const wanted = (u: number): boolean => u > 0x7e || (u < 0x20 && ![8, 9, 0xa, 0xc, 0xd].includes(u));
    const u = (n: number): string => `\\u${hex4(n)}`;
    // Code units at the edges of the rule: controls, short forms, literals, DEL, 0x80 and above, surrogates.
    const edges = [0, 1, 7, 8, 9, 0xa, 0xb, 0xc, 0xd, 0xe, 0x1f, 0x20, 0x22, 0x2f, 0x30, 0x5c, 0x7e, 0x7f, 0x80, 0xff];
    edges.push(0x100, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xffff);
    const low = fc.oneof(fc.constantFrom(...edges), fc.integer({ min: 0, max: 0x1ff }));
    const good = fc.oneof(
      // Mostly the usual ones (0x80 and above), so runs are long.
      { weight: 6, arbitrary: fc.integer({ min: 0x80, max: 0xffff }).map(u) },
      { weight: 2, arbitrary: low.filter(wanted).map(u) },
    );
    // The neighbours of the digits' ranges, the upper-case letters' and a few others.
    const notHex = [...'/:`gG@AFu "\\', '\x00', '\x7f', 'é'];
    const odd = fc.oneof(
      // One that should have been a literal or a short escape.
      low.filter((n) => !wanted(n)).map(u),
      // One digit in upper case, or not a digit at all, at each place.
      fc
        .tuple(fc.integer({ min: 0, max: 0xffff }), fc.nat(3), fc.constantFrom(...notHex), fc.boolean())
        .map(([n, k, c, upper]) => {
          const h = hex4(n);
          return `\\u${h.slice(0, k)}${upper ? h[k]!.toUpperCase().replace(/[0-9]/, 'A') : c}${h.slice(k + 1)}`;
        }),
      // Cut short.
      fc.constantFrom('\\u', '\\u0', '\\u00', '\\u00e', '\\U00e9', '\\'),
      // A byte that is no plain character (the 16- and 64-byte masks find it).
      fc.constantFrom('\x00', '\x01', '\x1f', '\x7f', 'é'),
    );
    const piece = fc.oneof(
      { weight: 8, arbitrary: fc.array(good, { minLength: 1, maxLength: 12 }).map((a) => a.join('')) },
      { weight: 3, arbitrary: fc.nat(40).map((n) => 'p'.repeat(n)) },
      { weight: 2, arbitrary: fc.constantFrom('\\"', '\\\\', '\\n', '\\t', '\\r', '\\b', '\\f', '\\/', ' ', '~') },
    );
    // Valid runs with at most one odd escape among them (another anywhere else would hide it).
    const body = fc
      .tuple(fc.array(piece, { minLength: 1, maxLength: 8 }), fc.option(fc.tuple(fc.nat(), odd), { freq: 2 }))
      .map(([parts, fault]) => {
        const text = parts.join('');
        if (fault === null) return text;
        // Between two escapes (or at a byte of plain text): at every place of a run.
        const at = [...text.matchAll(/\\u|p| |$/g)].map((m) => m.index);
        const k = at[fault[0] % at.length]!;
        return text.slice(0, k) + fault[1] + text.slice(k);
      });
    let taken = 0;
    fc.assert(
      fc.property(fc.nat(63), body, (pad, text) => {
        const lines = [
          withToolCall(`["${'x'.repeat(pad)}${text}"]`),
          withToolCall(`["${'x'.repeat(pad)}${text}${'y'.repeat(63 - pad)}","z"]`),
        ];
        const { accepted, jsAccepted } = agreeLineByLine(Buffer.from(`${lines.join('\n')}\n`, 'utf8'));
        if (accepted !== jsAccepted) expect(accepted).toBe(jsAccepted);
        // The last line of a block (no newline): the run's last escapes among the block's last 64 bytes.
        const end = agreeLineByLine(Buffer.from(withToolResult(`"${'z'.repeat(pad)}${text}"`), 'utf8'));
        if (end.accepted !== end.jsAccepted) expect(end.accepted).toBe(end.jsAccepted);
        taken += accepted + end.accepted;
      }),
      { seed, numRuns: 600 },
    );
    // Half the bodies are valid, half hold one odd escape: the rule is exercised on both sides.
    expect(taken).toBeGreaterThan(600);
  });

  it('every byte at every place of a run of \\u escapes, and every code unit below 0x200 there', () => {
    // A run of four (two pairs for escapePair): a byte of one of them replaced, or one of them another code unit.
    const run = '\\u00e9\\ud83d\\ude00\\u4e2d';
    const [head, tail] = withToolCall('["x@"]').split('@') as [string, string];
    const line = (body: Buffer): Buffer => Buffer.concat([Buffer.from(head, 'utf8'), body, Buffer.from(tail, 'utf8')]);
    const lines: Buffer[] = [];
    for (let j = 0; j < 4; j++) {
      for (let k = 0; k < 6; k++) {
        for (let b = 0; b < 256; b++) {
          const body = Buffer.from(run, 'latin1');
          body[6 * j + k] = b;
          lines.push(line(body));
        }
      }
      for (let n = 0; n < 0x200; n++) {
        const body = Buffer.from(run, 'latin1');
        body.write(n.toString(16).padStart(4, '0'), 6 * j + 2, 'latin1');
        lines.push(line(body));
      }
    }
    let accepted = 0;
    for (let a = 0; a < lines.length; a += 1000) {
      const block = Buffer.concat(lines.slice(a, a + 1000).flatMap((l) => [l, Buffer.from('\n')]));
      const got = agreeLineByLine(block);
      if (got.accepted !== got.jsAccepted) expect(got.accepted).toBe(got.jsAccepted);
      accepted += got.accepted;
    }
    // Taken at each of the four places at least: the code units 0x80..0x1ff and the controls but the short forms.
    expect(accepted).toBeGreaterThan(4 * (0x180 + 27));
  });

  // scanString finds a 64-byte window's usual `\u` escapes at once (strings.ts, fastEscapes: a mask of the escapes'
  // backslashes, from the 80 bytes at the window) and skips to the next special byte that does not start one: a
  // run with one byte replaced, or one escape another code unit, or a literal backslash or quote beside it, at every
  // offset of the window (an escape across its end reads the next 16 bytes) and with the string ending inside it.
  it('a run of \\u escapes with one byte or code unit changed, at every offset of a 64-byte window', () => {
    const run = '\\u00e9\\ud83d\\ude00\\u4e2d\\u0416';
    const bytes = [...'0789afgAFu\\"/ '].map((c) => c.charCodeAt(0)).concat([0x00, 0x1f, 0x7f, 0x80]);
    const units = [0, 8, 0xa, 0x1f, 0x20, 0x41, 0x7e, 0x7f, 0x80, 0xff, 0x100, 0x7ff, 0xd800, 0xffff];
    const [head, tail] = withToolCall('["@"]').split('@') as [string, string];
    const bodies: string[] = [];
    for (let k = 0; k < run.length; k++) {
      for (const b of bytes) bodies.push(run.slice(0, k) + String.fromCharCode(b) + run.slice(k + 1));
    }
    for (let j = 0; j < 5; j++) {
      for (const n of units)
        bodies.push(`${run.slice(0, 6 * j + 2)}${n.toString(16).padStart(4, '0')}${run.slice(6 * j + 6)}`);
    }
    bodies.push(run, `\\\\${run}`, `${run}\\\\u00e9`, `${run}\\"${run}`, `\\u001f${run}\\u0080`, `${run}\\n${run}`);
    let accepted = 0;
    let lines: Buffer[] = [];
    const check = (): void => {
      const got = agreeLineByLine(Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])));
      if (got.accepted !== got.jsAccepted) expect(got.accepted).toBe(got.jsAccepted);
      accepted += got.accepted;
      lines = [];
    };
    for (let pad = 0; pad < 64; pad++) {
      for (const body of bodies) {
        // The run at `pad` in the string's first window, the string going on past it, or ending right after it.
        lines.push(Buffer.from(`${head}${'x'.repeat(pad)}${body}${'y'.repeat(80)}${tail}`, 'latin1'));
        lines.push(Buffer.from(`${head}${'x'.repeat(pad + 64)}${body}","${'z'.repeat(80)}${tail}`, 'latin1'));
      }
      if (lines.length > 2000) check();
    }
    check();
    // Taken: the unchanged runs and the changes that keep them canonical, at each offset.
    expect(accepted).toBeGreaterThan(64 * 2 * 20);
  });

  // A row's keys and the literals null, true, false are matched 8 bytes at a time (block.ts, lit: the first 8 and the
  // last 8 of each): a byte changed at every place of each is refused, as fastRow refuses it.
  it("a row's keys and literals with one byte changed at any place", () => {
    const row = withToolCall('[null,true,false,"x"]');
    const literals = [
      '{"blob_refs":[',
      ',"input_hash":"',
      ',"model":',
      ',"prev_hash":"',
      ',"prompt":',
      ',"seq":',
      ',"step_hash":"',
      ',"tool_call":',
      ',"tool_result":',
      ',"ts":',
      'null',
      'true',
      'false',
    ];
    const lines: string[] = [];
    for (const l of literals) {
      const at = row.indexOf(l);
      expect(at).toBeGreaterThanOrEqual(0);
      for (let k = 0; k < l.length; k++) {
        for (const d of [1, 0x20]) {
          const c = String.fromCharCode(row.charCodeAt(at + k) ^ d);
          lines.push(row.slice(0, at + k) + c + row.slice(at + k + 1));
        }
      }
    }
    const { accepted, jsAccepted } = agreeLineByLine(Buffer.from(`${row}\n${lines.join('\n')}\n`, 'latin1'));
    expect([accepted, jsAccepted]).toEqual([1, 1]);
  });

  it('short keys and strings: the closing quote at every place of the mask, and what follows', () => {
    const lines: string[] = [];
    for (let n = 0; n <= 18; n++) {
      const k = 'a'.repeat(n);
      for (const v of ['1', '"v"', '{}', '[]', 'null', '-1', '1.5']) {
        lines.push(withToolCall(`{"${k}":${v},"${k}b":2}`));
        lines.push(withToolCall(`{"${k}b":${v},"${k}":2}`));
        lines.push(withToolCall(`{"${k}":${v},"${k}":2}`));
      }
      lines.push(withToolCall(`["${k}\\"${k}"]`));
      lines.push(withToolCall(`["${k}\x01"]`));
      lines.push(withToolCall(`["${k}\x7f"]`));
      lines.push(withToolCall(`["${k}é"]`));
      // A byte that is no plain character is never where a string ends, wherever it falls in the mask.
      for (const s of ['\x01', '\x1f', '\x7f', '\t']) {
        lines.push(withToolCall(`{"${k}${s}:1}`));
        lines.push(withToolCall(`["${k}${s},"${k}"]`));
      }
      lines.push(withToolCall(`{"${k}\\u00e9":1,"${k}z":2}`));
      lines.push(withToolCall(`{"${k}z":1,"${k}\\u00e9":2}`));
    }
    const { accepted, jsAccepted } = agreeLineByLine(Buffer.from(`${lines.join('\n')}\n`, 'utf8'));
    expect(accepted).toBe(jsAccepted);
    expect(accepted).toBeGreaterThan(lines.length / 4);
  });

  it('integers taken inline: every length, every next byte, at every offset', () => {
    const after = [',1', ']', '}', '.5', '.', 'e5', 'e+16', 'e-05', 'E+2', 'e', '0', 'x', ' ', '-'];
    const ints = ['0', '00', '01', '7', '42', '999', '1234', '12345678', '123456789', '1'.repeat(17), '1'.repeat(40)];
    const lines: string[] = [];
    for (const n of ints) {
      for (const a of after) {
        for (let pad = 0; pad < 17; pad += 4) {
          lines.push(withToolCall(`["${'p'.repeat(pad)}",${n}${a}]`));
          lines.push(withToolCall(`{"${'k'.repeat(pad)}":${n}${a}}`));
        }
      }
    }
    for (const n of [4299, 4300, 4301]) lines.push(withToolCall(`[${'9'.repeat(n)}]`));
    const { accepted, jsAccepted } = agreeLineByLine(Buffer.from(`${lines.join('\n')}\n`, 'utf8'));
    expect(accepted).toBe(jsAccepted);
    expect(accepted).toBeGreaterThan(100);
  });

  it('a block ends where it ends: a row cut at any byte is not taken, though the rest of it follows in memory', () => {
    // The scanner reads a byte without a bounds check and relies on the zeros it writes at the block end; the
    // bytes that followed the cut (the rest of the row, as a file read block by block leaves them) are never read.
    const w = scanner!;
    const rows = [
      baseLines[1]!,
      withToolCall(`{"a":[1,{"b":[2,{"c":"x"}],"z":3}],"n":-1.25e-06,"q":0.30000000000000004}`),
      withTs('1796199133.3333333'),
    ];
    const rec: BlockRecord = { start: 0, end: 0, terminated: false, row: undefined, stored: -1 };
    // ~1,000 cuts: the cases that differ are collected and compared once (four expect calls a cut were most of
    // this test's time); isDeepStrictEqual is stricter than toEqual.
    const wrong: string[] = [];
    for (const line of rows) {
      const bytes = Buffer.from(`${line}\n${line}\n`, 'latin1');
      for (let cut = 1; cut <= line.length; cut++) {
        bytes.copy(w.mem, w.data);
        w.start(cut);
        const batch = w.batch();
        w.record(0, undefined, rec);
        // Taken only whole (a last line without its newline), as fastRow takes it.
        const js = fastRow(line, 0, cut, undefined, []);
        const got = {
          batch,
          start: rec.start - w.data,
          end: rec.end - w.data,
          terminated: rec.terminated,
          row: rec.row,
        };
        const want = { batch: 1, start: 0, end: cut, terminated: false, row: js };
        if (!isDeepStrictEqual(got, want) || (rec.row === undefined) !== cut < line.length)
          wrong.push(`cut ${cut} of ${line.slice(0, 40)}: ${inspect(got)}, want ${inspect(want)}`);
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
});

const mutations: ((l: string) => string)[] = [
  ...LINE_MUTATIONS,
  (l) => l.replace(/,"ts":[^}]*\}$/, ',"ts":1.796199133e+09}'),
  (l) => l.replace('"name":"edit"', '"\\uffff":1,"\\ud83d\\ude00":2,"name":"edit"'),
  (l) => l.replace('"name":"edit"', '"\\ud83d\\ude00":2,"\\uffff":1,"name":"edit"'),
  (l) => l.replace('"name":"edit"', '"name":"edit","name":"edit"'),
  (l) => l.replace('"big":', '"Big":'),
  (l) => l.replace('"tiny":1e-05', '"tiny":0.00001'),
  (l) => l.replace(/"step_hash":"(.)/, '"step_hash":"Z'),
  (l) => l.replace('"Z":[[[{}]]]', `"Z":${'['.repeat(600)}${']'.repeat(600)}`),
];

describe(`verify with the scanner on and off agrees with the plain walk (seed ${seed})`, () => {
  it('on random corruptions, strict and not, 1 to 5 slices, refs too', () => {
    // 150 runs of four walks each: the seed changes every run (it is in this describe's name), so the cases
    // add up across runs; test/journal.slices.test.ts walks the same kind of corruptions 150 times more.
    expectAgreementOnCorruptions(baseLines, mutations, { seed, numRuns: 150 });
  });

  it('every targeted mutation, strict, on and off', () => {
    for (const m of mutations) {
      for (const at of [0, 1, 39]) {
        const lines = [...baseLines];
        lines[at] = m(lines[at]!);
        const buf = Buffer.from(`${lines.join('\n')}\n`);
        const expected = plain(buf, true);
        expect(verifyJournalBytes(buf, { strict: true })).toEqual(expected);
        expect(verifyJournalBytes(buf, { strict: true }, OFF)).toEqual(expected);
      }
    }
  });

  it('files read block by block: long lines (past a block, past the scanner) and a missing final newline', () => {
    const pad = (n: number): string => baseLines[2]!.replace('"out":"', `"out":"${'x'.repeat(n)}`);
    const variants = [
      [...baseLines.slice(0, 5), pad(3 * 1024 * 1024), ...baseLines.slice(5)],
      [...baseLines.slice(0, 5), pad(WASM_BLOCK_CAP + 1000), ...baseLines.slice(5)],
      [...baseLines.slice(0, 5), `${'['.repeat(2 * 1024 * 1024)}`, ...baseLines.slice(5)],
      [...Array.from({ length: 100 }, () => baseLines).flat()],
    ];
    // Each variant with and without its final newline (the line past the scanner's block once: it takes the
    // slow path, a second each); the file read on one thread and three, the bytes on three, the scanner off
    // once (each path meets every variant; the repeats added no power, only time).
    for (const [k, lines] of variants.entries()) {
      for (const noNl of k === 1 ? [false] : [false, true]) {
        const buf = Buffer.from(lines.join('\n') + (noNl ? '' : '\n'));
        const file = path.join(root, `long-${k}-${noNl}.jsonl`);
        writeFileSync(file, buf);
        const expected = plain(buf, true);
        const env = (threads: string) => ({ STEPCHAIN_THREADS: threads, STEPCHAIN_PARALLEL_MIN_BYTES: '0' });
        expect(verifyJournalFile(file, { strict: true }, env('1'))).toEqual(expected);
        expect(verifyJournalFile(file, { strict: true }, env('3'))).toEqual(expected);
        expect(verifyJournalBytes(buf, { strict: true }, env('3'))).toEqual(expected);
        if (noNl) expect(verifyJournalFile(file, { strict: true }, OFF)).toEqual(expected);
      }
    }
  });

  it('the built CLI: worker threads taking several slices each report what the plain walk does', () => {
    // ~6 MB: several 1 MB slices per thread, taken from the shared counter. 1,500 rows of ~4.2 KB, not 6,000 of
    // ~1.06 KB: the slices depend on the bytes, and writing the rows and the two plain walks cost by the row.
    const big = Journal.open(path.join(root, '.sdd', 'runtime', 'journal', 'big'), { durability: 'none' });
    big.appendMany(
      // No input blobs: 1,500 blob files would be most of this test's time, and the walk reads only the journal.
      Array.from({ length: 1500 }, (_, i) => ({
        prompt: `prompt ${i} ${'é'.repeat(i % 50)} ${'x'.repeat(3700)}`,
        tool_call: { name: 'run', args: { i, f: i / 7 } },
        tool_result: { ok: i % 2 === 0 },
        ts: 1796199133 + i / 3,
      })),
    );
    const lines = readFileSync(big.file, 'utf8').split('\n').slice(0, -1);
    lines[250] = mutations[4]!(lines[250]!.replace('"ok":true', '"ok":false'));
    lines.splice(750, 1);
    lines[1125] = lines[1125]!.replace('"f":', '"f": ');
    lines[1499] = 'garbage';
    const buf = Buffer.from(`${lines.join('\n')}\n`);
    const file = path.join(root, 'big.jsonl');
    writeFileSync(file, buf);
    // Every pair of settings (strict x threads, strict x scanner, threads x scanner) once: 6 runs, not 12.
    const runs: [boolean, string, string][] = [
      [false, '1', '1'],
      [false, '2', '0'],
      [false, '3', '1'],
      [true, '1', '0'],
      [true, '2', '1'],
      [true, '3', '0'],
    ];
    const expected = { false: plain(buf, false), true: plain(buf, true) };
    expect(expected.false.errors.length).toBeGreaterThan(3);
    for (const [strict, threads, wasm] of runs) {
      const r = cli(['verify', file, '--json', ...(strict ? ['--strict'] : [])], {
        env: { STEPCHAIN_THREADS: threads, STEPCHAIN_PARALLEL_MIN_BYTES: '0', STEPCHAIN_WASM: wasm },
      });
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout)).toEqual(expected[`${strict}`]);
    }
  });
});
