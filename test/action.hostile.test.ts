/**
 * The Action against a pull request that attacks it: its own trust anchors,
 * symbolic links to secrets, workflow commands and Markdown in names and
 * labels, a human comment quoting the marker, a redirecting GIT_DIR. The built
 * dist/index.js runs as a runner starts it (test/helpers/action.ts), against
 * real git repositories; comments and artifacts go to local stand-ins. Where
 * the verdict alone is the point (trust anchors, gather mode), the Action's
 * `run()` runs in this process instead (`inPr`, helpers/action-in-process.ts),
 * with the same assertions.
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { COMMENT_MARKER } from '../src/check';
import { Journal, journalFile } from '../src/journal';
import { exportReceipt, generateKeyPair, parsePrivateKey } from '../src/receipt';
import { recordMutation } from '../src/runs';
import { sha256Hex } from '../src/util/hash';
import {
  ACTIONS_BOT,
  actionTestBed,
  appendSteps,
  eventFixture,
  failureOf,
  FakeGitHub,
  journalPath,
  prEvent as pr,
  runAction,
  RUNNER_TOKEN,
  stackIn,
  unzip,
  type ActionResult,
} from './helpers/action';
import { inProcessOnPr, runInProcess } from './helpers/action-in-process';
import { commitAll, emptyRepo, git } from './helpers/git';
import { cli } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { rawTar } from './helpers/tar';

const { tmp, scratch, scenario, onPr } = actionTestBed('stepchain-action-hostile-');
const inPr = inProcessOnPr(scratch);
let n = 0;

const ALICE = journalPath('alice');

/** Lines the runner would act on: `::cmd` at the start (after spaces) or a legacy `##[` anywhere. */
function commandLines(r: ActionResult): string[] {
  return r.stdout.split(/\r?\n|\r/).filter((l) => /^\s*::/.test(l) || l.includes('##['));
}

describe('trust anchors come from the base commit, never from the pull request', () => {
  test('a PR that replaces the key file and signs its own receipt fails; the summary names where keys came from', async () => {
    const dir = emptyRepo(path.join(tmp, `repo-${++n}`));
    appendSteps(dir, 'alice', 3);
    const trusted = generateKeyPair();
    mkdirSync(path.join(dir, 'keys'));
    writeFileSync(path.join(dir, 'keys/receipts.pub'), trusted.publicKeyPem);
    const base = commitAll(dir, 'base: a journal and the trusted key');
    git(dir, ['checkout', '-q', '-b', 'pr']);
    const attacker = generateKeyPair();
    writeFileSync(path.join(dir, 'keys/receipts.pub'), attacker.publicKeyPem);
    mkdirSync(path.join(dir, 'receipts'));
    exportReceipt(path.join(dir, ALICE), path.join(dir, 'receipts/alice.receipt.tar'), {
      signKey: parsePrivateKey(Buffer.from(attacker.privateKeyPem), 'attacker'),
    });
    writeFileSync(path.join(dir, 'keys/new.pub'), attacker.publicKeyPem);
    commitAll(dir, 'PR: swap the key file and sign with my own key');

    const r = await inPr(dir, base, { 'public-keys': 'keys/receipts.pub' });
    expect(r.code).toBe(1);
    expect(stackIn(r)).toBe(false);
    expect(r.annotations.find((a) => a.file === 'receipts/alice.receipt.tar')).toMatchObject({
      level: 'error',
      title: 'stepchain: signature_invalid',
    });
    expect(r.stdout).toContain(
      `Trusted key ${trusted.keyId} from keys/receipts.pub at the base commit ${base.slice(0, 12)}`,
    );
    expect(r.stdout).not.toContain(`Trusted key ${attacker.keyId}`);
    expect(r.summary).toContain(
      `<code>${trusted.keyId}</code> from keys/receipts.pub at the base commit ${base.slice(0, 12)}`,
    );

    // A key file the base does not have is refused, not trusted.
    const added = await inPr(dir, base, { 'public-keys': 'keys/new.pub' });
    expect(added.code).toBe(1);
    expect(failureOf(added)).toMatch(
      /^stepchain: input public-keys: keys\/new\.pub does not exist at the base commit /,
    );

    // Inline (a secret or a variable): taken as given, and the summary says so.
    const inline = await inPr(dir, base, { 'public-keys': attacker.publicKeyPem });
    expect(inline.code).toBe(0);
    expect(inline.summary).toContain(
      `<code>${attacker.keyId}</code> from the public-keys input &#40;inline PEM block 1&#41;`,
    );
  });

  test('on a push the anchors come from the commit before it; with no base commit, from the checkout', async () => {
    const dir = emptyRepo(path.join(tmp, `repo-${++n}`));
    appendSteps(dir, 'alice', 3);
    const pinned = readFileSync(path.join(dir, ALICE));
    const head0 = (await import('../src/journal')).verifyJournalBytes(pinned).head_hash;
    writeFileSync(path.join(dir, 'heads.json'), JSON.stringify({ alice: head0 }));
    const before = commitAll(dir, 'pins');
    writeFileSync(path.join(dir, 'heads.json'), JSON.stringify({ alice: 'f'.repeat(64) }));
    const after = commitAll(dir, 'the pushed commit edits the pins');
    const push = await runInProcess({
      workspace: dir,
      scratch,
      event: eventFixture('push', { before, head: after }),
      inputs: { 'expected-heads': 'heads.json' },
    });
    expect(push.code).toBe(0);
    expect(push.stdout).toContain(`Pinned heads from heads.json at the base commit ${before.slice(0, 12)}`);
    const manual = await runInProcess({
      workspace: dir,
      scratch,
      event: { name: 'workflow_dispatch', payload: { inputs: {} } },
      inputs: { 'expected-heads': 'heads.json' },
    });
    expect(manual.code).toBe(1);
    expect(manual.stdout).toContain('Pinned heads from heads.json in the checkout (this event has no base commit)');
  });
});

describe('symbolic links are never followed', () => {
  test('links to .git/config, /etc/passwd and a linked CAS blob: faults naming them, and no byte of their targets anywhere', async () => {
    const { dir, base } = scenario();
    const SECRET = 'SECRETTOKEN7f3a9c';
    git(dir, ['config', 'http.https://github.com/.extraheader', `AUTHORIZATION: basic ${SECRET}`]);
    // A journal whose step references a blob; the PR swaps the blob for a link to .git/config.
    const j = Journal.open(path.dirname(journalFile(dir, 'carol')), { durability: 'none' });
    const blob = Buffer.from('the real blob\n');
    j.append({ prompt: 'p', blobs: [blob], ts: 1_700_000_000 });
    const digest = sha256Hex(blob);
    const casFile = path.join(dir, '.sdd/runtime/cas', digest.slice(0, 2), digest);
    rmSync(casFile);
    symlinkSync(path.relative(path.dirname(casFile), path.join(dir, '.git/config')), casFile);
    // A journal that is a link, an agent directory that is a link, a receipt that is a link.
    mkdirSync(path.join(dir, '.sdd/runtime/journal/evil'), { recursive: true });
    symlinkSync('../../../../.git/config', path.join(dir, '.sdd/runtime/journal/evil/000000.jsonl'));
    symlinkSync('../../../.git', path.join(dir, '.sdd/runtime/journal/evil2'));
    mkdirSync(path.join(dir, 'receipts'));
    symlinkSync('/etc/passwd', path.join(dir, 'receipts/x.receipt.tar'));
    commitAll(dir, 'PR: links');
    expect(git(dir, ['ls-files', '-s', '.sdd/runtime/journal/evil/000000.jsonl'])).toMatch(/^120000 /);

    const gh = new FakeGitHub();
    await gh.start();
    try {
      const r = await runAction({
        workspace: dir,
        scratch,
        event: pr(dir, base),
        inputs: { 'upload-artifact': 'true' },
        env: { ACTIONS_RUNTIME_TOKEN: FakeGitHub.runtimeToken(), ACTIONS_RESULTS_URL: `${gh.url}/` },
      });
      expect(r.code).toBe(1);
      expect(stackIn(r)).toBe(false);
      const links = r.annotations.filter((a) => a.title === 'stepchain: symlink').map((a) => a.file);
      expect(links.sort()).toEqual(
        ['.sdd/runtime/journal/evil/000000.jsonl', '.sdd/runtime/journal/evil2', 'receipts/x.receipt.tar'].sort(),
      );
      const art = unzip(gh.artifacts[0]!.bytes);
      const page = art['html/journal-carol.html']!.toString('utf8');
      expect(page).toContain('is a symbolic link (never followed)');
      const config = readFileSync(path.join(dir, '.git/config'));
      for (const text of [r.stdout, r.stderr, r.summary, ...Object.values(art).map((b) => b.toString('latin1'))]) {
        expect(text).not.toContain(SECRET);
        expect(text).not.toContain(config.toString('base64').slice(0, 40));
        expect(text).not.toContain('root:x:0:0');
      }
    } finally {
      await gh.stop();
    }
  });

  test("the CLI's report never embeds a blob whose digest does not match, or one that is a link, and reads none over the cap", async () => {
    const root = path.join(tmp, `cli-report-${++n}`);
    mkdirSync(root);
    const j = Journal.open(path.dirname(journalFile(root, 'ag')), { durability: 'none' });
    const good = Buffer.from('good blob bytes\n');
    const swapped = Buffer.from('original bytes\n');
    const linked = Buffer.from('will be a link\n');
    const big = Buffer.alloc(300 * 1024, 0x61);
    j.append({ prompt: 'p', blobs: [good, swapped, linked, big], ts: 1_700_000_000 });
    const cas = (b: Buffer) => path.join(root, '.sdd/runtime/cas', sha256Hex(b).slice(0, 2), sha256Hex(b));
    writeFileSync(cas(swapped), 'SWAPPED-CONTENT-e1d2\n');
    writeFileSync(path.join(root, 'secret.txt'), 'LINKED-SECRET-99ab\n');
    rmSync(cas(linked));
    symlinkSync(path.join(root, 'secret.txt'), cas(linked));
    const out = path.join(root, 'r.html');
    // What the page embeds is the command's logic, not the process's: runCli in this process.
    const r = await cliInProcess(['report', 'ag', '--root', root, '-o', out]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const page = readFileSync(out, 'utf8');
    expect(page).toContain(good.toString('base64'));
    for (const s of ['SWAPPED-CONTENT-e1d2', 'LINKED-SECRET-99ab']) {
      expect(page).not.toContain(Buffer.from(s).toString('base64').slice(0, 16));
      expect(page).not.toContain(s);
    }
    expect(page).toContain('its bytes do not match its digest (not embedded)');
    expect(page).toContain('is a symbolic link (never followed)');
    expect(page).toContain('larger than the 262144-byte per-blob cap');
  });
});

describe('data is neutralised for where it goes', () => {
  test('journal names, receipt member names and mutation kinds cannot forge workflow commands', async () => {
    const { dir, base } = scenario();
    const evilDir = path.join(
      dir,
      '.sdd/runtime/journal',
      'x\n::stop-commands::pwned\n::error title=forged::forged by a name\u001b[31m\u202e',
    );
    mkdirSync(evilDir, { recursive: true });
    writeFileSync(path.join(evilDir, '000000.jsonl'), readFileSync(path.join(dir, ALICE)));
    const env = { STEPCHAIN_AUDIT: 'off' };
    recordMutation(
      dir,
      'run-1',
      { agentId: 'alice', kind: 'memory_write\n::error::forged by a mutation kind\n##[add-mask]x', detail: {} },
      { env: { ...env, STEPCHAIN_DETERMINISTIC_SEED: '1' } },
    );
    mkdirSync(path.join(dir, 'receipts'));
    writeFileSync(
      path.join(dir, 'receipts/bad.receipt.tar'),
      rawTar([{ name: 'blobs/\n::error::forged by a member name', data: Buffer.from('x') }]),
    );
    commitAll(dir, 'PR: hostile names');
    const r = await onPr(dir, base);
    expect(r.code).toBe(1);
    expect(stackIn(r)).toBe(false);
    // Only our own commands: the token's mask, annotations with our titles, the failure line.
    for (const line of commandLines(r)) {
      expect(line).toMatch(/^::(add-mask::ghs_runner_token_0123456789$|error[ :]|warning[ :]|debug::)/);
      expect(line).not.toMatch(/^::error title=forged/);
    }
    expect(r.annotations.map((a) => a.message).filter((m) => m.startsWith('forged'))).toEqual([]);
    expect(r.annotations.every((a) => a.file === undefined || a.title?.startsWith('stepchain: '))).toBe(true);
    expect(r.stdout).toContain('x\\n::stop-commands::pwned\\n::error title=forged::forged by a name\\x1b[31m\\u202e');
    expect(r.stdout).toContain('\\n::error::forged by a mutation kind\\n##\\[add-mask]x');
    // The log viewer renders escape sequences (colours) and bidi controls: none reaches it raw.
    expect(r.stdout).not.toMatch(/[\u001b\u202e]/);
  });

  test('Markdown and Mermaid: no mention, link, image, HTML or broken diagram from a label or an id', async () => {
    const { dir, base } = scenario();
    // An agent directory named like a mention (the library refuses such an id; a PR can still commit one).
    mkdirSync(path.join(dir, '.sdd/runtime/journal/@octocat'), { recursive: true });
    writeFileSync(path.join(dir, journalPath('@octocat')), readFileSync(path.join(dir, journalPath('bob'))));
    mkdirSync(path.join(dir, '.sdd/runtime/sessions'), { recursive: true });
    const label =
      'plan\n```\n[pwn](https://evil.example) ![i](https://evil.example/i.png) @octocat `x` <img src=x onerror=alert(1)> #123 www.evil.example';
    writeFileSync(
      path.join(dir, '.sdd/runtime/sessions/fork-1.json'),
      JSON.stringify({ fork: { parent_session_id: 'alice', from_step: 2, label } }),
    );
    const file = path.join(dir, ALICE);
    writeFileSync(file, readFileSync(file, 'utf8').replace('x result 1', 'x result one'));
    commitAll(dir, 'PR: hostile labels');
    const gh = new FakeGitHub();
    await gh.start();
    try {
      const r = await onPr(dir, base, { comment: 'true' }, { GITHUB_API_URL: gh.url });
      expect(r.code).toBe(1);
      const comment = gh.comments.get(7)![0]!.body;
      for (const md of [r.summary, comment]) {
        expect(md).toContain('&#64;octocat');
        for (const bad of ['@octocat', '](https', '![', '<img', '#123', 'www.evil', '`x`'])
          expect(md).not.toContain(bad);
        const mermaid = md.slice(md.indexOf('```mermaid\n') + 11, md.indexOf('\n```', md.indexOf('```mermaid\n') + 11));
        for (const line of mermaid.split('\n').slice(1))
          expect(line).toMatch(/^ {2}n\d+(\["[^"`<>]*(<br\/>[^"`<>]*)?"\]| -->\|"[^"`<>]*"\| n\d+)$/);
        // Every table row is whole (no cell broken by a newline or a pipe from the data).
        for (const row of md.split('\n').filter((l) => l.startsWith('| '))) expect(row.split(' | ').length).toBe(7);
      }
    } finally {
      await gh.stop();
    }
  });
});

describe('the PR comment', () => {
  const gh = new FakeGitHub();
  beforeAll(() => gh.start());
  afterAll(() => gh.stop());

  test("a human's comment quoting the marker is never edited; only the token's own comment is updated", async () => {
    const { dir, base } = scenario();
    appendSteps(dir, 'alice', 1);
    commitAll(dir, 'append');
    const human = { login: 'octocat', type: 'User' as const };
    const quoted = `${COMMENT_MARKER}\nI quote the bot: please keep this comment`;
    gh.comments.set(7, [{ id: 1, body: quoted, user: human }]);
    const env = { GITHUB_API_URL: gh.url };
    const first = await runAction({ workspace: dir, scratch, event: pr(dir, base), inputs: { comment: 'true' }, env });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Posted the report comment on #7');
    expect(gh.comments.get(7)!.map((c) => [c.user.login, c.body.startsWith(COMMENT_MARKER)])).toEqual([
      ['octocat', true],
      [ACTIONS_BOT.login, true],
    ]);
    const second = await runAction({ workspace: dir, scratch, event: pr(dir, base), inputs: { comment: 'true' }, env });
    expect(second.stdout).toMatch(/Updated the report comment on #7 \(comment 1\d{3}, as github-actions\[bot\]\)/);
    expect(gh.comments.get(7)).toHaveLength(2);
    expect(gh.comments.get(7)![0]!.body).toBe(quoted);
    expect(gh.requests.some((q) => q.method === 'PATCH' && q.url.endsWith('/issues/comments/1'))).toBe(false);

    // A token whose identity cannot be told: no comment, a warning, and the check's verdict stands.
    const unknown = await runAction({
      workspace: dir,
      scratch,
      event: pr(dir, base),
      inputs: { comment: 'true', 'github-token': 'ghp_not_known_here' },
      env,
    });
    expect(unknown.code).toBe(0);
    expect(unknown.annotations.find((a) => a.level === 'warning')!.message).toMatch(
      /^comment: could not post the report on #7: /,
    );
    expect(gh.comments.get(7)).toHaveLength(2);
    expect(RUNNER_TOKEN).not.toBe('ghp_not_known_here');
  });
});

describe('one git environment policy', () => {
  test('GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE pointing at another repository are ignored', async () => {
    const { dir, base } = scenario();
    const file = path.join(dir, ALICE);
    writeFileSync(file, readFileSync(file, 'utf8').replace('x result 2', 'x result two'));
    commitAll(dir, 'PR: rewrite');
    // Another repository whose main holds the rewritten journal: reading it would pass the rewrite.
    const other = emptyRepo(path.join(tmp, `other-${++n}`));
    mkdirSync(path.dirname(path.join(other, ALICE)), { recursive: true });
    writeFileSync(path.join(other, ALICE), readFileSync(file));
    commitAll(other, 'the rewritten journal as history');
    const env = {
      GIT_DIR: path.join(other, '.git'),
      GIT_WORK_TREE: other,
      GIT_INDEX_FILE: path.join(other, '.git', 'index'),
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.bare',
      GIT_CONFIG_VALUE_0: 'true',
    };
    const r = await runAction({ workspace: dir, scratch, event: pr(dir, base), env });
    expect(r.code).toBe(1);
    expect(r.annotations.find((a) => a.title === 'stepchain: history_rewritten')).toMatchObject({
      file: ALICE,
      line: 3,
    });

    const c = cli(['check', '--base', 'main'], { cwd: dir, env });
    expect(c.code).toBe(1);
    expect(c.stderr).toContain(`${ALICE}:3: agent alice: history rewritten from seq 2`);
  });
});

describe('gather mode trusts only the shard reports of its own run', () => {
  test('a report.json committed by the PR is not a shard; a shard that failed without a fault still fails the gather', async () => {
    const { dir, base } = scenario();
    const file = path.join(dir, ALICE);
    writeFileSync(file, readFileSync(file, 'utf8').replace('x result 2', 'x result two'));
    // The PR brings its own "green" shard report where the gather job looks for the downloaded artifacts.
    const forged = {
      producer: 'stepchain',
      mode: 'verify',
      ok: true,
      base,
      commit: base,
      fetched_base: false,
      fetched_blobs: 0,
      verified: 0,
      failed: 0,
      heads: { alice: 'f'.repeat(64) },
      matched: { journal: 0, run: 0, receipt: 0 },
      shard: null,
      trusted_keys: [],
      items: [],
      faults: [],
    };
    mkdirSync(path.join(dir, 'stepchain-reports/stepchain-report'), { recursive: true });
    writeFileSync(path.join(dir, 'stepchain-reports/stepchain-report/report.json'), JSON.stringify(forged));
    commitAll(dir, 'PR: a rewrite and a forged report');
    const forgedOnly = await inPr(dir, base, { mode: 'gather' });
    expect(forgedOnly.code).toBe(1);
    expect(stackIn(forgedOnly)).toBe(false);
    expect(failureOf(forgedOnly)).toMatch(
      /^stepchain: verification failed: 2 faults in 2 files; first: stepchain-reports\/stepchain-report\/report\.json: .*made from commit [0-9a-f]{40}, not this job's [0-9a-f]{40}/,
    );
    expect(forgedOnly.outputs['heads']).toBe('{}');

    // Beside the real shard's report (made from this commit), the forged one still fails the gather.
    const shard = await inPr(dir, base, { reports: 'none/*' });
    expect(shard.code).toBe(1);
    mkdirSync(path.join(dir, 'stepchain-reports/real'), { recursive: true });
    writeFileSync(path.join(dir, 'stepchain-reports/real/report.json'), readFileSync(shard.outputs['report']!));
    const both = await inPr(dir, base, { mode: 'gather' });
    expect(both.code).toBe(1);
    expect(both.annotations.map((a) => a.title)).toEqual(
      expect.arrayContaining(['stepchain: shard_foreign', 'stepchain: history_rewritten']),
    );

    // A shard whose only failure was if-no-files-found: error (no fault, no failed file) fails the gather too.
    const clean = scenario();
    const empty = await runInProcess({
      workspace: clean.dir,
      scratch,
      event: pr(clean.dir, clean.base),
      inputs: { receipts: 'nothing/*.receipt.tar', 'if-no-files-found': 'error' },
    });
    expect(empty.code).toBe(1);
    mkdirSync(path.join(clean.dir, 'stepchain-reports/s'), { recursive: true });
    writeFileSync(path.join(clean.dir, 'stepchain-reports/s/report.json'), readFileSync(empty.outputs['report']!));
    const g = await runInProcess({
      workspace: clean.dir,
      scratch,
      event: pr(clean.dir, clean.base),
      inputs: { mode: 'gather' },
    });
    expect(g.code).toBe(1);
    expect(failureOf(g)).toContain('shard 1 of 1 failed: receipts: nothing/*.receipt.tar matched no file');
  });
});
