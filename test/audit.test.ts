import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  appendFileSync,
  chownSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import {
  appendAuditEvent,
  auditDir,
  auditEvent,
  loadAuditKey,
  queryAudit,
  resolveAuditKeyPath,
  verifyAuditLog,
} from '../src/audit';
import { recordStep } from '../src/record';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { repoRoot } from './helpers/paths';
import { refPython } from './helpers/python';
import { freshDir, tempDir } from './helpers/tmp';

const base = tempDir('stepchain-audit-');
const fresh = (): string => freshDir(base, 't');

/** A 0600 key in a new directory `<parent>/<name>` that everyone may write to (0777). */
function keyInOpenDir(parent: string, name: string): { open: string; key: string } {
  const open = path.join(parent, name);
  mkdirSync(open);
  chmodSync(open, 0o777);
  const key = path.join(open, 'audit.key');
  writeFileSync(key, 'k'.repeat(64), { mode: 0o600 });
  return { open, key };
}
const DAY = 86_400_000_000;
const T0 = Date.UTC(2026, 11, 1, 23, 59, 0) * 1000; // 2026-12-01T23:59Z in microseconds
const ev = (i: number) => ({
  actor: 'agent-1',
  resource_type: 'journal',
  resource_id: 'agent-1',
  details: { seq: i, text: `é ${i}` },
});

describe('key', () => {
  test('created on first use: 64 hex characters, 0600, in a 0700 directory; then reused', () => {
    const d = fresh();
    const file = path.join(d, 'state', 'stepchain', 'audit.key');
    const k = loadAuditKey(file, { create: true });
    expect(k.bytes.toString('ascii')).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(loadAuditKey(file).bytes.equals(k.bytes)).toBe(true);
  });

  test('the key bytes are the stripped file contents (a reference key with a newline works)', () => {
    const d = fresh();
    const file = path.join(d, 'k');
    writeFileSync(file, 'secret-key\n', { mode: 0o600 });
    expect(loadAuditKey(file).bytes.toString()).toBe('secret-key');
  });

  test('refused when group or others can read it, when empty, or when missing for verify', () => {
    const d = fresh();
    const file = path.join(d, 'k');
    writeFileSync(file, 'x'.repeat(64), { mode: 0o600 });
    chmodSync(file, 0o640);
    expect(() => loadAuditKey(file)).toThrow(/insecure permissions 0640.*chmod 600/);
    chmodSync(file, 0o604);
    expect(() => loadAuditKey(file)).toThrow(/insecure permissions/);
    writeFileSync(path.join(d, 'empty'), ' \n', { mode: 0o600 });
    expect(() => loadAuditKey(path.join(d, 'empty'))).toThrow(/is empty/);
    expect(() => loadAuditKey(path.join(d, 'none'))).toThrow(/no audit key/);
    const r = cli(['audit', 'verify', '--dir', d, '--key', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/insecure permissions/);
    expectNoStack(r);
  });

  test("refused: a 0600 key in a world- or group-writable directory, a key (or a symlink's target) another user owns", () => {
    const d = fresh();
    const { open, key: inOpen } = keyInOpenDir(d, 'open');
    expect(() => loadAuditKey(inOpen)).toThrow(/directory .*open is writable by everyone \(mode 0777\)/);
    chmodSync(open, 0o1777); // sticky, like /tmp: still refused
    expect(() => loadAuditKey(inOpen)).toThrow(/writable by everyone/);
    chmodSync(open, 0o770);
    expect(() => loadAuditKey(inOpen)).toThrow(/writable by its group/);
    // Nor is a key created there.
    expect(() => loadAuditKey(path.join(open, 'new.key'), { create: true })).toThrow(/writable by its group/);
    expect(existsSync(path.join(open, 'new.key'))).toBe(false);
    chmodSync(open, 0o700);
    expect(loadAuditKey(inOpen).bytes.toString()).toBe('k'.repeat(64));

    // Another user's key (uid 65534, "nobody"), directly or through a symlink from a safe directory. Making a file
    // another user owns takes root (.ci/run runs the suite as root); a non-root user could not read such a key at all.
    if (process.getuid!() !== 0) throw new Error('this test makes files owned by another user: run it as root');
    const theirs = path.join(d, 'theirs');
    mkdirSync(theirs, { mode: 0o700 });
    const theirKey = path.join(theirs, 'audit.key');
    writeFileSync(theirKey, 't'.repeat(64), { mode: 0o600 });
    chownSync(theirKey, 65534, 65534);
    expect(() => loadAuditKey(theirKey)).toThrow(/belongs to uid 65534, not to you/);
    const mine = path.join(d, 'mine');
    mkdirSync(mine, { mode: 0o700 });
    const link = path.join(mine, 'audit.key');
    symlinkSync(theirKey, link);
    expect(() => loadAuditKey(link)).toThrow(/belongs to uid 65534/);
    // A symlink to my own key in a directory another user owns: refused for that directory.
    chownSync(theirKey, process.getuid!(), process.getgid!());
    chownSync(theirs, 65534, 65534);
    expect(() => loadAuditKey(link)).toThrow(/directory .*theirs belongs to uid 65534/);
    chownSync(theirs, process.getuid!(), process.getgid!());
    expect(loadAuditKey(link).bytes.toString()).toBe('t'.repeat(64));
  });

  test('with an unusable key, append succeeds and says plainly the audit chain was not extended', async () => {
    const root = fresh();
    const { key: keyPath } = keyInOpenDir(root, 'shared');
    // In this process (`cliInProcess`): what append writes is the point; the refused key's exit 2 above is a process.
    const r = await cliInProcess(['append', 'agent-1', '--root', root, '--prompt', 'p', '--no-snapshot'], {
      env: { STEPCHAIN_AUDIT: 'on', STEPCHAIN_AUDIT_KEY_PATH: keyPath },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^appended step 0 to /);
    expect(r.stderr).toMatch(
      /^stepchain: warning: step 0 recorded, but the audit chain was NOT extended \(event replay.step not written\): .*writable by everyone/,
    );
    expect(existsSync(auditDir(root))).toBe(false);
    expect((await cliInProcess(['verify', 'agent-1', '--root', root])).code).toBe(0);
  });

  test('resolution: --key, then STEPCHAIN_AUDIT_KEY_PATH, then XDG_STATE_HOME, then ~/.local/state', () => {
    expect(
      resolveAuditKeyPath({ STEPCHAIN_AUDIT_KEY_PATH: '/a/k', XDG_STATE_HOME: '/x', HOME: '/h' }, '/explicit'),
    ).toBe('/explicit');
    expect(resolveAuditKeyPath({ STEPCHAIN_AUDIT_KEY_PATH: '/a/k', XDG_STATE_HOME: '/x', HOME: '/h' })).toBe('/a/k');
    expect(resolveAuditKeyPath({ XDG_STATE_HOME: '/x', HOME: '/h' })).toBe('/x/stepchain/audit.key');
    expect(resolveAuditKeyPath({ HOME: '/h' })).toBe('/h/.local/state/stepchain/audit.key');
    // A relative XDG_STATE_HOME is ignored (XDG): it would be a directory of the project stepchain runs in.
    expect(resolveAuditKeyPath({ XDG_STATE_HOME: 'state', HOME: '/h' })).toBe('/h/.local/state/stepchain/audit.key');
    expect(resolveAuditKeyPath({ XDG_STATE_HOME: '~/s', HOME: '/h' })).toBe('/h/s/stepchain/audit.key');
  });
});

describe('log and verify', () => {
  test('entries are pretty_sorted lines chained by HMAC across UTC days', () => {
    const d = fresh();
    const key = Buffer.from('k'.repeat(64));
    const a = appendAuditEvent(d, key, 'replay.step', ev(0), { nowMicros: T0 });
    const b = appendAuditEvent(d, key, 'replay.step', ev(1), { nowMicros: T0 + 60_000_000 + 123 });
    expect(readdirSync(d).filter((f) => f.endsWith('.jsonl'))).toEqual(['2026-12-01.jsonl', '2026-12-02.jsonl']);
    expect(a.prev_hmac).toBe('0'.repeat(64));
    expect(b.prev_hmac).toBe(a.hmac);
    expect(b.timestamp).toBe('2026-12-02T00:00:00.000123Z');
    const line = readFileSync(path.join(d, '2026-12-02.jsonl'), 'utf8');
    expect(line).toMatch(
      /^\{"actor": "agent-1", "details": \{"seq": 1, "text": "\\u00e9 1"\}, "event_type": "replay.step", "hmac": "[0-9a-f]{64}", "prev_hmac": "[0-9a-f]{64}", "resource_id": "agent-1", "resource_type": "journal", "timestamp": "2026-12-02T00:00:00.000123Z"\}\n$/,
    );
    expect(verifyAuditLog(d, key)).toMatchObject({ ok: true, entries: 2, head_hmac: b.hmac, errors: [] });
  });

  function logOf(count: number): { d: string; key: Buffer; files: string[] } {
    const d = fresh();
    const key = Buffer.from('0123456789abcdef'.repeat(4));
    for (let i = 0; i < count; i++)
      appendAuditEvent(d, key, 'replay.step', ev(i), { nowMicros: T0 + Math.floor(i / 2) * DAY });
    return {
      d,
      key,
      files: readdirSync(d)
        .filter((f) => f.endsWith('.jsonl'))
        .sort(),
    };
  }
  const edit = (file: string, fn: (s: string) => string): void => writeFileSync(file, fn(readFileSync(file, 'utf8')));

  test('an edited entry: hmac_mismatch with file and line, once', () => {
    const { d, key, files } = logOf(4);
    edit(path.join(d, files[1]!), (s) => s.replace('"seq": 3', '"seq": 30'));
    expect(verifyAuditLog(d, key).errors).toEqual([
      { file: files[1], line: 2, kind: 'hmac_mismatch', message: expect.any(String) },
    ]);
  });

  test('a deleted entry: the next one names the chain break', () => {
    const { d, key, files } = logOf(4);
    edit(path.join(d, files[0]!), (s) => s.split('\n').slice(1).join('\n'));
    const errs = verifyAuditLog(d, key).errors;
    expect(errs[0]).toMatchObject({ file: files[0], line: 1, kind: 'prev_hmac_mismatch' });
  });

  test('non-canonical bytes fail even when the values are intact', () => {
    const { d, key, files } = logOf(2);
    edit(path.join(d, files[0]!), (s) => s.replace('{"actor": ', '{"actor":  ').replace(/\}\n$/, '}\r\n'));
    // Two faults of one kind on consecutive lines: one entry (docs/journal.md, "Fault output").
    const r = verifyAuditLog(d, key);
    expect(r.errors.map((e) => [e.file, e.line, e.last_line, e.kind])).toEqual([[files[0], 1, 2, 'non_canonical']]);
    expect(r).toMatchObject({ fault_count: 2, errors_omitted: 0 });
  });

  test('a missing trailing newline and a malformed line are reported with file and line', () => {
    const { d, key, files } = logOf(4);
    edit(path.join(d, files[1]!), (s) => s.slice(0, -1));
    appendFileSync(path.join(d, files[0]!), 'garbage\n');
    const errs = verifyAuditLog(d, key).errors.map((e) => [e.file, e.line, e.kind]);
    expect(errs).toEqual([
      [files[0], 3, 'malformed_json'],
      [files[1], 2, 'missing_newline'],
    ]);
  });

  test('another key does not verify', () => {
    const { d } = logOf(2);
    const r = verifyAuditLog(d, Buffer.from('other'));
    expect(r.ok).toBe(false);
    expect(r.errors.every((e) => e.kind === 'hmac_mismatch')).toBe(true);
  });

  test('the writer refuses to extend a log whose tail does not verify, and moves a torn tail aside', () => {
    const { d, key, files } = logOf(2);
    const last = path.join(d, files[0]!);
    appendFileSync(last, '{"actor": "torn');
    appendAuditEvent(d, key, 'replay.step', ev(9), { nowMicros: T0 + 1 });
    expect(readdirSync(d).filter((f) => f.includes('.torn-'))).toHaveLength(1);
    expect(verifyAuditLog(d, key).ok).toBe(true);
    edit(last, (s) => s.replace('"seq": 9', '"seq": 10'));
    expect(() => appendAuditEvent(d, key, 'replay.step', ev(10), { nowMicros: T0 + 2 })).toThrow(
      /:3: last entry HMAC does not verify under this key; refusing/,
    );
    expect(
      auditEvent(path.dirname(d), 'replay.step', ev(1), {
        env: { STEPCHAIN_AUDIT_KEY_PATH: path.join(d, 'nokey', 'k') },
        dir: d,
      }),
    ).toMatch(/^the audit chain was NOT extended \(event replay.step not written\): /);
  });

  test('STEPCHAIN_AUDIT=off writes nothing', () => {
    const root = fresh();
    expect(
      auditEvent(root, 'replay.step', ev(0), {
        env: { STEPCHAIN_AUDIT: 'off', STEPCHAIN_AUDIT_KEY_PATH: path.join(root, 'k') },
      }),
    ).toBeUndefined();
    expect(existsSync(auditDir(root))).toBe(false);
    expect(existsSync(path.join(root, 'k'))).toBe(false);
  });
});

describe('python reference', () => {
  test('a log written by the reference (two days) verifies in stepchain, and stepchain continues its chain', () => {
    const d = fresh();
    const keyFile = path.join(d, 'keys', 'audit.key');
    refPython('ref_audit.py', ['genkey', keyFile]);
    const events = path.join(d, 'events.json');
    writeFileSync(
      events,
      JSON.stringify([
        {
          event_type: 'replay.step',
          actor: 'a',
          resource_type: 'journal',
          resource_id: 'a',
          details: { seq: 0, step_hash: 'f'.repeat(64) },
          day: '2026-11-30',
          timestamp: '2026-11-30T10:00:00.000001Z',
        },
        {
          event_type: 'replay.fork',
          actor: 'ops',
          resource_type: 'session',
          resource_id: 'f1',
          details: { from_step: 1, note: 'Résumé ✓ 😀', x: 1.5, big: [1e300, -0.25] },
          day: '2026-12-01',
          timestamp: '2026-12-01T10:00:00.000002Z',
        },
      ]),
    );
    const dir = path.join(d, 'audit');
    refPython('ref_audit.py', ['write', dir, keyFile, events]);
    const key = loadAuditKey(keyFile);
    expect(verifyAuditLog(dir, key.bytes)).toMatchObject({
      ok: true,
      entries: 2,
      files: ['2026-11-30.jsonl', '2026-12-01.jsonl'],
    });
    appendAuditEvent(dir, key.bytes, 'replay.export', {
      actor: 'ops',
      resource_type: 'receipt',
      resource_id: 'a',
      details: { head: 'x', steps: 1 },
    });
    expect(JSON.parse(refPython('ref_audit.py', ['verify', dir, keyFile]))).toEqual({ ok: true, errors: [] });
    // ...and the reference writer continues stepchain's chain.
    writeFileSync(
      events,
      JSON.stringify([
        { event_type: 'replay.step', actor: 'a', resource_type: 'journal', resource_id: 'a', details: {} },
      ]),
    );
    refPython('ref_audit.py', ['write', dir, keyFile, events]);
    expect(verifyAuditLog(dir, key.bytes)).toMatchObject({ ok: true, entries: 4 });
  });

  test('the reference finds the same tampering as stepchain', () => {
    const d = fresh();
    const keyFile = path.join(d, 'k');
    const key = loadAuditKey(keyFile, { create: true });
    for (let i = 0; i < 3; i++)
      appendAuditEvent(d, key.bytes, 'provider.state_mutation', ev(i), { nowMicros: T0 + i * DAY });
    const f = path.join(d, '2026-12-02.jsonl');
    writeFileSync(f, readFileSync(f, 'utf8').replace('"seq": 1', '"seq": 11'));
    expect(JSON.parse(refPython('ref_audit.py', ['verify', d, keyFile])).errors).toEqual([
      '2026-12-02.jsonl:1: HMAC mismatch',
    ]);
    expect(verifyAuditLog(d, key.bytes).errors.map((e) => `${e.file}:${e.line}: ${e.kind}`)).toEqual([
      '2026-12-02.jsonl:1: hmac_mismatch',
    ]);
  });
});

describe('query', () => {
  test('by event type, actor and inclusive time bounds (a bare date covers the whole UTC day)', async () => {
    const d = fresh();
    const key = Buffer.from('q');
    appendAuditEvent(d, key, 'replay.step', ev(0), { nowMicros: T0 });
    appendAuditEvent(d, key, 'replay.fork', { ...ev(1), actor: 'ops' }, { nowMicros: T0 + DAY });
    appendAuditEvent(d, key, 'replay.step', ev(2), { nowMicros: T0 + 2 * DAY });
    const seqs = (q: Parameters<typeof queryAudit>[1]): unknown[] =>
      queryAudit(d, q).map((m) => (m.entry.details as { seq: number }).seq);
    expect(seqs({})).toEqual([0, 1, 2]);
    expect(seqs({ event_type: 'replay.step' })).toEqual([0, 2]);
    expect(seqs({ actor: 'ops' })).toEqual([1]);
    expect(seqs({ since: '2026-12-02' })).toEqual([1, 2]);
    expect(seqs({ until: '2026-12-02' })).toEqual([0, 1]);
    expect(seqs({ since: '2026-12-02T23:59:00Z', until: '2026-12-02T23:59:00Z' })).toEqual([1]);
    expect(seqs({ since: '2026-12-03T00:59:00+01:00' })).toEqual([1, 2]);
    // The library names the query's field; the CLI words it as its flag (issue 21, item 8).
    expect(() => queryAudit(d, { since: 'yesterday' })).toThrow(
      expect.objectContaining({ field: 'since', message: expect.stringMatching(/^expected an ISO 8601/) }),
    );
    // The query in this process (`cliInProcess`); the refused --until, its exit 2 and stderr, as a real process.
    const r = await cliInProcess(['audit', 'query', '--dir', d, '--event-type', 'replay.fork', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ count: 1, events: [{ event_type: 'replay.fork', actor: 'ops' }] });
    const badUntil = cli(['audit', 'query', '--dir', d, '--until', '12/02']);
    expect(badUntil.code).toBe(2);
    expect(badUntil.stderr).toBe(
      'stepchain: --until: expected an ISO 8601 date or time (e.g. 2026-12-02 or 2026-12-02T09:30:00Z), got "12/02"\n',
    );
  });
});

describe('a --dir that is not a directory', () => {
  const base = tempDir();
  test('verify and query name what it is, one line, exit 2 (readdir below it said only ENOTDIR, naming a path that cannot exist)', async () => {
    const d = freshDir(base);
    const file = path.join(d, 'F');
    writeFileSync(file, '');
    const fifo = path.join(d, 'P');
    execFileSync('mkfifo', [fifo]);
    for (const [dir, what] of [
      [file, 'a file'],
      [fifo, 'a FIFO'],
    ] as const) {
      for (const args of [
        ['audit', 'verify', '--dir', dir, '--key', path.join(d, 'none')],
        ['audit', 'query', '--dir', dir],
      ]) {
        const r = await cliInProcess(args);
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(`stepchain: ${dir}: is ${what}, not a directory\n`);
        // Below it: the one that is not a directory is named, not `<dir>/sub/archive` and ENOTDIR.
        const below = await cliInProcess(args.map((a) => (a === dir ? path.join(dir, 'sub', 'deeper') : a)));
        expect(below.code).toBe(2);
        expect(below.stderr).toBe(`stepchain: ${dir}: is ${what}, not a directory\n`);
      }
    }
  });

  test('ENOTDIR names the file in the way, not a link to a directory above it (a path through a linked directory, a trailing /)', async () => {
    const d = freshDir(base);
    mkdirSync(path.join(d, 'real'));
    symlinkSync(path.join(d, 'real'), path.join(d, 'L'));
    const file = path.join(d, 'L', 'F');
    writeFileSync(file, '');
    // The file itself named as a directory: the walk began at its parent and blamed the link it went through.
    const r = await cliInProcess(['verify', `${file}/`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `stepchain: ${file}/: cannot read the journal: ${file} is a file, not a directory (ENOTDIR)\n`,
    );
    const below = await cliInProcess(['audit', 'verify', '--dir', path.join(file, 'sub'), '--key', path.join(d, 'k')]);
    expect(below.code).toBe(2);
    expect(below.stderr).toBe(`stepchain: ${file}: is a file, not a directory\n`);
  });

  test('an archive/ that is a file or a FIFO is refused, naming it (it was read as no archived days: query listed the rest as the whole log, exit 0)', async () => {
    const d = freshDir(base);
    const key = Buffer.from('k');
    const keyFile = path.join(d, 'audit.key');
    writeFileSync(keyFile, key, { mode: 0o600 });
    for (const make of ['file', 'fifo'] as const) {
      const log = path.join(d, `log-${make}`);
      appendAuditEvent(log, key, 'replay.step', ev(0), { nowMicros: 1_764_633_600_000_000 });
      const archive = path.join(log, 'archive');
      if (make === 'file') writeFileSync(archive, '');
      else execFileSync('mkfifo', [archive]);
      const what = make === 'file' ? 'a file' : 'a FIFO';
      for (const args of [
        ['audit', 'verify', '--dir', log, '--key', keyFile],
        ['audit', 'query', '--dir', log],
      ]) {
        const r = await cliInProcess(args);
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(`stepchain: ${archive}: is ${what}, not a directory\n`);
      }
      rmSync(archive);
      expect((await cliInProcess(['audit', 'verify', '--dir', log, '--key', keyFile])).code).toBe(0);
    }
  });
});

describe('wired into the library', () => {
  test('recordStep writes replay.step; a broken key leaves the step recorded with a warning', () => {
    const root = fresh();
    const keyPath = path.join(root, 'keys', 'audit.key');
    const env = { XDG_STATE_HOME: process.env.XDG_STATE_HOME, STEPCHAIN_AUDIT_KEY_PATH: keyPath };
    const dir = path.join(root, '.sdd', 'runtime', 'journal', 'agent-1');
    const r = recordStep(dir, { prompt: 'p' }, { root, env, snapshot: false });
    expect(r.warnings).toEqual([]);
    const [m] = queryAudit(auditDir(root), { event_type: 'replay.step' });
    expect(m!.entry).toMatchObject({
      actor: 'agent-1',
      resource_type: 'journal',
      resource_id: 'agent-1',
      details: { agent: 'agent-1', seq: 0, step_hash: r.row.step_hash },
    });
    chmodSync(keyPath, 0o644);
    const r2 = recordStep(dir, { prompt: 'q' }, { root, env, snapshot: false });
    expect(r2.row.seq).toBe(1);
    expect(r2.warnings).toEqual([
      expect.stringMatching(
        /^step 1 recorded, but the audit chain was NOT extended \(event replay.step not written\): .*insecure permissions/,
      ),
    ]);
  });

  test('run mutation writes provider.state_mutation with the journal head after the entry; the CLI reports a failed audit as a warning', async () => {
    const root = fresh();
    const keyPath = path.join(root, 'keys', 'audit.key');
    const m = cli(['run', 'mutation', 'r', '--agent', 'a', '--kind', 'compact_boundary', '--json', '--root', root], {
      env: { STEPCHAIN_AUDIT: 'on', STEPCHAIN_AUDIT_KEY_PATH: keyPath },
    });
    expect(m.code).toBe(0);
    const out = JSON.parse(m.stdout);
    // The first mutation as a real process; the rest through runCli in this process (`cliInProcess`).
    const q = await cliInProcess(['audit', 'query', '--root', root, '--json'], {
      env: { STEPCHAIN_AUDIT_KEY_PATH: keyPath },
    });
    expect(JSON.parse(q.stdout).events[0]).toMatchObject({
      event_type: 'provider.state_mutation',
      resource_type: 'run',
      resource_id: 'r',
      details: {
        run: 'r',
        agent: 'a',
        kind: 'compact_boundary',
        content_address: out.content_address,
        step_index: 0,
        flagged: false,
        journal_head: out.journal_head,
      },
    });
    expect(
      (await cliInProcess(['audit', 'verify', '--root', root], { env: { STEPCHAIN_AUDIT_KEY_PATH: keyPath } })).code,
    ).toBe(0);
    // --key is relative to the working directory
    const m3 = await cliInProcess(
      ['run', 'mutation', 'r', '--agent', 'a', '--kind', 'k2', '--key', 'keys/audit.key', '--root', '.'],
      {
        cwd: root,
        env: { STEPCHAIN_AUDIT: 'on' },
      },
    );
    expect(m3.code).toBe(0);
    expect(m3.stderr).toBe('');
    expect(
      (await cliInProcess(['audit', 'verify', '--key', path.join('keys', 'audit.key')], { cwd: root })).stdout,
    ).toMatch(/^OK .*: 2 entries/);
    chmodSync(keyPath, 0o644);
    const m2 = await cliInProcess(['run', 'mutation', 'r', '--agent', 'a', '--kind', 'k', '--root', root], {
      env: { STEPCHAIN_AUDIT: 'on', STEPCHAIN_AUDIT_KEY_PATH: keyPath },
    });
    expect(m2.code).toBe(0);
    expect(m2.stderr).toMatch(
      /warning: .*the audit chain was NOT extended \(event provider.state_mutation not written\): .*insecure permissions/,
    );
    expect((await cliInProcess(['run', 'verify', 'r', '--root', root])).code).toBe(0);

    // An ingest of three mutations the audit log refuses alike: the warning once, with how many events it stood for.
    const stream = path.join(repoRoot, 'test', 'fixtures', 'claude', 'compact-session.jsonl');
    const ing = await cliInProcess(['run', 'ingest', 'r2', '--agent', 'a', '--claude-stream', stream, '--root', root], {
      env: { STEPCHAIN_AUDIT: 'on', STEPCHAIN_AUDIT_KEY_PATH: keyPath },
    });
    expect(ing.code).toBe(0);
    const lines = ing.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /warning: .*NOT extended \(event provider.state_mutation not written\): .*insecure permissions.* \(the same for 3 events\)$/,
    );
  });
});

test('two processes logging at once keep one unbroken chain', async () => {
  const d = fresh();
  const keyPath = path.join(d, 'k', 'audit.key');
  const N = 40;
  const writer = (who: string): Promise<number> =>
    new Promise((resolve) => {
      const script = `
        require(${JSON.stringify(path.join(repoRoot, 'test', 'helpers', 'swc-register.js'))});
        const { auditEvent } = require(${JSON.stringify(path.join(repoRoot, 'src', 'audit'))});
        for (let i = 0; i < ${N}; i++) {
          const w = auditEvent(${JSON.stringify(d)}, 'replay.step', { actor: '${who}', resource_type: 'journal', resource_id: '${who}', details: { i } },
            { env: { XDG_STATE_HOME: process.env.XDG_STATE_HOME, STEPCHAIN_AUDIT_KEY_PATH: ${JSON.stringify(keyPath)} } });
          if (w !== undefined) { console.error(w); process.exit(3); }
        }`;
      spawn(process.execPath, ['-e', script], { stdio: 'inherit' }).on('exit', (code) => resolve(code ?? -1));
    });
  expect(await Promise.all([writer('a'), writer('b')])).toEqual([0, 0]);
  const key = loadAuditKey(keyPath);
  expect(verifyAuditLog(auditDir(d), key.bytes)).toMatchObject({ ok: true, entries: 2 * N });
  expect(JSON.parse(refPython('ref_audit.py', ['verify', auditDir(d), keyPath]))).toEqual({ ok: true, errors: [] });
});
