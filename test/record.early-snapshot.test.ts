import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalDir } from '../src/journal';
import { DeferredSnapshots, recordStep, type RecordResult } from '../src/record';
import { identifiedProject } from './helpers/record';
import { freshDir, tempDir } from './helpers/tmp';

// DeferredSnapshots.startEarly: a snapshot begun before the caller knows its step, for the next step recorded. A
// snapshot begun early holds the work tree as it was then: taken by a step recorded after the work tree changed, the
// step's snapshot missed the change, and so did its step_changes row (real repositories, real git).

const tmp = tempDir('stepchain-early-snap-');

function project(): { root: string; env: NodeJS.ProcessEnv } {
  return { root: identifiedProject(freshDir(tmp, 'p')), env: { ...process.env, STEPCHAIN_AUDIT: 'off' } };
}

const files = (root: string, r: RecordResult): string[] =>
  execFileSync('git', ['ls-tree', '--name-only', r.snapshot!.commit], { cwd: root, encoding: 'utf8' })
    .trim()
    .split('\n');
const changed = (r: RecordResult): string[] | undefined => r.changes?.changes.changes.map((c) => c.path);
/** Once no git process this one started is running (the early snapshot's add has read the work tree). */
async function gitChildrenDone(): Promise<void> {
  const running = (): boolean =>
    readdirSync('/proc')
      .filter((n) => /^[0-9]+$/.test(n))
      .some((n) => {
        try {
          const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          return stat.includes('(git)') && Number(fields[1]) === process.pid;
        } catch {
          return false; // gone meanwhile
        }
      });
  for (let i = 0; i < 200 && running(); i++) await new Promise((r) => setTimeout(r, 25));
}
const leftovers = (root: string): string[] =>
  readdirSync(path.join(root, '.git')).filter((n) => n.startsWith('stepchain-'));

test('a step recorded with another env object: the early snapshot is not kept for a later step', async () => {
  const { root, env } = project();
  const later = new DeferredSnapshots();
  later.startEarly(root, env);
  recordStep(journalDir(root, 'a'), { prompt: 'first' }, { root, env: { ...env }, deferSnapshots: later });
  await gitChildrenDone();
  writeFileSync(path.join(root, 'edited.txt'), 'after the first step\n');
  const second = recordStep(journalDir(root, 'a'), { prompt: 'second' }, { root, env, deferSnapshots: later });
  await later.settled();
  expect(second.warnings).toEqual([]);
  expect(files(root, second)).toContain('edited.txt');
  expect(changed(second)).toEqual(['edited.txt']);
  expect(leftovers(root)).toEqual([]);
});

test('one DeferredSnapshots, two roots: a step of the other root comes first, the early snapshot is not kept', async () => {
  const a = project();
  const b = project();
  const later = new DeferredSnapshots();
  later.startEarly(a.root, a.env);
  writeFileSync(path.join(b.root, 'b.txt'), 'b\n');
  const inB = recordStep(journalDir(b.root, 'x'), { prompt: 'b' }, { ...b, deferSnapshots: later });
  await gitChildrenDone();
  writeFileSync(path.join(a.root, 'a.txt'), 'a\n');
  const inA = recordStep(journalDir(a.root, 'x'), { prompt: 'a' }, { ...a, deferSnapshots: later });
  await later.settled();
  expect(changed(inB)).toEqual(['b.txt']);
  expect(files(a.root, inA)).toContain('a.txt');
  expect(changed(inA)).toEqual(['a.txt']);
  expect(leftovers(a.root)).toEqual([]);
  expect(leftovers(b.root)).toEqual([]);
});

test('a step recorded without a snapshot comes first: the early snapshot is not kept for a later step', async () => {
  const { root, env } = project();
  const later = new DeferredSnapshots();
  later.startEarly(root, env);
  recordStep(journalDir(root, 'a'), { prompt: 'first' }, { root, env, snapshot: false, deferSnapshots: later });
  await gitChildrenDone();
  writeFileSync(path.join(root, 'edited.txt'), 'after the first step\n');
  const second = recordStep(journalDir(root, 'a'), { prompt: 'second' }, { root, env, deferSnapshots: later });
  await later.settled();
  expect(files(root, second)).toContain('edited.txt');
  expect(leftovers(root)).toEqual([]);
});

test('the next step of that root and env takes the early snapshot; one never taken leaves nothing', async () => {
  const { root, env } = project();
  const later = new DeferredSnapshots();
  writeFileSync(path.join(root, 'before.txt'), 'b\n');
  later.startEarly(root, env);
  expect(leftovers(root)).toHaveLength(1);
  const first = recordStep(journalDir(root, 'a'), { prompt: 'first' }, { root, env, deferSnapshots: later });
  // Taken: no second temporary index was begun for the step (beside it, the step's marker until it is written).
  expect(leftovers(root).filter((n) => n.startsWith('stepchain-snap-'))).toHaveLength(1);
  await later.settled();
  expect(changed(first)).toEqual(['before.txt']);
  later.startEarly(root, env);
  await later.settled();
  expect(leftovers(root)).toEqual([]);
  expect(
    execFileSync('git', ['for-each-ref', 'refs/stepchain'], { cwd: root, encoding: 'utf8' }).trim().split('\n'),
  ).toHaveLength(1);
});

test('started early twice before a step: the step takes the later one, not the one begun before the edit', async () => {
  const { root, env } = project();
  const later = new DeferredSnapshots();
  later.startEarly(root, env);
  await gitChildrenDone();
  // No step came of it (nothing paired); the work tree changes; a step is expected again.
  writeFileSync(path.join(root, 'edited.txt'), 'after the first start\n');
  later.startEarly(root, env);
  const step = recordStep(journalDir(root, 'a'), { prompt: 'p' }, { root, env, deferSnapshots: later });
  await later.settled();
  expect(files(root, step)).toContain('edited.txt');
  expect(changed(step)).toEqual(['edited.txt']);
  expect(leftovers(root)).toEqual([]);
});
