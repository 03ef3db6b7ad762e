/**
 * A commit's file listing (`git ls-tree -r -z`) is read as git writes it, never gathered whole
 * (src/util/nul-records.ts nulRecordStream; src/git/head-tree.ts committedEntries, which the Action's
 * `not_committed` check runs on every HEAD; src/git/commits.ts listBlobsAtCommit, for the base). Gathered, a
 * monorepo's listing of 1.5 million files (162 MB) took the check to 617 MB of memory for a handful of journals.
 * Real repositories, built with `git fast-import` (a tree of many files without writing them).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { committedEntries } from '../src/git/head-tree';
import { listBlobsAtCommit } from '../src/git/commits';
import { nulRecordStream } from '../src/util/nul-records';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'stepchain-ls-tree-stream-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const FILES = 200_000;
const JOURNAL = '.sdd/runtime/journal/alice/000000.jsonl';
const SUB_COMMIT = '1'.repeat(40);

/** A repository whose HEAD holds FILES files, one journal (its name with a space) and a submodule. */
function bigRepo(): { dir: string; listing: number } {
  const dir = path.join(tmp, 'big');
  execFileSync('git', ['init', '-q', dir]);
  const lines = ['blob', 'mark :1', 'data 2', 'x', 'blob', 'mark :2', 'data 3', '{}', ''];
  lines.push('commit refs/heads/main', 'committer t <t@t> 0 +0000', 'data 1', 'x');
  for (let i = 0; i < FILES; i++) lines.push(`M 100644 :1 src/m${Math.floor(i / 1000)}/deeper/file ${i}.ts`);
  lines.push(`M 100644 :2 ${JOURNAL}`, `M 160000 ${SUB_COMMIT} vendor/sub`, '');
  execFileSync('git', ['fast-import', '--quiet'], { cwd: dir, input: lines.join('\n') });
  execFileSync('git', ['symbolic-ref', 'HEAD', 'refs/heads/main'], { cwd: dir });
  // Its size counted by wc: no buffer of it here to be collected meanwhile and lower what is measured.
  const listing = Number(execFileSync('sh', ['-c', 'git ls-tree -r -z HEAD | wc -c'], { cwd: dir, encoding: 'utf8' }));
  return { dir, listing };
}

/** `f`'s result and the most memory held in buffers while it ran over what it held before (sampled every turn). */
async function peakBuffers<T>(f: () => Promise<T>): Promise<{ value: T; peak: number }> {
  const before = process.memoryUsage().arrayBuffers;
  let peak = 0;
  const sample = (): void => {
    peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
  };
  const timer = setInterval(sample, 0);
  try {
    const value = await f();
    sample();
    return { value, peak };
  } finally {
    clearInterval(timer);
  }
}

describe('a commit listing is streamed', () => {
  test('committedEntries and listBlobsAtCommit hold what they keep, not the listing (under half of it; gathered, more than all of it; chunks not yet collected count)', async () => {
    const { dir, listing } = bigRepo();
    expect(listing).toBeGreaterThan(10_000_000);

    const entries = await peakBuffers(() => committedEntries(dir, 'HEAD', (rel) => rel.endsWith('.jsonl')));
    expect([...entries.value.keys()].sort()).toEqual([JOURNAL, 'vendor/sub']);
    expect(entries.value.get('vendor/sub')).toEqual({ mode: '160000', oid: SUB_COMMIT });
    expect(entries.peak).toBeLessThan(listing / 2);

    const blobs = await peakBuffers(() => listBlobsAtCommit(dir, 'HEAD', (p) => p.endsWith('.jsonl')));
    expect(blobs.value.map((b) => b.path)).toEqual([JOURNAL]);
    expect(blobs.peak).toBeLessThan(listing / 2);

    // Every record is read, whatever chunk it ends in: all FILES names, the last one too.
    const all = await committedEntries(dir, 'HEAD', () => true);
    expect(all.size).toBe(FILES + 2);
    expect(all.has(`src/m${Math.floor((FILES - 1) / 1000)}/deeper/file ${FILES - 1}.ts`)).toBe(true);
  });

  test('nulRecordStream: records split across chunks, an empty one, and a last one without its NUL', () => {
    const got: string[] = [];
    const s = nulRecordStream((rec) => got.push(rec.toString('utf8')));
    for (const chunk of ['ab', 'c\0d', '\0\0', 'é'.slice(0, 1), '\0tail']) s.push(Buffer.from(chunk, 'utf8'));
    // A multi-byte character split between chunks comes whole.
    const euro = Buffer.from('\u20ac\0', 'utf8');
    s.push(euro.subarray(0, 1));
    s.push(euro.subarray(1));
    s.push(Buffer.from('last'));
    s.end();
    expect(got).toEqual(['abc', 'd', '', 'é', 'tail\u20ac', 'last']);
  });
});
