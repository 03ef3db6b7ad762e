/**
 * The cases (docs/provenance.md), from a fresh clone, in the built CLI: a branch where an agent's
 * recorded steps wrote some files and a person others; the check attributes each changed file to the verified
 * step that produced exactly its content, or marks it unrecorded.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runJournalFile } from '../src/runs';
import { pullRequestEvent, requireBuiltAction, runAction } from './helpers/action';
import { runInProcess } from './helpers/action-in-process';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { git, initRepo, writeFiles } from './helpers/git';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-prov-check-');
let n = 0;

interface Doc {
  ok: boolean;
  faults: { path: string; kind: string; severity: string; message: string }[];
  items: { kind: string; id: string; ok: boolean }[];
  provenance: {
    policy: string;
    files: { path: string; status: string; agent: string | null; seq: number | null; step_hash: string | null }[];
    recorded: number;
    unrecorded: number;
  };
}

/**
 * One recorded step by the CLI, as an agent's hook or wrapper would: the files are already written. In this process
 * (`cliInProcess`, the code the built CLI bundles): the steps are the setup, the attribution is the subject; the
 * built CLI runs as a process in the first test's text check.
 */
async function step(root: string, agent: string, files: Record<string, string>): Promise<string> {
  writeFiles(root, files);
  const r = await cliInProcess(['append', agent, '--prompt', `write ${Object.keys(files).join(', ')}`, '--json'], {
    cwd: root,
  });
  expect([r.code, r.stderr]).toEqual([0, '']);
  return (JSON.parse(r.stdout) as { step_hash: string }).step_hash;
}

/** The journals, as a person commits them with the agent's work (never the CAS or checkpoints). */
function commitRun(root: string, message: string): void {
  git(root, ['add', '--', 'src', '.sdd/runtime/journal', '.sdd/runs/*/journal.jsonl']);
  git(root, ['commit', '-q', '-m', message]);
}

/**
 * The base commit on main; on `feature` agent-1 edits src/a.py (step 0), src/b.py (step 1), creates src/c.py
 * (step 2), the journals committed. Built once for the file (`beforeAll`); each scenario works on a copy of it
 * (.git and .sdd with it, the CAS and checkpoints a further step needs), as each once built the same repository.
 */
let agentRun: { repo: string; hashes: string[] } | undefined;
beforeAll(async () => {
  const repo = initRepo(
    path.join(tmp, 'agent-run'),
    { 'src/a.py': 'a = 0\n', 'src/b.py': 'b = 0\n' },
    {
      ignoreSdd: false,
    },
  );
  git(repo, ['checkout', '-q', '-b', 'feature']);
  const hashes = [
    await step(repo, 'agent-1', { 'src/a.py': 'a = 1\n' }),
    await step(repo, 'agent-1', { 'src/b.py': 'b = 1\n' }),
    await step(repo, 'agent-1', { 'src/c.py': 'c = 1\n' }),
  ];
  commitRun(repo, 'agent-1 run');
  agentRun = { repo, hashes };
});

/**
 * A copy of the agent's run; `after` runs on the branch after the journals are committed. Returns a fresh clone on
 * `feature`.
 */
async function scenario(
  after: (repo: string) => void | Promise<void> = () => {},
): Promise<{ clone: string; hashes: string[] }> {
  const repo = path.join(tmp, `origin${n}`);
  cpSync(agentRun!.repo, repo, { recursive: true });
  await after(repo);
  git(repo, ['checkout', '-q', 'main']);
  const clone = path.join(tmp, `clone${n++}`);
  git(tmp, ['clone', '-q', repo, clone]);
  git(clone, ['checkout', '-q', 'feature']);
  return { clone, hashes: agentRun!.hashes };
}

/** `check` in this process (the code the built CLI bundles): what it attributes is the subject here. */
async function check(clone: string, policy: string): Promise<{ code: number; doc: Doc; stderr: string }> {
  const r = await cliInProcess(['check', '--base', 'main', '--provenance', policy, '--json'], { cwd: clone });
  expectNoStack(r);
  return { code: r.code, doc: JSON.parse(r.stdout) as Doc, stderr: r.stderr };
}

const byPath = (d: Doc) => Object.fromEntries(d.provenance.files.map((f) => [f.path, f]));

describe('check --provenance from a fresh clone', () => {
  test('a person edits b.py again and adds d.py: a.py and c.py are the agent steps 0 and 2, b.py and d.py unrecorded; error fails, warn passes with the same report', async () => {
    const { clone, hashes } = await scenario((repo) => {
      writeFiles(repo, { 'src/b.py': 'b = 2  # by hand\n', 'src/d.py': 'd = 1\n' });
      git(repo, ['add', '-A', 'src']);
      git(repo, ['commit', '-q', '-m', 'by hand']);
    });
    const e = await check(clone, 'error');
    expect(e.code).toBe(1);
    expect(e.doc.ok).toBe(false);
    expect(byPath(e.doc)).toEqual({
      'src/a.py': expect.objectContaining({ status: 'recorded', agent: 'agent-1', seq: 0, step_hash: hashes[0] }),
      'src/b.py': expect.objectContaining({ status: 'unrecorded', agent: null, seq: null, step_hash: null }),
      'src/c.py': expect.objectContaining({ status: 'recorded', agent: 'agent-1', seq: 2, step_hash: hashes[2] }),
      'src/d.py': expect.objectContaining({ status: 'unrecorded', agent: null, seq: null, step_hash: null }),
    });
    expect([e.doc.provenance.policy, e.doc.provenance.recorded, e.doc.provenance.unrecorded]).toEqual(['error', 2, 2]);
    expect(e.doc.faults.filter((f) => f.kind === 'unrecorded_change')).toEqual([
      expect.objectContaining({ path: 'src/b.py', severity: 'error' }),
      expect.objectContaining({ path: 'src/d.py', severity: 'error' }),
    ]);
    // The journals themselves hold: only provenance failed the check.
    expect(e.doc.items.every((i) => i.ok)).toBe(true);

    const w = await check(clone, 'warn');
    expect(w.code).toBe(0);
    expect(w.doc.ok).toBe(true);
    expect(w.doc.provenance.files).toEqual(e.doc.provenance.files);
    expect(w.doc.faults.filter((f) => f.kind === 'unrecorded_change').map((f) => f.severity)).toEqual([
      'warning',
      'warning',
    ]);

    // Lines too: unrecorded first, then the steps. The built CLI as a process: its exit code and streams.
    const text = cli(['check', '--base', 'main', '--provenance', 'error'], { cwd: clone });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('UNRECORDED src/b.py');
    expect(text.stdout).toContain(`recorded   src/a.py: agent-1 step 0 (${hashes[0]})`);
    expect(text.stdout.indexOf('UNRECORDED src/d.py')).toBeLessThan(text.stdout.indexOf('recorded   src/a.py'));
    expect(text.stdout).toContain('provenance (error): 2 recorded, 2 unrecorded of 4 changed files');
    expect(text.stderr).toContain('src/d.py: this content was produced by no verified recorded step');
    // The path once: it is the fault's own, printed beside its message.
    expect(text.stderr).not.toContain('src/d.py: src/d.py');
    expect(e.doc.faults.find((f) => f.path === 'src/d.py')!.message).toMatch(/^this content was produced/);

    const off = await cliInProcess(['check', '--base', 'main', '--provenance', 'off', '--json'], { cwd: clone });
    expect(off.code).toBe(0);
    expect((JSON.parse(off.stdout) as Partial<Doc>).provenance).toBeUndefined();
    const bad = await cliInProcess(['check', '--base', 'main', '--provenance', 'strict'], { cwd: clone });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--provenance: "strict" is not off, warn or error');
  });

  test('a branch made only by the recorded run passes error; a deletion is the step that deleted it', async () => {
    const deleted: string[] = [];
    const { clone, hashes } = await scenario(async (repo) => {
      rmSync(path.join(repo, 'src', 'b.py'));
      deleted.push(await step(repo, 'agent-1', {}));
      commitRun(repo, 'agent-1 deletes b.py');
    });
    const e = await check(clone, 'error');
    expect(e.code).toBe(0);
    expect(byPath(e.doc)).toEqual({
      'src/a.py': expect.objectContaining({ status: 'recorded', seq: 0, step_hash: hashes[0] }),
      'src/b.py': expect.objectContaining({ status: 'recorded', seq: 3, step_hash: deleted[0] }),
      'src/c.py': expect.objectContaining({ status: 'recorded', seq: 2, step_hash: hashes[2] }),
    });
  });

  test("a branch that carries the agent's journals but different code: the rewritten a.py is unrecorded", async () => {
    const { clone } = await scenario((repo) => {
      writeFiles(repo, { 'src/a.py': 'a = 666\n' });
      git(repo, ['commit', '-q', '-am', 'rewrite a.py']);
    });
    const e = await check(clone, 'error');
    expect(e.code).toBe(1);
    expect(byPath(e.doc)['src/a.py']).toEqual(expect.objectContaining({ status: 'unrecorded' }));
    expect(e.doc.provenance.unrecorded).toBe(1);
  });

  test('editing the recorded changes in the committed run journal breaks its chain and attributes nothing', async () => {
    const { clone } = await scenario((repo) => {
      // Claim the person's b.py for step 1: the blob id in the record is replaced, nothing else.
      writeFiles(repo, { 'src/b.py': 'b = 2  # by hand\n' });
      const forged = git(repo, ['hash-object', 'src/b.py']);
      const recordedBlob = git(repo, ['rev-parse', 'HEAD:src/b.py']);
      const file = runJournalFile(repo, 'agent-1');
      writeFileSync(file, readFileSync(file, 'utf8').replace(recordedBlob, forged));
      git(repo, ['add', '-A', 'src', file]);
      git(repo, ['commit', '-q', '-m', 'forge']);
    });
    const w = await check(clone, 'warn');
    expect(w.code).toBe(1); // the run journal fails the check
    expect(w.doc.items.find((i) => i.kind === 'run')?.ok).toBe(false);
    expect(w.doc.provenance.recorded).toBe(0);
    expect(w.doc.provenance.files.map((f) => f.status)).toEqual(['unrecorded', 'unrecorded', 'unrecorded']);
    expect(w.doc.faults.some((f) => f.kind === 'payload_hash_mismatch')).toBe(true);
  });
});

describe('the Action, run as a runner runs it, on the pull request from a fresh clone', () => {
  beforeAll(() => requireBuiltAction());

  test('provenance: error fails with an error annotation per unrecorded file; the default (warn) passes with warnings; the summary lists unrecorded files first', async () => {
    const { clone, hashes } = await scenario((repo) => {
      writeFiles(repo, { 'src/b.py': 'b = 2  # by hand\n', 'src/d.py': 'd = 1\n' });
      git(repo, ['add', '-A', 'src']);
      git(repo, ['commit', '-q', '-m', 'by hand']);
    });
    const event = pullRequestEvent(git(clone, ['rev-parse', 'main']), git(clone, ['rev-parse', 'HEAD']));
    const scratch = path.join(tmp, `scratch${n++}`);
    const e = await runAction({ workspace: clone, scratch, event, inputs: { provenance: 'error' } });
    expect(e.code).toBe(1);
    const unrecorded = (level: string) =>
      e.annotations.filter((a) => a.level === level && a.title === 'stepchain: unrecorded_change').map((a) => a.file);
    expect(unrecorded('error')).toEqual(['src/b.py', 'src/d.py']);
    const doc = JSON.parse(readFileSync(e.outputs['report']!, 'utf8')) as Doc;
    expect(byPath(doc)['src/a.py']).toEqual(
      expect.objectContaining({ status: 'recorded', agent: 'agent-1', seq: 0, step_hash: hashes[0] }),
    );
    expect([doc.provenance.policy, doc.provenance.recorded, doc.provenance.unrecorded]).toEqual(['error', 2, 2]);
    const table = e.summary.slice(e.summary.indexOf('### Provenance'));
    expect(table).toContain('2 of 4 changed files produced by a verified recorded step, 2 unrecorded');
    const rows = table.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| |'));
    expect(rows.map((r) => /<code>([^<]+)<\/code>/.exec(r)?.[1])).toEqual([
      'src/b.py',
      'src/d.py',
      'src/a.py',
      'src/c.py',
    ]);
    expect(rows[2]).toContain(`| agent-1 | 0 | <code>${hashes[0]!.slice(0, 12)}</code> |`);

    // The default policy's verdict: the Action's run() in this process (the bundle ran above).
    const w = await runInProcess({ workspace: clone, scratch, event });
    expect(w.code).toBe(0);
    expect(
      w.annotations.filter((a) => a.title === 'stepchain: unrecorded_change').map((a) => [a.level, a.file]),
    ).toEqual([
      ['warning', 'src/b.py'],
      ['warning', 'src/d.py'],
    ]);
    expect((JSON.parse(readFileSync(w.outputs['report']!, 'utf8')) as Doc).provenance.files).toEqual(
      doc.provenance.files,
    );
  });
});

describe('a rename is two changes: its source deleted, its target written', () => {
  test("a file deleted by hand hides behind no recorded step's new file that git pairs it with", async () => {
    const made: string[] = [];
    const { clone } = await scenario(async (repo) => {
      // The agent writes src/copy.py with what src/a.py held at the base; a person then deletes src/a.py by hand.
      made.push(await step(repo, 'agent-1', { 'src/copy.py': 'a = 0\n' }));
      commitRun(repo, 'agent-1 writes copy.py');
      git(repo, ['rm', '-q', 'src/a.py']);
      git(repo, ['commit', '-q', '-m', 'delete a.py by hand']);
    });
    const e = await check(clone, 'error');
    expect(e.code).toBe(1);
    const copy = e.doc.provenance.files.find((f) => f.path === 'src/copy.py');
    expect(copy).toEqual(expect.objectContaining({ status: 'unrecorded', from: 'src/a.py' }));
    const fault = e.doc.faults.find((f) => f.kind === 'unrecorded_change' && f.path === 'src/copy.py');
    expect(fault?.message).toContain('src/a.py');

    // The same rename made by the agent's own step (the deletion recorded too) is recorded.
    const { clone: byAgent } = await scenario(async (repo) => {
      rmSync(path.join(repo, 'src', 'a.py'));
      made.push(await step(repo, 'agent-1', { 'src/copy.py': 'a = 0\n' }));
      commitRun(repo, 'agent-1 renames a.py');
    });
    const ok = await check(byAgent, 'error');
    expect(ok.code).toBe(0);
    expect(ok.doc.provenance.files.find((f) => f.path === 'src/copy.py')).toEqual(
      expect.objectContaining({ status: 'recorded', step_hash: made[1], from: 'src/a.py' }),
    );
  });
});
