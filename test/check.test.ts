/** src/check: the library the Action (and the CLI) use for PR checks. In-process, real files and git. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  checkAppendOnly,
  checkWorkspace,
  findFiles,
  forkTree,
  forkTreeFromSessions,
  forkTreeMermaid,
  globSet,
  listFilesAtCommit,
  matchesGlob,
  readFilesAtCommit,
  renderCheckMarkdown,
} from '../src/check';
import { createFork } from '../src/git';
import { Journal, journalFile } from '../src/journal';
import { recordRunEvent } from '../src/runs';
import { commitAll, git, initRepo } from './helpers/action';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-check-');

function journalBytes(dir: string, steps: number, tag = 'a'): Buffer {
  const j = Journal.open(dir, { durability: 'none' });
  j.appendMany(Array.from({ length: steps }, (_, i) => ({ prompt: `${tag}${i}`, ts: 1_700_000_000 + i })));
  return require('node:fs').readFileSync(j.file) as Buffer;
}

describe('checkAppendOnly', () => {
  const base = journalBytes(path.join(tmp, 'j1'), 4);
  const lines = base.toString().split('\n').slice(0, -1);

  test('unchanged and appended hold', () => {
    expect(checkAppendOnly(base, base)).toMatchObject({ ok: true, kind: 'unchanged', baseRows: 4, appended: 0 });
    const grown = Buffer.concat([base, Buffer.from(`${lines[0]}\n`)]);
    expect(checkAppendOnly(base, grown)).toMatchObject({ ok: true, kind: 'appended', appended: 1, headRows: 5 });
  });

  test('a rewrite names the first changed seq and its line', () => {
    const head = Buffer.from([lines[0], lines[1], lines[2]!.replace('"a2"', '"b2"'), lines[3], ''].join('\n'));
    expect(checkAppendOnly(base, head)).toMatchObject({ ok: false, kind: 'rewritten', firstChangedSeq: 2, line: 3 });
    // A change in the very first byte.
    expect(checkAppendOnly(base, Buffer.from(` ${base.toString().slice(1)}`))).toMatchObject({
      kind: 'rewritten',
      firstChangedSeq: 0,
      line: 1,
    });
    // The last byte of the base (its final newline) changed.
    const lastNl = Buffer.from(base);
    lastNl[lastNl.length - 1] = 0x20;
    expect(checkAppendOnly(base, lastNl)).toMatchObject({ kind: 'rewritten', firstChangedSeq: 3, line: 4 });
  });

  test('truncation and deletion', () => {
    const head = Buffer.from(`${lines.slice(0, 2).join('\n')}\n`);
    expect(checkAppendOnly(base, head)).toMatchObject({ ok: false, kind: 'truncated', firstChangedSeq: 2, line: 2 });
    expect(checkAppendOnly(base, Buffer.alloc(0))).toMatchObject({
      ok: false,
      kind: 'truncated',
      firstChangedSeq: 0,
      line: null,
    });
    expect(checkAppendOnly(base, undefined)).toMatchObject({ ok: false, kind: 'deleted', baseRows: 4 });
  });

  test("a base's torn (unterminated) tail is not a row, so a repaired head still holds", () => {
    const torn = Buffer.concat([base, Buffer.from('{"blob_re')]);
    const repaired = Buffer.concat([base, Buffer.from(`${lines[0]}\n`)]);
    expect(checkAppendOnly(torn, repaired)).toMatchObject({ ok: true, kind: 'appended', baseRows: 4 });
  });
});

describe('globs', () => {
  test('segments, **, braces, classes and exclusions', () => {
    const set = globSet('.sdd/runtime/journal/*/000000.jsonl');
    expect(matchesGlob(set, '.sdd/runtime/journal/alice/000000.jsonl')).toBe(true);
    expect(matchesGlob(set, '.sdd/runtime/journal/a/b/000000.jsonl')).toBe(false);
    const r = globSet('**/*.receipt.{tar,tar.gz}\n!vendor/**');
    expect(matchesGlob(r, 'x.receipt.tar')).toBe(true);
    expect(matchesGlob(r, 'a/b/x.receipt.tar.gz')).toBe(true);
    expect(matchesGlob(r, 'vendor/x.receipt.tar')).toBe(false);
    expect(matchesGlob(r, 'x.receipt.tarx')).toBe(false);
    expect(matchesGlob(globSet('a/[bc]?.txt, ./d/**'), 'a/cx.txt')).toBe(true);
    expect(matchesGlob(globSet('a/[bc]?.txt, ./d/**'), 'd/e/f')).toBe(true);
    expect(globSet('x, y\nz').patterns).toEqual(['x', 'y', 'z']);
  });

  test('findFiles walks from the literal prefix and skips .git and fork worktrees', () => {
    const root = path.join(tmp, 'walk');
    for (const f of [
      'a/x.receipt.tar',
      'a/b/y.receipt.tar',
      '.git/z.receipt.tar',
      '.sdd/worktrees/f/w.receipt.tar',
      'node_modules/p/q.receipt.tar',
    ]) {
      mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      writeFileSync(path.join(root, f), '');
    }
    expect(findFiles(root, globSet('**/*.receipt.tar'))).toEqual(['a/b/y.receipt.tar', 'a/x.receipt.tar']);
    expect(findFiles(root, globSet('a/*.receipt.tar'))).toEqual(['a/x.receipt.tar']);
    expect(findFiles(root, globSet('a/x.receipt.tar, ./a/b/y.receipt.tar, a/none.tar'))).toEqual([
      'a/b/y.receipt.tar',
      'a/x.receipt.tar',
    ]);
    expect(() => globSet('../outside/*.tar')).toThrow(/inside the repository/);
    expect(() => globSet('/etc/*')).toThrow(/relative to the repository/);
  });
});

describe('reading a base commit', () => {
  test('lists and reads the matching files of a commit in one git process', async () => {
    const dir = initRepo(path.join(tmp, 'repo'));
    journalBytes(path.dirname(journalFile(dir, 'alice')), 2);
    journalBytes(path.dirname(journalFile(dir, 'bob')), 1);
    writeFileSync(path.join(dir, 'other.txt'), 'x');
    const base = commitAll(dir, 'base');
    const set = globSet('.sdd/runtime/journal/*/000000.jsonl');
    const paths = await listFilesAtCommit(dir, base, set);
    expect(paths).toEqual(['.sdd/runtime/journal/alice/000000.jsonl', '.sdd/runtime/journal/bob/000000.jsonl']);
    const files = await readFilesAtCommit(dir, base, [...paths, 'missing.jsonl']);
    expect(files.get(paths[0]!)!.toString()).toBe(git(dir, 'show', `${base}:${paths[0]}`) + '\n');
    expect(files.get('missing.jsonl')).toBeUndefined();
  });

  test('checkWorkspace reports a rewritten journal with its agent, seq and line', async () => {
    const dir = initRepo(path.join(tmp, 'repo2'));
    const jdir = path.dirname(journalFile(dir, 'alice'));
    journalBytes(jdir, 3);
    const base = commitAll(dir, 'base');
    require('node:fs').rmSync(jdir, { recursive: true });
    journalBytes(jdir, 3, 'b');
    const report = await checkWorkspace({ root: dir, base });
    expect(report.ok).toBe(false);
    expect(report.faults).toEqual([
      expect.objectContaining({
        path: '.sdd/runtime/journal/alice/000000.jsonl',
        line: 1,
        kind: 'history_rewritten',
        severity: 'error',
        id: 'alice',
      }),
    ]);
    expect(report.faults[0]!.message).toMatch(/^agent alice: history rewritten from seq 0/);
    const md = renderCheckMarkdown(report);
    expect(md).toContain('❌ failed');
    expect(md).toContain('history rewritten from seq 0');
  });
});

test('run journals are append-only too: a rewrite names the run and the first index', async () => {
  const dir = initRepo(path.join(tmp, 'repo-runs'));
  const env = { STEPCHAIN_AUDIT: 'off' };
  for (let i = 0; i < 3; i++) recordRunEvent(dir, 'run-1', 'tool_call', { n: i }, { env });
  const base = commitAll(dir, 'base');
  const file = path.join(dir, '.sdd/runs/run-1/journal.jsonl');
  require('node:fs').rmSync(file);
  recordRunEvent(dir, 'run-1', 'tool_call', { n: 0 }, { env });
  recordRunEvent(dir, 'run-1', 'tool_call', { n: 'one' }, { env });
  const report = await checkWorkspace({ root: dir, base });
  const f = report.faults.filter((x) => x.kind.startsWith('history_'));
  expect(f).toEqual([
    expect.objectContaining({
      item: 'run',
      path: '.sdd/runs/run-1/journal.jsonl',
      kind: 'history_rewritten',
      id: 'run-1',
    }),
  ]);
  expect(f[0]!.message).toMatch(/^run run-1: history rewritten from index 0 /);
});

describe('fork tree', () => {
  test('read from committed session snapshots and drawn as Mermaid', () => {
    const root = path.join(tmp, 'forks');
    const sessions = path.join(root, '.sdd/runtime/sessions');
    mkdirSync(sessions, { recursive: true });
    writeFileSync(path.join(sessions, 'main.json'), JSON.stringify({ session_id: 'main' }));
    writeFileSync(
      path.join(sessions, 'fork-a.json'),
      JSON.stringify({ fork: { parent_session_id: 'main', from_step: 2, label: 'try "b"' } }),
    );
    writeFileSync(
      path.join(sessions, 'fork-b.json'),
      JSON.stringify({ fork: { parent_session_id: 'fork-a', label: null } }),
    );
    writeFileSync(path.join(sessions, 'broken.json'), '{');
    const tree = forkTreeFromSessions(root);
    expect(tree).toEqual([
      { id: 'fork-a', parent: 'main', fromStep: 2, label: 'try "b"' },
      { id: 'fork-b', parent: 'fork-a', fromStep: null, label: null },
    ]);
    const m = forkTreeMermaid(tree);
    expect(m.split('\n')[0]).toBe('```mermaid');
    expect(m).toContain('flowchart LR');
    expect(m).toMatch(/n\d+\["fork-a<br\/>try #34;b#34;"\]/);
    expect(m).toMatch(/n\d+ -->\|"step 2"\| n\d+/);
    expect(m).toMatch(/n\d+ -->\|"session"\| n\d+/);
    expect(forkTreeMermaid([])).toBe('');
  });

  test('forks of this checkout (worktrees) join the committed ones', async () => {
    const dir = initRepo(path.join(tmp, 'repo-forks'));
    writeFileSync(path.join(dir, '.gitignore'), '.sdd/\n');
    journalBytes(path.dirname(journalFile(dir, 'alice')), 3);
    commitAll(dir, 'base');
    const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };
    const f = await createFork({ root: dir, sessionId: 'alice', fromStep: 1, label: 'other idea', env });
    const tree = await forkTree(dir, undefined, env);
    expect(tree).toEqual([{ id: f.fork_session_id, parent: 'alice', fromStep: 1, label: 'other idea' }]);
  });
});
