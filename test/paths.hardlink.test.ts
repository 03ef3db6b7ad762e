/**
 * A file under `.sdd/` that has a second name (a hard link to a file of the user's, planted by whatever can write the
 * project: an agent in its worktree) is never written through: O_NOFOLLOW stops a symbolic link, not a second name.
 * Every in-place writer is covered: an append (journal, audit day file), a torn tail's repair, a lost newline's
 * repair, a checkpoint's overwrite (replaced instead), the window index's segment append (a cache: skipped) and a
 * step marker's seq (skipped). In every case the user's file keeps its bytes.
 */
import {
  appendFileSync,
  cpSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { windowLinesFor } from '../src/agents/window-index';
import { auditDir } from '../src/audit/layout';
import { StepMarker } from '../src/git/step-markers';
import { journalFile } from '../src/journal';
import { expectNoStack, type CliResult } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { initRepo } from './helpers/git';
import { tempDir } from './helpers/tmp';
import { lineTags, taggedLine } from './helpers/window-index';

jest.setTimeout(120_000);

const dir = tempDir('stepchain-hardlink-');
const ENV = {
  STEPCHAIN_AUDIT: 'on',
  STEPCHAIN_AUDIT_KEY_PATH: path.join(dir, 'audit.key'),
  STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(dir, 'checkpoint.key'),
};
let n = 0;
let template: string | undefined;

const run = (args: string[], cwd: string, input = ''): Promise<CliResult> =>
  cliInProcess(args, { cwd, input, env: ENV });

/** A project with one recorded step of agent a1 (and its audit day file). */
async function project(): Promise<string> {
  if (template === undefined) {
    template = path.join(dir, 'template');
    initRepo(template, { 'README.md': 'x\n' });
    const r = await run(['append', 'a1', '--prompt', 'p', '--input', '-', '--no-snapshot'], template, 'the input');
    expect(r.code).toBe(0);
  }
  const root = path.join(dir, `p${n++}`);
  cpSync(template, root, { recursive: true, verbatimSymlinks: true });
  return root;
}

/** Gives `file` a second name outside the project (the user's file); returns how to check it kept its bytes. */
function secondName(file: string): { other: string; kept: () => void } {
  const other = path.join(dir, `users-file-${n++}`);
  linkSync(file, other);
  const bytes = readFileSync(other);
  return { other, kept: () => expect(readFileSync(other)).toEqual(bytes) };
}

/** Refused with one line naming `file` and saying why, exit 2, no stack. */
function refusedHardLink(r: CliResult, file: string): void {
  expectNoStack(r);
  expect(r.code).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(file);
  expect(lines[0]).toContain('hard links');
}

const appendArgs = ['append', 'a1', '--prompt', 'q', '--input', '-', '--no-snapshot'];

test('a journal with a second name: the append is refused, naming it; the other name keeps its bytes', async () => {
  const root = await project();
  const journal = journalFile(root, 'a1');
  const { kept } = secondName(journal);
  refusedHardLink(await run(appendArgs, root, 'agent text'), journal);
  kept();
});

test('an audit day file with a second name: the event is not written through it (the step is, with a warning naming it)', async () => {
  const root = await project();
  const audit = auditDir(root);
  const day = readdirSync(audit).find((f) => f.endsWith('.jsonl'))!;
  // Today's file is the one appended to: give it today's name if the template was made on another day.
  const today = `${new Date().toISOString().slice(0, 10)}.jsonl`;
  if (day !== today) cpSync(path.join(audit, day), path.join(audit, today));
  const dayFile = path.join(audit, today);
  const { kept } = secondName(dayFile);
  const r = await run(appendArgs, root, 'agent text');
  expectNoStack(r);
  // The audit chain is best-effort beside a step (docs/runs-audit.md): the step is recorded, the warning names the file.
  expect(r.code).toBe(0);
  expect(r.stderr).toContain('audit chain was NOT extended');
  expect(r.stderr).toContain(`${dayFile}: cannot append: it has 2 hard links`);
  kept();
});

test('a torn tail or a lost newline in a journal with a second name: not repaired through it', async () => {
  for (const tail of ['{"seq": 2, "torn', '']) {
    const root = await project();
    const journal = journalFile(root, 'a1');
    if (tail === '') {
      // A complete last line whose newline was lost: cut the file by its last byte.
      const b = readFileSync(journal);
      writeFileSync(journal, b.subarray(0, b.length - 1));
    } else appendFileSync(journal, tail);
    const { kept } = secondName(journal);
    refusedHardLink(await run(appendArgs, root, 'agent text'), journal);
    kept();
  }
});

test('a checkpoint with a second name: replaced by a file of its own, the other name keeps its bytes', async () => {
  const root = await project();
  const ckpt = `${journalFile(root, 'a1')}.checkpoint`;
  const users = path.join(dir, `users-file-${n++}`);
  writeFileSync(users, 'the user’s own file\n');
  rmSync(ckpt, { force: true });
  linkSync(users, ckpt);
  const r = await run(appendArgs, root, 'agent text');
  expectNoStack(r);
  expect(r.code).toBe(0);
  expect(readFileSync(users, 'utf8')).toBe('the user’s own file\n');
  expect(statSync(ckpt).nlink).toBe(1);
  expect((await run(['verify', 'a1'], root)).code).toBe(0);
});

test('a window index with a second name: no segment is appended through it; the answer is the same', () => {
  const f = path.join(dir, `s${n}.jsonl`);
  const idx = path.join(dir, `idx${n++}`, 'session.index');
  const key = Buffer.alloc(32, 7);
  const ask = () => windowLinesFor(f, 16 << 20, lineTags, { file: idx, key }, ['k1'])!;
  writeFileSync(f, '');
  const add = (a: number) =>
    appendFileSync(f, [0, 1, 2].map((j) => `${taggedLine(`i${a}.${j}`, `k${j}`, 10)}\n`).join(''));
  add(0);
  ask();
  add(1);
  ask(); // the index exists and has been appended to once
  const { kept } = secondName(idx);
  const before = statSync(idx).size;
  add(2);
  const answer = ask();
  kept();
  expect(answer.filter((l) => l.includes('"k1"'))).toHaveLength(3);
  expect(before).toBeGreaterThan(0);
});

test('a step marker with a second name: its seq is not written through it', () => {
  const gitDir = path.join(dir, `git${n++}`);
  mkdirSync(gitDir);
  const marker = StepMarker.open(gitDir, 'refs/stepchain/snapshots/a1/k')!;
  const file = path.join(
    gitDir,
    readdirSync(gitDir).find((f) => f.startsWith('stepchain-step-'))!,
  );
  const users = path.join(dir, `users-file-${n++}`);
  writeFileSync(users, 'the user’s own file\n');
  rmSync(file);
  linkSync(users, file);
  marker.appended(3);
  expect(readFileSync(users, 'utf8')).toBe('the user’s own file\n');
});
