/**
 * GitHub's limits and the rest of what a real repository brings: at most 10
 * error annotations per step, a 1 MiB job summary, a 65,536-character comment,
 * 1 MB step outputs; renamed journals, CRLF checkouts, partial clones,
 * if-no-files-found, unsigned exports, and sharding with a gather job. The
 * built dist/index.js runs as a runner starts it where the process is the
 * point (workflow commands, the 1 MB output limit, git's subprocesses, GitHub's
 * services); the rest of the Action's logic runs in this process (`inPr`,
 * helpers/action-in-process.ts), with the same assertions.
 */
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { COMMENT_MARKER } from '../src/check';
import {
  actionTestBed,
  appendSteps,
  failureOf,
  FakeGitHub,
  journalPath,
  prEvent as pr,
  prScenario,
  runAction,
  stackIn,
} from './helpers/action';
import { inProcessOnPr, runInProcess } from './helpers/action-in-process';
import { commitAll, emptyRepo, git } from './helpers/git';

const { tmp, scratch, onPr } = actionTestBed('stepchain-action-limits-');
/** `onPr` with the Action's `run()` in this process. */
const inPr = inProcessOnPr(scratch);
let n = 0;

const ALICE = journalPath('alice');

function tamper(dir: string, rel: string): void {
  const file = path.join(dir, rel);
  writeFileSync(file, readFileSync(file, 'utf8').replace('x result 0', 'x result zero'));
}

interface ReportDoc {
  ok: boolean;
  items: { path: string; ok: boolean; status: string; append_only?: string; renamed_to?: string }[];
  faults: { path: string; kind: string }[];
  shard: { index: number; count: number } | null;
  heads: Record<string, string>;
}

const readReport = (file: string): ReportDoc => JSON.parse(readFileSync(file, 'utf8')) as ReportDoc;

describe('GitHub limits', () => {
  test('the failure line first, then at most 9 more error annotations; every fault in the log and the summary', async () => {
    const dir = emptyRepo(path.join(tmp, `repo-${++n}`));
    for (let i = 0; i < 15; i++) appendSteps(dir, `agent-${i}`, 2);
    const base = commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'pr']);
    for (let i = 0; i < 15; i++) tamper(dir, journalPath(`agent-${i}`));
    commitAll(dir, 'tamper all');
    // The cap is the Action's (annotate() and setFailed's order), not the process's: run() in this process.
    const r = await inPr(dir, base);
    expect(r.code).toBe(1);
    const errors = r.annotations.filter((a) => a.level === 'error');
    expect(errors).toHaveLength(10);
    expect(errors[0]!.file).toBeUndefined();
    expect(errors[0]!.message).toMatch(/^stepchain: verification failed: 30 faults in 15 files; first: /);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('FAULT '))).toHaveLength(30);
    expect(r.summary.split('\n').filter((l) => l.startsWith('- ❌ '))).toHaveLength(30);
  });

  test('5,200 journals: summary under 1 MiB cut on rows with every fault kept, comment under 65,536, heads output falls back to its file', async () => {
    const dir = emptyRepo(path.join(tmp, `big-${++n}`));
    appendSteps(dir, 'template', 1);
    const bytes = readFileSync(path.join(dir, journalPath('template')));
    const ids: string[] = [];
    for (let i = 0; i < 5200; i++) {
      const id = `agent-${String(i).padStart(5, '0')}-${'x'.repeat(116)}`; // 128 characters, the longest id
      ids.push(id);
      mkdirSync(path.join(dir, '.sdd/runtime/journal', id), { recursive: true });
      writeFileSync(path.join(dir, journalPath(id)), bytes);
    }
    mkdirSync(path.join(dir, '.sdd/runtime/sessions'), { recursive: true });
    for (let i = 0; i < 250; i++)
      writeFileSync(
        path.join(dir, `.sdd/runtime/sessions/fork-${i}.json`),
        JSON.stringify({ fork: { parent_session_id: 'template', from_step: 0, label: `try ${i}` } }),
      );
    const base = commitAll(dir, 'many journals');
    git(dir, ['checkout', '-q', '-b', 'pr']);
    for (const i of [7, 4000, 5199]) tamper(dir, journalPath(ids[i]!));
    commitAll(dir, 'tamper three');
    const gh = new FakeGitHub();
    await gh.start();
    try {
      const r = await onPr(dir, base, { comment: 'true' }, { GITHUB_API_URL: gh.url });
      expect(r.code).toBe(1);
      expect(stackIn(r)).toBe(false);
      expect(r.outputs['failed']).toBe('3');
      // heads: over 1 MB as an output, so empty with a warning; complete in heads-file.
      expect(r.outputs['heads']).toBe('');
      expect(r.annotations.some((a) => a.level === 'warning' && a.message.startsWith('output heads: '))).toBe(true);
      const heads = JSON.parse(readFileSync(r.outputs['heads-file']!, 'utf8')) as Record<string, string>;
      expect(Object.keys(heads)).toHaveLength(5198);
      expect(Object.keys(readReport(r.outputs['report']!).heads)).toHaveLength(5198);

      const faultLines = (md: string) => md.split('\n').filter((l) => l.startsWith('- ❌ '));
      const rows = (md: string) => md.split('\n').filter((l) => l.startsWith('| ✅') || l.startsWith('| ❌'));
      expect(Buffer.byteLength(r.summary, 'utf8')).toBeLessThanOrEqual(1024 * 1024);
      expect(faultLines(r.summary)).toHaveLength(6); // each tampered journal: a chain fault and a rewrite
      expect(rows(r.summary).length).toBeGreaterThan(1000);
      expect(rows(r.summary).length).toBeLessThan(5201);
      // Every row whole (one expect over the rows that are not: an expect a row, thousands, was ~0.2 s of CPU).
      const cell = /^\| [✅❌] \| journal \| <code>.*<\/code> \| .* \|$/;
      expect(rows(r.summary).filter((row) => !cell.test(row))).toEqual([]);
      expect(r.summary).toMatch(/… and \d+ more files \(see the JSON report\)\./);

      const comment = gh.comments.get(7)![0]!.body;
      expect(comment.startsWith(COMMENT_MARKER)).toBe(true);
      expect(comment.length).toBeLessThanOrEqual(65_536);
      expect(faultLines(comment)).toHaveLength(6);
      expect(rows(comment).length).toBeGreaterThan(10);
      expect(rows(comment).filter((row) => !row.endsWith(' |'))).toEqual([]);
    } finally {
      await gh.stop();
    }
  });
});

describe('history in real repositories', () => {
  test('a renamed journal is a rename, not a deletion (identical, or appended to); a renamed rewrite is a deletion', async () => {
    const { dir, base } = prScenario(path.join(tmp, `repo-${++n}`));
    git(dir, ['mv', '.sdd/runtime/journal/alice', '.sdd/runtime/journal/alice-v2']);
    git(dir, ['mv', '.sdd/runtime/journal/bob', '.sdd/runtime/journal/bob-v2']);
    appendSteps(dir, 'bob-v2', 2);
    commitAll(dir, 'rename');
    const r = await inPr(dir, base);
    expect(r.code).toBe(0);
    const items = readReport(r.outputs['report']!).items;
    expect(items.find((i) => i.path === ALICE)).toMatchObject({
      ok: true,
      append_only: 'renamed',
      renamed_to: journalPath('alice-v2'),
      status: `renamed to ${journalPath('alice-v2')}`,
    });
    expect(items.find((i) => i.path === journalPath('bob'))).toMatchObject({ renamed_to: journalPath('bob-v2') });
    expect(r.annotations.filter((a) => a.title === 'stepchain: history_deleted')).toEqual([]);

    tamper(dir, journalPath('alice-v2'));
    commitAll(dir, 'rewrite the renamed journal');
    const bad = await inPr(dir, base);
    expect(bad.code).toBe(1);
    expect(bad.annotations.find((a) => a.title === 'stepchain: history_deleted')).toMatchObject({ file: ALICE });
  });

  test('a CRLF checkout (core.autocrlf=true) is named, with the .gitattributes remedy; with it, the check holds', async () => {
    const { dir, base } = prScenario(path.join(tmp, `repo-${++n}`));
    appendSteps(dir, 'alice', 1);
    commitAll(dir, 'append');
    const clone = path.join(tmp, `crlf-${++n}`);
    git(tmp, ['-c', 'core.autocrlf=true', 'clone', '-q', '--branch', 'pr', `file://${dir}`, clone]);
    expect(readFileSync(path.join(clone, ALICE)).includes('\r\n')).toBe(true);
    const r = await inPr(clone, base);
    expect(r.code).toBe(1);
    const crlf = r.annotations.find((a) => a.title === 'stepchain: crlf_line_endings');
    expect(crlf).toMatchObject({ file: ALICE, line: 1 });
    expect(crlf!.message).toContain('add `.sdd/** -text`');
    expect(crlf!.message).toContain('.gitattributes');

    // The remedy, on the base branch: the same clone settings leave the journals' bytes alone.
    git(dir, ['checkout', '-q', 'main']);
    writeFileSync(path.join(dir, '.gitattributes'), '.sdd/** -text\n');
    const fixedBase = commitAll(dir, 'gitattributes');
    git(dir, ['checkout', '-q', 'pr']);
    git(dir, ['merge', '-q', '--no-edit', 'main']);
    const fixed = path.join(tmp, `crlf-fixed-${++n}`);
    git(tmp, ['-c', 'core.autocrlf=true', 'clone', '-q', '--branch', 'pr', `file://${dir}`, fixed]);
    expect(readFileSync(path.join(fixed, ALICE)).includes('\r\n')).toBe(false);
    const ok = await inPr(fixed, fixedBase);
    expect(ok.code).toBe(0);
  });

  test("a partial clone fetches the base's blobs in one batch", async () => {
    const origin = path.join(tmp, `origin-${++n}`);
    prScenario(origin);
    git(origin, ['checkout', '-q', 'main']);
    const base = git(origin, ['rev-parse', 'HEAD']);
    for (const a of ['carol', 'dave', 'erin']) appendSteps(origin, a, 2);
    git(origin, ['add', '-A']);
    git(origin, ['commit', '-q', '--amend', '--no-edit']);
    const base2 = git(origin, ['rev-parse', 'HEAD']);
    expect(base2).not.toBe(base);
    git(origin, ['checkout', '-q', 'pr']);
    git(origin, ['reset', '-q', '--hard', base2]);
    for (const a of ['alice', 'bob', 'carol', 'dave', 'erin']) appendSteps(origin, a, 1);
    commitAll(origin, 'append to all five');
    git(origin, ['config', 'uploadpack.allowFilter', 'true']);
    git(origin, ['config', 'uploadpack.allowAnySHA1InWant', 'true']);
    const clone = path.join(tmp, `partial-${n}`);
    git(tmp, ['clone', '-q', '--filter=blob:none', '--no-checkout', `file://${origin}`, clone]);
    git(clone, ['checkout', '-q', 'pr']);
    // A promisor remote that names its own upload-pack program would have git run it: refused (issue 20 §3).
    const wrapper = path.join(tmp, `upload-pack-${n}.sh`);
    const ran = path.join(tmp, `upload-pack-${n}.ran`);
    writeFileSync(wrapper, `#!/bin/sh\necho ran >> '${ran}'\nexec git-upload-pack "$@"\n`);
    chmodSync(wrapper, 0o755);
    git(clone, ['config', 'remote.origin.uploadpack', wrapper]);
    const refused = await onPr(clone, base2);
    expect(refused.code).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toContain('uploadpack');
    expect(existsSync(ran)).toBe(false);
    git(clone, ['config', '--unset', 'remote.origin.uploadpack']);
    // Every fetch into the clone leaves a pack of its own: one batch is one new pack.
    const packs = (): string[] =>
      readdirSync(path.join(clone, '.git', 'objects', 'pack')).filter((f) => f.endsWith('.pack'));
    const before = packs();
    const r = await onPr(clone, base2);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Fetched 5 blobs of the base commit in one batch (partial clone).');
    expect(packs().filter((f) => !before.includes(f))).toHaveLength(1);
    expect(readReport(r.outputs['report']!).items.every((i) => i.append_only === 'appended')).toBe(true);
  });
});

describe('if-no-files-found', () => {
  test('a pattern the user set that matches nothing: warn (default), error or ignore; nothing at all is never "verified"', async () => {
    const { dir, base } = prScenario(path.join(tmp, `repo-${++n}`));
    const journals = 'agents/*/journal.jsonl';
    const warn = await inPr(dir, base, { journals });
    expect(warn.code).toBe(0);
    expect(warn.annotations.find((a) => a.level === 'warning')!.message).toBe(
      'journals: agents/*/journal.jsonl matched no file (if-no-files-found: warn)',
    );
    const error = await inPr(dir, base, { journals, 'if-no-files-found': 'error' });
    expect(error.code).toBe(1);
    expect(failureOf(error)).toBe('stepchain: verification failed: journals: agents/*/journal.jsonl matched no file');
    const ignore = await inPr(dir, base, { journals, 'if-no-files-found': 'ignore' });
    expect(ignore.code).toBe(0);
    expect(ignore.annotations).toEqual([]);
    // `none` switches a kind off without a warning.
    const none = await inPr(dir, base, { receipts: 'none' });
    expect(none.annotations).toEqual([]);

    const empty = emptyRepo(path.join(tmp, `empty-${++n}`));
    writeFileSync(path.join(empty, 'README'), 'no agents here\n');
    const emptyBase = commitAll(empty, 'nothing');
    const nothing = await inPr(empty, emptyBase);
    expect(nothing.code).toBe(0);
    expect(nothing.annotations.find((a) => a.level === 'warning')!.message).toMatch(/^nothing was checked: /);
    expect(nothing.summary).toContain('⚠️ nothing checked');
    expect(nothing.summary).not.toContain('✅ verified');
  });
});

describe('export mode', () => {
  test('an empty signing-key (a missing secret) fails unless allow-unsigned is true', async () => {
    const { dir } = prScenario(path.join(tmp, `repo-${++n}`));
    const r = await runInProcess({
      workspace: dir,
      scratch,
      inputs: { mode: 'export', 'signing-key': '', 'upload-artifact': 'false' },
    });
    expect(r.code).toBe(1);
    expect(failureOf(r)).toMatch(/^stepchain: input signing-key is empty .*set allow-unsigned: true/);
    expect(r.outputs['receipts']).toBeUndefined();
    const unsigned = await runInProcess({
      workspace: dir,
      scratch,
      inputs: { mode: 'export', 'allow-unsigned': 'true', 'upload-artifact': 'false' },
    });
    expect(unsigned.code).toBe(0);
    expect(unsigned.annotations.find((a) => a.level === 'warning')!.message).toContain('not signed');
    expect(JSON.parse(unsigned.outputs['receipts']!)).toHaveLength(2);
  });
});

describe('shards', () => {
  test('shard-index/shard-count split the files by path hash; a gather job merges the reports and fails on a missing shard', async () => {
    const dir = emptyRepo(path.join(tmp, `repo-${++n}`));
    for (let i = 0; i < 40; i++) appendSteps(dir, `agent-${i}`, 2);
    const base = commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'pr']);
    tamper(dir, journalPath('agent-17'));
    appendSteps(dir, 'agent-3', 1);
    commitAll(dir, 'one rewrite, one append');
    const gh = new FakeGitHub();
    await gh.start();
    try {
      const env = { ACTIONS_RUNTIME_TOKEN: FakeGitHub.runtimeToken(), ACTIONS_RESULTS_URL: `${gh.url}/` };
      const full = await inPr(dir, base);
      const all = readReport(full.outputs['report']!)
        .items.map((i) => i.path)
        .sort();
      expect(all).toHaveLength(40);
      const seen: string[] = [];
      const codes: number[] = [];
      const gather = path.join(dir, 'stepchain-reports');
      // One shard's job as a runner starts it (the bundle in a process), uploading its report to the artifact
      // service under its own name; the others' split, report and summary are the Action's logic: run() in this
      // process, which reaches no GitHub service (no upload). Four processes here were ~1.1 s more CPU.
      const UPLOADS = 2;
      for (let i = 0; i < 4; i++) {
        const inputs = { 'shard-index': String(i), 'shard-count': '4', 'upload-artifact': String(i === UPLOADS) };
        const r =
          i === UPLOADS
            ? await runAction({ workspace: dir, scratch, event: pr(dir, base), inputs, env })
            : await inPr(dir, base, inputs);
        codes.push(r.code);
        const doc = readReport(r.outputs['report']!);
        expect(doc.shard).toEqual({ index: i, count: 4 });
        expect(r.summary).toContain(`(shard ${i + 1} of 4)`);
        seen.push(...doc.items.map((x) => x.path));
        // As actions/download-artifact lays them out: one directory per artifact.
        mkdirSync(path.join(gather, `stepchain-report-${i}`), { recursive: true });
        copyFileSync(r.outputs['report']!, path.join(gather, `stepchain-report-${i}`, 'report.json'));
      }
      expect(seen.sort()).toEqual(all); // every file in exactly one shard
      expect(codes.filter((c) => c === 1)).toHaveLength(1); // only the shard with agent-17 fails
      expect(gh.artifacts.map((a) => a.name)).toEqual([`stepchain-report-${UPLOADS}`]);

      const merged = await onPr(dir, base, { mode: 'gather', comment: 'true' }, { GITHUB_API_URL: gh.url });
      expect(merged.code).toBe(1);
      expect(failureOf(merged)).toContain(`${journalPath('agent-17')}:1: agent agent-17`);
      expect(merged.outputs['verified']).toBe('39');
      expect(merged.outputs['failed']).toBe('1');
      expect(gh.comments.get(7)).toHaveLength(1);
      expect(gh.comments.get(7)![0]!.body).toContain('39 verified, 1 failed');

      // A shard that sent nothing (its job died) fails the gather job.
      const partial = path.join(tmp, `partial-reports-${n}`);
      cpSync(gather, partial, { recursive: true });
      renameSync(path.join(gather, 'stepchain-report-2'), path.join(tmp, `moved-${n}`));
      const missing = await inPr(dir, base, { mode: 'gather' });
      expect(missing.code).toBe(1);
      expect(missing.stdout).toContain('FAULT .: shard 3 of 4 sent no report');
    } finally {
      await gh.stop();
    }
    // Seven Action runs in sequence, two of them processes of the bundle (with five, a helper saw this test reach the
    // 60 s default once at a load average of ~27; it passed every other time): a bound, not a timing it checks.
  }, 180_000);
});
