import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { expandFaults, verifyJournalBytes, type Fault } from '../src/journal';
import * as nodeHash from '../src/util/hash';
import * as pageHash from '../src/report/client/hash';
import { createVerifier } from '../src/report/client/verifier';
import { cutText, display, preview, shownText } from '../src/report/client/display';
import { parsePastedKey, verifyEd25519 } from '../src/report/client/signature';
import { renderReport, reportWindow } from '../src/report/report';
import { bytesWindow, type Windowed } from '../src/report/window';
import { Journal } from '../src/journal';
import { tempDir } from './helpers/tmp';
import type { ReportWindow } from '../src/report/client/data';
import { parse } from '../src/canonical';
import { generateKeyPair, parsePrivateKey, parsePublicKey, signBytes } from '../src/receipt';
import { PAGE_SCRIPT } from '../src/report/client/page-script.generated';
import { conformanceDir } from './helpers/paths';
import { verifiedClean } from './helpers/journal-rows';

/**
 * The report page's script is src/report/client bundled with src/canonical and
 * src/journal (scripts/build-page.mjs). Here its parts run in Node against the
 * CLI's: the SHA-256 twin against node:crypto, the chunked verifier (whole and
 * windowed) against verifyJournalBytes on random damage, Ed25519 against node:crypto.
 * test/report.browser.test.ts runs the bundled script in Chromium.
 */
/** The reference's conformance journal as a report source (no blobs). */
function referenceSource() {
  return {
    kind: 'journal' as const,
    path: 'ref.jsonl',
    agentId: 'ref',
    journal: readFileSync(path.join(conformanceDir, 'reference-journal', '000000.jsonl')),
    blobs: { size: () => undefined, read: () => undefined },
  };
}

const seed = Number(process.env.STEPCHAIN_TEST_SEED ?? Date.now() % 2 ** 31);

function mulberry(a: number): () => number {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('the bundled page script', () => {
  it('is one browser script: no Node, no module loader, nothing that ends the inline <script>', () => {
    expect(PAGE_SCRIPT.length).toBeGreaterThan(10_000);
    expect(PAGE_SCRIPT).not.toMatch(/\brequire\(|\bprocess\.|\bBuffer\b|node:/);
    expect(PAGE_SCRIPT).not.toMatch(/<\/script|<!--/i);
    // src/canonical's own parser and src/journal's reader are in it (one implementation).
    expect(PAGE_SCRIPT).toContain('src/canonical/parse.ts');
    expect(PAGE_SCRIPT).toContain('src/journal/row.ts');
    expect(PAGE_SCRIPT).toContain('src/journal/chain.ts');
    expect(PAGE_SCRIPT).toContain('src/report/client/hash.ts');
    expect(PAGE_SCRIPT).not.toContain('src/util/hash.ts');
  });
});

describe(`page SHA-256 (@noble/hashes) against node:crypto (seed ${seed})`, () => {
  it('exports what src/util/hash.ts exports', () => {
    expect(Object.keys(pageHash).sort()).toEqual(Object.keys(nodeHash).sort());
    expect(pageHash.ZERO_HASH).toBe(nodeHash.ZERO_HASH);
  });

  it('hashes every length around the block boundaries, random buffers and strings', () => {
    const rnd = mulberry(seed);
    const lengths = [...Array.from({ length: 200 }, (_, i) => i), 1000, 4095, 4096, 65537, 1 << 20];
    for (let r = 0; r < 30; r++) lengths.push(Math.floor(rnd() * 20000));
    for (const n of lengths) {
      const buf = randomBytes(n);
      expect(pageHash.sha256Hex(buf)).toBe(createHash('sha256').update(buf).digest('hex'));
    }
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(pageHash.sha256Hex(a)).toBe(nodeHash.sha256Hex(a));
        expect(pageHash.sha256Hex(b + '\ud800')).toBe(nodeHash.sha256Hex(b + '\ud800'));
        expect(pageHash.isSha256Hex(a)).toBe(nodeHash.isSha256Hex(a));
      }),
      { seed, numRuns: 300 },
    );
  });
});

describe('page Ed25519 (@noble/ed25519) against node:crypto', () => {
  it('accepts the signature node:crypto made, refuses another key, a changed message, a changed signature', () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    const signer = parsePrivateKey(Buffer.from(a.privateKeyPem), 'a');
    const pubA = parsePublicKey(Buffer.from(a.publicKeyPem), 'a');
    const pubB = parsePublicKey(Buffer.from(b.publicKeyPem), 'b');
    const message = Buffer.from('{"agent_id":"x","steps":3}');
    const sig = signBytes(message, signer);
    expect(verifyEd25519(sig, message, pubA.raw)).toBe(true);
    expect(verifyEd25519(sig, message, pubB.raw)).toBe(false);
    expect(verifyEd25519(sig, Buffer.from('{"agent_id":"x","steps":4}'), pubA.raw)).toBe(false);
    const bent = Buffer.from(sig);
    bent[10]! ^= 1;
    expect(verifyEd25519(bent, message, pubA.raw)).toBe(false);
    expect(verifyEd25519(sig.subarray(0, 63), message, pubA.raw)).toBe(false);
    // RFC 8032 strict: S must be below the group order (OpenSSL refuses S + L; ZIP-215 would too here).
    const ell = 2n ** 252n + 27742317777372353535851937790883648493n;
    const s = BigInt(`0x${Buffer.from(sig.subarray(32)).reverse().toString('hex')}`) + ell;
    const big = Buffer.from(s.toString(16).padStart(64, '0'), 'hex').reverse();
    expect(verifyEd25519(Buffer.concat([sig.subarray(0, 32), big]), message, pubA.raw)).toBe(false);
  });

  it('reads a pasted key as PEM, hex or base64, with the CLI key id; refuses private and foreign keys', () => {
    const a = generateKeyPair();
    const pub = parsePublicKey(Buffer.from(a.publicKeyPem), 'a');
    for (const text of [
      a.publicKeyPem,
      `  ${a.publicKeyPem}\n\n`,
      pub.raw.toString('hex'),
      pub.raw.toString('base64'),
    ]) {
      expect(parsePastedKey(text)).toEqual({ ok: true, raw: new Uint8Array(pub.raw), keyId: pub.keyId });
    }
    expect(parsePastedKey(a.privateKeyPem)).toMatchObject({ ok: false, reason: expect.stringMatching(/PRIVATE key/) });
    const ec =
      '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEb3sY7QZ0d0eq0VvH6G1Kx0c8JcXbZp0h3Y0lY3bW5Wm4c1xw5f0y3V0n0b3nH7p1Q4vKx2mQ0hY3u6L8n2e7pQ==\n-----END PUBLIC KEY-----';
    expect(parsePastedKey(ec)).toMatchObject({ ok: false, reason: expect.stringMatching(/not an Ed25519/) });
    expect(parsePastedKey('')).toMatchObject({ ok: false });
    expect(parsePastedKey('abc')).toMatchObject({ ok: false, reason: expect.stringMatching(/not a public key/) });
  });
});

describe('page display', () => {
  it('keeps written key order, exact numbers and printable text; escapes what a screen hides', () => {
    const v = parse(
      String.raw`{"b":1.0,"a":[10000000000000000000000001,1e-07,-0.0],"s":"R\u00e9sum\u00e9 \u2028\u0001 \ud83d\ude00"}`,
      {
        objects: 'map',
      },
    );
    expect(display(v, 0)).toBe(
      '{"b": 1.0, "a": [10000000000000000000000001, 1e-07, -0.0], "s": "Résumé \\u2028\\u0001 😀"}',
    );
    expect(display(v)).toContain('\n  "a": [\n    10000000000000000000000001,');
  });

  it('shows bidi, zero-width, C1 and tag characters as escapes: journal text cannot reorder or hide what is shown', () => {
    const hostile = 'ok\u202eevil\u2066x\u2069\u200b\u200f\ufeff\u2060\u061c\u0085\u009b\u{E0041}\u001b[2J';
    const shown = '\\u202eevil\\u2066x\\u2069\\u200b\\u200f\\ufeff\\u2060\\u061c\\u0085\\u009b';
    expect(display(hostile)).toBe(`"ok${shown}\\udb40\\udc41\\u001b[2J"`);
    // Still a JSON literal of the same string.
    expect(JSON.parse(display(hostile))).toBe(hostile);
    // Raw text (a prompt, a path, a label): line breaks and tabs kept, the rest escaped.
    expect(shownText(`line 1\n\t${hostile}\r`)).toBe(`line 1\n\tok${shown}\\u{e0041}\\u001b[2J\\u000d`);
    // Printable text stays, the joiners of emoji sequences and scripts included.
    for (const t of ['Résumé ✓ 😀 ﷺ', '👨\u200d👩\u200d👧', 'می\u200cخواهم']) expect(shownText(t)).toBe(t);
    // The page's own markup (the title a check gives a report: a repository path).
    const source = referenceSource();
    const { html } = renderReport(source, { title: `stepchain: .sdd/runtime/journal/a\u202eb<i>\u200b/000000.jsonl` });
    expect(html).toContain('<title>stepchain: .sdd/runtime/journal/a\\u202eb&lt;i&gt;\\u200b/000000.jsonl</title>');
    expect(html.slice(0, html.indexOf('<script'))).not.toMatch(/[\u202e\u200b]/);
  });

  test('a cut preview never splits a character: half an emoji or a tag character showed as U+FFFD at the cut', () => {
    const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.integer({ min: 1, max: 90 }), (s, max) => {
        const cut = cutText(s, max);
        expect(s.startsWith(cut)).toBe(true);
        expect(cut.length).toBeLessThanOrEqual(max);
        expect(cut.length).toBeGreaterThanOrEqual(Math.min(s.length, max - 1));
        expect(cut).not.toMatch(loneSurrogate);
        const shown = preview(s, max);
        expect(shown).not.toMatch(loneSurrogate);
        expect(shown.length).toBeLessThanOrEqual(max);
      }),
    );
    expect(cutText('ab\u{E0041}', 3)).toBe('ab');
    expect(preview('abcd😀', 5)).toBe('abcd…');
  });
});

describe('page chain verifier against verifyJournalBytes', () => {
  const reference = readFileSync(path.join(conformanceDir, 'reference-journal', '000000.jsonl'));
  const expected = JSON.parse(readFileSync(path.join(conformanceDir, 'reference-expected.json'), 'utf8')) as {
    journal_head: string;
    steps: number;
  };

  const pageVerify = (bytes: Uint8Array, expectedHead?: string, window?: ReportWindow) => {
    const v = createVerifier(bytes, { expectedHead: expectedHead ?? null, window: window ?? null });
    let guard = 0;
    while (!v.run(3)) if (++guard > 1e6) throw new Error('verifier does not finish');
    return v.result();
  };

  it('verifies the reference journal written by the Python implementation', () => {
    const r = pageVerify(reference);
    expect(r).toEqual(verifiedClean(expected.journal_head, expected.steps));
    expect(pageVerify(reference, '0'.repeat(64)).errors.map((e) => e.kind)).toEqual(['head_mismatch']);
  });

  it('reports exactly the faults verifyJournalBytes reports, on random damage', () => {
    const rnd = mulberry(seed ^ 0x5eed);
    const lines = reference.toString('latin1').split('\n').slice(0, -1);
    const damages: Buffer[] = [
      Buffer.alloc(0),
      Buffer.from('\n'),
      Buffer.from('\n\n'),
      reference.subarray(0, reference.length - 1),
    ];
    for (let t = 0; t < 400; t++) {
      let ls = [...lines, ...lines.slice(0, Math.floor(rnd() * 3))];
      const op = Math.floor(rnd() * 6);
      const at = Math.floor(rnd() * ls.length);
      if (op === 0) ls.splice(at, 1);
      else if (op === 1) [ls[0], ls[at]] = [ls[at]!, ls[0]!];
      else if (op === 2) ls[at] = ls[at]!.replace(/"seq":\d+/, `"seq":${Math.floor(rnd() * 9)}`);
      else if (op === 3) ls.splice(at, 0, ['', '{}', '[1]', 'not json', '{"a":1}', '\xff\xfe'][Math.floor(rnd() * 6)]!);
      else if (op === 4) {
        const l = ls[at]!;
        const p = Math.floor(rnd() * l.length);
        ls[at] = l.slice(0, p) + String.fromCharCode(32 + Math.floor(rnd() * 95)) + l.slice(p + 1);
      } else ls = ls.map((l) => l.replace('"ok":true', '"ok":false'));
      let buf = Buffer.from(`${ls.join('\n')}\n`, 'latin1');
      if (rnd() < 0.2) buf = buf.subarray(0, Math.floor(rnd() * buf.length));
      damages.push(buf);
    }
    for (const buf of damages) {
      const head = rnd() < 0.2 ? expected.journal_head : undefined;
      const ours = verifyJournalBytes(buf, head === undefined ? {} : { expectedHead: head });
      const mine = pageVerify(new Uint8Array(buf), head);
      if (JSON.stringify(mine) !== JSON.stringify(ours)) {
        throw new Error(
          `journal ${JSON.stringify(buf.toString('latin1'))}\n page ${JSON.stringify(mine)}\n ours ${JSON.stringify(ours)}`,
        );
      }
      // A window (report --max-steps): the page sees exactly the faults of its lines, anchored as the walk was.
      const rows = ours.steps;
      if (rows === 0) continue;
      const max = 1 + Math.floor(rnd() * rows);
      let w;
      try {
        w = reportWindow(buf, max, rnd() < 0.5 ? Math.floor(rnd() * 6) : undefined);
      } catch {
        continue; // --from names a seq no row has
      }
      if (w === null) continue;
      const got = pageVerify(new Uint8Array(w.bytes), head, w.window);
      const reachesEnd = w.lastLine === w.window.total_lines;
      // Runs of one kind may cross the window's edge: compare fault by fault.
      const want = expandFaults(ours.errors).filter((f) =>
        f.line === null ? reachesEnd : f.line >= w.window.first_line && f.line <= w.lastLine,
      );
      expect({ errors: expandFaults(got.errors as Fault[]), head: reachesEnd ? got.head_hash : null }).toEqual({
        errors: want,
        head: reachesEnd ? ours.head_hash : null,
      });
      expect(got.steps).toBe(w.steps);
    }
  });
});

const windowTmp = tempDir('stepchain-window-');

test('a window of bytes that verify, cut by the rows\u2019 index, is the window the whole walk cuts', () => {
  // bytesWindow reads only the window's rows of a receipt's journal; reportWindow walks every row: for any journal
  // that verifies (blank lines, CRLF, rows with spaces, no final newline) and any window asked, the same.
  const j = Journal.open(path.join(windowTmp, '.sdd', 'runtime', 'journal', 'w'), { durability: 'none' });
  j.appendMany(
    Array.from({ length: 300 }, (_, i) => ({
      prompt: `p${i} ${'x'.repeat(i % 30)}`,
      tool_result: { n: i },
      ts: 1.8e9 + i,
    })),
  );
  const lines = readFileSync(j.file, 'latin1').split('\n').slice(0, -1);
  let compared = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: lines.length }),
      fc.array(fc.tuple(fc.nat(lines.length - 1), fc.integer({ min: 0, max: 2 })), { maxLength: 12 }),
      fc.boolean(),
      fc.integer({ min: 1, max: 320 }),
      fc.option(fc.integer({ min: -2, max: 310 }), { nil: undefined }),
      (n, edits, noNl, max, from) => {
        const ls = lines.slice(0, n);
        for (const [at, op] of edits) {
          if (at >= ls.length) continue;
          if (op === 0) ls[at] = `${ls[at]}\r`;
          else if (op === 1) ls[at] = `\n${ls[at]}`;
          else ls[at] = ls[at]!.replace('":', '": ');
        }
        const buf = Buffer.from(`${ls.join('\n')}${noNl ? '' : '\n'}`, 'latin1');
        if (!verifyJournalBytes(buf).ok) return;
        // The window's bytes compared as text: Jest's toEqual walks a Buffer byte by byte (most of this test's CPU).
        const outcome = (cut: () => Windowed | null) => {
          try {
            const w = cut();
            return w === null ? null : { ...w, bytes: w.bytes.toString('latin1') };
          } catch (e) {
            return (e as Error).message;
          }
        };
        const want = outcome(() => reportWindow(buf, max, from));
        const got = outcome(() => bytesWindow(buf, true, max, from));
        expect(got).toEqual(want);
        compared++;
      },
    ),
    { seed, numRuns: 120 },
  );
  expect(compared).toBeGreaterThan(80);
});

describe('the size warning (library)', () => {
  it('warns past warnSteps embedded steps, and not for a window under it', () => {
    const source = referenceSource();
    expect(renderReport(source, { warnSteps: 4 }).warnings).toEqual([
      expect.stringMatching(/^the page embeds 5 steps \(0 MB\): .*--max-steps N/),
    ]);
    expect(renderReport(source, { warnSteps: 4, maxSteps: 4 })).toMatchObject({
      warnings: [],
      window: { first_line: 2, last_line: 5, steps: 4 },
    });
    expect(renderReport(source, { warnSteps: 5 }).warnings).toEqual([]);
  });
});
