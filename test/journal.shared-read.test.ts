/**
 * `check` reads a large per-step journal of the checkout, and every command an uncompressed receipt, straight into
 * memory its verification threads share (walkableBuffer), so the walk does not copy it first. No verdict may depend
 * on that: the whole bin, with the threads sharing the read (a threshold of one byte, two threads) and with one
 * thread (ordinary memory), prints the same for journals that hold, were appended to, were rewritten since the base,
 * tampered with in place, cut mid-row, or hold lines of every framing, and for receipts of them (`receipt verify`,
 * `diff`, `show`).
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, journalFile, UnverifiedJournalError, VerifiedSteps } from '../src/journal';
import { setChunkWorkerEntry } from '../src/journal/parallel';
import { CHUNK_WORKER_SOURCE } from '../src/journal/worker/source.generated';
import { inspectReceipt } from '../src/receipt/verify';
import { cli } from './helpers/cli';
import { commitAll, emptyRepo } from './helpers/git';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-check-shared-');

function journal(root: string, id: string, steps: number, tag = 's'): string {
  const j = Journal.open(path.dirname(journalFile(root, id)), { durability: 'none' });
  j.appendMany(
    Array.from({ length: steps }, (_, i) => ({
      prompt: `${tag}${i} r\u00e9sum\u00e9 ${'x'.repeat(i % 40)}`,
      tool_call: { name: 'edit', args: { n: i, ratio: i / 7 } },
      ts: 1_700_000_000 + i / 3,
    })),
  );
  return j.file;
}

const shared = { STEPCHAIN_PARALLEL_MIN_BYTES: '1', STEPCHAIN_THREADS: '2' };
const ordinary = { STEPCHAIN_THREADS: '1' };

test('a check, receipt verify, diff and show of bytes read into shared memory print what they do in ordinary memory', () => {
  const root = emptyRepo(path.join(tmp, 'repo'));
  const held = journal(root, 'held', 300);
  const rewritten = journal(root, 'rewritten', 200);
  const tampered = journal(root, 'tampered', 250);
  const base = commitAll(root, 'base');
  // Appended to: holds. Rewritten since the base: a history fault. Edited in place (the chain breaks): a fault
  // naming the line. Cut mid-row, with CRLF and blank lines before it: the reading rules' framings.
  const more = Journal.open(path.dirname(held), { durability: 'none' });
  more.appendMany(Array.from({ length: 40 }, (_, i) => ({ prompt: `more ${i}`, ts: 1_800_000_000 + i })));
  writeFileSync(rewritten, readFileSync(rewritten, 'utf8').replace('"s5 r', '"S5 r'));
  const lines = readFileSync(tampered, 'utf8').split('\n');
  lines[120] = lines[120]!.replace('"ratio":', '"ratio": ');
  writeFileSync(tampered, `${lines.slice(0, 200).join('\r\n')}\n\n${lines.slice(200).join('\n')}`);
  const cut = journal(root, 'cut', 120);
  appendFileSync(cut, readFileSync(cut, 'utf8').split('\n')[3]!.slice(0, 57));
  for (const base_ of [['--base', base], []]) {
    const a = cli(['check', '--json', '--allow-empty', ...base_], { cwd: root, env: shared });
    const b = cli(['check', '--json', '--allow-empty', ...base_], { cwd: root, env: ordinary });
    expect(a.stderr).toBe(b.stderr);
    expect(a.code).toBe(1);
    expect(b.code).toBe(1);
    const doc = JSON.parse(a.stdout) as { faults: { path: string; line: number | null; kind: string }[] };
    expect(JSON.parse(b.stdout)).toEqual(doc);
    // Each damaged journal is named, at its line; the held one is not.
    const named = new Set(doc.faults.map((f) => f.path.split('/')[3]));
    expect(named.has('held')).toBe(false);
    expect(named.has('tampered')).toBe(true);
    expect(named.has('cut')).toBe(true);
    if (base_.length > 0) expect(doc.faults.some((f) => f.kind === 'history_rewritten')).toBe(true);
  }
  // Receipts: one of a journal that verifies, one whose journal member was edited after export (same length).
  const good = path.join(tmp, 'held.tar');
  expect(cli(['export', 'held', '-o', good], { cwd: root }).code).toBe(0);
  const bad = path.join(tmp, 'edited.tar');
  const tar = readFileSync(good);
  const at = tar.indexOf('"more 7"');
  expect(at).toBeGreaterThan(0);
  tar.write('"more 8"', at);
  writeFileSync(bad, tar);
  const runs: [string[], number][] = [
    [['receipt', 'verify', '--json', good], 0],
    [['receipt', 'verify', '--json', bad], 1],
    [['diff', '--json', good, bad], 1],
    [['diff', '--json', good, good], 0],
    [['show', '--json', good, '3'], 0],
  ];
  for (const [args, code] of runs) {
    const a = cli(args, { cwd: root, env: shared });
    const b = cli(args, { cwd: root, env: ordinary });
    expect([a.code, a.stderr]).toEqual([code, b.stderr]);
    expect(b.code).toBe(code);
    expect(a.stdout).toBe(b.stdout);
  }
  // `diff` and `show` fall back to reading a receipt's journal whole when its walk fails, which prints the same: the
  // walk of the member where it lies (a view at an offset of the shared archive) is checked here, in-process.
  const saved = { ...process.env };
  Object.assign(process.env, shared);
  setChunkWorkerEntry({ source: CHUNK_WORKER_SOURCE });
  try {
    const held = inspectReceipt(good);
    const journal = held.receipt!.journal;
    expect(journal.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(journal.byteOffset).toBeGreaterThan(0);
    const steps = VerifiedSteps.fromBytes(journal, 'held', shared);
    expect([steps.length, steps.head_hash]).toEqual([held.verdict.steps, held.verdict.head_hash]);
    expect(steps.at(339)!.row.prompt).toBe('more 39');
    expect(() => VerifiedSteps.fromBytes(inspectReceipt(bad).receipt!.journal, 'edited', shared)).toThrow(
      UnverifiedJournalError,
    );
  } finally {
    setChunkWorkerEntry(undefined);
    for (const k of Object.keys(shared)) delete process.env[k];
    Object.assign(process.env, saved);
  }
});
