/**
 * What a checkpoint vouches for (docs/journal.md, "Checkpoints"): only a file
 * nothing else touched while the writer verified and appended to it. An edit
 * made by another program at the worst moment (after the writer verified the
 * file but before it wrote, or while its write was being fsync'ed), with size
 * and mtime restored, must still be refused by the next append. And what
 * stands in a sidecar's place (a symbolic link to a file of the user's) is
 * never written through. Real processes, paused at the exact stage
 * (src/util/pause.ts, STEPCHAIN_TEST_RESUME lets them carry on).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { appendAuditEvent } from '../src/audit';
import { Journal, verifyJournalFile } from '../src/journal';
import { RunJournal } from '../src/runs';
import { expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { repoRoot } from './helpers/paths';
import { cliPaused, nodeWithSources, spawnPaused } from './helpers/proc';
import { tempDir } from './helpers/tmp';

const root = tempDir('stepchain-ckpt-race-');
const keyPath = path.join(root, 'checkpoint.key');
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: keyPath };
let n = 0;
const jdir = (): string => path.join(root, '.sdd', 'runtime', 'journal', `a${n++}`);
const step = (i: number) => ({ prompt: `step ${i} ${'p'.repeat(100)}`, tool_result: { i } });

/** Replaces `from` by `to` (same length) in place, then puts the mtime back to the nanosecond. */
function editInPlace(file: string, from: string, to: string): void {
  const st = statSync(file, { bigint: true });
  const text = readFileSync(file, 'latin1');
  expect(text.includes(from)).toBe(true);
  writeFileSync(file, text.replace(from, to), 'latin1');
  const ns = st.mtimeNs;
  execFileSync('touch', ['-m', '-d', `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, '0')}`, file]);
  expect(statSync(file, { bigint: true }).size).toBe(st.size);
}

/**
 * Runs `code` in a child paused at `stage`; while it waits there, `during()`
 * edits the file; then the child carries on and must succeed (it verified
 * the file before the edit).
 */
async function editWhilePaused(code: string, stage: string, during: () => void): Promise<void> {
  const resume = path.join(root, `resume-${n++}`);
  const child = await spawnPaused(nodeWithSources(code), stage, {
    env: { ...ENV, STEPCHAIN_TEST_RESUME: resume },
  });
  during();
  writeFileSync(resume, '');
  const { code: exit, stderr } = await child.exited();
  expect(stderr).not.toMatch(/Error/);
  expect(exit).toBe(0);
}

const STAGES = ['append:before-write', 'append:before-fsync'];

describe('an edit made while an append is under way is not vouched for', () => {
  test.each(STAGES)('per-step journal, edited at %s: the next append is refused', async (stage) => {
    const j = Journal.open(jdir(), { env: ENV });
    for (let i = 0; i < 4; i++) j.append(step(i));
    const src = JSON.stringify(path.join(repoRoot, 'src', 'journal'));
    await editWhilePaused(
      `require(${src}).Journal.open(${JSON.stringify(j.dir)}, { env: process.env }).append({ prompt: 'late' });`,
      stage,
      () => editInPlace(j.file, 'step 1 ', 'step X '),
    );
    // The long-lived writer, a fresh one and the CLI: each walks the file and refuses, naming line 2. (The CLI's
    // refusal runs in-process: what is checked is its walk and message; the writer paused mid-append is the process.)
    expect(() => Journal.open(j.dir, { env: ENV })).toThrow(/000000\.jsonl:2: step_hash_mismatch/);
    const r = await cliInProcess(['append', j.dir, '--no-snapshot'], { env: ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${j.file}:2: step_hash_mismatch`);
    expect(verifyJournalFile(j.file).steps).toBe(5);
  });

  test.each(STAGES)('run journal, edited at %s: the next append is refused', async (stage) => {
    const file = path.join(root, '.sdd', 'runs', `r${n++}`, 'journal.jsonl');
    const rj = new RunJournal(file, { env: ENV });
    for (let i = 0; i < 4; i++) rj.record([{ event: 'tool', payload: new Map([['text', `event ${i}`]]) }]);
    const src = JSON.stringify(path.join(repoRoot, 'src', 'runs'));
    await editWhilePaused(
      `new (require(${src}).RunJournal)(${JSON.stringify(file)}, { env: process.env }).record([{ event: 'late', payload: new Map() }]);`,
      stage,
      () => editInPlace(file, 'event 1', 'event X'),
    );
    expect(() => rj.record([{ event: 'next', payload: new Map() }])).toThrow(
      /:2: payload_hash_mismatch.*refusing to append/,
    );
  });

  test.each(STAGES)('audit log, edited at %s: the next append is refused', async (stage) => {
    const dir = path.join(root, `audit-${n++}`);
    const key = Buffer.from('k'.repeat(64));
    const T0 = Date.UTC(2026, 0, 2) * 1000;
    const fields = (i: number) => ({
      actor: 'a',
      resource_type: 'journal',
      resource_id: 'a',
      details: { text: `entry ${i}` },
    });
    for (let i = 0; i < 4; i++) appendAuditEvent(dir, key, 'replay.step', fields(i), { nowMicros: T0 + i });
    const day = path.join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.jsonl'))!,
    );
    const src = JSON.stringify(path.join(repoRoot, 'src', 'audit'));
    await editWhilePaused(
      `require(${src}).appendAuditEvent(${JSON.stringify(dir)}, Buffer.from('k'.repeat(64)), 'late', ${JSON.stringify(fields(4))}, { nowMicros: ${T0 + 4} });`,
      stage,
      () => editInPlace(day, 'entry 1', 'entry X'),
    );
    expect(() => appendAuditEvent(dir, key, 'replay.step', fields(5), { nowMicros: T0 + 5 })).toThrow(
      /\.jsonl:2: hmac_mismatch: .*refusing to extend the audit log/,
    );
  });
});

describe('an append beside a verify', () => {
  /**
   * verify plans its walk on the file's size, then judges the walk against the checkpoint, read after it. An append
   * that lands in between writes rows and a checkpoint vouching for them: the checkpoint is newer than the walk, not
   * a sign the file lost rows (verify said "rollback: ... truncated or rolled back", exit 1, for a journal that was
   * only being appended to).
   */
  test('rows and a checkpoint appended between the plan and the walk: verify holds (exit 0), no rollback', async () => {
    const j = Journal.open(jdir(), { env: ENV });
    for (let i = 0; i < 6; i++) j.append(step(i));
    const resume = path.join(root, `resume-${n++}`);
    const p = await cliPaused(['verify', j.file], 'walk:planned', { env: { ...ENV, STEPCHAIN_TEST_RESUME: resume } });
    for (let i = 6; i < 9; i++) j.append(step(i));
    writeFileSync(resume, '');
    const { code, stderr } = await p.exited();
    expect(stderr).not.toMatch(/rollback/);
    expect(code).toBe(0);
  });

  test('a journal cut below its checkpoint is still a rollback when the check reads the file again', async () => {
    const j = Journal.open(jdir(), { env: ENV });
    for (let i = 0; i < 6; i++) j.append(step(i));
    const bytes = readFileSync(j.file);
    // Rows 0..3 kept: they verify on their own, the checkpoint vouched for 6.
    let at = 0;
    for (let k = 0; k < 4; k++) at = bytes.indexOf(0x0a, at) + 1;
    writeFileSync(j.file, bytes.subarray(0, at));
    const r = await cliInProcess(['verify', j.file], { env: ENV });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/rollback: the checkpoint recorded 6 steps .* but only 4 remain/);
  });
});

describe('a symbolic link in a sidecar or journal place is never written through', () => {
  test('checkpoints: a link planted in place of one is replaced, and the file it pointed at is untouched', () => {
    const victim = path.join(root, `victim-${n++}.txt`);
    writeFileSync(victim, 'precious\n');
    const j = Journal.open(jdir(), { env: ENV });
    j.append(step(0));
    const ckpt = `${j.file}.checkpoint`;
    execFileSync('rm', [ckpt]);
    symlinkSync(victim, ckpt);
    Journal.open(j.dir, { env: ENV }).append(step(1));
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(statSync(ckpt).isFile() && !readFileSync(ckpt, 'utf8').startsWith('precious')).toBe(true);

    const file = path.join(root, '.sdd', 'runs', `r${n++}`, 'journal.jsonl');
    new RunJournal(file, { env: ENV }).record([{ event: 'a', payload: new Map() }]);
    execFileSync('rm', [`${file}.checkpoint`]);
    symlinkSync(victim, `${file}.checkpoint`);
    new RunJournal(file, { env: ENV }).record([{ event: 'b', payload: new Map() }]);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');

    const dir = path.join(root, `audit-${n++}`);
    const key = Buffer.from('k'.repeat(64));
    const f = { actor: 'a', resource_type: 'r', resource_id: 'r' };
    appendAuditEvent(dir, key, 'e', f);
    execFileSync('rm', [path.join(dir, 'audit.checkpoint')]);
    symlinkSync(victim, path.join(dir, 'audit.checkpoint'));
    appendAuditEvent(dir, key, 'e', f);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  test('a journal file that is a link is refused (exit 2, naming it), and its target is untouched', async () => {
    const target = path.join(root, `target-${n++}.jsonl`);
    writeFileSync(target, '');
    const dir = jdir();
    mkdirSync(dir, { recursive: true });
    symlinkSync(target, path.join(dir, '000000.jsonl'));
    const r = await cliInProcess(['append', dir, '--no-snapshot', '--prompt', 'x'], { env: ENV });
    expectNoStack(r);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path.join(dir, '000000.jsonl')}: cannot open for appending: it is a symbolic link`);
    expect(readFileSync(target, 'utf8')).toBe('');

    const runDir = path.join(root, 'proj', '.sdd', 'runs', 'r1');
    mkdirSync(runDir, { recursive: true });
    symlinkSync(target, path.join(runDir, 'journal.jsonl'));
    const rr = await cliInProcess(['run', 'record', 'r1', '--event', 'e', '--root', path.join(root, 'proj')], {
      env: ENV,
    });
    expectNoStack(rr);
    expect(rr.code).toBe(2);
    expect(rr.stderr).toContain('it is a symbolic link');
    expect(readFileSync(target, 'utf8')).toBe('');
    expect(existsSync(`${target}.checkpoint`)).toBe(false);
  });
});
