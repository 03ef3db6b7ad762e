import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, journalDir } from '../../src/journal';
import { JournalWalker, type JournalWalk } from '../../src/receipt/journal-walk';

/** Three rows of a real chain (~350 bytes each), as lines, written under `root`. */
export function chainRows(root: string): string[] {
  const dir = journalDir(root, `j-${Math.random().toString(36).slice(2)}`);
  const j = Journal.open(dir, { durability: 'none' });
  for (let i = 0; i < 3; i++) j.append({ prompt: `p${i}`, model: 'm', ts: 1_700_000_000 + i, tool_result: { i } });
  return readFileSync(path.join(dir, '000000.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

/**
 * A receipt journal's pushed walk (JournalWalker) of `buf` in pieces of the sizes in `cuts` (the rest last, then an
 * empty piece), with the given buffer, in-place and longest-line sizes; what it found but the redacted fields.
 */
export function pushedWalk(
  buf: Buffer,
  cuts: number[],
  slice: number,
  direct: number,
  max: number,
): Omit<JournalWalk, 'redacted'> {
  const walker = new JournalWalker(slice, direct, max);
  let at = 0;
  for (const n of cuts) {
    walker.push(buf.subarray(at, Math.min(buf.length, at + n)));
    at = Math.min(buf.length, at + n);
  }
  walker.push(buf.subarray(at));
  walker.push(Buffer.alloc(0));
  const { redacted, ...walked } = walker.finish();
  void redacted;
  return walked;
}
