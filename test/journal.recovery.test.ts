import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, JournalRecoveryError, verifyJournalFile } from '../src/journal';
import { tempDir } from './helpers/tmp';

const root = tempDir();
let n = 0;
function fresh(steps: number): Journal {
  const dir = path.join(root, '.sdd', 'runtime', 'journal', `r-${n++}`);
  const j = Journal.open(dir, { durability: 'none' });
  for (let i = 0; i < steps; i++) j.append({ prompt: `step ${i}`, tool_result: { i } });
  return j;
}
const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');
const tornFiles = (j: Journal): string[] => readdirSync(j.dir).filter((f) => f.includes('.torn-'));

describe('recovery on open', () => {
  it('resumes a clean chain and appends onto its tip', () => {
    const j = fresh(3);
    const again = Journal.open(j.dir);
    expect(again.head).toBe(j.head);
    expect(again.append({ prompt: 'more' }).seq).toBe(3);
    expect(verifyJournalFile(j.file, { strict: true }).ok).toBe(true);
  });

  it('moves a torn fragment (no newline) aside and truncates before the next append', () => {
    const j = fresh(3);
    const before = readFileSync(j.file);
    appendFileSync(j.file, '{"blob_refs":[],"input_hash":"e3b0c4');
    const reopened = Journal.open(j.dir);
    expect(readFileSync(j.file)).toEqual(before);
    const side = tornFiles(j);
    expect(side).toHaveLength(1);
    expect(readFileSync(path.join(j.dir, side[0]!), 'utf8')).toBe('{"blob_refs":[],"input_hash":"e3b0c4');
    const row = reopened.append({ prompt: 'after crash' });
    expect(row.seq).toBe(3);
    expect(verifyJournalFile(j.file, { strict: true })).toMatchObject({ ok: true, steps: 4 });
  });

  it('treats an unparseable last line (with newline) as torn too', () => {
    const j = fresh(2);
    appendFileSync(j.file, 'garbage\n');
    Journal.open(j.dir).append({ prompt: 'x' });
    expect(verifyJournalFile(j.file, { strict: true })).toMatchObject({ ok: true, steps: 3 });
    expect(tornFiles(j)).toHaveLength(1);
  });

  it('finishes a valid last row whose newline was lost', () => {
    const j = fresh(2);
    const content = readFileSync(j.file, 'utf8');
    writeFileSync(j.file, content.slice(0, -1));
    const reopened = Journal.open(j.dir);
    expect(reopened.length).toBe(2);
    expect(readFileSync(j.file, 'utf8')).toBe(content);
    expect(tornFiles(j)).toHaveLength(0);
  });

  it.each([
    ['a tampered field', (l: string[]) => void (l[1] = l[1]!.replace('step 1', 'step one')), 2, 'step_hash_mismatch'],
    ['a deleted row', (l: string[]) => void l.splice(1, 1), 2, 'seq_mismatch'],
    [
      'a tampered last row',
      (l: string[]) => void (l[3] = l[3]!.replace('step 3', 'step III')),
      4,
      'step_hash_mismatch',
    ],
    ['interior garbage', (l: string[]) => void (l[1] = 'not json'), 2, 'malformed_json'],
  ])('refuses %s, naming file, line and remedy, leaving the file untouched', (_name, edit, line, kind) => {
    const j = fresh(4);
    const lines = readFileSync(j.file, 'utf8').split('\n').slice(0, -1);
    edit(lines);
    writeFileSync(j.file, lines.map((l) => `${l}\n`).join(''));
    const digest = sha(j.file);
    let err: unknown;
    try {
      Journal.open(j.dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JournalRecoveryError);
    const e = err as JournalRecoveryError;
    expect(e.line).toBe(line);
    expect(e.kind).toBe(kind);
    expect(e.message).toContain(`${j.file}:${line}`);
    expect(e.message).toContain('.corrupt');
    expect(e.exitCode).toBe(1);
    expect(sha(j.file)).toBe(digest);
    expect(tornFiles(j)).toHaveLength(0);
  });

  it('an appender catches up on rows another writer added, verifying them', () => {
    const a = fresh(1);
    const b = Journal.open(a.dir);
    a.append({ prompt: 'from a' });
    expect(b.append({ prompt: 'from b' }).seq).toBe(2);
    // Someone tampers behind b's back: b's next append re-verifies only the new bytes,
    // so tamper with a newly appended row.
    a.append({ prompt: 'from a again' });
    const lines = readFileSync(a.file, 'utf8').split('\n');
    lines[3] = lines[3]!.replace('from a again', 'from A again');
    writeFileSync(a.file, lines.join('\n'));
    expect(() => b.append({ prompt: 'refused' })).toThrow(JournalRecoveryError);
  });

  it('a stale lock from a dead process does not block the next open', () => {
    const j = fresh(1);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(j.lockFile, `${dead.stdout} ${require('node:os').hostname()} x`);
    expect(Journal.open(j.dir, { lockTimeoutMs: 2000 }).append({ prompt: 'ok' }).seq).toBe(1);
    expect(existsSync(j.lockFile)).toBe(false);
  });
});

/** Runs a script in a child node process that loads the TypeScript sources through @swc/register-like transpile. */
function nodeWithSources(code: string): string[] {
  // Transpile on the fly with @swc/core so child processes run the same sources as the tests.
  const loader = path.resolve(__dirname, 'helpers', 'swc-register.js');
  return ['-r', loader, '-e', code];
}

describe('processes', () => {
  it('several processes appending at once never interleave bytes or fork the chain', async () => {
    const dir = path.join(root, '.sdd', 'runtime', 'journal', 'concurrent');
    const src = path.resolve(__dirname, '..', 'src', 'journal');
    const procs = Array.from(
      { length: 4 },
      (_, p) =>
        new Promise<number>((resolve) => {
          const child = spawn(
            process.execPath,
            nodeWithSources(`
          const { Journal } = require(${JSON.stringify(src)});
          const j = Journal.open(${JSON.stringify(dir)});
          for (let i = 0; i < 25; i++) j.append({ prompt: 'p${p} ' + i + ' ' + 'x'.repeat(5000 * (i % 3)), tool_result: { p: ${p}, i } });
        `),
            { stdio: ['ignore', 'inherit', 'inherit'] },
          );
          child.on('exit', (code) => resolve(code ?? -1));
        }),
    );
    expect(await Promise.all(procs)).toEqual([0, 0, 0, 0]);
    const r = verifyJournalFile(path.join(dir, '000000.jsonl'), { strict: true });
    expect(r.errors).toEqual([]);
    expect(r.steps).toBe(100);
  });

  it('a writer killed mid-append never costs an earlier step and never blocks the next open', async () => {
    const dir = path.join(root, '.sdd', 'runtime', 'journal', 'killed');
    const j = Journal.open(dir);
    for (let i = 0; i < 3; i++) j.append({ prompt: `before ${i}` });
    const before = readFileSync(j.file);
    const src = path.resolve(__dirname, '..', 'src', 'journal');
    // A child appends one huge row; it is killed with SIGKILL while the file grows. The writer writes a row in
    // pieces: the first poll sees the file a few hundred KB longer, so 128 MB leaves a window of ~0.3 s (measured
    // here) for the 1 ms poll; 400 MB took 6 s of CPU to hash and encode before its first byte, for the same kill.
    const child = spawn(
      process.execPath,
      nodeWithSources(`
      const { Journal } = require(${JSON.stringify(src)});
      const j = Journal.open(${JSON.stringify(dir)}, { durability: 'none' });
      process.stdout.write('ready\\n');
      j.append({ prompt: 'y'.repeat(128 * 1024 * 1024) });
      process.stdout.write('done\\n');
    `),
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (statSync(j.file).size > before.length) {
          clearInterval(poll);
          child.kill('SIGKILL');
          resolve();
        }
      }, 1);
    });
    await new Promise((resolve) => child.on('exit', resolve));
    // The earlier steps are intact; the lock left behind by the dead writer is broken.
    expect(readFileSync(j.file).subarray(0, before.length)).toEqual(before);
    const next = Journal.open(dir, { lockTimeoutMs: 5000 });
    const row = next.append({ prompt: 'after the kill' });
    const r = verifyJournalFile(j.file, { strict: true });
    expect(r.errors).toEqual([]);
    // Either the huge row was torn (moved aside) or it landed whole before the kill.
    expect([4, 5]).toContain(r.steps);
    expect(row.seq).toBe(r.steps - 1);
  }, 120000);
});
