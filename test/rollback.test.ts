/**
 * Rollback is tampering (docs/journal.md, "Rollback"): where an authenticated
 * checkpoint recorded more than a file holds now (truncated in place, replaced
 * by a shorter or another chain, its last checkpointed row cut or edited so it
 * no longer parses), every writer refuses before repairing anything, and
 * `verify`, `run verify` and `audit verify` report a `rollback` naming the
 * file, the checkpointed steps and head. Without the key they say rollback
 * could not be checked. A torn tail left by a real writer killed mid-write is
 * still repaired.
 */
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { appendAuditEvent, loadAuditKey, verifyAuditLogChecked } from '../src/audit';
import { IntegrityError } from '../src/errors';
import { Journal, JournalRollbackError, verifyJournalFile, withJournalRollback } from '../src/journal';
import { RunJournal, verifyRunJournalChecked } from '../src/runs';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { nodeWithSources } from './helpers/proc';
import { repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';

const root = tempDir('stepchain-rollback-');
const keyPath = path.join(root, 'checkpoint.key');
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: keyPath };
const OFF = { ...ENV, STEPCHAIN_CHECKPOINT: 'off' };
let n = 0;
const jdir = (): string => path.join(root, '.sdd', 'runtime', 'journal', `a${n++}`);
const quiet = { env: ENV, onTornTail: () => undefined };

/** The byte offset just after the k-th line ending. */
function afterLines(file: string, k: number): number {
  const b = readFileSync(file);
  let at = 0;
  for (let i = 0; i < k; i++) at = b.indexOf(0x0a, at) + 1;
  return at;
}

/** Truncates a file in place (same inode) to its first k lines. */
function truncateToLines(file: string, k: number): void {
  const ino = statSync(file).ino;
  truncateSync(file, afterLines(file, k));
  expect(statSync(file).ino).toBe(ino);
}

/** Cuts the file inside its last line: that row no longer parses (and has no newline). */
function cutLastRow(file: string): void {
  truncateSync(file, statSync(file).size - 25);
}

function sideFiles(file: string): string[] {
  return readdirSync(path.dirname(file)).filter((f) => f.startsWith(`${path.basename(file)}.torn-`));
}

function journalOf(rows: number, tag = 'p'): Journal {
  const j = Journal.open(jdir(), quiet);
  for (let i = 0; i < rows; i++) j.append({ prompt: `${tag} ${i}`, tool_result: { i } });
  return j;
}

describe('per-step journals', () => {
  test('truncated in place from 4 rows to 2: append refuses and verify reports it, naming the steps and head', async () => {
    const j = journalOf(4);
    const head = j.head;
    truncateToLines(j.file, 2);
    const bytes = readFileSync(j.file);
    const a = await cliInProcess(['append', j.dir, '--no-snapshot', '--prompt', 'after'], { env: ENV });
    expectNoStack(a);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain(
      `${j.file}: rollback: the checkpoint recorded 4 steps ending at ${head}, but only 2 remain`,
    );
    expect(a.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(j.file)).toEqual(bytes); // nothing written
    const v = await cliInProcess(['verify', j.file], { env: ENV });
    expect(v.code).toBe(1);
    expect(v.stdout).toMatch(/^FAIL /);
    expect(v.stderr).toContain(
      `${j.file}: rollback: the checkpoint recorded 4 steps ending at ${head}, but only 2 remain`,
    );
    const json = JSON.parse((await cliInProcess(['verify', j.file, '--json'], { env: ENV })).stdout);
    expect(json).toMatchObject({ ok: false, steps: 2, fault_count: 1 });
    expect(json.errors).toEqual([
      { line: null, kind: 'rollback', message: expect.stringContaining(`4 steps ending at ${head}`) },
    ]);
  });

  test('replaced by another chain (a new inode): shorter, as long, or longer, it is refused and reported', async () => {
    for (const rows of [2, 4, 6]) {
      const j = journalOf(4);
      const other = journalOf(rows, 'other');
      copyFileSync(other.file, `${j.file}.new`);
      renameSync(`${j.file}.new`, j.file);
      expect(verifyJournalFile(j.file).ok).toBe(true); // a valid chain on its own
      const a = await cliInProcess(['append', j.dir, '--no-snapshot'], { env: ENV });
      expect(a.code).toBe(1);
      expect(a.stderr).toMatch(rows < 4 ? /only 2 remain/ : /row 3 is not that row: history replaced/);
      const v = await cliInProcess(['verify', j.file], { env: ENV });
      expect(v.code).toBe(1);
      expect(v.stderr).toContain(`${j.file}: rollback: the checkpoint recorded 4 steps ending at ${j.head}`);
    }
  });

  test('a checkpointed last row cut so it no longer parses is no torn tail: refused, nothing moved aside', async () => {
    const j = journalOf(4);
    const head = j.head;
    cutLastRow(j.file);
    const bytes = readFileSync(j.file);
    const a = await cliInProcess(['append', j.dir, '--no-snapshot'], { env: ENV });
    expect(a.code).toBe(1);
    expect(a.stderr).toContain(`${j.file}: rollback: the checkpoint recorded 4 steps ending at ${head}`);
    expect(a.stderr).toContain('not a write that never finished');
    expect(a.stderr).not.toContain('moved a torn tail');
    expect(sideFiles(j.file)).toEqual([]);
    expect(readFileSync(j.file)).toEqual(bytes);
    const v = JSON.parse((await cliInProcess(['verify', j.file, '--json'], { env: ENV })).stdout);
    expect(v.errors.map((e: { line: number | null; kind: string }) => [e.line, e.kind])).toEqual([
      [4, 'malformed_json'],
      [null, 'rollback'],
    ]);
  });

  test('the same row replaced by a line that does not parse, newline kept: refused as well', () => {
    const j = journalOf(3);
    const lines = readFileSync(j.file, 'utf8').split('\n');
    lines[2] = lines[2]!.slice(0, 40);
    writeFileSync(j.file, lines.join('\n'));
    expect(() => Journal.open(j.dir, quiet)).toThrow(JournalRollbackError);
    expect(sideFiles(j.file)).toEqual([]);
  });

  test('without the key, verify says rollback could not be checked (and the walk still decides the verdict)', async () => {
    const j = journalOf(3);
    const off = await cliInProcess(['verify', j.file], { env: OFF });
    expect(off.code).toBe(0);
    expect(off.stderr).toBe(
      `stepchain: ${j.file}: warning: rollback not checked: checkpoints are off (STEPCHAIN_CHECKPOINT)\n`,
    );
    const noKey = await cliInProcess(['verify', j.file], {
      env: { ...ENV, STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(root, 'none.key') },
    });
    expect(noKey.code).toBe(0);
    expect(noKey.stderr).toContain('warning: rollback not checked: no checkpoint key');
    const ok = await cliInProcess(['verify', j.file], { env: ENV });
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe('');
  });

  test('a torn tail after the checkpointed rows (a hand-made fragment) is still moved aside', async () => {
    const j = journalOf(3);
    writeFileSync(j.file, '{"seq": 3, "prev_ha', { flag: 'a' });
    // A real process: the torn-tail notice goes to the process's stderr (printTornTailNotice), not through the CLI's io.
    const a = cli(['append', j.dir, '--no-snapshot'], { env: ENV });
    expect(a.code).toBe(0);
    expect(a.stderr).toContain('moved a torn tail of 19 bytes (a write that never finished)');
    expect((await cliInProcess(['verify', j.file], { env: ENV })).code).toBe(0);
  });

  test('a real writer killed mid-write: its torn tail is repaired and the chain continues, no rollback', async () => {
    // The writer writes a row in pieces: the first poll sees the file a few hundred KB longer, and a 128 MB row leaves
    // the 1 ms poll a window of ~0.3 s (as in journal.recovery.test.ts); 256 MB cost twice the CPU before its first byte.
    const j = journalOf(3);
    const before = statSync(j.file).size;
    const src = path.join(repoRoot, 'src', 'journal');
    const child = spawn(
      process.execPath,
      nodeWithSources(`
      const { Journal } = require(${JSON.stringify(src)});
      const j = Journal.open(${JSON.stringify(j.dir)}, { durability: 'none', env: process.env });
      process.stdout.write('ready\\n');
      j.append({ prompt: 'y'.repeat(128 * 1024 * 1024) });
    `),
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...ENV } },
    );
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (statSync(j.file).size > before) {
          clearInterval(poll);
          child.kill('SIGKILL');
          resolve();
        }
      }, 1);
    });
    await new Promise((resolve) => child.on('exit', resolve));
    const row = Journal.open(j.dir, { ...quiet, lockTimeoutMs: 5000 }).append({ prompt: 'after the kill' });
    const r = withJournalRollback(j.file, verifyJournalFile(j.file), ENV);
    expect(r.result.errors).toEqual([]);
    expect([4, 5]).toContain(r.result.steps);
    expect(row.seq).toBe(r.result.steps - 1);
  }, 120000);

  test('property: truncation to any row count (or any byte) below the checkpoint is reported and refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.nat(), fc.boolean(), (rows, cut, atRow) => {
        const j = journalOf(rows);
        const size = statSync(j.file).size;
        if (atRow) truncateToLines(j.file, cut % rows);
        // Any byte that cuts a row: cutting the last newline alone leaves every row (a journal may end without one).
        else truncateSync(j.file, cut % (size - 1));
        const v = withJournalRollback(j.file, verifyJournalFile(j.file), ENV).result;
        expect(v.ok).toBe(false);
        expect(v.errors.some((e) => e.kind === 'rollback')).toBe(true);
        expect(() => Journal.open(j.dir, quiet)).toThrow(IntegrityError);
        expect(sideFiles(j.file)).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });
});

describe('run journals', () => {
  // A project of its own (not below `root`, which holds journals' .sdd/).
  const runRoot = tempDir('stepchain-rollback-runs-');
  let r = 0;
  const record = (run: string, i: number, env = ENV) =>
    cliInProcess(['run', 'record', run, '--event', 'tool', '--data', JSON.stringify({ i }), '--root', runRoot], {
      env,
    });
  const runOf = async (events: number): Promise<{ run: string; file: string; head: string }> => {
    const run = `r${r++}`;
    for (let i = 0; i < events; i++) expect(await record(run, i)).toMatchObject({ code: 0, stderr: '' });
    const file = path.join(runRoot, '.sdd', 'runs', run, 'journal.jsonl');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    return { run, file, head: JSON.parse(lines.at(-1)!).event_hash as string };
  };

  test('truncated in place: run record refuses, run verify reports the rollback', async () => {
    const { run, file, head } = await runOf(4);
    truncateToLines(file, 2);
    const a = await record(run, 9);
    expectNoStack(a);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain(
      `${file}: rollback: the checkpoint recorded 4 events ending at ${head}, but only 2 remain`,
    );
    const v = await cliInProcess(['run', 'verify', file], { env: ENV });
    expect(v.code).toBe(1);
    expect(v.stderr).toContain(`${file}: rollback: the checkpoint recorded 4 events ending at ${head}`);
    const j = JSON.parse((await cliInProcess(['run', 'verify', file, '--json'], { env: ENV })).stdout);
    expect(j.errors).toEqual([{ line: 0, index: null, kind: 'rollback', message: expect.stringContaining(head) }]);
  });

  test('a checkpointed last row cut so it no longer parses: refused, nothing moved aside', async () => {
    const { run, file, head } = await runOf(3);
    cutLastRow(file);
    const a = await record(run, 9);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain(`${file}: rollback: the checkpoint recorded 3 events ending at ${head}`);
    expect(sideFiles(file)).toEqual([]);
    expect((await cliInProcess(['run', 'verify', file], { env: ENV })).stderr).toContain('rollback');
  });

  test('without the key, run verify says rollback could not be checked; a torn tail after the rows is repaired', async () => {
    const { run, file } = await runOf(2);
    const off = await cliInProcess(['run', 'verify', file], { env: OFF });
    expect(off.code).toBe(0);
    expect(off.stderr).toContain(`stepchain: ${file}: warning: rollback not checked`);
    writeFileSync(file, '{"ts": 1.0, "ind', { flag: 'a' });
    // A real process: the torn-tail notice goes to the process's stderr, not through the CLI's io.
    const a = cli(['run', 'record', run, '--event', 'tool', '--data', JSON.stringify({ i: 2 }), '--root', runRoot], {
      env: ENV,
    });
    expect(a.code).toBe(0);
    expect(a.stderr).toContain('moved a torn tail');
    expect((await cliInProcess(['run', 'verify', file], { env: ENV })).code).toBe(0);
  });

  test('property: truncation to any event count below the checkpoint is refused and reported', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.nat(), (events, cut) => {
        const file = path.join(root, 'lib-runs', `r${r++}`, 'journal.jsonl');
        const rj = new RunJournal(file, { env: ENV });
        for (let i = 0; i < events; i++) rj.record([{ event: 'tool', payload: new Map([['i', i]]) }]);
        truncateToLines(file, cut % events);
        const v = verifyRunJournalChecked(file, {}, ENV).result;
        expect(v.errors.map((e) => e.kind)).toEqual(['rollback']);
        expect(() => new RunJournal(file, { env: ENV }).state()).toThrow(/rollback/);
      }),
      { numRuns: 30 },
    );
  });
});

describe('the audit log', () => {
  const auditKey = path.join(root, 'audit.key');
  const AUDIT = { ...ENV, STEPCHAIN_AUDIT: 'on', STEPCHAIN_AUDIT_KEY_PATH: auditKey };
  let p = 0;
  // Projects of their own (not below `root`, which holds journals' .sdd/).
  const auditBase = tempDir('stepchain-rollback-audit-');
  /** A project whose audit log holds `entries` events (one per CLI append); its day file. */
  const logOf = async (entries: number): Promise<{ project: string; dir: string; day: string }> => {
    const project = path.join(auditBase, `p${p++}`);
    mkdirSync(project);
    for (let i = 0; i < entries; i++)
      expect(
        (await cliInProcess(['append', 'a', '--root', project, '--no-snapshot', '--prompt', `${i}`], { env: AUDIT }))
          .code,
      ).toBe(0);
    const dir = path.join(project, '.sdd', 'audit');
    const day = readdirSync(dir).find((f) => f.endsWith('.jsonl'))!;
    return { project, dir, day: path.join(dir, day) };
  };
  const tip = (day: string): string => JSON.parse(readFileSync(day, 'utf8').trim().split('\n').at(-1)!).hmac as string;

  test('truncated at its tail: audit verify reports the rollback; the next event is refused, said plainly', async () => {
    const { project, dir, day } = await logOf(4);
    const head = tip(day);
    truncateToLines(day, 2);
    const v = await cliInProcess(['audit', 'verify', '--dir', dir], { env: AUDIT });
    expectNoStack(v);
    expect(v.code).toBe(1);
    expect(v.stderr).toContain(
      `${dir}: rollback: the checkpoint recorded 4 entries ending at ${head}, but only 2 remain`,
    );
    const j = JSON.parse((await cliInProcess(['audit', 'verify', '--dir', dir, '--json'], { env: AUDIT })).stdout);
    expect(j.errors).toEqual([{ file: '', line: 0, kind: 'rollback', message: expect.stringContaining(head) }]);
    const a = await cliInProcess(['append', 'a', '--root', project, '--no-snapshot'], { env: AUDIT });
    expect(a.code).toBe(0); // the step is recorded; the audit chain is not extended, and it says why
    expect(a.stderr).toMatch(/the audit chain was NOT extended .*rollback: the checkpoint recorded 4 entries/);
    expect(readFileSync(day, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  test('its last entry cut so it no longer parses: refused, nothing moved aside, audit verify names it', async () => {
    const { dir, day } = await logOf(3);
    const key = loadAuditKey(auditKey).bytes;
    cutLastRow(day);
    expect(() =>
      appendAuditEvent(dir, key, 'replay.step', { actor: 'a', resource_type: 'r', resource_id: 'x' }),
    ).toThrow(/rollback: .*not a write that never finished/);
    expect(sideFiles(day)).toEqual([]);
    const v = verifyAuditLogChecked(dir, key).result;
    expect(v.errors.map((e) => e.kind)).toContain('rollback');
  });

  test('property: truncation to any entry count below the checkpoint is refused and reported', () => {
    const key = Buffer.alloc(32, 9);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.nat(), (entries, cut) => {
        const dir = path.join(root, 'lib-audit', `d${p++}`);
        const ev = (i: number) => ({ actor: 'a', resource_type: 'r', resource_id: String(i) });
        for (let i = 0; i < entries; i++) appendAuditEvent(dir, key, 'e', ev(i), { durable: false });
        const day = path.join(
          dir,
          readdirSync(dir).find((f) => f.endsWith('.jsonl'))!,
        );
        truncateToLines(day, cut % entries);
        expect(verifyAuditLogChecked(dir, key).result.errors.map((e) => e.kind)).toContain('rollback');
        expect(() => appendAuditEvent(dir, key, 'e', ev(9), { durable: false })).toThrow(/rollback/);
      }),
      { numRuns: 30 },
    );
  });
});

describe('an older file restored together with its older checkpoint (the mirror beside the key)', () => {
  /** Copies `files` aside now, and returns a function that puts them back (new inodes: a restore from a backup). */
  const backup = (files: string[]): (() => void) => {
    const saved = files.map((f) => [f, readFileSync(f)] as const);
    return () => {
      for (const [f, bytes] of saved) {
        writeFileSync(`${f}.restore`, bytes);
        renameSync(`${f}.restore`, f);
      }
    };
  };

  test('a per-step journal: append refuses and verify reports the rollback, naming the later head', async () => {
    const j = journalOf(2);
    const restore = backup([j.file, `${j.file}.checkpoint`]);
    j.append({ prompt: 'p 2' });
    j.append({ prompt: 'p 3' });
    const head = j.head;
    restore();
    expect(verifyJournalFile(j.file).ok).toBe(true); // a valid chain, with a checkpoint that vouches for it
    const a = await cliInProcess(['append', j.dir, '--no-snapshot', '--prompt', 'after'], { env: ENV });
    expectNoStack(a);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain(
      `${j.file}: rollback: the checkpoint recorded 4 steps ending at ${head}, but only 2 remain`,
    );
    const v = await cliInProcess(['verify', j.file], { env: ENV });
    expect(v.code).toBe(1);
    expect(v.stderr).toContain(`${j.file}: rollback: the checkpoint recorded 4 steps ending at ${head}`);
  });

  test('a journal moved aside is still a fresh start (the documented remedy), and its mirror follows the new chain', async () => {
    const j = journalOf(3);
    renameSync(j.file, `${j.file}.rolled-back`);
    const fresh = Journal.open(j.dir, quiet);
    fresh.append({ prompt: 'new 0' });
    expect((await cliInProcess(['append', j.dir, '--no-snapshot', '--prompt', 'new 1'], { env: ENV })).code).toBe(0);
    expect((await cliInProcess(['verify', j.file], { env: ENV })).code).toBe(0);
  });

  test('a run journal and the audit log: refused as well', () => {
    const file = path.join(root, 'mirror-runs', `r${n++}`, 'journal.jsonl');
    const rj = new RunJournal(file, { env: ENV });
    for (let i = 0; i < 2; i++) rj.record([{ event: 'tool', payload: new Map([['i', i]]) }]);
    const restoreRun = backup([file, `${file}.checkpoint`]);
    for (let i = 2; i < 4; i++) rj.record([{ event: 'tool', payload: new Map([['i', i]]) }]);
    restoreRun();
    expect(() => new RunJournal(file, { env: ENV }).state()).toThrow(/rollback: the checkpoint recorded 4 events/);
    expect(verifyRunJournalChecked(file, {}, ENV).result.errors.map((e) => e.kind)).toEqual(['rollback']);

    const key = Buffer.alloc(32, 5);
    const dir = path.join(root, 'mirror-audit', `d${n++}`);
    const ev = (i: number) => ({ actor: 'a', resource_type: 'r', resource_id: String(i) });
    for (let i = 0; i < 2; i++) appendAuditEvent(dir, key, 'e', ev(i), { durable: false });
    const day = path.join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.jsonl'))!,
    );
    const restoreLog = backup([day, path.join(dir, 'audit.checkpoint')]);
    for (let i = 2; i < 4; i++) appendAuditEvent(dir, key, 'e', ev(i), { durable: false });
    restoreLog();
    expect(() => appendAuditEvent(dir, key, 'e', ev(9), { durable: false })).toThrow(
      /rollback: the checkpoint recorded 4 entries/,
    );
    expect(verifyAuditLogChecked(dir, key).result.errors.map((e) => e.kind)).toContain('rollback');
  });
});
