import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalDir, type StepInput } from '../src/journal';
import { DeferredSnapshots, recordStep } from '../src/record';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { identifiedProject } from './helpers/record';
import { freshDir, tempDir } from './helpers/tmp';

// Several steps recorded by one process with one queue (Gemini CLI's hook flushes its pending calls so): each
// step's changes are told against the previous step's snapshot, so the snapshots must be finished in the order of
// their steps, whichever git add ends first. Node reaps the children that have exited last-started first: without
// the order, every step of a flush was told against the start commit and claimed the work tree's changes again.

const tmp = tempDir('stepchain-deferred-order-');
const AGENT = 'agent-1';

/** A directory holding a `git` that takes a second over an `add`, then runs the real one. */
function slowGitDir(): string {
  const bin = freshDir(tmp, 'bin');
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(
    path.join(bin, 'git'),
    `#!/bin/sh\nfor a in "$@"; do [ "$a" = add ] && sleep 1; done\nexec ${JSON.stringify(real)} "$@"\n`,
  );
  chmodSync(path.join(bin, 'git'), 0o755);
  return bin;
}

/** The seqs of the run journal's step_changes rows, in order. */
function stepChangesSeqs(root: string): unknown[] {
  const run = readRunJournalFile(runJournalFile(root, AGENT));
  if (!run.ok) return [];
  return run.entries.filter((e) => e.row.event === 'step_changes').map((e) => e.row.payload.get('seq'));
}

test('two steps of one queue: the second is told against the first, as in line, whichever add ends first', async () => {
  const steps: StepInput[] = [
    { prompt: 'first', ts: 1_800_000_000 },
    { prompt: 'second', ts: 1_800_000_001 },
  ];
  const env = (root: string): NodeJS.ProcessEnv => ({
    ...process.env,
    STEPCHAIN_AUDIT: 'off',
    XDG_STATE_HOME: path.join(root, '..', 'state'),
  });
  const a = identifiedProject(freshDir(tmp, 'inline'));
  const b = identifiedProject(freshDir(tmp, 'deferred'));
  mkdirSync(path.join(b, '..', 'state'), { recursive: true });
  for (const root of [a, b]) writeFileSync(path.join(root, 'new.txt'), 'n\n');
  for (const s of steps) recordStep(journalDir(a, AGENT), s, { root: a, env: env(a) });
  const queue = new DeferredSnapshots();
  // The first step's add ends a second after the second's.
  const slow = { ...env(b), PATH: `${slowGitDir()}${path.delimiter}${process.env.PATH ?? ''}` };
  const d0 = recordStep(journalDir(b, AGENT), steps[0]!, { root: b, env: slow, deferSnapshots: queue });
  const d1 = recordStep(journalDir(b, AGENT), steps[1]!, { root: b, env: env(b), deferSnapshots: queue });
  await queue.settled();
  expect(d0.warnings).toEqual([]);
  expect(d1.warnings).toEqual([]);
  expect(d0.changes?.changes.changes.map((c) => c.path)).toEqual(['new.txt']);
  // The second step changed nothing: no row (told against the start commit, it claimed new.txt again).
  expect(d1.changes).toBeUndefined();
  expect(d0.changes?.changes.since.seq).toBeNull();
  expect(stepChangesSeqs(a)).toEqual([0]);
  expect(stepChangesSeqs(b)).toEqual([0]);
});
