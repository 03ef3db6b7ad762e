import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { handleClaudeHook } from '../src/agents/claude';
import { auditDir, queryAudit } from '../src/audit';
import { gitRun } from '../src/git/exec';
import { journalDir, type StepInput } from '../src/journal';
import { DeferredSnapshots, recordStep, type RecordResult } from '../src/record';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { cliInProcess } from './helpers/cli-in-process';
import { git, writeFiles } from './helpers/git';
import { identifiedProject } from './helpers/record';
import { freshDir, tempDir } from './helpers/tmp';

// The hook command (an agent waits on it) starts each step's snapshot before the step is appended: git adds the
// work tree while the row and its audit event are written, and the snapshot's commit, ref and changes follow
// (RecordOptions.deferSnapshots). Every other door takes the snapshot in line. The two ways must record the same
// thing: the same row, snapshot tree, warnings, run journal rows and audit events, in the same order.

const tmp = tempDir('stepchain-deferred-snap-');
const AGENT = 'agent-1';

/** A project in a git repository, with audit on (its key in a state directory of its own). */
function project(name: string): { root: string; env: NodeJS.ProcessEnv } {
  const root = identifiedProject(freshDir(tmp, name));
  const state = path.join(root, '..', `${path.basename(root)}.state`);
  mkdirSync(state, { recursive: true, mode: 0o700 });
  return { root, env: { ...process.env, STEPCHAIN_AUDIT: 'on', XDG_STATE_HOME: state } };
}

/** Applies the same work-tree state to every project given. */
function shape(roots: string[], build: (root: string) => void): void {
  for (const r of roots) build(r);
}

/** One step recorded in line in `a` and deferred in `b`. */
async function recordBoth(
  a: { root: string; env: NodeJS.ProcessEnv },
  b: { root: string; env: NodeJS.ProcessEnv },
  input: StepInput,
): Promise<[RecordResult, RecordResult]> {
  const inline = recordStep(journalDir(a.root, AGENT), input, { root: a.root, env: a.env });
  const queue = new DeferredSnapshots();
  const deferred = recordStep(journalDir(b.root, AGENT), input, { root: b.root, env: b.env, deferSnapshots: queue });
  await queue.settled();
  return [inline, deferred];
}

/** What a result says, its project's path taken out (the two projects differ only in where they are). */
function said(r: RecordResult, root: string) {
  const text = (s: string): string => s.split(root).join('<root>');
  return {
    step_hash: r.row.step_hash,
    tree: r.snapshot?.tree,
    nested: r.snapshot?.nested,
    unopened: r.snapshot?.unopened,
    warnings: r.warnings.map(text),
    notes: r.notes.map(text),
    changes: r.changes === undefined ? undefined : sameAnywhere(r.changes.changes),
  };
}

/** A value as JSON without its commit ids (a snapshot's commit names its time and its parent, its repository's). */
const sameAnywhere = (v: unknown): string =>
  JSON.stringify(v, (k, x: unknown) => (k === 'commit' || k === 'snapshot' ? '<commit>' : x));

/** The run journal's rows (events in order, with their payloads) and the audit log's event types in order. */
function recordedAround(root: string) {
  const run = readRunJournalFile(runJournalFile(root, AGENT));
  const events = run.ok ? run.entries.map((e) => [e.row.event, sameAnywhere(e.row.payload)]) : [];
  const audit = queryAudit(auditDir(root)).map((m) => m.entry.event_type);
  return { events, audit };
}

const snapDirs = (root: string): string[] =>
  readdirSync(path.join(root, '.git')).filter((n) => n.startsWith('stepchain-snap-'));

describe('a deferred snapshot records what an inline one does', () => {
  test('tracked, untracked, ignored, executable, a link, nested repositories with and without a commit; two steps', async () => {
    const a = project('a');
    const b = project('b');
    shape([a.root, b.root], (root) => {
      writeFiles(root, { 'src/app.py': 'print(1)\n', '.gitignore': '.sdd/\nbuild/\n', 'build/out.o': 'x' });
      writeFileSync(path.join(root, 'run.sh'), '#!/bin/sh\n');
      chmodSync(path.join(root, 'run.sh'), 0o755);
      symlinkSync('src/app.py', path.join(root, 'link.py'));
      // A nested repository with no commit (git refuses it: the step says so) and one with a commit (a gitlink).
      mkdirSync(path.join(root, 'fresh'));
      git(path.join(root, 'fresh'), ['init', '-q']);
      const lib = path.join(root, 'lib');
      mkdirSync(lib);
      git(lib, ['init', '-q', '-b', 'main']);
      writeFiles(lib, { 'l.txt': 'l\n' });
      git(lib, ['add', '-A']);
      // Dated: the two projects' gitlinks are the same commit whichever second each is made in.
      const date = '1800000000 +0000';
      git(lib, ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '-q', '-m', 'l'], {
        ...process.env,
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_DATE: date,
      });
    });
    const [i0, d0] = await recordBoth(a, b, { prompt: 'first', ts: 1_800_000_000 });
    expect(d0.snapshot).toBeDefined();
    expect(said(d0, b.root)).toEqual(said(i0, a.root));
    expect(d0.warnings.join('\n')).toMatch(/fresh/);
    shape([a.root, b.root], (root) => {
      writeFiles(root, { 'src/app.py': 'print(2)\n', 'src/new.py': 'n\n' });
      chmodSync(path.join(root, 'run.sh'), 0o644);
    });
    const [i1, d1] = await recordBoth(a, b, { prompt: 'second', ts: 1_800_000_001 });
    expect(said(d1, b.root)).toEqual(said(i1, a.root));
    expect(d1.changes).toBeDefined();
    expect(recordedAround(b.root)).toEqual(recordedAround(a.root));
    expect(recordedAround(b.root).audit).toEqual([
      'replay.step',
      'provenance.step_changes',
      'replay.step',
      'provenance.step_changes',
    ]);
    expect(git(b.root, ['for-each-ref', '--format=%(refname)', 'refs/stepchain/']).split('\n').length).toBe(2);
    expect(snapDirs(b.root)).toEqual([]);
  });

  test('outside a git work tree: no snapshot and the same note, both ways', async () => {
    const a = { root: freshDir(tmp, 'plain'), env: { ...process.env, STEPCHAIN_AUDIT: 'off' } };
    const b = { root: freshDir(tmp, 'plain'), env: a.env };
    const [i, d] = await recordBoth(a, b, { prompt: 'p', ts: 1_800_000_000 });
    expect(d.snapshot).toBeUndefined();
    expect(said(d, b.root)).toEqual(said(i, a.root));
    expect(d.notes).toHaveLength(1);
  });

  test('git that cannot finish (a FIFO where it reads a .gitignore): the step is kept, the same warning, nothing left', async () => {
    const a = project('fifo');
    const b = project('fifo');
    for (const p of [a, b]) {
      mkdirSync(path.join(p.root, 'd'));
      execFileSync('mkfifo', [path.join(p.root, 'd', '.gitignore')]);
      p.env = { ...p.env, STEPCHAIN_SNAPSHOT_TIMEOUT_MS: '1500' };
    }
    const [i, d] = await recordBoth(a, b, { prompt: 'p', ts: 1_800_000_000 });
    expect(d.snapshot).toBeUndefined();
    expect(d.warnings).toHaveLength(1);
    expect(d.warnings[0]).toMatch(/^step 0 recorded, but its worktree snapshot failed: .*no answer in 1\.5 s/);
    expect(said(d, b.root)).toEqual(said(i, a.root));
    expect(snapDirs(b.root)).toEqual([]);
  });

  test('a step the journal refuses: the same error, and the started snapshot leaves nothing behind', async () => {
    const p = project('refused');
    const queue = new DeferredSnapshots();
    const bad: StepInput = { prompt: 'p', inputHash: 'not-a-hash' };
    expect(() => recordStep(journalDir(p.root, AGENT), bad, { root: p.root, env: p.env })).toThrow(/input hash/);
    expect(() =>
      recordStep(journalDir(p.root, AGENT), bad, { root: p.root, env: p.env, deferSnapshots: queue }),
    ).toThrow(/input hash/);
    await queue.settled();
    expect(snapDirs(p.root)).toEqual([]);
    expect(git(p.root, ['for-each-ref', 'refs/stepchain/'])).toBe('');
    expect(existsSync(journalDir(p.root, AGENT))).toBe(false);
  });
});

describe('the hook command defers; its warnings still reach stderr', () => {
  const SID = '21212121-3434-4565-8787-909090909090';
  const payload = (root: string, id: string): string =>
    JSON.stringify({
      session_id: SID,
      transcript_path: path.join(tmp, 'no-transcript.jsonl'),
      cwd: root,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'true' },
      tool_response: { stdout: '', stderr: '' },
      tool_use_id: id,
    });

  test('a nested repository with no commit: named by the command (deferred) as by the hook in line', async () => {
    const a = project('hook');
    const b = project('hook');
    shape([a.root, b.root], (root) => {
      mkdirSync(path.join(root, 'fresh'));
      git(path.join(root, 'fresh'), ['init', '-q']);
    });
    const inline = handleClaudeHook(Buffer.from(payload(a.root, 't1')), {
      env: { ...a.env, CLAUDE_PROJECT_DIR: a.root },
    });
    const r = await cliInProcess(['hook', 'claude'], {
      input: payload(b.root, 't1'),
      env: { ...b.env, CLAUDE_PROJECT_DIR: b.root },
    });
    expect(r.code).toBe(0);
    expect(inline.warnings).toHaveLength(1);
    expect(inline.warnings[0]).toMatch(/holds none of the files of fresh/);
    expect(r.stderr).toBe(`stepchain: hook claude: warning: ${inline.warnings[0]}\n`);
    expect(snapDirs(b.root)).toEqual([]);
    expect(git(b.root, ['for-each-ref', '--format=%(refname)', 'refs/stepchain/'])).toMatch(/\/0$/);
  });
});

test('an asynchronous git run hands what a successful command said on stderr to onStderr', async () => {
  const root = identifiedProject(freshDir(tmp, 'stderr'));
  writeFiles(root, { 'quiet.txt': 'q\n', 'loud.txt': 'l\n' });
  const heard: string[] = [];
  await gitRun(root, ['add', 'quiet.txt'], { onStderr: (t) => heard.push(t) });
  expect(heard).toEqual([]);
  // git warns, exit 0, of a file whose line ends it will change.
  await gitRun(root, ['-c', 'core.autocrlf=true', 'add', 'loud.txt'], { onStderr: (t) => heard.push(t) });
  expect(heard).toHaveLength(1);
  expect(heard[0]).toMatch(/^warning: in the working copy of 'loud\.txt', LF will be replaced by CRLF/);
});
