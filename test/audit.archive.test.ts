import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { appendAuditEvent, queryAudit, queryAuditLog, verifyAuditLog } from '../src/audit';
import { cliInProcess } from './helpers/cli-in-process';
import { refPython } from './helpers/python';
import { tempDir } from './helpers/tmp';

/**
 * The audit log as the newer reference reads it (docs/runs-audit.md): empty
 * lines skipped, and archived days (`archive/<day>.jsonl.gz`, written by its
 * retention `archive()`) read first, in date order, as one chain with the live
 * files. Archives are made here by the Python model of that reference
 * (test/python/ref_audit.py), which verifies the same logs.
 */
const base = tempDir();
let n = 0;
const DAY = 86_400_000_000;
const T0 = Date.UTC(2026, 11, 1, 12, 0, 0) * 1000;
const key = Buffer.from('0123456789abcdef'.repeat(4));
const keyFile = path.join(base, 'audit.key');
writeFileSync(keyFile, key, { mode: 0o600 });
const ev = (i: number) => ({ actor: 'agent-1', resource_type: 'journal', resource_id: 'a', details: { seq: i } });

/** A log over `days` days, two entries a day; the days before `archiveBefore` archived by the Python model. */
function log(days: number, archiveBefore?: string): string {
  const d = path.join(base, `log-${n++}`);
  mkdirSync(d, { recursive: true });
  for (let i = 0; i < days * 2; i++)
    appendAuditEvent(d, key, 'replay.step', ev(i), { nowMicros: T0 + Math.floor(i / 2) * DAY + (i % 2) });
  if (archiveBefore !== undefined) refPython('ref_audit.py', ['archive', d, archiveBefore]);
  return d;
}
const py = (d: string): { ok: boolean; errors: string[] } =>
  JSON.parse(refPython('ref_audit.py', ['verify', d, keyFile])) as { ok: boolean; errors: string[] };
const kinds = (d: string) => verifyAuditLog(d, key).errors.map((e) => [e.file, e.line, e.kind]);

describe('archived days and blank lines', () => {
  it('archived days are read first, as one chain with the live files', () => {
    const whole = verifyAuditLog(log(4), key);
    const d = log(4, '2026-12-03');
    expect(readdirSync(path.join(d, 'archive')).sort()).toEqual(['2026-12-01.jsonl.gz', '2026-12-02.jsonl.gz']);
    const r = verifyAuditLog(d, key);
    expect(r).toMatchObject({ ok: true, entries: 8, errors: [] });
    expect(r.files).toEqual([
      'archive/2026-12-01.jsonl.gz',
      'archive/2026-12-02.jsonl.gz',
      '2026-12-03.jsonl',
      '2026-12-04.jsonl',
    ]);
    expect(r.head_hmac).toBe(whole.head_hmac);
    expect(py(d)).toEqual({ ok: true, errors: [] });
    expect(queryAudit(d).map((m) => m.entry.details)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((seq) => ({ seq })));
  });

  it('an edited archived day is an HMAC fault named in the archive', () => {
    const d = log(3, '2026-12-03');
    const gz = path.join(d, 'archive', '2026-12-02.jsonl.gz');
    const text = gunzipSync(readFileSync(gz)).toString('utf8').replace('"seq": 3', '"seq": 33');
    writeFileSync(gz, gzipSync(Buffer.from(text)));
    expect(kinds(d)).toEqual([['archive/2026-12-02.jsonl.gz', 2, 'hmac_mismatch']]);
    expect(py(d).ok).toBe(false);
  });

  it('a deleted archived day breaks the chain at the next segment', () => {
    const d = log(3, '2026-12-03');
    unlinkSync(path.join(d, 'archive', '2026-12-01.jsonl.gz'));
    expect(kinds(d)[0]).toEqual(['archive/2026-12-02.jsonl.gz', 1, 'prev_hmac_mismatch']);
    expect(py(d).ok).toBe(false);
  });

  it('an unreadable archive is a fault that stops the walk (no link past it can be checked)', () => {
    const d = log(3, '2026-12-03');
    const gz = path.join(d, 'archive', '2026-12-01.jsonl.gz');
    writeFileSync(gz, readFileSync(gz).subarray(0, 20));
    expect(kinds(d)).toEqual([['archive/2026-12-01.jsonl.gz', 0, 'unreadable_archive']]);
    expect(py(d).ok).toBe(false);
  });

  it('a query leaves an unreadable archived day out and says so (it listed the rest as if complete)', async () => {
    const d = log(3, '2026-12-03');
    const gz = path.join(d, 'archive', '2026-12-01.jsonl.gz');
    writeFileSync(gz, readFileSync(gz).subarray(0, 20));
    const r = queryAuditLog(d);
    expect(r.skipped).toEqual([{ file: 'archive/2026-12-01.jsonl.gz', why: expect.any(String) }]);
    expect(r.matches.length).toBeGreaterThan(0);
    // What the command prints is the point: through runCli in this process (audit.test.ts runs `audit query` as a
    // process).
    const text = await cliInProcess(['audit', 'query', '--dir', d]);
    expect(text.code).toBe(0);
    expect(text.stderr).toContain(`stepchain: warning: ${gz}: left out of the query: `);
    const json = await cliInProcess(['audit', 'query', '--dir', d, '--json']);
    expect(JSON.parse(json.stdout).skipped).toEqual([
      { file: 'archive/2026-12-01.jsonl.gz', reason: expect.any(String) },
    ]);
  });

  it('an archive renamed without a date cannot jump ahead of the dated ones', () => {
    const d = log(3, '2026-12-03');
    renameSync(path.join(d, 'archive', '2026-12-01.jsonl.gz'), path.join(d, 'archive', 'aaa.jsonl.gz'));
    const r = verifyAuditLog(d, key);
    expect(r.files[0]).toBe('archive/2026-12-02.jsonl.gz');
    expect(r.files[1]).toBe('archive/aaa.jsonl.gz');
    expect(r.ok).toBe(false);
  });

  it('empty lines are skipped, as the reference skips them; line numbers still count them', () => {
    const d = log(2);
    const file = path.join(d, '2026-12-01.jsonl');
    const [a, b] = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, `\n${a}\n\n\n${b}\n`);
    expect(verifyAuditLog(d, key)).toMatchObject({ ok: true, entries: 4 });
    expect(py(d)).toEqual({ ok: true, errors: [] });
    appendFileSync(file, 'garbage\n');
    expect(kinds(d)).toEqual([['2026-12-01.jsonl', 6, 'malformed_json']]);
  });
});
