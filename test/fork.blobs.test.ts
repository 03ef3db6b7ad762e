/**
 * A fork is given the blobs of the steps it inherits (src/forks/prefix.ts copyPrefixBlobs), written as a batch and
 * made durable together (src/journal/cas.ts CasBatch: a sync of each file and directory as it was written was two
 * waits for the disk a blob, 158 s for 20,000). What the batch must keep: every blob copied byte for byte, owner-only,
 * across more than one batch's worth; a blob the parent lacks or holds wrong reported, not copied; a parent with no
 * store at all reported in one look; a link in the parent's store refused as before.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Cas, CAS_BATCH_FILES, casDir, Journal, journalDir, newCasBatch } from '../src/journal';
import { sha256Hex } from '../src/util/hash';
import { cliInProcess } from './helpers/cli-in-process';
import { cliPath } from './helpers/paths';
import { initRepo } from './helpers/git';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-fork-blobs-');
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(tmp, 'checkpoint.key') };
/** More blobs than one batch holds, so the copy syncs a full batch and then the rest. */
const STEPS = CAS_BATCH_FILES + 300;
const blobOf = (i: number): Buffer => Buffer.from(`blob ${i}\n`.repeat(1 + (i % 7)));

/** A project whose agent `ag` made `steps` steps, each naming its own blob (the journal written without fsync). */
function project(name: string, steps: number): { root: string; digests: string[] } {
  const root = initRepo(path.join(tmp, name), { 'a.txt': 'a\n' });
  const journal = Journal.open(journalDir(root, 'ag'), { durability: 'none' });
  const rows = journal.appendMany(
    Array.from({ length: steps }, (_, i) => ({ prompt: `step ${i}`, blobs: [blobOf(i)], ts: 1796000000 + i })),
  );
  return { root, digests: rows.map((r) => r.blob_refs[0]!) };
}

/** Where a store is refused whole, a few blobs make the case. */
const FEW = 40;

async function fork(root: string): Promise<{ code: number; stderr: string; worktree: string }> {
  const r = await cliInProcess(['fork', 'ag', '--from-step', String(FEW - 1), '--root', root, '--json'], {
    env: ENV,
  });
  const worktree = r.code === 0 ? (JSON.parse(r.stdout) as { fork_worktree: string }).fork_worktree : '';
  return { code: r.code, stderr: r.stderr, worktree };
}

test('a parent with no blob store: every inherited blob reported missing, the fork made', async () => {
  const { root } = project('nostore', FEW);
  rmSync(casDir(root), { recursive: true });
  const r = await fork(root);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain(`${FEW} blobs of the inherited steps are not in the parent`);
  expect(existsSync(casDir(r.worktree))).toBe(false);
}, 120_000);

test("a link in place of the parent's blob store is refused, naming it", async () => {
  const { root } = project('linked', FEW);
  const cas = casDir(root);
  const elsewhere = path.join(tmp, 'elsewhere-cas');
  rmSync(elsewhere, { recursive: true, force: true });
  renameSync(cas, elsewhere);
  symlinkSync(elsewhere, cas);
  const r = await fork(root);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(`${cas}: `);
  expect(r.stderr).toMatch(/symbolic link/);
}, 120_000);

test('every inherited blob is copied byte for byte, owner-only, and synced with its directory before the fork is made (strace), across more than one batch', () => {
  const { root, digests } = project('whole', STEPS);
  // One blob gone from the parent, one changed in place: reported, not copied.
  const parent = new Cas(casDir(root));
  rmSync(parent.pathOf(digests[10]!));
  writeFileSync(parent.pathOf(digests[20]!), 'not the blob');
  const log = path.join(tmp, 'fsync.log');
  // -y names each descriptor's file; only fsync is traced (every process and thread of the fork). --seccomp-bpf: the
  // kernel stops the fork only at an fsync, where without it strace stopped it at every system call and dropped the
  // rest (the same trace).
  const r = spawnSync(
    'strace',
    [
      '-f',
      '--seccomp-bpf',
      '-qq',
      '-y',
      '-e',
      'trace=fsync',
      '-o',
      log,
      process.execPath,
      cliPath,
      'fork',
      'ag',
      '--from-step',
      String(STEPS - 1),
      '--root',
      root,
      '--json',
    ],
    { encoding: 'utf8', env: { ...process.env, ...ENV }, maxBuffer: 1 << 26 },
  );
  if (r.error !== undefined) throw new Error(`strace could not be run (apt-get install strace): ${r.error.message}`);
  expect(r.stderr).not.toMatch(/strace:/);
  expect(r.status).toBe(0);
  expect(r.stderr).toContain('2 blobs of the inherited steps are not in the parent');
  expect(r.stderr).toContain(digests[10]!);
  expect(r.stderr).toContain(digests[20]!);
  const worktree = (JSON.parse(r.stdout) as { fork_worktree: string }).fork_worktree;
  // A call and its result may be two lines (`<unfinished ...>`, `<... fsync resumed>`: syncs run at once).
  const trace = readFileSync(log, 'utf8');
  expect(trace).not.toMatch(/= -1 E/);
  const synced = new Set([...trace.matchAll(/fsync\(\d+<([^>]*)>/g)].map((m) => m[1]!));
  const copied = new Cas(casDir(worktree));
  // Each blob's faults collected, then one expect: an expect (toEqual on a Buffer) per blob and per rule was 17,600
  // of them, ~1.8 s of the file's CPU.
  const wrong: string[] = [];
  digests.forEach((d, i) => {
    const at = copied.pathOf(d);
    if (i === 10 || i === 20) {
      if (existsSync(at)) wrong.push(`${i}: copied, though the parent's was ${i === 10 ? 'gone' : 'changed'}`);
      return;
    }
    if (!existsSync(at)) return void wrong.push(`${i}: not copied`);
    if (!readFileSync(at).equals(blobOf(i))) wrong.push(`${i}: not the blob's bytes`);
    const mode = statSync(at).mode & 0o777;
    if (mode !== 0o600) wrong.push(`${i}: mode ${mode.toString(8)}`);
    if (!synced.has(at)) wrong.push(`${i}: the file not synced`);
    if (!synced.has(path.dirname(at))) wrong.push(`${i}: its directory not synced`);
  });
  expect(wrong).toEqual([]);
}, 180_000);

test("a blob directory swapped for a link after the batch's first blob in it: the next blob there is refused", () => {
  // A fork's store lies under the parent's .sdd/worktrees/, which the parent's agent can write while the copy runs.
  const root = path.join(tmp, 'swapped');
  mkdirSync(path.join(root, '.sdd'), { recursive: true });
  const elsewhere = path.join(tmp, 'swapped-elsewhere');
  mkdirSync(elsewhere);
  // Two blobs whose digests share their first two hex digits (one directory).
  const byDir = new Map<string, Buffer>();
  let pair: [Buffer, Buffer] | undefined;
  for (let i = 0; pair === undefined; i++) {
    const b = Buffer.from(`swapped ${i}`);
    const seen = byDir.get(sha256Hex(b).slice(0, 2));
    if (seen === undefined) byDir.set(sha256Hex(b).slice(0, 2), b);
    else pair = [seen, b];
  }
  const cas = new Cas(path.join(root, '.sdd', 'cas'));
  const batch = newCasBatch();
  const dir = path.dirname(cas.pathOf(cas.put(pair[0], batch)));
  renameSync(dir, `${dir}.moved`);
  symlinkSync(elsewhere, dir);
  expect(() => cas.put(pair[1], batch)).toThrow(`${dir}: is a symbolic link; refusing to follow it`);
  expect(readdirSync(elsewhere)).toEqual([]);
});
