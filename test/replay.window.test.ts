import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readSync, statSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { canonical, type JsonValue } from '../src/canonical';
import { IntegrityError } from '../src/errors';
import { computeStepHash, encodeRow, readWindow, VerifiedSteps } from '../src/journal';
import { AUTO_WINDOW_BYTES } from '../src/report/window';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * replay, show and report of a large journal verify it once, streaming, then
 * read only the steps they show (docs/journal.md, "Reading windows"): memory does
 * not grow with the journal. The CLI runs here with a V8 heap far smaller than
 * the journal, which loading it whole would overflow.
 */
const root = tempDir();
const dir = path.join(root, '.sdd', 'runtime', 'journal', 'big');
const file = path.join(dir, '000000.jsonl');
const STEPS = 120_000; // about 155 MB: past AUTO_WINDOW_BYTES (128 MiB), where report embeds a window
beforeAll(() => {
  mkdirSync(dir, { recursive: true });
  writeJournal(file, STEPS);
  expect(statSync(file).size).toBeGreaterThan(AUTO_WINDOW_BYTES);
}, 120_000);

/**
 * Writes a chain of `n` rows of ~1.3 KB, as bench/make-journal.ts's 'plain' shape does (text with non-ASCII
 * escaped, a nested tool call, a result with escapes): the hashed fields' canonical text made once for 64 variants
 * with the project's encoder, each row's payload and line spliced from them, and every 10,000th row checked against
 * computeStepHash and encodeRow. make-journal (its encoder and step hash called for every row, in a child) took
 * 5.2 s of CPU for 120,000 rows, half of this file's; this ~0.5 s.
 */
function writeJournal(out: string, n: number): void {
  const words = 'the agent reads the file and runs the tests then edits the function résumé naïve 日本 ✓'.split(' ');
  const text = (k: number, len: number): string => {
    let t = '';
    for (let w = k; t.length < len; w = (w * 7 + 3) % words.length) t += `${words[w]!} `;
    return t.slice(0, len);
  };
  const variants = Array.from({ length: 64 }, (_, k) => {
    const tool_call: JsonValue = {
      name: 'edit_file',
      args: { path: `src/module_${k}.py`, line: k * 5, patch: text(k + 1, 110) },
    };
    const tool_result: JsonValue = {
      exit_code: 0,
      stdout: `${text(k + 2, 210)}\n"quoted"\ttab`,
      lines_changed: k % 13,
    };
    return {
      words: text(k, 210),
      prompt: canonical(text(k, 210)).slice(1, -1),
      tool_call,
      tool_result,
      calls: `"tool_call":${canonical(tool_call)},"tool_result":${canonical(tool_result)}`,
    };
  });
  const model = 'claude-3-7-sonnet-20250219';
  const fd = openSync(out, 'w');
  try {
    let prev = '0'.repeat(64);
    let lines: string[] = [];
    for (let i = 0; i < n; i++) {
      const v = variants[i % variants.length]!;
      const input = createHash('sha256').update(`input ${i}`).digest('hex');
      const head = `"input_hash":"${input}","model":"${model}","prev_hash":"${prev}","prompt":"Step ${i}: ${v.prompt}"`;
      const stepHash = createHash('sha256').update(`{${head},${v.calls}}`).digest('hex');
      const line = `{"blob_refs":["${input}"],${head},"seq":${i},"step_hash":"${stepHash}",${v.calls},"ts":${1796000000 + i}.0}`;
      if (i % 10_000 === 0) {
        const fields = {
          prev_hash: prev,
          input_hash: input,
          model,
          prompt: `Step ${i}: ${v.words}`,
          tool_call: v.tool_call,
          tool_result: v.tool_result,
        };
        const row = { ...fields, blob_refs: [input], seq: i, step_hash: computeStepHash(fields), ts: 1796000000 + i };
        if (encodeRow(row) !== line) throw new Error(`row ${i} spliced is not encodeRow's: ${line.slice(0, 300)}`);
      }
      lines.push(line);
      prev = stepHash;
      // Written every 32 rows (make-journal's measure: a longer buffer outlives the young generation).
      if (lines.length === 32) {
        writeSync(fd, `${lines.join('\n')}\n`);
        lines = [];
      }
    }
    if (lines.length > 0) writeSync(fd, `${lines.join('\n')}\n`);
  } finally {
    closeSync(fd);
  }
}

const small = (args: string[], heapMb = 48) =>
  spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, cliPath, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, STEPCHAIN_AUDIT: 'off' },
    maxBuffer: 1 << 26,
  });
// Where each of the journal's lines starts, found once in one pass through a small buffer; a line looked at is read
// alone. (Reading and splitting the 155 MB per lookup was most of this file's time; decoding all of it as one string
// and splitting that, once, still cost ~2 s of CPU, this ~0.15 s.)
let starts: number[] | undefined;
function lineStarts(): number[] {
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 22);
  const out = [0];
  try {
    for (let pos = 0, n = 0; (n = readSync(fd, buf, 0, buf.length, pos)) > 0; pos += n) {
      const chunk = buf.subarray(0, n);
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, nl + 1)) out.push(pos + nl + 1);
    }
  } finally {
    closeSync(fd);
  }
  return out;
}
/** The journal's lines `from`..`to` - 1 (numbered from 0, as seq is), without their newlines: one read. */
function linesAt(from: number, to: number): string[] {
  starts ??= lineStarts();
  if (to >= starts.length) throw new Error(`the journal has no line ${to}`);
  const bytes = Buffer.alloc(starts[to]! - starts[from]!);
  const fd = openSync(file, 'r');
  try {
    expect(readSync(fd, bytes, 0, bytes.length, starts[from]!)).toBe(bytes.length);
  } finally {
    closeSync(fd);
  }
  return bytes.toString('utf8').slice(0, -1).split('\n');
}
const lineAt = (k: number): string => linesAt(k, k + 1)[0]!;
const rowAt = (seq: number): Record<string, unknown> => JSON.parse(lineAt(seq)) as Record<string, unknown>;

describe('windows of a large journal', () => {
  it('replay --limit, show and report run in a heap much smaller than the journal', () => {
    const r = small(['replay', 'big', '--limit', '2']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`big: ${STEPS} steps`);
    expect(r.stdout).toContain(`… ${STEPS - 2} more steps (--limit 2)`);

    const j = small(['replay', 'big', '--limit', '1', '--json']);
    expect(j.status).toBe(0);
    const doc = JSON.parse(j.stdout) as { steps: number; entries: { seq: number }[] };
    expect(doc.steps).toBe(STEPS);
    expect(doc.entries.map((e) => e.seq)).toEqual([0]);

    const last = STEPS - 1;
    const s = small(['show', 'big', String(last), '--json']);
    expect(s.status).toBe(0);
    const shown = JSON.parse(s.stdout) as { seq: number; line: number; entry: { step_hash: string } };
    expect(shown).toMatchObject({ seq: last, line: STEPS });
    expect(shown.entry.step_hash).toBe(rowAt(last).step_hash);

    const out = path.join(root, 'big.html');
    const rep = small(['report', 'big', '-o', out, '--max-steps', '50', '--from', '1000', '--json']);
    expect(rep.status).toBe(0);
    expect(JSON.parse(rep.stdout)).toMatchObject({
      ok: true,
      steps: STEPS,
      window: { first_line: 1001, last_line: 1050, steps: 50 },
    });
    // Too large for one page (over AUTO_WINDOW_BYTES: 155 MB), its last 10,000 steps are embedded: a heap of
    // 256 MB holds that page, not the journal's rows.
    const auto = small(['report', 'big', '-o', path.join(root, 'auto.html'), '--json'], 256);
    expect(auto.status).toBe(0);
    expect(JSON.parse(auto.stdout)).toMatchObject({
      ok: true,
      steps: STEPS,
      window: { steps: 10_000, last_line: STEPS },
    });
    expect(auto.stderr).toContain('the journal is too large for one page');
  }, 180_000);

  it('any step reads back as verified, in any order', () => {
    const steps = VerifiedSteps.open(file);
    expect(steps.length).toBe(STEPS);
    for (const seq of [STEPS - 1, 0, 255, 256, 257, 70_001, 3]) {
      const e = steps.at(seq)!;
      expect(e.row.seq).toBe(seq);
      expect(e.line).toBe(seq + 1);
      expect(e.row.step_hash).toBe(rowAt(seq).step_hash);
    }
    expect(steps.at(STEPS)).toBeUndefined();
    expect(readWindow(file, 10, 12).map((e) => e.row.seq)).toEqual([10, 11, 12]);
  });

  it('a file changed after it was verified is refused, never shown', () => {
    const copyDir = path.join(root, 'copy');
    mkdirSync(copyDir, { recursive: true });
    const copy = path.join(copyDir, '000000.jsonl');
    const first = linesAt(0, 2000);
    writeFileSync(copy, first.map((l) => `${l}\n`).join(''));
    const steps = VerifiedSteps.open(copy);
    first[1500] = first[1500]!.replace('"lines_changed":', '"lines_changed":1'); // still the same length? no matter
    writeFileSync(copy, first.map((l) => `${l}\n`).join(''));
    expect(steps.at(10)!.row.seq).toBe(10);
    expect(() => steps.at(1500)).toThrow(IntegrityError);
    expect(() => steps.at(1500)).toThrow('changed since it was verified');
  });
});
