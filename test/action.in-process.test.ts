/**
 * The Action's `run()` in this process, @actions/core and the event context
 * replaced at their boundary (test/helpers/action-core.ts), the real library
 * underneath on real git repositories: each mode through its own file, and
 * `stepchain check --base REF` agreeing with verify mode on a pull request.
 * The tests that start the built bundle as a runner does sit beside these
 * (action.test.ts and the other action.*.test.ts).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCaptured } from '../src/cli/in-process';
import { runCli } from '../src/cli/main';
import { newStep } from './helpers/action-core';
import { runAsBundle } from './helpers/action-in-process';
import { appendSteps, eventFixture, journalPath, prScenario } from './helpers/action-repo';
import { commitAll, git } from './helpers/git';
import { tempDir } from './helpers/tmp';

// Both packages are ESM-only (an `import` condition alone), which Jest's CommonJS resolver does not take: they are
// stood in for by name. No test here reaches GitHub's API (no comment, no upload).
jest.mock('@actions/core', () => jest.requireActual('./helpers/action-core').core, { virtual: true });
jest.mock(
  '@actions/github',
  () => ({
    context: jest.requireActual('./helpers/action-core').context,
    getOctokit: () => {
      throw new Error('the in-process tests reach no GitHub API');
    },
  }),
  { virtual: true },
);

const tmp = tempDir('stepchain-action-in-process-');
const scratch = path.join(tmp, 'scratch');
let n = 0;

const ALICE = journalPath('alice');
const BOB = journalPath('bob');

function rewriteStep(dir: string, from: string, to: string): void {
  const file = path.join(dir, ALICE);
  writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
}

function reportOf(outputs: Record<string, string>): Record<string, unknown> {
  return JSON.parse(readFileSync(outputs['report']!, 'utf8')) as Record<string, unknown>;
}

/** A PR's own head (bob appended to) whose base branch moved on (alice appended to) after it branched. */
function movedOnScenario(): { dir: string; forkedAt: string; mainTip: string; prHead: string } {
  const { dir, base: forkedAt } = prScenario(path.join(tmp, `repo-${++n}`));
  appendSteps(dir, 'bob', 1, 'pr');
  const prHead = commitAll(dir, 'PR: append to bob');
  git(dir, ['checkout', '-q', 'main']);
  appendSteps(dir, 'alice', 2, 'main');
  const mainTip = commitAll(dir, 'main moves on: append to alice');
  git(dir, ['checkout', '-q', prHead]);
  return { dir, forkedAt, mainTip, prHead };
}

async function cliCheck(dir: string, ...args: string[]): Promise<{ code: number; doc: Record<string, unknown> }> {
  const r = await runCaptured(runCli, ['check', '--json', ...args], {
    cwd: dir,
    env: { ...process.env, STEPCHAIN_AUDIT: 'off' },
  });
  return { code: r.code, doc: JSON.parse(r.stdout) as Record<string, unknown> };
}

describe('verify mode', () => {
  test('a PR that only appended passes: outputs, the report file, the log lines and the summary', async () => {
    const { dir, base } = prScenario(path.join(tmp, `repo-${++n}`));
    appendSteps(dir, 'alice', 2, 'pr');
    const head = commitAll(dir, 'PR: append to alice');
    const rec = newStep(dir, scratch, {}, eventFixture('pull_request', { base, head }));
    await runAsBundle();
    expect(rec.failed).toEqual([]);
    expect(rec.errors).toEqual([]);
    expect(rec.outputs).toMatchObject({ verified: '2', failed: '0' });
    expect(Object.keys(JSON.parse(rec.outputs['heads']!) as object).sort()).toEqual(['alice', 'bob']);
    expect(reportOf(rec.outputs)).toMatchObject({ mode: 'verify', event: 'pull_request', ok: true, base });
    expect(rec.log).toContain(
      `OK   journal ${BOB}: 3 steps, head ${(JSON.parse(rec.outputs['heads']!) as Record<string, string>)['bob']} (ok, unchanged)`,
    );
    expect(rec.log.find((l) => l.startsWith(`OK   journal ${ALICE}: 7 steps`))).toMatch(/\(ok, appended\)$/);
    expect(rec.log).toContain('stepchain: 2 verified, 0 failed.');
    expect(rec.summary).toContain(`append-only checked against base <code>${base.slice(0, 12)}</code>`);
  });

  test('a rewrite fails the step with one line first, then an annotation at the file and line', async () => {
    const { dir, base } = prScenario(path.join(tmp, `repo-${++n}`));
    rewriteStep(dir, 'x result 1', 'x result one');
    const head = commitAll(dir, 'PR: rewrite alice');
    const rec = newStep(dir, scratch, {}, eventFixture('pull_request', { base, head }));
    await runAsBundle();
    expect(rec.failed).toHaveLength(1);
    expect(rec.failed[0]).toMatch(
      new RegExp(`^stepchain: verification failed: 2 faults in 1 file; first: ${ALICE}:2: `),
    );
    expect(rec.errors.find((e) => e.title === 'stepchain: history_rewritten')).toMatchObject({
      file: ALICE,
      startLine: 2,
    });
    expect(rec.log.find((l) => l.startsWith(`FAIL journal ${ALICE}`))).toMatch(/\(rewritten\)$/);
    expect(rec.outputs).toMatchObject({ verified: '1', failed: '1' });
    expect(reportOf(rec.outputs)).toMatchObject({ ok: false });
  });

  test("a PR's own head whose base moved on: compared with the fork point, as `stepchain check --base` does", async () => {
    const { dir, forkedAt, mainTip, prHead } = movedOnScenario();
    const rec = newStep(dir, scratch, {}, eventFixture('pull_request', { base: mainTip, head: prHead }));
    await runAsBundle();
    expect(rec.failed).toEqual([]);
    expect(rec.log).toContain(
      `pull_request: the checkout is the PR's own head, not built on its base ${mainTip.slice(0, 12)}: the journals are compared with where the PR branched from it, ${forkedAt.slice(0, 12)}`,
    );
    const action = reportOf(rec.outputs);
    expect(action['base']).toBe(forkedAt);
    // The CLI door: the same fork-point rule, the same report.
    const cli = await cliCheck(dir, '--base', 'main');
    expect(cli.code).toBe(0);
    expect(cli.doc['base']).toBe(forkedAt);
    expect(Object.fromEntries(Object.keys(cli.doc).map((k) => [k, action[k]]))).toEqual(cli.doc);
  });

  test('the two doors agree on a failing pull request too (a rewrite on the PR branch, the base moved on)', async () => {
    const { dir, mainTip } = movedOnScenario();
    rewriteStep(dir, 'x result 1', 'x result one');
    const head = commitAll(dir, 'PR: rewrite alice');
    const rec = newStep(dir, scratch, {}, eventFixture('pull_request', { base: mainTip, head }));
    await runAsBundle();
    expect(rec.failed).toHaveLength(1);
    const action = reportOf(rec.outputs);
    const cli = await cliCheck(dir, '--base', mainTip);
    expect(cli.code).toBe(1);
    expect((cli.doc['faults'] as { kind: string }[]).map((f) => f.kind)).toContain('history_rewritten');
    expect(Object.fromEntries(Object.keys(cli.doc).map((k) => [k, action[k]]))).toEqual(cli.doc);
  });
});

describe('gather and export modes', () => {
  test("gather: two shards' reports make the one check an unsharded run makes", async () => {
    const { dir, base } = prScenario(path.join(tmp, `repo-${++n}`));
    appendSteps(dir, 'carol', 2);
    const head = commitAll(dir, 'PR: carol');
    const event = eventFixture('pull_request', { base, head });
    const whole = newStep(dir, scratch, {}, event);
    await runAsBundle();
    for (const index of [0, 1]) {
      const shard = newStep(dir, scratch, { 'shard-count': '2', 'shard-index': String(index) }, event);
      await runAsBundle();
      expect(shard.failed).toEqual([]);
      const to = path.join(dir, 'stepchain-reports', `shard-${index}`, 'report.json');
      mkdirSync(path.dirname(to), { recursive: true });
      copyFileSync(shard.outputs['report']!, to);
    }
    const gathered = newStep(dir, scratch, { mode: 'gather' }, event);
    await runAsBundle();
    expect(gathered.failed).toEqual([]);
    expect(gathered.log).toContain(`Gathered 2 shard reports of commit ${head}: 3 verified, 0 failed.`);
    expect(gathered.outputs).toMatchObject({ verified: whole.outputs['verified'], failed: '0' });
    expect(JSON.parse(gathered.outputs['heads']!)).toEqual(JSON.parse(whole.outputs['heads']!));
  });

  test('export: every journal a receipt, listed in the outputs and the summary', async () => {
    const { dir } = prScenario(path.join(tmp, `repo-${++n}`));
    const rec = newStep(dir, scratch, { mode: 'export', 'allow-unsigned': 'true', 'upload-artifact': 'false' });
    await runAsBundle();
    expect(rec.failed).toEqual([]);
    expect(rec.warnings.map((w) => w.message)).toContain(
      'export: allow-unsigned is true: the receipts are not signed.',
    );
    const receipts = JSON.parse(rec.outputs['receipts']!) as string[];
    expect(receipts.map((f) => path.basename(f)).sort()).toEqual(['alice.receipt.tar', 'bob.receipt.tar']);
    expect(rec.summary).toContain('2 receipts exported');
    expect(reportOf(rec.outputs)).toMatchObject({ mode: 'export', ok: true, verified: 2 });
  });

  test("export: what the library's export said and went on is a warning of the step (a CAS blob not its digest)", async () => {
    const { dir } = prScenario(path.join(tmp, `repo-${++n}`));
    const first = JSON.parse(readFileSync(path.join(dir, journalPath('alice')), 'utf8').split('\n')[0]!) as {
      blob_refs: string[];
    };
    const digest = first.blob_refs[0]!;
    writeFileSync(path.join(dir, '.sdd', 'runtime', 'cas', digest.slice(0, 2), digest), 'not the blob');
    const rec = newStep(dir, scratch, { mode: 'export', 'allow-unsigned': 'true', 'upload-artifact': 'false' });
    await runAsBundle();
    expect(rec.failed).toEqual([]);
    expect(rec.warnings.map((w) => w.message)).toContain(
      `export: alice: CAS blob ${digest} does not match its digest; left out of the receipt`,
    );
  });

  test("export: a Sigstore bundle beside an output is refused, as the CLI's export refuses it (the library's rule)", async () => {
    const { dir } = prScenario(path.join(tmp, `repo-${++n}`));
    // The report directory is a fresh one under RUNNER_TEMP on every run; to put a bundle that signed another
    // receipt where alice's receipt goes, the directory the Action asks for is made here, at the fs boundary.
    const out = path.join(tmp, `stale-${n}`);
    mkdirSync(out);
    writeFileSync(path.join(out, 'alice.receipt.tar.sigstore.json'), '{"signed":"another receipt"}\n');
    const nodeFs = jest.requireActual<typeof import('node:fs')>('node:fs');
    const made = jest.spyOn(nodeFs, 'mkdtempSync').mockReturnValueOnce(out);
    const rec = newStep(dir, scratch, { mode: 'export', 'allow-unsigned': 'true', 'upload-artifact': 'false' });
    try {
      await runAsBundle();
    } finally {
      made.mockRestore();
    }
    expect(rec.failed).toHaveLength(1);
    expect(rec.failed[0]).toContain(
      "alice.receipt.tar.sigstore.json exists beside the output: it signed another receipt and would be taken for this one's keyless signature; refusing (remove it, or set keyless: true to sign anew)",
    );
    expect(existsSync(path.join(out, 'alice.receipt.tar'))).toBe(false);
    expect(readFileSync(path.join(out, 'alice.receipt.tar.sigstore.json'), 'utf8')).toBe(
      '{"signed":"another receipt"}\n',
    );
    expect((JSON.parse(rec.outputs['receipts']!) as string[]).map((f) => path.basename(f))).toEqual([
      'bob.receipt.tar',
    ]);
    // The CLI's export applies the same rule, in its own words.
    writeFileSync(path.join(dir, 'alice.receipt.tar.sigstore.json'), '{}\n');
    const cli = await runCaptured(runCli, ['export', 'alice', '-o', 'alice.receipt.tar'], {
      cwd: dir,
      env: { ...process.env, STEPCHAIN_AUDIT: 'off' },
    });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('stepchain: export: alice.receipt.tar.sigstore.json exists beside the output');
    expect(cli.stderr).toContain('(remove it, give --keyless to sign anew, or --force to remove it)');
  });

  test('a shard report or a journal under a name that is not UTF-8 fails the step, naming it (no path string opens it: it was left out unseen)', async () => {
    const { dir, base } = prScenario(path.join(tmp, `repo-${++n}`));
    const event = eventFixture('pull_request', { base, head: commitAll(dir, 'PR') });
    const shard = newStep(dir, scratch, {}, event);
    await runAsBundle();
    const raw = (rel: string, byte: number): Buffer =>
      Buffer.concat([Buffer.from(path.join(dir, rel)), Buffer.from([byte])]);
    mkdirSync(raw('stepchain-reports/shard-', 0xff), { recursive: true });
    copyFileSync(
      shard.outputs['report']!,
      Buffer.concat([raw('stepchain-reports/shard-', 0xff), Buffer.from('/report.json')]),
    );
    const gathered = newStep(dir, scratch, { mode: 'gather' }, event);
    await runAsBundle();
    expect(gathered.failed).toEqual([
      'stepchain: input reports: stepchain-reports/shard-\uFFFD: its name is not UTF-8 (shown with U+FFFD), so it cannot be read',
    ]);
    // Export: a journal there gets no receipt, and the step says so.
    const journal = raw('.sdd/runtime/journal/b', 0xfe);
    mkdirSync(journal);
    copyFileSync(path.join(dir, ALICE), Buffer.concat([journal, Buffer.from('/000000.jsonl')]));
    const rec = newStep(dir, scratch, { mode: 'export', 'allow-unsigned': 'true', 'upload-artifact': 'false' });
    await runAsBundle();
    expect(rec.failed.join('\n')).toContain('.sdd/runtime/journal/b\uFFFD');
    expect((JSON.parse(rec.outputs['receipts']!) as string[]).map((f) => path.basename(f)).sort()).toEqual([
      'alice.receipt.tar',
      'bob.receipt.tar',
    ]);
  });

  test('a bad input fails the step with one line and no stack trace', async () => {
    const { dir } = prScenario(path.join(tmp, `repo-${++n}`));
    const rec = newStep(dir, scratch, { mode: 'bogus' });
    await runAsBundle();
    expect(rec.failed).toEqual(['stepchain: input mode: "bogus" is not verify, export or gather']);
    expect(rec.debug).toEqual([]);
  });
});

describe('the library speaks in fields and kinds; each door words them', () => {
  test("a bad redact list: the Action names its input, the CLI its flag (the library's message names neither)", async () => {
    const { dir } = prScenario(path.join(tmp, `repo-${++n}`));
    const rec = newStep(dir, scratch, { mode: 'export', 'allow-unsigned': 'true', redact: 'prompt,input_hash' });
    await runAsBundle();
    expect(rec.failed).toHaveLength(1);
    expect(rec.failed[0]).toMatch(/^stepchain: input redact: "input_hash" is not a redactable field/);
    const cli = await runCaptured(runCli, ['publish', 'alice', '-o', 'pub.tar', '--opt-in', '--redact', 'input_hash'], {
      cwd: dir,
      env: { ...process.env, STEPCHAIN_AUDIT: 'off' },
    });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(/^stepchain: --redact: "input_hash" is not a redactable field/);
  });

  test('gather refuses a shard report whose fault kind is none stepchain reports', async () => {
    const { dir, base } = prScenario(path.join(tmp, `repo-${++n}`));
    rewriteStep(dir, 'x result 1', 'x result one');
    const head = commitAll(dir, 'PR: rewrite alice');
    const event = eventFixture('pull_request', { base, head });
    const shard = newStep(dir, scratch, {}, event);
    await runAsBundle();
    const doc = reportOf(shard.outputs) as { faults: { kind: string }[] };
    expect(doc.faults.length).toBeGreaterThan(0);
    doc.faults[0]!.kind = 'all_fine_really';
    const to = path.join(dir, 'stepchain-reports', 'shard-0', 'report.json');
    mkdirSync(path.dirname(to), { recursive: true });
    writeFileSync(to, JSON.stringify(doc));
    const gathered = newStep(dir, scratch, { mode: 'gather' }, event);
    await runAsBundle();
    expect(gathered.failed).toEqual([
      'stepchain: input reports: stepchain-reports/shard-0/report.json: not a stepchain check report: faults[0].kind "all_fine_really" is not a fault kind stepchain reports',
    ]);
  });
});
