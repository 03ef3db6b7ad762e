/**
 * Appends cost the same at any length, and stay fail-closed (docs/journal.md,
 * "Checkpoints"): the state a writer trusts comes from an authenticated
 * checkpoint bound to the file's identity (device, inode, size, ctime), and
 * anything that does not match (an edit with size and mtime restored, a
 * forged or copied checkpoint) falls back to the full walk.
 *
 * "Costs the same" is shown by bytes read (/proc/self/io rchar), never by time.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { appendAuditEvent } from '../src/audit';
import { IntegrityError } from '../src/errors';
import { Journal, JournalRecoveryError, verifyJournalFile } from '../src/journal';
import { RunJournal, verifyRunJournal } from '../src/runs';
import { identityOf, writeCheckpoint } from '../src/util/checkpoint';
import { cli } from './helpers/cli';
import { spawnPaused, nodeWithSources } from './helpers/proc';
import { repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';

const root = tempDir('stepchain-ckpt-');
const keyPath = path.join(root, 'checkpoint.key');
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: keyPath };
const OFF = { ...ENV, STEPCHAIN_CHECKPOINT: 'off' };
let n = 0;
const jdir = (): string => path.join(root, '.sdd', 'runtime', 'journal', `a${n++}`);
const step = (i: number) => ({ prompt: `step ${i} ${'p'.repeat(900)}`, tool_result: { i } });

/** Bytes this process read while `fn` ran (/proc/self/io rchar). */
function bytesRead<T>(fn: () => T): { value: T; read: number } {
  const rchar = (): number => Number(/^rchar: ([0-9]+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
  const before = rchar();
  const value = fn();
  return { value, read: rchar() - before };
}

/** Replaces `from` by `to` (same length) in place, then puts size and mtime back as they were. */
function editInPlace(file: string, from: string, to: string): void {
  expect(to.length).toBe(from.length);
  const st = statSync(file, { bigint: true });
  const text = readFileSync(file, 'latin1');
  expect(text.includes(from)).toBe(true);
  writeFileSync(file, text.replace(from, to), 'latin1');
  // The mtime back to the nanosecond (a double cannot carry it): touch -d @<seconds>.<nanoseconds>.
  const ns = st.mtimeNs;
  const stamp = `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, '0')}`;
  execFileSync('touch', ['-m', '-d', stamp, file]);
  const after = statSync(file, { bigint: true });
  // Only the ctime tells: size and mtime are what they were.
  expect(after.size).toBe(st.size);
  expect(after.mtimeNs).toBe(st.mtimeNs);
  expect(after.ctimeNs).not.toBe(st.ctimeNs);
}

describe('per-step journal', () => {
  test.each([
    ['the first row', 'step 0 ', 'step X ', 1],
    ['a middle row', 'step 3 ', 'step X ', 4],
    ['the last row', 'step 5 ', 'step X ', 6],
  ])('an edit of %s with size and mtime restored is refused before the next append', (_w, from, to, line) => {
    const j = Journal.open(jdir(), { env: ENV });
    for (let i = 0; i < 6; i++) j.append(step(i));
    editInPlace(j.file, from, to);
    // A long-lived writer, a fresh one, and the CLI all refuse, naming the line.
    expect(() => j.append(step(6))).toThrow(JournalRecoveryError);
    let err: unknown;
    try {
      Journal.open(j.dir, { env: ENV });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JournalRecoveryError);
    expect((err as JournalRecoveryError).line).toBe(line);
    const r = cli(['append', j.dir, '--no-snapshot'], { env: ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${j.file}:${line}: step_hash_mismatch`);
    expect(verifyJournalFile(j.file).steps).toBe(6);
  });

  test('an append reads a bounded number of bytes at any length; without a checkpoint it reads the whole file', () => {
    // ~5.5 MB: five times the 1 MB bound below is enough to tell a bounded read from a whole-file one (20 MB
    // only made the four full walks below, the slow append's, the next open's and the verify, four times dearer).
    const j = Journal.open(jdir(), { env: ENV, durability: 'none' });
    for (let b = 0; b < 5; b++) j.appendMany(Array.from({ length: 1000 }, (_, i) => step(b * 1000 + i)));
    const size = statSync(j.file).size;
    expect(size).toBeGreaterThan(5_000_000);
    const fast = bytesRead(() => Journal.open(j.dir, { env: ENV }).append(step(5_000)));
    expect(fast.value.seq).toBe(5_000);
    expect(fast.read).toBeLessThan(1_000_000);
    const slow = bytesRead(() => Journal.open(j.dir, { env: OFF }).append(step(5_001)));
    expect(slow.value.seq).toBe(5_001);
    expect(slow.read).toBeGreaterThan(size);
    // The walk without a checkpoint wrote none; the next checkpointed open walks once and writes one.
    const once = bytesRead(() => Journal.open(j.dir, { env: ENV }).append(step(5_002)));
    expect(once.read).toBeGreaterThan(size);
    expect(bytesRead(() => Journal.open(j.dir, { env: ENV }).append(step(5_003))).read).toBeLessThan(1_000_000);
    expect(verifyJournalFile(j.file, { strict: true })).toMatchObject({ ok: true, steps: 5_004 });
  });

  test('a checkpoint is trusted only with the local key: one forged without it is ignored, one made with it is believed', () => {
    const j = Journal.open(jdir(), { env: ENV });
    for (let i = 0; i < 4; i++) j.append(step(i));
    editInPlace(j.file, 'step 1 ', 'step X ');
    const st = statSync(j.file, { bigint: true });
    const size = Number(st.size);
    const tail = createHash('sha256')
      .update(readFileSync(j.file).subarray(Math.max(0, size - 4096)))
      .digest('hex');
    const claim = { offset: size, steps: 4, head: j.head, tail_from: Math.max(0, size - 4096), tail_sha256: tail };
    const ckpt = `${j.file}.checkpoint`;
    // A forger without the key: refused by the full walk.
    writeCheckpoint(ckpt, 'journal', j.file, identityOf(st), claim, randomBytes(32));
    expect(() => Journal.open(j.dir, { env: ENV })).toThrow(/:2: step_hash_mismatch/);
    // What the checkpoint trusts: whoever holds the key could vouch for an edited file.
    const key = Buffer.from(readFileSync(keyPath, 'latin1').trim(), 'hex');
    writeCheckpoint(ckpt, 'journal', j.file, identityOf(st), claim, key);
    expect(Journal.open(j.dir, { env: ENV }).length).toBe(4);
  });

  test('a journal copied with its checkpoint is walked again at its new place (another file, another identity)', () => {
    const j = Journal.open(jdir(), { env: ENV });
    for (let i = 0; i < 3; i++) j.append(step(i));
    const copy = jdir();
    cpSync(j.dir, copy, { recursive: true });
    const again = bytesRead(() => Journal.open(copy, { env: ENV }).append(step(3)));
    expect(again.value.seq).toBe(3);
    expect(again.read).toBeGreaterThan(statSync(j.file).size);
  });

  test('a writer killed after its row but before its checkpoint: the next writer walks the file and chains on', async () => {
    const j = Journal.open(jdir(), { env: ENV });
    for (let i = 0; i < 3; i++) j.append(step(i));
    const src = path.join(repoRoot, 'src', 'journal');
    const child = await spawnPaused(
      nodeWithSources(
        `require(${JSON.stringify(src)}).Journal.open(${JSON.stringify(j.dir)}, { env: process.env }).append({ prompt: 'killed' });`,
      ),
      'journal:after-write',
      { env: ENV },
    );
    await child.kill();
    expect(Journal.open(j.dir, { env: ENV, lockTimeoutMs: 2000 }).append(step(4)).seq).toBe(4);
    expect(verifyJournalFile(j.file, { strict: true })).toMatchObject({ ok: true, steps: 5 });
  });
});

describe('run journal', () => {
  const runFile = (): string => path.join(root, '.sdd', 'runs', `r${n++}`, 'journal.jsonl');
  const ev = (i: number) => ({ event: 'tool', payload: new Map<string, never>([['i', i as never]]) });

  test('an edit with size and mtime restored is refused before the next append', () => {
    const rj = new RunJournal(runFile(), { env: ENV });
    for (let i = 0; i < 5; i++) rj.record([{ event: 'tool', payload: new Map([['text', `event ${i}`]]) }]);
    editInPlace(rj.file, 'event 2', 'event X');
    expect(() => rj.record([ev(9)])).toThrow(/:3: payload_hash_mismatch.*refusing to append/);
  });

  test('an append reads a bounded number of bytes at any length', () => {
    // ~1.35 MB (4,000 events, not 20,000): the checkpointed append read ~9 KB at 6.7 MB, its bound here is 337 KB
    // (a quarter of the file); the walk without a checkpoint still reads it all.
    const rj = new RunJournal(runFile(), { env: ENV, durable: false });
    for (let b = 0; b < 2; b++) rj.record(Array.from({ length: 2000 }, (_, i) => ev(b * 2000 + i)));
    const size = statSync(rj.file).size;
    const fast = bytesRead(() => new RunJournal(rj.file, { env: ENV }).record([ev(1)]));
    expect(fast.value[0]!.index).toBe(4_000);
    expect(fast.read).toBeLessThan(Math.min(size / 4, 1_000_000));
    const slow = bytesRead(() => new RunJournal(rj.file, { env: OFF }).record([ev(2)]));
    expect(slow.read).toBeGreaterThan(size);
    expect(verifyRunJournal(rj.file)).toMatchObject({ ok: true, count: 4_002 });
  });

  test('a writer killed after its rows but before its checkpoint: the next writer walks and chains on', async () => {
    const file = runFile();
    const rj = new RunJournal(file, { env: ENV });
    rj.record([ev(0)]);
    const src = path.join(repoRoot, 'src', 'runs');
    const child = await spawnPaused(
      nodeWithSources(
        `new (require(${JSON.stringify(src)}).RunJournal)(${JSON.stringify(file)}, { env: process.env }).record([{ event: 'killed', payload: new Map() }]);`,
      ),
      'run:after-write',
      { env: ENV },
    );
    await child.kill();
    expect(new RunJournal(file, { env: ENV, lockTimeoutMs: 2000 }).record([ev(2)])[0]!.index).toBe(2);
    expect(verifyRunJournal(file, { strict: true })).toMatchObject({ ok: true, count: 3 });
  });
});

describe('audit log', () => {
  const key = Buffer.from('k'.repeat(64));
  const fields = (i: number) => ({
    actor: 'a',
    resource_type: 'journal',
    resource_id: 'a',
    details: { seq: i, text: `entry ${i}` },
  });
  const T0 = Date.UTC(2026, 0, 2) * 1000;

  test('an edit of an earlier entry with size and mtime restored is refused before the next append', () => {
    const dir = path.join(root, `audit-${n++}`);
    for (let i = 0; i < 5; i++) appendAuditEvent(dir, key, 'replay.step', fields(i), { nowMicros: T0 + i });
    const day = path.join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.jsonl'))!,
    );
    editInPlace(day, 'entry 1', 'entry X');
    expect(() => appendAuditEvent(dir, key, 'replay.step', fields(5), { nowMicros: T0 + 5 })).toThrow(IntegrityError);
    expect(() => appendAuditEvent(dir, key, 'replay.step', fields(5), { nowMicros: T0 + 5 })).toThrow(
      /\.jsonl:2: hmac_mismatch: .*refusing to extend the audit log/,
    );
  });

  test('an edit of an earlier day file is refused too', () => {
    const dir = path.join(root, `audit-${n++}`);
    for (let i = 0; i < 3; i++) appendAuditEvent(dir, key, 'replay.step', fields(i), { nowMicros: T0 + i });
    const DAY = 86_400_000_000;
    appendAuditEvent(dir, key, 'replay.step', fields(3), { nowMicros: T0 + DAY });
    const first = path.join(dir, readdirSync(dir).filter((f) => f.endsWith('.jsonl'))[0]!);
    editInPlace(first, 'entry 0', 'entry X');
    expect(() => appendAuditEvent(dir, key, 'replay.step', fields(4), { nowMicros: T0 + DAY + 1 })).toThrow(
      /\.jsonl:1: hmac_mismatch/,
    );
  });

  test('an append reads a bounded number of bytes at any length (not the whole day file)', () => {
    // 500 entries of ~1.4 KB, not 2,000 of ~340 B: the same ~680 KB day file for a quarter of the appends (each
    // one opens, locks and checkpoints); the checkpointed append reads ~9 KB of it either way.
    const dir = path.join(root, `audit-${n++}`);
    const padded = (i: number) => ({ ...fields(i), details: { seq: i, text: `entry ${i} ${'t'.repeat(1000)}` } });
    for (let i = 0; i < 500; i++)
      appendAuditEvent(dir, key, 'replay.step', padded(i), { nowMicros: T0 + i, durable: false });
    const day = path.join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.jsonl'))!,
    );
    const size = statSync(day).size;
    const fast = bytesRead(() => appendAuditEvent(dir, key, 'replay.step', fields(500), { nowMicros: T0 + 500 }));
    expect(fast.read).toBeLessThan(size / 10);
    // A copy of the log (another directory, other inodes) is walked once, then cheap again.
    const copy = path.join(root, `audit-${n++}`);
    cpSync(dir, copy, { recursive: true });
    const walked = bytesRead(() => appendAuditEvent(copy, key, 'replay.step', fields(501), { nowMicros: T0 + 501 }));
    expect(walked.read).toBeGreaterThan(size);
  });
});
