import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { diffCommits } from '../src/git/diff';
import { journalDir } from '../src/journal';
import { attribute } from '../src/provenance/attribute';
import { readStepChanges, STEP_CHANGES_EVENT } from '../src/provenance/changes';
import { recordStep } from '../src/record';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { cli } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { git, initRepo, writeFiles } from './helpers/git';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-prov-rec-');
let n = 0;
const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };

function step(root: string, agent: string, options: { snapshot?: boolean } = {}) {
  return recordStep(journalDir(root, agent), { prompt: `step of ${agent}` }, { root, env, ...options });
}

/** The step_changes entries of the run journal `agent`, read back and checked. */
function recorded(root: string, agent: string) {
  const r = readRunJournalFile(runJournalFile(root, agent));
  expect(r.ok).toBe(true);
  return r.entries
    .filter((e) => e.row.event === STEP_CHANGES_EVENT)
    .map((e) => {
      const c = readStepChanges(e.row);
      if (!c.ok) throw new Error(c.reason);
      return c.value;
    });
}

const blobOf = (root: string, rel: string): string => git(root, ['hash-object', rel]);

describe('what each step changed, in the run journal', () => {
  test('each step: the paths added, modified and deleted since the step before (the first: since HEAD), with blob ids; .sdd never', () => {
    const root = initRepo(
      path.join(tmp, `r${n++}`),
      { 'src/a.py': 'a0\n', 'src/b.py': 'b0\n', 'old.txt': 'o\n' },
      {
        ignoreSdd: false,
      },
    );
    // Committed stepchain state at HEAD must never show up as a deletion.
    writeFiles(root, { '.sdd/runs/x/journal.jsonl': '' });
    git(root, ['add', '-A']);
    git(root, ['commit', '-q', '-m', 'sdd']);
    const head = git(root, ['rev-parse', 'HEAD']);

    writeFiles(root, { 'src/a.py': 'a1\n' });
    const s0 = step(root, 'agent-1');
    expect(s0.warnings).toEqual([]);
    writeFiles(root, { 'src/c.py': 'c\n', 'sub/.sdd/x': 'never\n' });
    rmSync(path.join(root, 'old.txt'));
    const s1 = step(root, 'agent-1');
    const s2 = step(root, 'agent-1'); // nothing changed

    const rec = recorded(root, 'agent-1');
    // A step that changed nothing writes nothing.
    expect(s2.changes).toBeUndefined();
    expect(rec.map((c) => [c.seq, c.step_hash])).toEqual([
      [0, s0.row.step_hash],
      [1, s1.row.step_hash],
    ]);
    expect(rec[0]!.since).toEqual({ seq: null, commit: head });
    expect(rec[0]!.changes).toEqual([{ path: 'src/a.py', blob: blobOf(root, 'src/a.py'), mode: '100644' }]);
    expect(rec[1]!.since).toEqual({ seq: 0, commit: null });
    expect(rec[1]!.changes).toEqual([
      { path: 'old.txt', blob: null, mode: null },
      { path: 'src/c.py', blob: blobOf(root, 'src/c.py'), mode: '100644' },
    ]);
    expect(rec[1]!.snapshot).toBe(s1.snapshot!.commit);
    expect(s1.changes?.changes.changes).toHaveLength(2);
  });

  test('a step after one without a snapshot is counted from the start commit, and says so; --no-snapshot records no changes', () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': '0\n' });
    writeFiles(root, { 'a.txt': '1\n' });
    step(root, 'ag', { snapshot: false });
    writeFiles(root, { 'b.txt': 'b\n' });
    step(root, 'ag');
    const rec = recorded(root, 'ag');
    expect(rec).toHaveLength(1);
    expect(rec[0]!.seq).toBe(1);
    expect(rec[0]!.since).toEqual({ seq: null, commit: git(root, ['rev-parse', 'HEAD']) });
    expect(rec[0]!.changes.map((c) => c.path)).toEqual(['a.txt', 'b.txt']);
  });

  test('modes are recorded: an executable bit and a symbolic link', () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'run.sh': 'echo\n' });
    git(root, ['update-index', '--chmod=+x', 'run.sh']); // index only: the work tree decides
    chmodSync(path.join(root, 'run.sh'), 0o755);
    symlinkSync('run.sh', path.join(root, 'link'));
    step(root, 'ag');
    const rec = recorded(root, 'ag');
    expect(rec[0]!.changes).toEqual([
      { path: 'link', blob: expect.stringMatching(/^[0-9a-f]{40}$/), mode: '120000' },
      { path: 'run.sh', blob: blobOf(root, 'run.sh'), mode: '100755' },
    ]);
  });

  test('outside git nothing is recorded (no snapshot, no run journal)', () => {
    const root = path.join(tmp, `plain${n++}`);
    mkdirSync(root);
    const r = step(root, 'ag');
    expect(r.changes).toBeUndefined();
    expect(existsSync(runJournalFile(root, 'ag'))).toBe(false);
  });
});

describe('a step’s changed files in show, replay and the HTML report', () => {
  test('show lists the files, replay lists them per step, the report embeds them with their step_hash; a broken run journal shows none', async () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'src/a.py': 'a0\n', 'gone.txt': 'g\n' });
    writeFiles(root, { 'src/a.py': 'a1\n' });
    rmSync(path.join(root, 'gone.txt'));
    const s0 = cli(['append', 'ag', '--prompt', 'edit', '--json'], { cwd: root });
    expect(s0.code).toBe(0);
    cli(['append', 'ag', '--prompt', 'read only'], { cwd: root });
    const blob = git(root, ['hash-object', 'src/a.py']);

    // The steps are appended by real processes; show, replay and report through runCli in this process (what they
    // display is the point).
    const sc = (args: string[]) => cliInProcess(args, { cwd: root });
    const show = await sc(['show', 'ag', '0']);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`files changed (from ${runJournalFile(root, 'ag')}):`);
    expect(show.stdout).toContain('  deleted gone.txt');
    expect(show.stdout).toContain(`  wrote   src/a.py  ${blob} 100644`);
    const doc = JSON.parse((await sc(['show', 'ag', '0', '--json'])).stdout) as { changes?: unknown };
    expect(doc.changes).toEqual([
      { path: 'gone.txt', blob: null, mode: null },
      { path: 'src/a.py', blob, mode: '100644' },
    ]);
    expect((JSON.parse((await sc(['show', 'ag', '1', '--json'])).stdout) as { changes?: unknown }).changes).toBe(
      undefined,
    );

    const replay = await sc(['replay', 'ag']);
    expect(replay.stdout).toContain('  step 0: -gone.txt, src/a.py');
    const rdoc = JSON.parse((await sc(['replay', 'ag', '--json'])).stdout) as { changes?: unknown };
    expect(rdoc.changes).toEqual([{ seq: 0, files: doc.changes }]);

    const out = path.join(root, 'report.html');
    expect((await sc(['report', 'ag', '-o', out])).code).toBe(0);
    const html = readFileSync(out, 'utf8');
    const data = /<script type="application\/json" id="stepchain-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
    const stepHash = (JSON.parse(s0.stdout) as { step_hash: string }).step_hash;
    expect((JSON.parse(data) as { step_files?: unknown }).step_files).toEqual([
      { seq: 0, step_hash: stepHash, files: doc.changes },
    ]);

    // A run journal whose chain is broken: nothing is shown as changed.
    const file = runJournalFile(root, 'ag');
    writeFileSync(file, readFileSync(file, 'utf8').replace('gone.txt', 'other.txt'));
    expect((await sc(['show', 'ag', '0'])).stdout).not.toContain('files changed');
  });
});

describe('a path that is not UTF-8', () => {
  test('is never recorded, and a pull request adding one shows it unrecorded (never left out)', async () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': '0\n' });
    const base = git(root, ['rev-parse', 'HEAD']);
    writeFileSync(Buffer.from(`${root}/bad\xff.txt`, 'latin1'), 'x\n');
    writeFiles(root, { 'a.txt': '1\n' });
    const r = step(root, 'ag');
    expect(r.changes?.changes.changes.map((c) => c.path)).toEqual(['a.txt']);
    git(root, ['add', '-A']);
    git(root, ['commit', '-q', '-m', 'both']);
    const pr = await diffCommits(root, base, 'HEAD');
    expect(pr.map((c) => c.path)).toEqual(['a.txt', 'bad\uFFFD.txt']);
    const files = attribute(pr, [{ ...r.changes!.changes, ts: 1 }]);
    expect(files.map((f) => [f.path, f.status])).toEqual([
      ['a.txt', 'recorded'],
      ['bad\uFFFD.txt', 'unrecorded'],
    ]);
  });
});
