import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { readParent } from '../src/forks/prefix';
import { Journal, journalDir, journalFile, VerifiedSteps } from '../src/journal';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * A fork's prefix (the parent's verified rows 0..N, what the fork's journal is seeded with), their hashes and their
 * blob digests: read a block at a time, a canonical row as its line's text (never parsed), any other row parsed.
 * Over random journals (steps with and without blobs, a blob named again, some lines not canonical) and any step,
 * they are what the rows read one by one give (VerifiedSteps.at: each row's bytes, hash and refs).
 */
const root = tempDir('stepchain-fork-prefix-');

test("a fork's prefix, hashes and blob refs are those of the rows read one by one", () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ blobs: fc.array(fc.nat(3), { maxLength: 3 }), spaced: fc.boolean() }), {
        minLength: 1,
        maxLength: 12,
      }),
      fc.nat(),
      (steps, pick) => {
        const project = freshDir(root);
        const j = Journal.open(journalDir(project, 'a1'), { durability: 'none' });
        steps.forEach((s, i) =>
          j.append({ prompt: `step ${i}`, tool_call: { n: i }, blobs: s.blobs.map((b) => Buffer.from(`blob ${b}`)) }),
        );
        const file = journalFile(project, 'a1');
        const lines = readFileSync(file, 'utf8').split('\n');
        steps.forEach((s, i) => {
          if (s.spaced) lines[i] = lines[i]!.replace('{"blob_refs":', '{ "blob_refs":');
        });
        writeFileSync(file, lines.join('\n'));
        const from = pick % steps.length;
        const parent = readParent(project, 'a1', from);
        const rows = VerifiedSteps.open(file).slice(0, from + 1);
        expect(parent.prefix!.toString('utf8')).toBe(rows.map((e) => `${e.bytes.toString('utf8')}\n`).join(''));
        expect(parent.prefixHashes).toEqual(rows.map((e) => e.row.step_hash));
        expect(parent.prefixRefs).toEqual([...new Set(rows.flatMap((e) => e.row.blob_refs))]);
        expect(parent.parentStepHash).toBe(rows[from]!.row.step_hash);
      },
    ),
    { numRuns: 80, seed: 1206 },
  );
});
