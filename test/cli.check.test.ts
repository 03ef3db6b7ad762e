/**
 * `stepchain check`: the Action's verify mode from the CLI: the first check runs the built dist/cli.js as a process (run
 * `npm run build` first), the rest run through runCli in this process (their logic is the point).
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, journalFile } from '../src/journal';
import { exportReceipt, readPrivateKeyFile, writeKeyPair } from '../src/receipt';
import { commitAll, emptyRepo, git } from './helpers/git';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-cli-check-');

function append(root: string, agent: string, count: number): void {
  const j = Journal.open(path.dirname(journalFile(root, agent)), { durability: 'none' });
  j.appendMany(
    Array.from({ length: count }, (_, i) => ({
      prompt: `p${j.length + i}`,
      tool_result: `r${j.length + i}`,
      ts: 1_700_000_000.5 + i,
    })),
  );
}

test('check --base passes an append and fails a rewrite at its line', async () => {
  const dir = emptyRepo(path.join(tmp, 'repo'));
  append(dir, 'alice', 3);
  commitAll(dir, 'base');
  git(dir, ['checkout', '-q', '-b', 'pr']);
  append(dir, 'alice', 2);
  const ok = cli(['check', '--base', 'main'], { cwd: dir });
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain('OK   journal .sdd/runtime/journal/alice/000000.jsonl: 5 steps');
  expect(ok.stdout).toMatch(/OK: 1 verified, 0 failed, append-only since main \([0-9a-f]{12}\)/);

  const file = journalFile(dir, 'alice');
  writeFileSync(file, readFileSync(file, 'utf8').replace('"r1"', '"r-one"'));
  const bad = await cliInProcess(['check', '--base', 'main', '--json'], { cwd: dir });
  expect(bad.code).toBe(1);
  expectNoStack(bad);
  const doc = JSON.parse(bad.stdout) as { ok: boolean; faults: { path: string; line: number; kind: string }[] };
  expect(doc.ok).toBe(false);
  expect(doc.faults.map((f) => [f.kind, f.line])).toEqual([
    ['step_hash_mismatch', 2],
    ['history_rewritten', 2],
  ]);
  expect(bad.stderr).toContain('.sdd/runtime/journal/alice/000000.jsonl:2: agent alice: history rewritten from seq 1');

  const md = await cliInProcess(['check', '--markdown'], { cwd: dir });
  expect(md.code).toBe(1);
  expect(md.stdout).toContain('| ❌ | journal | <code>.sdd/runtime/journal/alice/000000.jsonl</code> | alice | 5 |');

  const badRef = await cliInProcess(['check', '--base', 'no-such-branch'], { cwd: dir });
  expect(badRef.code).toBe(2);
  expect(badRef.stderr.trim().split('\n')).toHaveLength(1);
});

test('check --exact-base compares with the commit itself: a force-push that dropped a step fails, where --base passes', async () => {
  const dir = emptyRepo(path.join(tmp, 'force-push'));
  append(dir, 'alice', 3);
  commitAll(dir, 'base');
  git(dir, ['checkout', '-q', '-b', 'pr']);
  append(dir, 'alice', 2);
  const before = commitAll(dir, 'pr: two steps');
  git(dir, ['tag', 'pr-before-push']);
  // The branch is rewritten (a force-push): its two steps are gone. HEAD is no longer built on the tag.
  git(dir, ['reset', '-q', '--hard', 'main']);
  writeFileSync(path.join(dir, 'NOTES'), 'rewritten\n');
  commitAll(dir, 'pr: the steps dropped');

  // The fork-point rule compares with where HEAD branched from the tag (main): nothing there was lost.
  const forkPoint = await cliInProcess(['check', '--base', 'pr-before-push'], { cwd: dir });
  expect(forkPoint.code).toBe(0);
  expect(forkPoint.stderr).toContain(`note: HEAD is not built on pr-before-push (${before.slice(0, 12)})`);

  // Compared with the tag exactly, the dropped step is a fault at its line.
  const exact = await cliInProcess(['check', '--exact-base', 'pr-before-push', '--provenance', 'off', '--json'], {
    cwd: dir,
  });
  expect(exact.code).toBe(1);
  expectNoStack(exact);
  const doc = JSON.parse(exact.stdout) as { ok: boolean; base: string; faults: { path: string; kind: string }[] };
  expect(doc.ok).toBe(false);
  expect(doc.base).toBe(before);
  expect(doc.faults.map((f) => [f.path, f.kind])).toEqual([
    ['.sdd/runtime/journal/alice/000000.jsonl', 'history_truncated'],
  ]);
  const human = await cliInProcess(['check', '--exact-base', 'pr-before-push'], { cwd: dir });
  expect(human.code).toBe(1);
  expect(human.stdout).toMatch(/FAIL: 0 verified, 1 failed, append-only since pr-before-push \([0-9a-f]{12}\)/);
  expect(human.stderr).not.toContain('note: HEAD is not built on');

  const both = await cliInProcess(['check', '--base', 'main', '--exact-base', 'pr-before-push'], { cwd: dir });
  expect(both.code).toBe(2);
  expect(both.stderr).toBe(
    'stepchain: --base and --exact-base: give one (the fork-point rule, or the commit exactly)\n',
  );
});

test('check that matches nothing says so and exits 1; --allow-empty accepts it; --json keys are snake_case', async () => {
  const dir = emptyRepo(path.join(tmp, 'empty'));
  writeFileSync(path.join(dir, 'README'), 'no journals\n');
  commitAll(dir, 'nothing');
  const none = await cliInProcess(['check', '--base', 'main'], { cwd: dir });
  expect(none.code).toBe(1);
  expectNoStack(none);
  expect(none.stdout).toContain('FAIL: 0 verified, 0 failed');
  expect(none.stderr.trim()).toBe(
    'nothing was checked: no journal, run journal or receipt was found (--allow-empty accepts that)',
  );
  expect((await cliInProcess(['check', '--allow-empty'], { cwd: dir })).code).toBe(0);

  append(dir, 'alice', 2);
  commitAll(dir, 'a journal');
  const typo = await cliInProcess(['check', '--journals', '.sdd/runtime/journals/*/000000.jsonl'], { cwd: dir });
  expect(typo.code).toBe(1);
  expect(typo.stderr).toContain('journals: .sdd/runtime/journals/*/000000.jsonl matched no file');

  append(dir, 'alice', 1);
  exportReceipt(journalFile(dir, 'alice'), path.join(dir, 'alice.receipt.tar'));
  commitAll(dir, 'an append and a receipt');
  const json = await cliInProcess(['check', '--base', 'HEAD~1', '--json'], { cwd: dir });
  expect(json.code).toBe(0);
  const doc = JSON.parse(json.stdout) as Record<string, unknown>;
  expect(Object.keys(doc).sort()).toEqual(
    [
      'base',
      'commit',
      'failed',
      'faults',
      'fetched_base',
      'fetched_blobs',
      'heads',
      'items',
      'matched',
      'nothing_matched',
      'ok',
      // With a base, which verified step produced each changed file (issue 23, docs/provenance.md).
      'provenance',
      'shard',
      'trusted_keys',
      'verified',
    ].sort(),
  );
  const keys = (o: unknown): string[] =>
    typeof o !== 'object' || o === null
      ? []
      : Array.isArray(o)
        ? o.flatMap(keys)
        : Object.entries(o).flatMap(([k, v]) => (k === 'heads' ? [k] : [k, ...keys(v)]));
  for (const k of keys(doc)) expect(k).toMatch(/^[a-z0-9_]+$/);
  expect((doc['items'] as Record<string, unknown>[])[0]).toMatchObject({
    path: '.sdd/runtime/journal/alice/000000.jsonl',
  });
});

test('one line per file: a journal renamed to a path holding a newline cannot print a line of its own', async () => {
  const dir = emptyRepo(path.join(tmp, 'repo-rename'));
  append(dir, 'alice', 2);
  commitAll(dir, 'a journal');
  const forged = 'x\nOK   journal forged: 9 steps (ok)';
  const from = path.dirname(journalFile(dir, 'alice'));
  git(dir, ['mv', from, path.join(path.dirname(from), forged)]);
  git(dir, ['commit', '-q', '-m', 'rename alice']);
  const r = await cliInProcess(['check', '--base', 'HEAD~1', '--journals', '.sdd/runtime/journal/*/000000.jsonl'], {
    cwd: dir,
  });
  expectNoStack(r);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('renamed to .sdd/runtime/journal/x\\nOK   journal');
  expect(r.stdout.split('\n').filter((l) => l.startsWith('OK   journal forged'))).toEqual([]);
});

test('a signed receipt checked with no key fails as "signature NOT checked", naming the option to give', async () => {
  const dir = emptyRepo(path.join(tmp, 'signed'));
  append(dir, 'alice', 2);
  const keyFile = path.join(tmp, 'signed.pem');
  const pubFile = path.join(tmp, 'signed.pub');
  writeKeyPair(keyFile, pubFile);
  exportReceipt(journalFile(dir, 'alice'), path.join(dir, 'alice.receipt.tar'), {
    signKey: readPrivateKeyFile(keyFile),
  });
  commitAll(dir, 'a signed receipt');
  const r = await cliInProcess(['check'], { cwd: dir });
  expectNoStack(r);
  expect(r.code).toBe(1);
  // The CLI's own option, not the Action's input name.
  expect(r.stderr).toContain('signature NOT checked (signed, but no trusted public key was given: --public-key FILE)');
  expect(r.stderr).not.toContain('public-keys');
  expect((await cliInProcess(['check', '--public-key', pubFile], { cwd: dir })).code).toBe(0);
});

test('--runs none (or --journals, --receipts) switches a kind off, as the Action input does; the verdict says why it fails', async () => {
  const dir = emptyRepo(path.join(tmp, 'none'));
  append(dir, 'alice', 2);
  commitAll(dir, 'a journal');
  const off = await cliInProcess(['check', '--runs', 'none', '--receipts', 'none', '--json'], { cwd: dir });
  expect(off.code).toBe(0);
  expect(JSON.parse(off.stdout)).toMatchObject({ ok: true, verified: 1, nothing_matched: [] });
  // A pattern that matches nothing fails the check, and the summary line says so (not just "0 failed").
  const typo = await cliInProcess(['check', '--runs', '.sdd/run/*/journal.jsonl'], { cwd: dir });
  expect(typo.code).toBe(1);
  expect(typo.stdout).toContain('FAIL: 1 verified, 0 failed; 1 pattern matched nothing');
  expect(
    (await cliInProcess(['check', '--journals', 'none', '--runs', 'none', '--receipts', 'none'], { cwd: dir })).code,
  ).toBe(1);
});

test('a journal or receipt under a name that is not UTF-8 is a fault, never skipped: a check that read none of it is no OK', async () => {
  const dir = emptyRepo(path.join(tmp, 'not-utf8'));
  append(dir, 'alice', 2);
  commitAll(dir, 'base');
  // A tampered journal under a directory whose name has the byte 0xff (git stores any bytes): Node lists it with
  // U+FFFD, a spelling that opens nothing, and the walk passed it over; the check said OK of alice alone.
  const rawDir = Buffer.concat([Buffer.from(path.join(dir, '.sdd/runtime/journal/b')), Buffer.from([0xff])]);
  mkdirSync(rawDir);
  const rows = readFileSync(journalFile(dir, 'alice'), 'utf8').replace('"r1"', '"r-one"');
  writeFileSync(Buffer.concat([rawDir, Buffer.from('/000000.jsonl')]), rows);
  const receiptDir = Buffer.concat([Buffer.from(path.join(dir, 'out')), Buffer.from([0xfe])]);
  mkdirSync(receiptDir);
  writeFileSync(Buffer.concat([receiptDir, Buffer.from('/x.receipt.tar')]), 'not a receipt');
  commitAll(dir, 'pr');
  const r = await cliInProcess(['check', '--base', 'HEAD~1', '--json'], { cwd: dir });
  expect(r.code).toBe(1);
  expectNoStack(r);
  const doc = JSON.parse(r.stdout) as {
    ok: boolean;
    faults: { path: string; kind: string; severity: string; message: string }[];
  };
  expect(doc.ok).toBe(false);
  const errors = doc.faults.filter((f) => f.severity === 'error');
  expect(errors.map((f) => [f.path, f.kind])).toEqual([
    ['.sdd/runtime/journal/b\uFFFD', 'unreadable'],
    ['out\uFFFD', 'unreadable'],
  ]);
  expect(errors[0]!.message).toContain('its name is not UTF-8');
});

test('check --base: a base file under a name that is not UTF-8 is never compared as the name its U+FFFD spelling is', async () => {
  type Doc = { faults: { path: string; kind: string; severity: string }[]; items: { path: string; status: string }[] };
  const errorsOf = (doc: Doc): string[][] =>
    doc.faults.filter((f) => f.severity === 'error').map((f) => [f.path, f.kind]);
  const journals = (dir: string): Buffer => Buffer.from(path.join(dir, '.sdd/runtime/journal/b'));
  const spelled = '.sdd/runtime/journal/b\uFFFD/000000.jsonl';
  const other = (dir: string): Buffer => {
    const j = Journal.open(path.dirname(journalFile(dir, 'other')), { durability: 'none' });
    j.appendMany([0, 1, 2].map((i) => ({ prompt: `q${i}`, tool_result: `s${i}` })));
    const rows = readFileSync(journalFile(dir, 'other'));
    rmSync(path.dirname(journalFile(dir, 'other')), { recursive: true });
    return rows;
  };

  // The base holds `b<U+FFFD>` (a real name) and `b<0xff>` (git's listing spells it the same): the PR deletes the
  // second and rewrites the first into the second's rows plus one. The base's two files were one entry of a map by
  // that spelling (the later one): the rewrite was compared with the other file's rows, passed as an append, and
  // nothing was deleted: OK, exit 0.
  const dir = emptyRepo(path.join(tmp, 'not-utf8-base'));
  append(dir, 'alice', 2);
  const real = Buffer.concat([journals(dir), Buffer.from('\uFFFD')]);
  const hidden = Buffer.concat([journals(dir), Buffer.from([0xff])]);
  const otherRows = other(dir);
  mkdirSync(real);
  writeFileSync(Buffer.concat([real, Buffer.from('/000000.jsonl')]), readFileSync(journalFile(dir, 'alice')));
  mkdirSync(hidden);
  writeFileSync(Buffer.concat([hidden, Buffer.from('/000000.jsonl')]), otherRows);
  commitAll(dir, 'base');
  rmSync(hidden, { recursive: true });
  writeFileSync(Buffer.concat([real, Buffer.from('/000000.jsonl')]), otherRows);
  Journal.open(real.toString('utf8'), { durability: 'none' }).append({ prompt: 'p3', tool_result: 'r3' });
  commitAll(dir, 'pr');
  const r = await cliInProcess(['check', '--base', 'HEAD~1', '--json'], { cwd: dir });
  expectNoStack(r);
  expect(r.code).toBe(1);
  expect(errorsOf(JSON.parse(r.stdout) as Doc)).toEqual([
    [spelled, 'history_rewritten'],
    [spelled, 'unreadable'],
  ]);

  // Left as it was, it is unreadable by name on both sides (it was called deleted); renamed to a UTF-8 name that
  // holds its rows, it passes as a rename (it failed as deleted: no way to move it out of the way).
  const kept = emptyRepo(path.join(tmp, 'not-utf8-kept'));
  const keptDir = Buffer.concat([journals(kept), Buffer.from([0xff])]);
  mkdirSync(keptDir, { recursive: true });
  writeFileSync(Buffer.concat([keptDir, Buffer.from('/000000.jsonl')]), other(kept));
  commitAll(kept, 'base');
  commitAll(kept, 'pr');
  const k = await cliInProcess(['check', '--base', 'HEAD~1', '--json'], { cwd: kept });
  expect(k.code).toBe(1);
  const kDoc = JSON.parse(k.stdout) as Doc;
  expect(errorsOf(kDoc)).toEqual([
    ['.sdd/runtime/journal/b\uFFFD', 'unreadable'],
    [spelled, 'unreadable'],
  ]);
  expect(kDoc.items.map((i) => i.status)).toEqual(['unreadable']);
  renameSync(keptDir, path.join(kept, '.sdd/runtime/journal/b'));
  commitAll(kept, 'rename');
  const moved = await cliInProcess(['check', '--base', 'HEAD~2', '--json'], { cwd: kept });
  expect(moved.stderr).toBe('');
  expect(moved.code).toBe(0);
  expect((JSON.parse(moved.stdout) as Doc).items.map((i) => [i.path, i.status])).toEqual([
    ['.sdd/runtime/journal/b/000000.jsonl', 'ok'],
    [spelled, 'renamed to .sdd/runtime/journal/b/000000.jsonl'],
  ]);
});

test('a decoy spelled with a real U+FFFD does not hide a name that is not UTF-8 beside it; the decoy itself is checked', async () => {
  const dir = emptyRepo(path.join(tmp, 'not-utf8-decoy'));
  append(dir, 'alice', 2);
  commitAll(dir, 'base');
  const good = readFileSync(journalFile(dir, 'alice'));
  // `b<U+FFFD>` (UTF-8 bytes ef bf bd: a name that opens) holds an intact copy; `b<0xff>`, listed by Node with the
  // same spelling, holds a tampered one. The lstat of the spelling found the decoy, and the tampered one passed as it.
  const journals = Buffer.from(path.join(dir, '.sdd/runtime/journal/b'));
  const decoy = Buffer.concat([journals, Buffer.from('\uFFFD')]);
  const hidden = Buffer.concat([journals, Buffer.from([0xff])]);
  mkdirSync(decoy);
  writeFileSync(Buffer.concat([decoy, Buffer.from('/000000.jsonl')]), good);
  mkdirSync(hidden);
  writeFileSync(
    Buffer.concat([hidden, Buffer.from('/000000.jsonl')]),
    good.toString('utf8').replace('"r1"', '"r-one"'),
  );
  commitAll(dir, 'pr');
  const r = await cliInProcess(['check', '--json'], { cwd: dir });
  expectNoStack(r);
  expect(r.code).toBe(1);
  const doc = JSON.parse(r.stdout) as {
    verified: number;
    items: { path: string; ok: boolean }[];
    faults: { path: string; kind: string; severity: string }[];
  };
  expect(doc.faults.filter((f) => f.severity === 'error').map((f) => [f.path, f.kind])).toEqual([
    ['.sdd/runtime/journal/b\uFFFD', 'unreadable'],
  ]);
  // The decoy, a name that is UTF-8, is verified as any journal is (never refused for its U+FFFD).
  expect(doc.items.find((i) => i.path === '.sdd/runtime/journal/b\uFFFD/000000.jsonl')?.ok).toBe(true);
  expect(doc.verified).toBe(2);
});
