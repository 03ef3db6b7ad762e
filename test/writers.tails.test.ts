/**
 * The torn-tail rule for every writer (docs/journal.md, "Recovery on open";
 * docs/runs-audit.md): only bytes after the last line ending that do not parse,
 * or a final line that does not parse as JSON at all, are a torn tail (moved
 * aside, and the operator told); any line that parses is judged as a row or
 * entry, and a bad one refuses the file, leaving it untouched. Blank lines the
 * readers skip are kept. Every kind of last line, through `run record` and the
 * audit writer (the per-step journal's table is test/journal.tail.test.ts), and
 * the audit log's archived days: the chain and its checkpoint run through them.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { appendAuditEvent, verifyAuditLog } from '../src/audit';
import type { TornTailMoved } from '../src/journal';
import { RunJournal, verifyRunJournal } from '../src/runs';
import { cli } from './helpers/cli';
import { refPython } from './helpers/python';
import { tempDir } from './helpers/tmp';

const root = tempDir('stepchain-tails-');
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(root, 'checkpoint.key') };
let n = 0;

const deep = `${'['.repeat(2000)}${']'.repeat(2000)}`;
/** [name, bytes appended after two good rows, what the next writer must do] */
const TAILS: [string, string, 'torn' | 'refused' | 'kept'][] = [
  ['a row cut short', '{"ts": 1.0, "elapsed_s": 0.0, "ind', 'torn'],
  ['NUL padding (power loss)', '\0\0\0\0\0\0', 'torn'],
  ['a line cut short, then its newline', '{"ts": 1.0, "elap\n', 'torn'],
  ['blank bytes after the last newline', '   ', 'torn'],
  ['an object that is no row', '{"a": 1}\n', 'refused'],
  ['an object that is no row, without its newline', '{"a": 1}', 'refused'],
  ['an array', '[1, 2]\n', 'refused'],
  ['a number', '5\n', 'refused'],
  ['a string', '"x"\n', 'refused'],
  ['null', 'null\n', 'refused'],
  ['a row behind a byte-order mark', '\ufeff{"a": 1}\n', 'refused'],
  ['nesting past the limit', `${deep}\n`, 'refused'],
  ['an integer of 5,000 digits', `${'1'.repeat(5000)}\n`, 'refused'],
  ['two lines that do not parse', '{"a\n{"b\n', 'refused'],
  ['an empty line', '\n', 'kept'],
  ['three empty lines', '\n\n\n', 'kept'],
  ['a whitespace-only line', ' \t \n', 'kept'],
  ['a CRLF blank line', '\r\n', 'kept'],
  ['a bare CR', '\r', 'kept'],
];

describe('run journals: every kind of last line', () => {
  test.each(TAILS)('%s: %#', (_name, bytes, outcome) => {
    const file = path.join(root, 'runs', `r${n++}`, 'journal.jsonl');
    const rj = new RunJournal(file, { env: ENV });
    rj.record([{ event: 'a', payload: new Map() }]);
    rj.record([{ event: 'b', payload: new Map() }]);
    const good = readFileSync(file);
    appendFileSync(file, bytes);
    const damaged = readFileSync(file);
    const told: TornTailMoved[] = [];
    const next = (): number =>
      new RunJournal(file, { env: ENV, onTornTail: (m) => told.push(m) }).record([
        { event: 'c', payload: new Map() },
      ])[0]!.index;
    const sides = (): string[] => readdirSync(path.dirname(file)).filter((f) => f.includes('.torn-'));
    if (outcome === 'refused') {
      expect(next).toThrow(/journal\.jsonl:3: malformed_json.*refusing to append/);
      expect(readFileSync(file)).toEqual(damaged);
      expect(sides()).toEqual([]);
      expect(told).toEqual([]);
      return;
    }
    expect(next()).toBe(2);
    expect(verifyRunJournal(file)).toMatchObject({ ok: true, count: 3 });
    if (outcome === 'torn') {
      expect(sides()).toHaveLength(1);
      expect(readFileSync(path.join(path.dirname(file), sides()[0]!))).toEqual(Buffer.from(bytes, 'latin1'));
      expect(told).toEqual([{ file, sideFile: path.join(path.dirname(file), sides()[0]!), bytes: bytes.length }]);
      expect(readFileSync(file).subarray(0, good.length)).toEqual(good);
    } else {
      expect(sides()).toEqual([]);
      expect(told).toEqual([]);
      expect(readFileSync(file).subarray(0, damaged.length)).toEqual(damaged); // the blank lines stay
    }
  });

  test('`run record` says on stderr when it moves a torn tail aside', () => {
    const proj = path.join(root, `proj-${n++}`);
    mkdirSync(proj); // --root names an existing directory
    expect(cli(['run', 'record', 'r', '--event', 'a', '--root', proj], { env: ENV }).code).toBe(0);
    const file = path.join(proj, '.sdd', 'runs', 'r', 'journal.jsonl');
    appendFileSync(file, '{"ts": 1.0, "ela');
    const r = cli(['run', 'record', 'r', '--event', 'b', '--root', proj], { env: ENV });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `stepchain: ${file.replace(/[.]/g, '\\.')}: moved a torn tail of 16 bytes .* to ${file}\\.torn-[0-9]+`,
      ),
    );
    appendFileSync(file, '{"a": 1}\n');
    const refused = cli(['run', 'record', 'r', '--event', 'c', '--root', proj], { env: ENV });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${file}:3: malformed_json`);
  });
});

describe('the audit log: last lines', () => {
  const key = Buffer.from('k'.repeat(64));
  const T0 = Date.UTC(2026, 0, 2) * 1000;
  const f = (i: number) => ({ actor: 'a', resource_type: 'journal', resource_id: 'a', details: { i } });
  const fresh = (): { dir: string; day: string } => {
    const dir = path.join(root, `audit-${n++}`);
    appendAuditEvent(dir, key, 'e', f(0), { nowMicros: T0 });
    appendAuditEvent(dir, key, 'e', f(1), { nowMicros: T0 + 1 });
    return {
      dir,
      day: path.join(
        dir,
        readdirSync(dir).find((x) => x.endsWith('.jsonl'))!,
      ),
    };
  };

  test.each([['\n'], ['\n\n\n']])('empty lines at the end (%j), which verify skips, do not stop the log', (blank) => {
    const { dir, day } = fresh();
    appendFileSync(day, blank);
    expect(verifyAuditLog(dir, key).ok).toBe(true);
    appendAuditEvent(dir, key, 'e', f(2), { nowMicros: T0 + 2 });
    expect(verifyAuditLog(dir, key)).toMatchObject({ ok: true, entries: 3 });
  });

  test('an entry-like line without its newline that parses is refused, not moved aside', () => {
    const { dir, day } = fresh();
    appendFileSync(day, '{"a": 1}');
    const before = readFileSync(day);
    expect(() => appendAuditEvent(dir, key, 'e', f(2), { nowMicros: T0 + 2 })).toThrow(
      /\.jsonl:3: .*it parses as JSON, so it is no torn write.*refusing to extend the audit log/,
    );
    expect(readFileSync(day)).toEqual(before);
    expect(readdirSync(dir).filter((x) => x.includes('.torn-'))).toEqual([]);
  });

  test('bytes cut short after the last newline are moved aside', () => {
    const { dir, day } = fresh();
    appendFileSync(day, '{"actor": "a", "deta');
    appendAuditEvent(dir, key, 'e', f(2), { nowMicros: T0 + 2 });
    expect(verifyAuditLog(dir, key)).toMatchObject({ ok: true, entries: 3 });
    expect(readdirSync(dir).filter((x) => x.includes('.torn-'))).toHaveLength(1);
  });
});

describe('the audit log: archived days', () => {
  const key = Buffer.from('0123456789abcdef'.repeat(4));
  const keyFile = path.join(root, 'audit.key');
  writeFileSync(keyFile, key, { mode: 0o600 });
  const DAY = 86_400_000_000;
  const T0 = Date.UTC(2026, 11, 1, 12) * 1000;
  const f = (i: number) => ({ actor: 'a', resource_type: 'journal', resource_id: 'a', details: { seq: i } });
  /** Two days of entries, both archived by the Python model of the reference's retention. */
  const archivedLog = (): string => {
    const dir = path.join(root, `audit-${n++}`);
    mkdirSync(dir);
    for (let i = 0; i < 4; i++) appendAuditEvent(dir, key, 'e', f(i), { nowMicros: T0 + Math.floor(i / 2) * DAY + i });
    refPython('ref_audit.py', ['archive', dir, '2026-12-03']);
    expect(readdirSync(dir).filter((x) => x.endsWith('.jsonl'))).toEqual([]);
    return dir;
  };

  test('with every day archived, the next entry chains onto the last archived entry', () => {
    const dir = archivedLog();
    const tip = verifyAuditLog(dir, key).head_hmac;
    const e = appendAuditEvent(dir, key, 'e', f(4), { nowMicros: T0 + 3 * DAY });
    expect(e.prev_hmac).toBe(tip);
    expect(verifyAuditLog(dir, key)).toMatchObject({ ok: true, entries: 5, errors: [] });
    expect(JSON.parse(refPython('ref_audit.py', ['verify', dir, keyFile]))).toEqual({ ok: true, errors: [] });
  });

  test('an archived day edited after the last append is refused before the next one (the checkpoint covers it)', () => {
    const dir = archivedLog();
    appendAuditEvent(dir, key, 'e', f(4), { nowMicros: T0 + 3 * DAY });
    const gz = path.join(dir, 'archive', '2026-12-01.jsonl.gz');
    const text = gunzipSync(readFileSync(gz)).toString('utf8').replace('"seq": 1', '"seq": 9');
    writeFileSync(gz, gzipSync(Buffer.from(text)));
    expect(() => appendAuditEvent(dir, key, 'e', f(5), { nowMicros: T0 + 3 * DAY + 1 })).toThrow(
      /archive\/2026-12-01\.jsonl\.gz:2: hmac_mismatch.*refusing to extend the audit log/,
    );
  });

  test('an archived day replaced by another file under the same name is walked again', () => {
    const dir = archivedLog();
    appendAuditEvent(dir, key, 'e', f(4), { nowMicros: T0 + 3 * DAY });
    const gz = path.join(dir, 'archive', '2026-12-02.jsonl.gz');
    // Drop the archived day's last entry: the chain breaks at the live file.
    const lines = gunzipSync(readFileSync(gz)).toString('utf8').split('\n');
    writeFileSync(`${gz}.new`, gzipSync(Buffer.from(`${lines[0]}\n`)));
    renameSync(`${gz}.new`, gz);
    expect(() => appendAuditEvent(dir, key, 'e', f(5), { nowMicros: T0 + 3 * DAY + 1 })).toThrow(
      /prev_hmac_mismatch.*refusing to extend the audit log/,
    );
  });
});
