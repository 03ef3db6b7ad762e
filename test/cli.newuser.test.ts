/**
 * What a new user hit (issue 20, §7 and §9), each as a class: keys outside the hashed row shown as
 * unverified everywhere a step is shown; a fork whole with its prefix's blobs; input errors for a
 * missing --cas, for stdin given to two options, for a journal that is there but cannot be read; the
 * audit event of a journal named by path in its own project; report's overwrite rule; one `--json`
 * shape (ok, and the error document) across every command.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { commands } from '../src/cli/commands';
import { runCaptured } from '../src/cli/in-process';
import { runCli } from '../src/cli/main';
import { journalFile, ROW_KEYS, verifyJournalBytes } from '../src/journal';
import { cli, expectNoStack, type CliResult } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { launchBrowser, openReport } from './helpers/report-browser';
import { freshDir, tempDir } from './helpers/tmp';
import { cliPath } from './helpers/paths';
import { cliAsOtherUser } from './helpers/unprivileged';
import { git, initRepo } from './helpers/git';

const base = tempDir('stepchain-newuser-');
chmodSync(base, 0o755); // the unprivileged runs below enter it
const ENV = { STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(base, 'checkpoint.key') };
const fresh = (): string => freshDir(base);
const run = (args: string[], cwd: string, input?: string): CliResult =>
  cli(args, { cwd, env: ENV, ...(input === undefined ? {} : { input }) });
/**
 * `run` through runCli in this process (the code the bundle runs, its output captured, `cliInProcess`): for what a
 * command says and does. Real processes stay for the first verify, stdin, a FIFO and another user.
 */
const runIn = (args: string[], cwd: string): Promise<CliResult> => cliInProcess(args, { cwd, env: ENV });
const json = (r: CliResult): Record<string, unknown> => JSON.parse(r.stdout) as Record<string, unknown>;
const oneLine = (r: CliResult): void => {
  expectNoStack(r);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
};

/**
 * A project with agent `a` of `steps` steps (no git, no snapshots), appended in this process: the steps are each
 * test's setup (a process per step was a fifth of this file's CPU); `append` as a process is in the stdin test.
 */
async function project(steps = 2): Promise<{ root: string; file: string }> {
  const root = fresh();
  for (let i = 0; i < steps; i++)
    expect((await runIn(['append', 'a', '--prompt', `step ${i}`, '--no-snapshot'], root)).code).toBe(0);
  return { root, file: journalFile(root, 'a') };
}

/** Adds keys outside the ten to the row on `line` (1-based), keeping its hashed fields: the chain still holds. */
function addKeys(file: string, line: number, extra: Record<string, unknown>, canonical = true): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  const row = { ...(JSON.parse(lines[line - 1]!) as Record<string, unknown>), ...extra };
  const keys = Object.keys(row).sort();
  lines[line - 1] = canonical
    ? `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(row[k])}`).join(',')}}`
    : JSON.stringify(row, null, 0).replace(/,"/g, ', "');
  writeFileSync(file, lines.join('\n'));
}

describe('keys outside the hashed row are unverified, never part of the step (§7)', () => {
  let root = '';
  let file = '';
  beforeAll(async () => {
    ({ root, file } = await project(3));
    addKeys(file, 2, { approved_by: 'security-team', 'evil\u001b[2J': 'x\u001b]0;pwned\u0007' });
  });

  test('verify: OK with a warning naming file:line and the keys; --strict fails', async () => {
    const r = run(['verify', 'a'], root);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^OK /);
    expect(r.stderr).toContain(`stepchain: warning: ${file}:2: keys outside the hashed row, NOT verified:`);
    expect(r.stderr).toContain('"approved_by"');
    expect(r.stderr).not.toContain('\u001b');
    const j = await runIn(['verify', 'a', '--json'], root);
    expect(j.code).toBe(0);
    expect(json(j)).toMatchObject({ ok: true, unhashed: { rows: [{ line: 2 }], count: 1 } });
    expect((json(j).unhashed as { rows: { keys: string[] }[] }).rows[0]!.keys.sort()).toEqual(
      ['approved_by', 'evil\u001b[2J'].sort(),
    );
    const s = await runIn(['verify', 'a', '--strict'], root);
    expect(s.code).toBe(1);
    expect(s.stderr).toMatch(/:2: non_canonical/);
  });

  test('show: the step without them, then UNVERIFIED with each key; --json keeps them in `unverified`', async () => {
    const r = await runIn(['show', 'a', '1'], root);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    const at = r.stdout.indexOf('UNVERIFIED');
    expect(at).toBeGreaterThan(r.stdout.indexOf('step_hash'));
    expect(r.stdout.slice(at)).toContain('approved_by: security-team');
    const doc = json(await runIn(['show', 'a', '1', '--json'], root));
    expect(doc.ok).toBe(true);
    expect(Object.keys(doc.entry as object).sort()).toEqual([...ROW_KEYS]);
    expect(doc.unverified).toEqual({ approved_by: 'security-team', 'evil\u001b[2J': 'x\u001b]0;pwned\u0007' });
    expect(json(await runIn(['show', 'a', '0', '--json'], root)).unverified).toEqual({});
    expect((await runIn(['show', 'a', '0'], root)).stdout).not.toContain('UNVERIFIED');
  });

  test('replay: the table names the step; --json lists it beside the entries, not in them', async () => {
    const r = await runIn(['replay', 'a'], root);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/UNVERIFIED: 1 step carries keys outside the hashed row/);
    expect(r.stdout).toMatch(/step 1 \(line 2\): "approved_by"/);
    expect(r.stdout).not.toContain('\u001b');
    const doc = json(await runIn(['replay', 'a', '--json'], root));
    for (const e of doc.entries as object[]) expect(Object.keys(e).sort()).toEqual([...ROW_KEYS]);
    expect(doc.unverified).toEqual([
      { seq: 1, line: 2, fields: expect.objectContaining({ approved_by: 'security-team' }) },
    ]);
  });

  test('report: the page sets them apart as unverified, as text', async () => {
    const out = path.join(root, 'r.html');
    expect((await runIn(['report', 'a', '-o', out], root)).code).toBe(0);
    const browser = await launchBrowser();
    try {
      const { page, problems } = await openReport(browser, out);
      expect(await page.getAttribute('html', 'data-verified')).toBe('true');
      await page.keyboard.press('j'); // step 1
      const box = page.locator('.unverified');
      await box.waitFor();
      const text = await box.innerText();
      expect(text).toMatch(/unverified: keys outside the hashed row/i);
      expect(text).toContain('approved_by');
      expect(text).toContain('security-team');
      // The value is text, never markup or a terminal sequence acted on.
      expect(await box.locator('script, img').count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  test('property: the reader lists exactly the keys outside the ten, on the fast path and off it', async () => {
    const { file: f } = await project(1);
    const row = JSON.parse(readFileSync(f, 'utf8').trim()) as Record<string, unknown>;
    const extraKey = fc.string({ maxLength: 8 }).filter((k) => !(ROW_KEYS as readonly string[]).includes(k));
    fc.assert(
      fc.property(
        fc.dictionary(extraKey, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
        fc.boolean(),
        (extra, canonical) => {
          const whole = { ...row, ...extra };
          const keys = Object.keys(whole).sort();
          const line = canonical
            ? `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(whole[k])}`).join(',')}}`
            : JSON.stringify(whole, null, 1).replace(/\n/g, '');
          const expected = Object.keys(extra);
          for (const fast of [{}, { STEPCHAIN_WASM: '0' }]) {
            const r = verifyJournalBytes(Buffer.from(`${line}\n`), {}, { ...process.env, ...fast });
            expect(r.ok).toBe(true);
            if (expected.length === 0) expect(r.unhashed).toBeUndefined();
            else expect(r.unhashed?.rows[0]?.keys.sort()).toEqual([...expected].sort());
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('a fork carries the blobs of the steps it inherits (§9)', () => {
  test('show, export and receipt verify --require-blobs in the fork see every inherited blob', async () => {
    const root = initRepo(fresh(), { 'app.txt': 'v0\n' });
    for (let i = 0; i < 3; i++) {
      writeFileSync(path.join(root, `in${i}.txt`), `input ${i}\n`);
      expect((await runIn(['append', 'a', '--input', `in${i}.txt`, '--prompt', `p${i}`], root)).code).toBe(0);
    }
    const f = await runIn(['fork', 'a', '--from-step', '2', '--json'], root);
    expect(f.code).toBe(0);
    const worktree = json(f).fork_worktree as string;
    const id = json(f).fork_session_id as string;
    for (let s = 0; s < 3; s++) {
      const shown = await runIn(['show', id, String(s)], worktree);
      expect(shown.code).toBe(0);
      expect(shown.stdout).not.toContain('MISSING');
    }
    const out = path.join(base, `${id}.tar`);
    const e = await runIn(['export', id, '-o', out, '--json'], worktree);
    expect(e.code).toBe(0);
    expect(json(e).blobs).toMatchObject({ missing: [] });
    expect((json(e).blobs as { bundled: string[] }).bundled).toHaveLength(3);
    expect((await runIn(['receipt', 'verify', out, '--require-blobs'], worktree)).code).toBe(0);
    // Copies, not links: an agent writing in its fork's CAS cannot rewrite the parent's blobs.
    const digest = createHash('sha256').update('input 0\n').digest('hex');
    const child = path.join(worktree, '.sdd', 'runtime', 'cas', digest.slice(0, 2), digest);
    const parent = path.join(root, '.sdd', 'runtime', 'cas', digest.slice(0, 2), digest);
    expect(statSync(child).ino).not.toBe(statSync(parent).ino);
    expect(statSync(child).nlink).toBe(1);
    expect(statSync(child).mode & 0o777).toBe(0o600);
  });
});

describe('input errors, exit 2, one line (§9)', () => {
  test('export --cas of a directory that does not exist (or is a file) writes nothing', async () => {
    const { root } = await project(1);
    writeFileSync(path.join(root, 'plain'), '');
    for (const cas of ['no/such/dir', 'plain']) {
      const r = await runIn(['export', 'a', '-o', 'x.tar', '--cas', cas], root);
      expect(r.code).toBe(2);
      oneLine(r);
      expect(r.stderr).toContain(`--cas ${cas}`);
      expect(existsSync(path.join(root, 'x.tar'))).toBe(false);
    }
  });

  test('stdin given to two options (or twice to one) is refused before anything is read or written', async () => {
    const { root, file } = await project(1);
    const before = readFileSync(file);
    for (const args of [
      ['--input', '-', '--prompt-file', '-'],
      ['--blob', '-', '--blob', '-'],
      ['--prompt-file', '-', '--blob', '-'],
    ]) {
      const r = run(['append', 'a', ...args], root, 'stdin bytes');
      expect(r.code).toBe(2);
      oneLine(r);
      expect(r.stderr).toMatch(/stdin can be read once/);
    }
    expect(readFileSync(file)).toEqual(before);
    expect(run(['append', 'a', '--input', '-', '--prompt', 'p'], root, 'x').code).toBe(0);
  });

  test('every option whose `-` reads stdin is declared so (the shared check covers it)', () => {
    for (const c of commands)
      for (const [name, o] of Object.entries(c.options))
        if (/`-` reads stdin/.test(o.description ?? ''))
          expect([c.name.join(' '), name, o.stdin]).toEqual([c.name.join(' '), name, true]);
  });

  test('a journal that is there but is no file to read: /dev/null, a FIFO (never opened: no hang)', async () => {
    const { root } = await project(1);
    const fifo = path.join(root, 'journal.fifo');
    spawnSync('mkfifo', [fifo]);
    for (const [target, why] of [
      ['/dev/null', 'a character device'],
      [fifo, 'a FIFO'],
    ] as const) {
      for (const cmd of [['verify'], ['show', '-', '0'], ['replay'], ['export', '-', '-o', 'x.tar']]) {
        const args = cmd.map((w) => (w === '-' ? target : w));
        if (args.length === 1) args.push(target);
        if (target === '/dev/null') {
          // In this process (reading /dev/null cannot hang it): the refusal is the subject. The FIFO's in a process
          // of the bin, which a regression that opened it would hang (its timeout ends it), never this test file.
          const r = await runIn(args, root);
          expect([args, r.code]).toEqual([args, 2]);
          expect(r.stderr).toContain(`${target}: not a journal: ${why}, not a regular file`);
          expect(r.stderr).not.toMatch(/no such journal/);
          continue;
        }
        const s = spawnSync(process.execPath, [cliPath, ...args], {
          cwd: root,
          env: { ...process.env, ...ENV, STEPCHAIN_AUDIT: 'off' },
          encoding: 'utf8',
          timeout: 20_000,
        });
        expect([args, s.status]).toEqual([args, 2]);
        expect(s.stderr).toContain(`${target}: not a journal: ${why}, not a regular file`);
        expect(s.stderr).not.toMatch(/no such journal/);
      }
    }
  });

  test('a journal this user may not read (the file, or a directory above it) says permission denied', async () => {
    const { root, file } = await project(1);
    for (const d of [root, path.join(root, '.sdd'), path.join(root, '.sdd', 'runtime')]) chmodSync(d, 0o755);
    const journalDir = path.dirname(file);
    const journals = path.dirname(journalDir);
    chmodSync(journals, 0o755);
    // The file itself unreadable.
    chmodSync(journalDir, 0o755);
    chmodSync(file, 0o000);
    try {
      for (const target of [file, journalDir]) {
        const r = cliAsOtherUser(['verify', target], { cwd: base });
        expect(r.code).toBe(2);
        oneLine(r);
        expect(r.stderr).toContain(`${file}: cannot read the journal: permission denied (EACCES)`);
      }
      // A directory above it that this user may not enter.
      chmodSync(file, 0o600);
      chmodSync(journalDir, 0o000);
      const r = cliAsOtherUser(['verify', file], { cwd: base });
      expect(r.code).toBe(2);
      oneLine(r);
      expect(r.stderr).toContain(`${file}: cannot read the journal: permission denied (EACCES)`);
      const byId = cliAsOtherUser(['show', 'a', '0', '--root', root], { cwd: base });
      expect(byId.code).toBe(2);
      expect(byId.stderr).toMatch(/permission denied \(EACCES\)/);
      expect(byId.stderr).not.toMatch(/no journal for agent/);
    } finally {
      chmodSync(journalDir, 0o700);
      chmodSync(file, 0o600);
    }
  });
});

describe("a journal's audit event goes to the journal's project (§9)", () => {
  test('append to another project by path, from elsewhere: the event is in that project, none here', async () => {
    const here = initRepo(fresh(), { 'x.txt': 'here\n' });
    const other = initRepo(fresh(), { 'x.txt': 'other\n' });
    const env = { ...ENV, STEPCHAIN_AUDIT: 'on', STEPCHAIN_AUDIT_KEY_PATH: path.join(base, 'audit.key') };
    expect((await cliInProcess(['append', 'b', '--prompt', 'first'], { cwd: other, env })).code).toBe(0);
    const dir = path.join(other, '.sdd', 'runtime', 'journal', 'b');
    const r = await cliInProcess(['append', dir, '--prompt', 'from elsewhere'], { cwd: here, env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(existsSync(path.join(here, '.sdd'))).toBe(false);
    const q = await cliInProcess(['audit', 'query', '--event-type', 'replay.step', '--json'], { cwd: other, env });
    expect(json(q).count).toBe(2);
    expect((await cliInProcess(['audit', 'verify', '--json'], { cwd: other, env })).code).toBe(0);
    // The snapshot was taken of that project's work tree, in its repository; none here.
    expect(git(other, ['for-each-ref', '--format=%(refname)', 'refs/stepchain/snapshots/b']).split('\n')).toHaveLength(
      2,
    );
    expect(git(here, ['for-each-ref', 'refs/stepchain'])).toBe('');
  });
});

describe('report replaces an existing file only with --force, as export and publish do (§9)', () => {
  test('an earlier report is refused by name; --force replaces it', async () => {
    const { root } = await project(1);
    expect((await runIn(['report', 'a', '-o', 'r.html'], root)).code).toBe(0);
    const first = readFileSync(path.join(root, 'r.html'));
    const again = await runIn(['report', 'a', '-o', 'r.html', '--json'], root);
    expect(again.code).toBe(2);
    expect(json(again)).toMatchObject({ ok: false, error: { type: 'input_error', exit_code: 2 } });
    expect(again.stderr).toMatch(
      /r\.html: exists \(an earlier stepchain report\); refusing to replace it \(use --force\)/,
    );
    expect(readFileSync(path.join(root, 'r.html'))).toEqual(first);
    expect((await runIn(['report', 'a', '-o', 'r.html', '--force'], root)).code).toBe(0);
  });
});

describe('one --json shape across the commands (§9)', () => {
  test('every command: a usage error is {ok: false, error: {type, message, exit_code}} and nothing else', async () => {
    const root = fresh();
    for (const c of commands) {
      if (c.options.json === undefined) continue;
      // Through runCli in this process (the code the bundle runs, its output captured): a process per command was
      // a fifth of this file's time.
      const r = await runCaptured(runCli, [...c.name, '--json', '--no-such-option'], {
        cwd: root,
        env: { ...process.env, STEPCHAIN_AUDIT: 'off', ...ENV },
      });
      expectNoStack(r);
      const name = c.name.join(' ');
      expect([name, r.code]).toEqual([name, c.maxExitCode === undefined ? 2 : Math.min(2, c.maxExitCode)]);
      const doc = json(r);
      expect([name, Object.keys(doc)]).toEqual([name, ['ok', 'error']]);
      expect([name, doc.ok]).toEqual([name, false]);
      expect(Object.keys(doc.error as object).slice(0, 3)).toEqual(['type', 'message', 'exit_code']);
    }
  });

  test('every document says ok first, true exactly when the command exits 0', async () => {
    const root = initRepo(fresh(), { 'x.txt': 'x\n' });
    const env = { ...ENV, STEPCHAIN_AUDIT: 'on', STEPCHAIN_AUDIT_KEY_PATH: path.join(base, 'audit2.key') };
    // Through runCli in this process (the code the bundle runs, its output captured), as the usage errors above: the
    // documents are the subject here, not the process (a process per command was a quarter of this file's time).
    const go = async (args: string[]): Promise<CliResult> => {
      const r = await runCaptured(runCli, args, { cwd: root, env: { ...process.env, ...env } });
      expectNoStack(r);
      return r;
    };
    // The one exception, by contract: `append --json` prints exactly the row written (the journal's line).
    for (const p of ['p0', 'p1']) {
      const a = await go(['append', 'a', '--prompt', p, '--json']);
      expect(a.code).toBe(0);
      expect(readFileSync(journalFile(root, 'a'), 'utf8').endsWith(a.stdout)).toBe(true);
    }
    const table: [string[], number][] = [
      [['verify', 'a', '--json'], 0],
      [['show', 'a', '1', '--json'], 0],
      [['replay', 'a', '--json'], 0],
      [['keygen', '-o', 'k.pem', '--public', 'k.pub', '--json'], 0],
      [['export', 'a', '-o', 'a.tar', '--json'], 0],
      [['receipt', 'verify', 'a.tar', '--json'], 0],
      [['publish', 'a', '-o', 'p.tar', '--opt-in', '--json'], 0],
      [['report', 'a', '-o', 'a.html', '--json'], 0],
      [['diff', 'a', 'a', '--json'], 0],
      [['fork', 'a', '--from-step', '0', '--json'], 0],
      [['forks', '--json'], 0],
      [['run', 'record', 'r1', '--event', 'x', '--data', '{"ok": 7}', '--json'], 0],
      [['run', 'record', 'r2', '--event', 'y', '--json'], 0],
      [['run', 'verify', 'r1', '--json'], 0],
      [['run', 'diff', 'r1', 'r1', '--json'], 0],
      [['run', 'diff', 'r1', 'r2', '--json'], 1],
      [['run', 'capability', 'r1', '--adapter', 'x', '--capability', 'observed', '--json'], 0],
      [['run', 'mutation', 'r1', '--agent', 'a', '--kind', 'compact_boundary', '--json'], 0],
      [['audit', 'verify', '--json'], 0],
      [['audit', 'query', '--json'], 0],
      [['check', '--json', '--allow-empty'], 0],
    ];
    const seen = new Set<string>();
    for (const [args, code] of table) {
      const r = await go(args);
      expect([args, r.code, r.stderr]).toEqual([args, code, expect.any(String)]);
      const doc = json(r);
      expect([args, Object.keys(doc)[0], doc.ok]).toEqual([args, 'ok', code === 0]);
      seen.add(
        commands.find((c) => c.name.every((w, i) => args[i] === w) && args.length > c.name.length)!.name.join(' '),
      );
    }
    // run record: the row under `row` (its payload may hold an `ok` of its own), printed like every document.
    const rec = await go(['run', 'record', 'r1', '--event', 'z', '--data', '{"ok": false}', '--json']);
    expect(json(rec)).toMatchObject({ ok: true, row: { event: 'z', ok: false } });
    expect(rec.stdout).not.toMatch(/", "|": /);
    // A refusal over a broken chain lists its faults, on appending too.
    const file = journalFile(root, 'a');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[0] = lines[0]!.replace('"p0"', '"P0"');
    writeFileSync(file, lines.join('\n'));
    const refused = await go(['append', 'a', '--prompt', 'p2', '--json']);
    expect(refused.code).toBe(1);
    expect(json(refused)).toMatchObject({
      ok: false,
      error: { faults: [{ file, line: 1, kind: 'step_hash_mismatch' }] },
    });
    const shown = await go(['show', 'a', '0', '--json']);
    expect((json(shown).error as { faults: unknown[] }).faults.length).toBeGreaterThan(0);
    // The commands left out of the table have no success without a terminal, Claude Code or a fork to remove.
    const rest = commands.map((c) => c.name.join(' ')).filter((c) => !seen.has(c));
    // Issue 22 adds every agent's init and hook (each needs its real agent, as for Claude Code).
    const agents = ['claude', 'codex', 'gemini', 'copilot', 'opencode'].flatMap((a) => [`hook ${a}`, `init ${a}`]);
    // Issue 23's `blame` needs recorded snapshots; issue 24's `record` an agent to run.
    expect(rest.sort()).toEqual(['append', 'blame', 'demo', 'fork rm', 'record', 'run ingest', ...agents].sort());
  });
});
