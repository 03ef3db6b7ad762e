import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readJournalBytes, verifyJournalBytes, type VerifyResult } from '../src/journal';
import { wasmScanner } from '../src/journal/wasm/scanner';
import { repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';
import { python3 } from './helpers/python';

/**
 * The verify fast paths (the WebAssembly scanner's strings from one 16-byte mask, its short strings and integers
 * inline; the JS fast path) against the plain walk and the Python peer, on rows written to break them
 * (test/python/hostile_rows.py): escapes, invalid escapes, control bytes, DEL and invalid UTF-8 at every offset of a
 * 16-byte window and where a string ends at a window's edge, integers followed by every byte, -0, 01, huge integers,
 * duplicated keys, nesting around the depth limits; each journal also with its hostile row last, without a newline.
 */
const dir = tempDir('stepchain-hostile-');

interface Verdict {
  ok: boolean;
  head_hash: string;
  steps: number;
  errors: { line: number | null; kind: string }[];
}

/** A result with runs of faults written out one line each (the peer lists every line). */
function verdict(r: VerifyResult): Verdict {
  const errors = r.errors.flatMap((e): Verdict['errors'] => {
    if (e.line === null) return [{ line: null, kind: e.kind }];
    const out: Verdict['errors'] = [];
    for (let l = e.line; l <= (e.last_line ?? e.line); l++) out.push({ line: l, kind: e.kind });
    return out;
  });
  return { ok: r.ok, head_hash: r.head_hash, steps: r.steps, errors };
}

describe('hostile rows: the scanner, the JS fast path, the plain walk and the Python peer agree', () => {
  test('every hostile journal has one verdict', () => {
    expect(wasmScanner()).toBeDefined();
    const file = path.join(dir, 'journals.bin');
    const py = spawnSync(python3(), [path.join(repoRoot, 'test', 'python', 'hostile_rows.py'), file], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    expect(py.stderr).toBe('');
    const { spans, verdicts: peer } = JSON.parse(py.stdout) as {
      spans: Record<string, [number, number]>;
      verdicts: Record<string, Verdict>;
    };
    const names = Object.keys(peer).sort();
    expect(names.length).toBeGreaterThan(20000);
    // As one text: toEqual walks 22,820 strings one by one.
    expect(Object.keys(spans).sort().join('\n')).toBe(names.join('\n'));
    const all = readFileSync(file);
    const differ: string[] = [];
    let okCount = 0;
    for (const name of names) {
      // Each journal in its own memory (Buffer.alloc, never the pool), as a file read alone is.
      const [start, end] = spans[name]!;
      const bytes = Buffer.alloc(end - start);
      all.copy(bytes, 0, start, end);
      const scanner = verifyJournalBytes(bytes, {}, {});
      const js = verifyJournalBytes(bytes, {}, { STEPCHAIN_WASM: '0' });
      // The lossless walk, line by line (no fast path): what the fast walks are checked against.
      const { entries: _entries, ...plain } = readJournalBytes(bytes);
      const want = JSON.stringify(plain);
      if (JSON.stringify(scanner) !== want || JSON.stringify(js) !== want) differ.push(`${name}: fast paths`);
      else if (JSON.stringify(verdict(plain)) !== JSON.stringify(peer[name])) differ.push(`${name}: peer`);
      if (plain.ok) okCount++;
    }
    expect(differ.slice(0, 10)).toEqual([]);
    // Both kinds are there: rows taken (on every path) and rows refused.
    expect(okCount).toBeGreaterThan(5000);
    expect(names.length - okCount).toBeGreaterThan(5000);
  });
});
