/**
 * The packaged Action (dist/index.js, run `npm run build` first) in a child
 * process, as a runner starts it, against real git repositories with a base
 * branch and a PR branch and a synthesized pull_request event. The REST API and
 * the artifact service are local HTTP servers. The tests about the check's
 * verdicts (faults, annotations, inputs) run the Action's `run()` in this
 * process (`inPr`, helpers/action-in-process.ts) with the same assertions; a
 * clean pass, a bad input and GitHub's services run the bundle.
 */
import { createPrivateKey } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalFile, verifyJournalFile } from '../src/journal';
import { exportReceipt, generateKeyPair, parsePrivateKey, parsePublicKey, verifyReceipt } from '../src/receipt';
import { recordMutation } from '../src/runs';
import { COMMENT_MARKER } from '../src/check';
import {
  actionTestBed,
  appendSteps,
  failureOf,
  FakeGitHub,
  prEvent as pr,
  runAction,
  RUNNER_TOKEN,
  unzip,
  type ActionResult,
} from './helpers/action';
import { inProcessOnPr, runInProcess } from './helpers/action-in-process';
import { commitAll, emptyRepo, git } from './helpers/git';

const { tmp, scratch, scenario, onPr } = actionTestBed('stepchain-action-');
const inPr = inProcessOnPr(scratch);
let n = 0;

const ALICE = '.sdd/runtime/journal/alice/000000.jsonl';
const BOB = '.sdd/runtime/journal/bob/000000.jsonl';

function expectNoStack(r: ActionResult): void {
  expect(r.stdout + r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?/);
}

describe('verify mode on a pull request', () => {
  test('a clean append passes, with outputs, a report and a job summary', async () => {
    const { dir, base } = scenario();
    appendSteps(dir, 'alice', 4);
    appendSteps(dir, 'carol', 2); // a new journal
    // A committed fork snapshot: the summary draws the fork tree.
    mkdirSync(path.join(dir, '.sdd/runtime/sessions'), { recursive: true });
    writeFileSync(
      path.join(dir, '.sdd/runtime/sessions/carol.json'),
      JSON.stringify({ fork: { parent_session_id: 'alice', from_step: 3, label: 'plan b' } }),
    );
    commitAll(dir, 'more steps');
    const r = await onPr(dir, base);
    expect(r.code).toBe(0);
    expectNoStack(r);
    expect(r.annotations.filter((a) => a.level === 'error')).toEqual([]);
    expect(r.outputs['verified']).toBe('3');
    expect(r.outputs['failed']).toBe('0');
    const heads = JSON.parse(r.outputs['heads']!) as Record<string, string>;
    expect(heads).toEqual({
      alice: verifyJournalFile(path.join(dir, ALICE)).head_hash,
      bob: verifyJournalFile(path.join(dir, BOB)).head_hash,
      carol: verifyJournalFile(journalFile(dir, 'carol')).head_hash,
    });
    const report = JSON.parse(readFileSync(r.outputs['report']!, 'utf8')) as {
      ok: boolean;
      base: string;
      items: { path: string; append_only?: string; steps: number }[];
    };
    expect(report.ok).toBe(true);
    expect(report.base).toBe(base);
    expect(report.items.find((i) => i.path === ALICE)).toMatchObject({ steps: 9, append_only: 'appended' });
    expect(report.items.find((i) => i.path === BOB)).toMatchObject({ steps: 3, append_only: 'unchanged' });
    expect(r.outputs['report']!.startsWith(path.join(scratch))).toBe(true);
    expect(r.summary).toContain('| ✅ | journal | <code>.sdd/runtime/journal/alice/000000.jsonl</code> | alice | 9 |');
    expect(r.summary).toContain(`append-only checked against base <code>${base.slice(0, 12)}</code>`);
    expect(r.summary).toContain(
      '### Fork tree\n\n```mermaid\nflowchart LR\n  n0["carol<br/>plan b"]\n  n1["alice"]\n  n1 -->|"step 3"| n0\n```',
    );
  });

  test('a tampered step fails with an annotation at its line', async () => {
    const { dir, base } = scenario();
    const file = path.join(dir, ALICE);
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[2] = lines[2]!.replace('x result 2', 'x result 2 (edited)');
    writeFileSync(file, lines.join('\n'));
    commitAll(dir, 'tamper');
    const r = await inPr(dir, base);
    expect(r.code).toBe(1);
    expectNoStack(r);
    const hash = r.annotations.find((a) => a.title === 'stepchain: step_hash_mismatch');
    expect(hash).toMatchObject({ level: 'error', file: ALICE, line: 3 });
    expect(hash!.message).toContain('agent alice');
    // The edit also changed committed history: append-only names the same line and seq 2.
    expect(r.annotations.find((a) => a.title === 'stepchain: history_rewritten')).toMatchObject({
      file: ALICE,
      line: 3,
    });
    expect(r.outputs['failed']).toBe('1');
    expect(r.outputs['verified']).toBe('1');
    expect(failureOf(r)).toMatch(
      /^stepchain: verification failed: \d+ faults? in 1 file; first: \.sdd\/runtime\/journal\/alice\/000000\.jsonl:3: /,
    );
    expect(failureOf(r)!.split('\n')).toHaveLength(1);
    expect(r.stdout).toMatch(/FAULT \.sdd\/runtime\/journal\/alice\/000000\.jsonl:3: agent alice: step_hash_mismatch/);
    expect(r.summary).toContain('❌');
    expect(JSON.parse(r.outputs['heads']!)).not.toHaveProperty('alice');

    // journals: a glob that matches only bob leaves alice unchecked (also for append-only).
    const narrowed = await inPr(dir, base, { journals: '.sdd/runtime/journal/bob/*.jsonl' });
    expect(narrowed.code).toBe(0);
    expect(narrowed.outputs['verified']).toBe('1');
  });

  test('a consistently re-hashed rewrite is internally valid but fails append-only', async () => {
    const { dir, base } = scenario();
    const file = path.join(dir, ALICE);
    const before = readFileSync(file);
    unlinkSync(file);
    appendSteps(dir, 'alice', 2); // seq 0..1 as before
    appendSteps(dir, 'alice', 5, 'rewritten'); // seq 2.. differ, chained and hashed correctly
    expect(readFileSync(file).subarray(0, 100)).toEqual(before.subarray(0, 100));
    expect(verifyJournalFile(file).ok).toBe(true);
    commitAll(dir, 'rewrite history');
    const r = await inPr(dir, base);
    expect(r.code).toBe(1);
    expectNoStack(r);
    const errors = r.annotations.filter((a) => a.level === 'error' && a.file !== undefined);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ file: ALICE, line: 3, title: 'stepchain: history_rewritten' });
    expect(errors[0]!.message).toMatch(/^agent alice: history rewritten from seq 2 /);
    expect(failureOf(r)).toContain('agent alice: history rewritten from seq 2');

    // The same PR with the check switched off passes.
    const off = await inPr(dir, base, { 'append-only': 'false' });
    expect(off.code).toBe(0);
    expect(off.summary).toContain('append-only not checked');
  });

  test('a truncated and a deleted history fail, naming the agent and the seq', async () => {
    const { dir, base } = scenario();
    const file = path.join(dir, ALICE);
    const lines = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, `${lines.slice(0, 3).join('\n')}\n`);
    rmSync(path.join(dir, '.sdd/runtime/journal/bob'), { recursive: true });
    commitAll(dir, 'truncate alice, delete bob');
    const r = await inPr(dir, base);
    expect(r.code).toBe(1);
    const trunc = r.annotations.find((a) => a.title === 'stepchain: history_truncated');
    expect(trunc).toMatchObject({ file: ALICE, line: 3 });
    expect(trunc!.message).toContain('agent alice: history truncated at seq 3');
    const del = r.annotations.find((a) => a.title === 'stepchain: history_deleted');
    expect(del).toMatchObject({ file: BOB });
    expect(del!.message).toContain('agent bob: journal deleted');
    expect(r.outputs['failed']).toBe('2');
  });

  test('a shallow checkout fetches the base commit', async () => {
    const { dir, base } = scenario();
    appendSteps(dir, 'bob', 1);
    commitAll(dir, 'append');
    const clone = path.join(tmp, `clone-${++n}`);
    git(tmp, ['clone', '-q', '--depth=1', '--branch', 'pr', `file://${dir}`, clone]);
    expect(() => git(clone, ['cat-file', '-e', `${base}^{commit}`])).toThrow();
    const r = await inPr(clone, base);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Fetched the base commit ${base}`);
    expect(git(clone, ['cat-file', '-t', base])).toBe('commit');
  });

  test('expected-heads pins heads, read from the base commit or given inline', async () => {
    const dir = emptyRepo(path.join(tmp, `repo-${++n}`));
    appendSteps(dir, 'alice', 5);
    appendSteps(dir, 'bob', 3);
    const alice = verifyJournalFile(path.join(dir, ALICE)).head_hash;
    writeFileSync(path.join(dir, 'heads.json'), JSON.stringify({ alice }));
    const base = commitAll(dir, 'base journals and pinned heads');
    git(dir, ['checkout', '-q', '-b', 'pr']);
    const ok = await inPr(dir, base, { 'expected-heads': 'heads.json' });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`Pinned heads from heads.json at the base commit ${base.slice(0, 12)}`);
    // The PR rewrites the pins to match a rewritten journal: the base's pins still hold the line.
    writeFileSync(path.join(dir, 'heads.json'), JSON.stringify({ alice: 'a'.repeat(64) }));
    commitAll(dir, 'the PR edits the pins');
    const pinned = await inPr(dir, base, { 'expected-heads': 'heads.json' });
    expect(pinned.code).toBe(0);
    const bad = await runInProcess({
      workspace: dir,
      scratch,
      event: pr(dir, base),
      inputs: { 'expected-heads': JSON.stringify({ alice: 'a'.repeat(64), dave: 'b'.repeat(64) }) },
    });
    expect(bad.code).toBe(1);
    expect(bad.annotations.find((a) => a.file === ALICE)).toMatchObject({ title: 'stepchain: head_mismatch', line: 5 });
    expect(bad.annotations.find((a) => a.file === '.')!.message).toContain('agent dave');
  });

  test('a flagged provider-state mutation fails, or warns when fail-on-flagged-mutations is false', async () => {
    const { dir, base } = scenario();
    const env = { STEPCHAIN_AUDIT: 'off' };
    recordMutation(dir, 'run-1', { agentId: 'alice', kind: 'memory_write', detail: { before_x: 1, x: 2 } }, { env });
    recordMutation(
      dir,
      'run-1',
      { agentId: 'alice', kind: 'memory_write', detail: { x: 3 } },
      { env: { ...env, STEPCHAIN_DETERMINISTIC_SEED: '42' } },
    );
    commitAll(dir, 'a run with a flagged mutation');
    const r = await inPr(dir, base);
    expect(r.code).toBe(1);
    const flagged = r.annotations.find((a) => a.title === 'stepchain: flagged_mutation');
    expect(flagged).toMatchObject({ level: 'error', file: '.sdd/runs/run-1/journal.jsonl', line: 2 });
    expect(flagged!.message).toContain('run run-1');
    const warn = await inPr(dir, base, { 'fail-on-flagged-mutations': 'false' });
    expect(warn.code).toBe(0);
    expect(warn.annotations.find((a) => a.title === 'stepchain: flagged_mutation')).toMatchObject({
      level: 'warning',
      line: 2,
    });
    expect(warn.summary).toContain('1 flagged mutation');
  });

  test('receipts: an untrusted signature fails; the trusted key passes; no keys only warns', async () => {
    const { dir } = scenario();
    const signer = generateKeyPair();
    const other = generateKeyPair();
    mkdirSync(path.join(dir, 'receipts'));
    exportReceipt(path.join(dir, ALICE), path.join(dir, 'receipts/alice.receipt.tar'), {
      signKey: parsePrivateKey(Buffer.from(signer.privateKeyPem), 'test key'),
    });
    const keyBase = commitAll(dir, 'a signed receipt');
    // The trusted key file is on the base branch (a PR cannot bring its own key).
    git(dir, ['checkout', '-q', 'main']);
    writeFileSync(path.join(dir, 'trusted.pub'), signer.publicKeyPem);
    const base2 = commitAll(dir, 'the trusted key');
    git(dir, ['checkout', '-q', 'pr']);
    git(dir, ['merge', '-q', '--no-edit', 'main']);
    expect(keyBase).not.toBe(base2);

    const untrusted = await inPr(dir, base2, { 'public-keys': other.publicKeyPem });
    expect(untrusted.code).toBe(1);
    expect(untrusted.annotations.find((a) => a.file === 'receipts/alice.receipt.tar')).toMatchObject({
      level: 'error',
      title: 'stepchain: signature_invalid',
    });

    const trusted = await runInProcess({
      workspace: dir,
      scratch,
      event: pr(dir, base2),
      inputs: { 'public-keys': `${other.publicKeyPem}\ntrusted.pub\n` },
    });
    expect(trusted.code).toBe(0);
    // Parentheses are escaped in the summary (repository data is never Markdown there).
    expect(trusted.summary).toContain(`signed &#40;${signer.keyId}&#41;`);
    expect(trusted.summary).toContain(`Trusted keys:`);
    expect(trusted.summary).toContain(
      `<code>${signer.keyId}</code> from trusted.pub at the base commit ${base2.slice(0, 12)}`,
    );

    // One meaning of "signed": a signature nobody checked is never a green check.
    const none = await inPr(dir, base2);
    expect(none.code).toBe(1);
    expect(none.annotations.find((a) => a.file === 'receipts/alice.receipt.tar')).toMatchObject({
      level: 'error',
      title: 'stepchain: signature_not_checked',
    });

    // receipts: '' would take the default; a glob that matches nothing switches receipts off.
    const off = await inPr(dir, base2, { 'public-keys': other.publicKeyPem, receipts: 'none/*.tar' });
    expect(off.code).toBe(0);
  });

  test('a bad input fails with one line and no stack trace', async () => {
    const { dir, base } = scenario();
    const r = await onPr(dir, base, { mode: 'bogus' });
    expect(r.code).toBe(1);
    expectNoStack(r);
    expect(failureOf(r)).toBe('stepchain: input mode: "bogus" is not verify, export or gather');
    // The process's one-line failure is the run above; which line a missing key file gives is the Action's logic.
    const k = await inPr(dir, base, { 'public-keys': 'missing.pub' });
    expect(k.code).toBe(1);
    expect(failureOf(k)).toBe(
      `stepchain: input public-keys: missing.pub does not exist at the base commit ${base.slice(0, 12)}; trust anchors are read from the base, never from the change being checked (add the file to the base branch first, or pass the value inline from a secret or variable)`,
    );
  });
});

describe('GitHub services (local stand-ins)', () => {
  const gh = new FakeGitHub();
  beforeAll(() => gh.start());
  afterAll(() => gh.stop());

  test('the PR comment is created, then updated in place (one comment)', async () => {
    const { dir, base } = scenario();
    appendSteps(dir, 'alice', 1);
    commitAll(dir, 'append');
    const env = { GITHUB_API_URL: gh.url };
    const inputs = { comment: 'true' };
    gh.comments.set(7, [{ id: 1, body: 'an unrelated comment', user: { login: 'octocat', type: 'User' } }]);
    const first = await runAction({ workspace: dir, scratch, event: pr(dir, base), inputs, env });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Posted the report comment on #7');
    expect(gh.comments.get(7)).toHaveLength(2);
    const mine = gh.comments.get(7)![1]!;
    expect(mine.body.startsWith(COMMENT_MARKER)).toBe(true);
    expect(mine.body).toContain('stepchain: ✅ verified');

    const file = path.join(dir, ALICE);
    writeFileSync(file, readFileSync(file, 'utf8').replace('x result 1', 'x result one'));
    commitAll(dir, 'tamper');
    const second = await runAction({ workspace: dir, scratch, event: pr(dir, base), inputs, env });
    expect(second.code).toBe(1);
    expect(second.stdout).toContain(`Updated the report comment on #7 (comment ${mine.id}, as github-actions[bot])`);
    expect(gh.comments.get(7)).toHaveLength(2);
    expect(gh.comments.get(7)![1]!.body).toContain('stepchain: ❌ failed');
    expect(gh.comments.get(7)![0]!.body).toBe('an unrelated comment');
    const auth = gh.requests.filter((q) => q.url.includes('/issues/')).map((q) => q.headers['authorization']);
    expect(new Set(auth)).toEqual(new Set([`token ${RUNNER_TOKEN}`]));
    expect(
      gh.requests.some(
        (q) => q.method === 'PATCH' && q.url === `/repos/octo/stepchain-test/issues/comments/${mine.id}`,
      ),
    ).toBe(true);
  });

  test('export mode signs receipts and uploads them with the report as one artifact', async () => {
    const { dir } = scenario();
    const key = generateKeyPair();
    // The base64 seed form of the key: the last 32 bytes of the PKCS#8 DER.
    const signingKey = createPrivateKey(key.privateKeyPem)
      .export({ format: 'der', type: 'pkcs8' })
      .subarray(-32)
      .toString('base64');
    const before = gh.artifacts.length;
    const r = await runAction({
      workspace: dir,
      scratch,
      inputs: { mode: 'export', 'signing-key': signingKey, 'artifact-name': 'my-receipts' },
      env: { ACTIONS_RUNTIME_TOKEN: FakeGitHub.runtimeToken(), ACTIONS_RESULTS_URL: `${gh.url}/` },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expectNoStack(r);
    expect(r.stdout).toContain(`::add-mask::${signingKey}`);
    expect(r.outputs['artifact-id']).toBe('4242');
    const files = JSON.parse(r.outputs['receipts']!) as string[];
    expect(files.map((f) => path.basename(f)).sort()).toEqual(['alice.receipt.tar', 'bob.receipt.tar']);
    expect(gh.artifacts).toHaveLength(before + 1);
    const art = gh.artifacts[before]!;
    expect(art.name).toBe('my-receipts');
    expect(art.createRequest).toMatchObject({
      workflow_run_backend_id: 'run-backend-1',
      workflow_job_run_backend_id: 'job-backend-1',
      name: 'my-receipts',
      version: 7,
    });
    expect(art.finalizeRequest).toMatchObject({ name: 'my-receipts', size: String(art.bytes.length) });
    // The protocol as spoken: Twirp create, Azure block + block list PUTs to the signed URL, Twirp finalize.
    const calls = gh.requests
      .filter((q) => q.url.includes('/twirp/') || q.url.startsWith('/blob/'))
      .map((q) => `${q.method} ${q.url.replace(/blockid=[^&]+/, 'blockid=*')}`);
    expect(calls).toEqual(
      expect.arrayContaining([
        'POST /twirp/github.actions.results.api.v1.ArtifactService/CreateArtifact',
        expect.stringMatching(
          /^PUT \/blob\/devstoreaccount1\/actions-results\/my-receipts\.zip\?.*comp=block&blockid=\*/,
        ),
        expect.stringMatching(/^PUT \/blob\/devstoreaccount1\/actions-results\/my-receipts\.zip\?.*comp=blocklist/),
        'POST /twirp/github.actions.results.api.v1.ArtifactService/FinalizeArtifact',
      ]),
    );
    expect(gh.requests.find((q) => q.url.endsWith('/CreateArtifact'))!.headers['authorization']).toBe(
      `Bearer ${FakeGitHub.runtimeToken()}`,
    );
    const members = unzip(art.bytes);
    expect(Object.keys(members).sort()).toEqual([
      'alice.receipt.tar',
      'bob.receipt.tar',
      'html/receipt-alice.html',
      'html/receipt-bob.html',
      'report.json',
    ]);
    const pub = parsePublicKey(Buffer.from(key.publicKeyPem), 'pub');
    for (const f of files) {
      expect(members[path.basename(f)]).toEqual(readFileSync(f));
      const v = verifyReceipt(members[path.basename(f)]!, { publicKeys: [pub] });
      expect(v).toMatchObject({ ok: true, signed: true, signature_ok: true, key_id: key.keyId });
    }
    expect(verifyReceipt(members['alice.receipt.tar']!).head_hash).toBe(
      verifyJournalFile(path.join(dir, ALICE)).head_hash,
    );
    expect(JSON.parse(members['report.json']!.toString())).toMatchObject({ mode: 'export', ok: true, verified: 2 });
    // The key only ever appears in the mask command.
    expect(r.stdout.split('\n').filter((l) => l.includes(signingKey))).toEqual([`::add-mask::${signingKey}`]);
  });

  test('export with redact publishes redacted receipts for the named agents', async () => {
    const { dir } = scenario();
    // No service is reached (no upload): the Action's `run()` in this process.
    const r = await runInProcess({
      workspace: dir,
      scratch,
      inputs: { mode: 'export', agents: 'alice', redact: 'true', 'upload-artifact': 'false', 'allow-unsigned': 'true' },
    });
    expect(r.code).toBe(0);
    const files = JSON.parse(r.outputs['receipts']!) as string[];
    expect(files.map((f) => path.basename(f))).toEqual(['alice.receipt.tar']);
    const v = verifyReceipt(files[0]!);
    expect(v.ok).toBe(true);
    expect(v.head_hash).not.toBe(verifyJournalFile(path.join(dir, ALICE)).head_hash);
    expect(readFileSync(files[0]!).includes(Buffer.from('<<redacted>>'))).toBe(true);
    expect(readFileSync(files[0]!).includes(Buffer.from('x prompt 0'))).toBe(false);
    expect(r.outputs['artifact-id']).toBeUndefined();
  });

  // One run of the bundle for both reports an upload carries (a run each was ~0.45 s of CPU more): the journals'
  // pages, and a receipt's, which says what the check said of its signature (the trusted keys travel with it).
  test("verify mode uploads the JSON report when upload-artifact is true; a receipt's HTML report says what the check said of its signature", async () => {
    const { dir, base } = scenario();
    const keys = generateKeyPair();
    mkdirSync(path.join(dir, 'receipts'));
    exportReceipt(path.join(dir, ALICE), path.join(dir, 'receipts/alice.receipt.tar'), {
      signKey: parsePrivateKey(Buffer.from(keys.privateKeyPem), 'k'),
    });
    commitAll(dir, 'a signed receipt');
    const before = gh.artifacts.length;
    const r = await onPr(
      dir,
      base,
      { 'upload-artifact': 'true', 'artifact-name': 'stepchain-report', 'public-keys': keys.publicKeyPem },
      {
        ACTIONS_RUNTIME_TOKEN: FakeGitHub.runtimeToken(),
        ACTIONS_RESULTS_URL: `${gh.url}/`,
      },
    );
    expect(r.code).toBe(0);
    expect(r.outputs['artifact-id']).toBe('4242');
    expect(r.stdout).toContain(`OK   receipt receipts/alice.receipt.tar: 5 steps`);
    const members = unzip(gh.artifacts[before]!.bytes);
    expect(Object.keys(members).sort()).toEqual([
      'heads.json',
      'html/journal-alice.html',
      'html/journal-bob.html',
      'html/receipt-alice.html',
      'report.json',
    ]);
    expect(members['report.json']).toEqual(readFileSync(r.outputs['report']!));
    // The HTML reports are src/report pages of the committed journals.
    const page = members['html/journal-alice.html']!.toString();
    expect(page.startsWith('<!DOCTYPE html>') || page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toContain(verifyJournalFile(path.join(dir, ALICE)).head_hash);
    const receiptPage = members['html/receipt-alice.html']!.toString();
    expect(receiptPage).toContain(`under trusted key ${keys.keyId}`);
    expect(receiptPage).not.toContain('signature NOT checked');
  });
});
