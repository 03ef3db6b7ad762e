import { appendFileSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { appendAuditEvent } from '../src/audit/log';
import { createFork, removeFork } from '../src/forks';
import { casDir, Journal, journalDir } from '../src/journal';
import { recordRunEvent } from '../src/runs/record';
import { tipMirrorDir } from '../src/util/checkpoint';
import { acquireLock } from '../src/util/lock';
import { cli } from './helpers/cli';
import { initRepo } from './helpers/git';
import { tempDir } from './helpers/tmp';

/** What stepchain writes about an agent's work is owner-only; what is meant to be shared is not (docs/journal.md). */
const mode = (p: string): number => statSync(p).mode & 0o777;
const root = tempDir();

test('journals, blobs, run journals and audit logs are created owner-only under a permissive umask', () => {
  const old = process.umask(0o022);
  try {
    mkdirSync(path.join(root, '.sdd'));
    const j = Journal.open(journalDir(root, 'agent'));
    j.append({ input: Buffer.from('secret input'), prompt: 'secret prompt' });
    expect(mode(j.file)).toBe(0o600);
    expect(mode(path.dirname(j.file))).toBe(0o700);
    const blobs = readdirSync(casDir(root), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(blobs.length).toBeGreaterThan(0);
    for (const b of blobs) {
      expect(mode(path.join(b.parentPath, b.name))).toBe(0o600);
      expect(mode(b.parentPath)).toBe(0o700);
    }
    const { file } = recordRunEvent(root, 'r1', 'task_claimed', { ok: true }, { env: { STEPCHAIN_AUDIT: 'off' } });
    expect(mode(file)).toBe(0o600);
    const audit = path.join(root, 'audit');
    appendAuditEvent(audit, Buffer.from('k'.repeat(64)), 'replay.step', {
      actor: 'agent',
      resource_type: 'journal',
      resource_id: 'agent',
    });
    for (const f of readdirSync(audit).filter((f) => f.endsWith('.jsonl')))
      expect(mode(path.join(audit, f))).toBe(0o600);

    // A receipt is for sharing.
    const out = path.join(root, 'agent.tar');
    const e = cli(['export', 'agent', '-o', out, '--root', root]);
    expect(e.code).toBe(0);
    expect(mode(out)).toBe(0o644);
  } finally {
    process.umask(old);
  }
});

/** Every file and directory under `dir` (never through a link), but not the inside of a fork's git worktree. */
function walk(
  dir: string,
  skip: (p: string) => boolean,
  out: { file: string; dir: boolean; mode: number }[] = [],
): typeof out {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (skip(p)) continue;
    out.push({ file: p, dir: e.isDirectory(), mode: mode(p) });
    if (e.isDirectory()) walk(p, skip, out);
  }
  return out;
}

test('every file and directory stepchain creates under .sdd/ is owner-only (one rule: src/util/modes.ts)', async () => {
  const old = process.umask(0o022);
  try {
    const project = initRepo(path.join(root, 'project'));
    const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };
    const j = Journal.open(journalDir(project, 'agent'), { env });
    j.append({ input: Buffer.from('secret input'), prompt: 'secret prompt' });
    // A torn tail (a writer killed mid-row) holds part of a row: the side file it is moved to is the journal's.
    appendFileSync(j.file, '{"blob_refs":[],"input_hash":"x","model":"m","prompt":"secret pro');
    Journal.open(journalDir(project, 'agent'), { env }).append({ prompt: 'secret prompt 2' });
    const run = recordRunEvent(project, 'r1', 'task_claimed', { ok: true }, { env });
    appendFileSync(run.file, '{"ts": 1.0, "secret": "cut sh');
    recordRunEvent(project, 'r1', 'task_claimed', { ok: true }, { env });
    appendAuditEvent(path.join(project, '.sdd', 'audit'), Buffer.from('k'.repeat(64)), 'replay.step', {
      actor: 'agent',
      resource_type: 'journal',
      resource_id: 'agent',
    });
    const lock = acquireLock(path.join(project, '.sdd', 'runtime', 'held.lock'));
    const fork = await createFork({ root: project, sessionId: 'agent', fromStep: 0, env });
    const worktree = (p: string): boolean => path.dirname(p) === path.join(project, '.sdd', 'worktrees');
    const inFork = walk(path.join(fork.fork_worktree, '.sdd'), () => false);
    await removeFork(project, fork.fork_session_id, { env, force: true });
    const all = [...walk(path.join(project, '.sdd'), worktree), ...inFork];
    lock();

    const names = all.map((e) => path.basename(e.file));
    for (const kind of ['.checkpoint', '.torn-', 'held.lock', '000000.jsonl', 'journal.jsonl', '.json'])
      expect(names.some((n) => n.includes(kind))).toBe(true);
    const wrong = all
      .filter((e) => e.mode !== (e.dir ? 0o700 : 0o600))
      .map((e) => `${path.relative(project, e.file)} ${e.mode.toString(8)}`);
    expect(wrong).toEqual([]);
    expect(mode(path.join(project, '.sdd'))).toBe(0o700);
    // The local checkpoint key's directory holds the mirrors of the checkpoints: owner-only as well.
    const mirrors = walk(tipMirrorDir(env), () => false).filter((e) => !e.dir);
    expect(mirrors.length).toBeGreaterThan(0);
    for (const m of mirrors) expect(m.mode).toBe(0o600);
  } finally {
    process.umask(old);
  }
});
