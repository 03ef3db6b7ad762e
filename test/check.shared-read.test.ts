/**
 * `check` reads a large per-step journal of the checkout straight into memory its verification threads share
 * (walkableBuffer), so the walk does not copy it first. The verdict must not depend on that: the whole bin, with the
 * threads sharing the read (a threshold of one byte, two threads) and with one thread (ordinary memory), gives the
 * same report for journals that hold, were appended to, were rewritten since the base, tampered with in place, cut
 * mid-row, or hold lines of every framing.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, journalFile } from '../src/journal';
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

test('a check whose journals are read into shared memory reports what one in ordinary memory does', () => {
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
});
