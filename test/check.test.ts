/** src/check: the library the Action (and the CLI) use for PR checks. In-process, real files and git. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  checkAppendOnly,
  checkReportFromJson,
  checkReportJson,
  checkWorkspace,
  DEFAULT_JOURNALS,
  findFiles,
  forkTree,
  forkTreeFromSessions,
  forkTreeMermaid,
  globSet,
  listFilesAtCommit,
  matchesGlob,
  mdText,
  mergeShardReports,
  mermaidText,
  renderCheckMarkdown,
  scanFiles,
  shardOf,
} from '../src/check';
import { readFilesAtCommit, resolveCommit } from '../src/git';
import { gitEnv } from '../src/git/exec';
import { createFork } from '../src/forks';
import { Journal, journalFile } from '../src/journal';
import { recordRunEvent } from '../src/runs';
import { commitAll, emptyRepo, git } from './helpers/git';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-check-');

function journalBytes(dir: string, steps: number, tag = 'a'): Buffer {
  const j = Journal.open(dir, { durability: 'none' });
  j.appendMany(Array.from({ length: steps }, (_, i) => ({ prompt: `${tag}${i}`, ts: 1_700_000_000 + i })));
  return require('node:fs').readFileSync(j.file) as Buffer;
}

describe('checkAppendOnly', () => {
  const base = journalBytes(path.join(tmp, 'j1'), 4);
  const lines = base.toString().split('\n').slice(0, -1);

  test('unchanged and appended hold', () => {
    expect(checkAppendOnly(base, base)).toMatchObject({ ok: true, kind: 'unchanged', baseRows: 4, appended: 0 });
    const grown = Buffer.concat([base, Buffer.from(`${lines[0]}\n`)]);
    expect(checkAppendOnly(base, grown)).toMatchObject({ ok: true, kind: 'appended', appended: 1, headRows: 5 });
  });

  test('a rewrite names the first changed seq and its line', () => {
    const head = Buffer.from([lines[0], lines[1], lines[2]!.replace('"a2"', '"b2"'), lines[3], ''].join('\n'));
    expect(checkAppendOnly(base, head)).toMatchObject({ ok: false, kind: 'rewritten', firstChangedSeq: 2, line: 3 });
    // A change in the very first byte.
    expect(checkAppendOnly(base, Buffer.from(` ${base.toString().slice(1)}`))).toMatchObject({
      kind: 'rewritten',
      firstChangedSeq: 0,
      line: 1,
    });
    // The last byte of the base's last row changed.
    const lastByte = Buffer.from(base);
    lastByte[lastByte.length - 2] = 0x20;
    expect(checkAppendOnly(base, lastByte)).toMatchObject({ kind: 'rewritten', firstChangedSeq: 3, line: 4 });
    // Its final newline changed to a space: the verifier reads the same rows (issue 20 changed this from `rewritten`).
    const lastNl = Buffer.from(base);
    lastNl[lastNl.length - 1] = 0x20;
    expect(checkAppendOnly(base, lastNl)).toMatchObject({ ok: true, kind: 'unchanged', baseRows: 4, headRows: 4 });
  });

  test('truncation and deletion', () => {
    const head = Buffer.from(`${lines.slice(0, 2).join('\n')}\n`);
    expect(checkAppendOnly(base, head)).toMatchObject({ ok: false, kind: 'truncated', firstChangedSeq: 2, line: 2 });
    expect(checkAppendOnly(base, Buffer.alloc(0))).toMatchObject({
      ok: false,
      kind: 'truncated',
      firstChangedSeq: 0,
      line: null,
    });
    expect(checkAppendOnly(base, undefined)).toMatchObject({ ok: false, kind: 'deleted', baseRows: 4 });
  });

  test("a base's torn (unterminated) tail is not a row, so a repaired head still holds", () => {
    const torn = Buffer.concat([base, Buffer.from('{"blob_re')]);
    const repaired = Buffer.concat([base, Buffer.from(`${lines[0]}\n`)]);
    expect(checkAppendOnly(torn, repaired)).toMatchObject({ ok: true, kind: 'appended', baseRows: 4 });
  });
});

describe('globs', () => {
  test('segments, **, braces, classes and exclusions', () => {
    const set = globSet('.sdd/runtime/journal/*/000000.jsonl');
    expect(matchesGlob(set, '.sdd/runtime/journal/alice/000000.jsonl')).toBe(true);
    expect(matchesGlob(set, '.sdd/runtime/journal/a/b/000000.jsonl')).toBe(false);
    const r = globSet('**/*.receipt.{tar,tar.gz}\n!vendor/**');
    expect(matchesGlob(r, 'x.receipt.tar')).toBe(true);
    expect(matchesGlob(r, 'a/b/x.receipt.tar.gz')).toBe(true);
    expect(matchesGlob(r, 'vendor/x.receipt.tar')).toBe(false);
    expect(matchesGlob(r, 'x.receipt.tarx')).toBe(false);
    expect(matchesGlob(globSet('a/[bc]?.txt, ./d/**'), 'a/cx.txt')).toBe(true);
    expect(matchesGlob(globSet('a/[bc]?.txt, ./d/**'), 'd/e/f')).toBe(true);
    expect(globSet('x, y\nz').patterns).toEqual(['x', 'y', 'z']);
  });

  test('findFiles walks from the literal prefix and skips .git and fork worktrees', () => {
    const root = path.join(tmp, 'walk');
    for (const f of [
      'a/x.receipt.tar',
      'a/b/y.receipt.tar',
      '.git/z.receipt.tar',
      '.sdd/worktrees/f/w.receipt.tar',
      'node_modules/p/q.receipt.tar',
    ]) {
      mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      writeFileSync(path.join(root, f), '');
    }
    expect(findFiles(root, globSet('**/*.receipt.tar'))).toEqual(['a/b/y.receipt.tar', 'a/x.receipt.tar']);
    expect(findFiles(root, globSet('a/*.receipt.tar'))).toEqual(['a/x.receipt.tar']);
    expect(findFiles(root, globSet('a/x.receipt.tar, ./a/b/y.receipt.tar, a/none.tar'))).toEqual([
      'a/b/y.receipt.tar',
      'a/x.receipt.tar',
    ]);
    expect(() => globSet('../outside/*.tar')).toThrow(/inside the repository/);
    expect(() => globSet('/etc/*')).toThrow(/relative to the repository/);
  });
});

describe('reading a base commit', () => {
  test('lists and reads the matching files of a commit in one git process', async () => {
    const dir = emptyRepo(path.join(tmp, 'repo'));
    journalBytes(path.dirname(journalFile(dir, 'alice')), 2);
    journalBytes(path.dirname(journalFile(dir, 'bob')), 1);
    writeFileSync(path.join(dir, 'other.txt'), 'x');
    const base = commitAll(dir, 'base');
    const set = globSet('.sdd/runtime/journal/*/000000.jsonl');
    const paths = await listFilesAtCommit(dir, base, set);
    expect(paths).toEqual(['.sdd/runtime/journal/alice/000000.jsonl', '.sdd/runtime/journal/bob/000000.jsonl']);
    const files = await readFilesAtCommit(dir, base, [...paths, 'missing.jsonl']);
    expect(files.get(paths[0]!)!.toString()).toBe(git(dir, ['show', `${base}:${paths[0]}`]) + '\n');
    expect(files.get('missing.jsonl')).toBeUndefined();
  });

  test('checkWorkspace reports a rewritten journal with its agent, seq and line', async () => {
    const dir = emptyRepo(path.join(tmp, 'repo2'));
    const jdir = path.dirname(journalFile(dir, 'alice'));
    journalBytes(jdir, 3);
    const base = commitAll(dir, 'base');
    require('node:fs').rmSync(jdir, { recursive: true });
    journalBytes(jdir, 3, 'b');
    const report = await checkWorkspace({ root: dir, base });
    expect(report.ok).toBe(false);
    expect(report.faults).toEqual([
      expect.objectContaining({
        path: '.sdd/runtime/journal/alice/000000.jsonl',
        line: 1,
        kind: 'history_rewritten',
        severity: 'error',
        id: 'alice',
      }),
    ]);
    expect(report.faults[0]!.message).toMatch(/^agent alice: history rewritten from seq 0/);
    const md = renderCheckMarkdown(report);
    expect(md).toContain('❌ failed');
    expect(md).toContain('history rewritten from seq 0');
  });
});

test('run journals are append-only too: a rewrite names the run and the first index', async () => {
  const dir = emptyRepo(path.join(tmp, 'repo-runs'));
  const env = { STEPCHAIN_AUDIT: 'off' };
  for (let i = 0; i < 3; i++) recordRunEvent(dir, 'run-1', 'tool_call', { n: i }, { env });
  const base = commitAll(dir, 'base');
  const file = path.join(dir, '.sdd/runs/run-1/journal.jsonl');
  require('node:fs').rmSync(file);
  recordRunEvent(dir, 'run-1', 'tool_call', { n: 0 }, { env });
  recordRunEvent(dir, 'run-1', 'tool_call', { n: 'one' }, { env });
  const report = await checkWorkspace({ root: dir, base });
  const f = report.faults.filter((x) => x.kind.startsWith('history_'));
  expect(f).toEqual([
    expect.objectContaining({
      item: 'run',
      path: '.sdd/runs/run-1/journal.jsonl',
      kind: 'history_rewritten',
      id: 'run-1',
    }),
  ]);
  expect(f[0]!.message).toMatch(/^run run-1: history rewritten from index 0 /);
});

describe('fork tree', () => {
  test('read from committed session snapshots and drawn as Mermaid', () => {
    const root = path.join(tmp, 'forks');
    const sessions = path.join(root, '.sdd/runtime/sessions');
    mkdirSync(sessions, { recursive: true });
    writeFileSync(path.join(sessions, 'main.json'), JSON.stringify({ session_id: 'main' }));
    writeFileSync(
      path.join(sessions, 'fork-a.json'),
      JSON.stringify({ fork: { parent_session_id: 'main', from_step: 2, label: 'try "b"' } }),
    );
    writeFileSync(
      path.join(sessions, 'fork-b.json'),
      JSON.stringify({ fork: { parent_session_id: 'fork-a', label: null } }),
    );
    writeFileSync(path.join(sessions, 'broken.json'), '{');
    const tree = forkTreeFromSessions(root);
    expect(tree).toEqual([
      { id: 'fork-a', parent: 'main', fromStep: 2, label: 'try "b"' },
      { id: 'fork-b', parent: 'fork-a', fromStep: null, label: null },
    ]);
    const m = forkTreeMermaid(tree);
    expect(m.split('\n')[0]).toBe('```mermaid');
    expect(m).toContain('flowchart LR');
    expect(m).toMatch(/n\d+\["fork-a<br\/>try #34;b#34;"\]/);
    expect(m).toMatch(/n\d+ -->\|"step 2"\| n\d+/);
    expect(m).toMatch(/n\d+ -->\|"session"\| n\d+/);
    expect(forkTreeMermaid([])).toBe('');
  });

  test("labels of escaped characters never push the diagram over Mermaid's 50,000-character limit", () => {
    const label = '<>&"`|[]{}'.repeat(6); // every character a #N; entity
    const forks = Array.from({ length: 200 }, (_, i) => ({
      id: `fork-${String(i).padStart(3, '0')}-${'x'.repeat(100)}`,
      parent: `parent-${i}-${'y'.repeat(100)}`,
      fromStep: i,
      label,
    }));
    const m = forkTreeMermaid(forks);
    const diagram = m.slice(0, m.indexOf('\n```') + 4);
    expect(diagram.length).toBeLessThanOrEqual(50_000);
    const shown = diagram.split('\n').filter((l) => l.includes('-->')).length;
    expect(shown).toBeGreaterThan(10);
    expect(shown).toBeLessThan(200);
    expect(m).toContain(`… and ${200 - shown} more forks (see the JSON report).`);
  });

  test('forks of this checkout (worktrees) join the committed ones', async () => {
    const dir = emptyRepo(path.join(tmp, 'repo-forks'));
    writeFileSync(path.join(dir, '.gitignore'), '.sdd/\n');
    journalBytes(path.dirname(journalFile(dir, 'alice')), 3);
    commitAll(dir, 'base');
    const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };
    const f = await createFork({ root: dir, sessionId: 'alice', fromStep: 1, label: 'other idea', env });
    const tree = await forkTree(dir, undefined, env);
    expect(tree).toEqual([{ id: f.fork_session_id, parent: 'alice', fromStep: 1, label: 'other idea' }]);
  });
});

describe('escaping for Markdown and Mermaid (property tests)', () => {
  const fc = require('fast-check') as typeof import('fast-check');
  const anyText = fc.string({ unit: 'binary', maxLength: 200 });

  test('mdText: nothing Markdown, GFM or HTML could act on survives, and the visible text is kept', () => {
    fc.assert(
      fc.property(anyText, (s) => {
        const t = mdText(s, 1000);
        expect(t.replace(/&#\d+;/g, '')).not.toMatch(/[\n\r|`*_~<>[\]()!@#:\\$&;]/);
        expect(t).not.toMatch(/www\./i);
        // Decoding the character references gives back the text (controls shown as \uXXXX).
        const decoded = t.replace(/&#(\d+);/g, (_, d: string) => String.fromCharCode(Number(d)));
        const shown = s.replace(
          /[\u0000-\u001f\u007f-\u009f\u061c\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060-\u2064\ufeff]|\udb40[\udc00-\udc7f]/g,
          (c) =>
            c.length === 2
              ? `\\u{${c.codePointAt(0)!.toString(16)}}`
              : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
        );
        expect(decoded).toBe(shown);
      }),
    );
  });

  test('mdText and mermaidText: bidi marks, invisible operators and tag characters (invisible text) are shown', () => {
    // "ASCII smuggling": tag characters a model reads as "IGNORE" and a reader does not see.
    const smuggled = `fix the tests${Array.from('IGNORE', (c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')}`;
    const md = mdText(`${smuggled} \u061c\u2060\u2062`);
    expect(md).toBe(
      'fix the tests&#92;u&#123;e0049&#125;&#92;u&#123;e0047&#125;&#92;u&#123;e004e&#125;&#92;u&#123;e004f&#125;' +
        '&#92;u&#123;e0052&#125;&#92;u&#123;e0045&#125; &#92;u061c&#92;u2060&#92;u2062',
    );
    expect(mermaidText(smuggled)).toBe(`fix the tests${'#65533;'.repeat(6)}`);
  });

  test('mermaidText: a label never closes its quotes, its fence or its node, and never spans a line', () => {
    fc.assert(
      fc.property(anyText, (s) => {
        expect(mermaidText(s, 1000)).toMatch(/^[A-Za-z0-9 ,.\-/_#;…]*$/);
      }),
    );
  });

  test('the summary is cut on whole rows within the limit, the faults first', () => {
    const report = {
      ok: false,
      root: '/',
      base: 'a'.repeat(40),
      commit: null,
      fetchedBase: false,
      fetchedBlobs: 0,
      verified: 3000,
      failed: 1,
      heads: {},
      matched: { journal: 3001, run: 0, receipt: 0 },
      shard: null,
      trustedKeys: [],
      items: Array.from({ length: 3001 }, (_, i) => ({
        kind: 'journal' as const,
        path: `.sdd/runtime/journal/a${i}|\n\`x\`/000000.jsonl`,
        id: `a${i}`,
        steps: 1,
        head: 'b'.repeat(64),
        ok: i !== 5,
        status: 'ok',
      })),
      faults: Array.from({ length: 40 }, (_, i) => ({
        item: 'journal' as const,
        path: `p${i}`,
        line: 1,
        kind: 'step_hash_mismatch' as const,
        message: `fault ${i} [link](https://x) @someone`,
        severity: 'error' as const,
      })),
    };
    for (const opts of [{ maxChars: 20_000 }, { maxBytes: 50_000 }]) {
      const md = renderCheckMarkdown(report, opts);
      const size = 'maxChars' in opts ? md.length : Buffer.byteLength(md);
      expect(size).toBeLessThanOrEqual('maxChars' in opts ? opts.maxChars : opts.maxBytes);
      expect(md.split('\n').filter((l) => l.startsWith('- ❌'))).toHaveLength(40);
      const rows = md.split('\n').filter((l) => l.startsWith('| ✅') || l.startsWith('| ❌'));
      expect(rows.length).toBeGreaterThan(10);
      for (const r of rows) expect(r.split(' | ')).toHaveLength(7);
      expect(md).toContain(`… and ${3001 - rows.length} more files`);
    }
  });
});

describe('shards', () => {
  test('shardOf splits paths deterministically and completely', () => {
    const paths = Array.from({ length: 2000 }, (_, i) => `.sdd/runtime/journal/agent-${i}/000000.jsonl`);
    const counts = [0, 0, 0, 0, 0];
    for (const p of paths) {
      const s = shardOf(p, 5);
      expect(s).toBe(shardOf(p, 5));
      counts[s]!++;
    }
    for (const c of counts) expect(c).toBeGreaterThan(300); // roughly even
    expect(shardOf('x', 1)).toBe(0);
  });

  test('the JSON report reads back; merging refuses a repeated, mismatched, missing, foreign or failed shard', () => {
    const one = (index: number, count: number, base: string | null, commit = 'e'.repeat(40), ok = true) =>
      checkReportFromJson(
        JSON.parse(
          JSON.stringify(
            checkReportJson({
              ok,
              root: '/',
              base,
              commit,
              fetchedBase: false,
              fetchedBlobs: 0,
              verified: 1,
              failed: 0,
              heads: { [`a${index}`]: 'c'.repeat(64) },
              matched: { journal: 2, run: 0, receipt: 0 },
              shard: { index, count },
              trustedKeys: [{ keyId: 'k', source: 's' }],
              items: [
                {
                  kind: 'journal',
                  path: `p${index}`,
                  id: `a${index}`,
                  steps: 1,
                  head: 'c'.repeat(64),
                  ok: true,
                  status: 'ok',
                  appendOnly: 'appended',
                },
              ],
              faults: [],
            }),
          ),
        ),
        `r${index}`,
      );
    const ok = mergeShardReports([
      { source: 'r0', report: one(0, 2, 'b') },
      { source: 'r1', report: one(1, 2, 'b') },
    ]);
    expect(ok).toMatchObject({ ok: true, verified: 2, failed: 0, heads: { a0: 'c'.repeat(64), a1: 'c'.repeat(64) } });
    expect(ok.items[0]).toMatchObject({ appendOnly: 'appended' });
    const kinds = (rs: ReturnType<typeof one>[]) =>
      mergeShardReports(rs.map((report, i) => ({ source: `r${i}`, report }))).faults.map((f) => f.kind);
    expect(kinds([one(0, 2, 'b')])).toEqual(['shard_missing']);
    expect(kinds([one(0, 2, 'b'), one(0, 2, 'b')])).toEqual(['shard_repeated', 'shard_missing']);
    expect(kinds([one(0, 2, 'b'), one(1, 2, 'other')])).toEqual(['shard_mismatch']);
    // Bound to the gathering job's commit: a report of another commit is not merged (its heads neither).
    const foreign = mergeShardReports(
      [
        { source: 'r0', report: one(0, 2, 'b') },
        { source: 'forged', report: one(1, 2, 'b', 'f'.repeat(40)) },
      ],
      '',
      'e'.repeat(40),
    );
    expect(foreign.faults.map((f) => [f.kind, f.path])).toEqual([
      ['shard_foreign', 'forged'],
      ['shard_missing', '.'],
    ]);
    expect(foreign.heads).toEqual({ a0: 'c'.repeat(64) });
    expect(foreign.ok).toBe(false);
    // A shard whose job failed with no fault to show (if-no-files-found: error) fails the merge, saying why.
    const failed = mergeShardReports([
      { source: 'r0', report: one(0, 2, 'b', 'e'.repeat(40), false), reasons: ['receipts: x matched no file'] },
      { source: 'r1', report: one(1, 2, 'b') },
    ]);
    expect(failed.ok).toBe(false);
    expect(failed.faults.map((f) => f.message)).toEqual(['r0: shard 1 of 2 failed: receipts: x matched no file']);
    // Counts that do not count the items are not a report stepchain wrote.
    const doc = JSON.parse(JSON.stringify(checkReportJson(one(0, 2, 'b')))) as Record<string, unknown>;
    expect(() => checkReportFromJson({ ...doc, verified: 5 }, 'x.json')).toThrow(/do not count its 1 items/);
    expect(() => checkReportFromJson({ ...doc, commit: 'HEAD' }, 'x.json')).toThrow(/commit is not a commit id/);
    // 50 hex digits are no git's object id (the rule was once `{40,64}`); 64 (SHA-256) are.
    expect(() => checkReportFromJson({ ...doc, commit: 'e'.repeat(50) }, 'x.json')).toThrow(
      /commit is not a commit id/,
    );
    expect(checkReportFromJson({ ...doc, commit: 'e'.repeat(64) }, 'x.json').commit).toBe('e'.repeat(64));
    expect(() => checkReportFromJson({ ok: true, items: 'no' }, 'x.json')).toThrow(
      /^x\.json: not a stepchain check report/,
    );
  });

  test('one new file is the rename of one base file across shards, as in one check', async () => {
    // The base holds two journals with the same rows in two shards; the pull request deletes both and adds one file
    // holding those rows. Each shard claimed the new file among its own base files only: both passed as renamed to
    // it, the merged check OK, one journal's history deleted (one check: renamed, deleted, exit 1).
    const dir = emptyRepo(path.join(tmp, 'shard-rename'));
    const rows = journalBytes(path.join(tmp, 'shard-rename-rows'), 2);
    const at = (id: string): string => `.sdd/runtime/journal/${id}/000000.jsonl`;
    const [a, b] = ['a0', 'a3'].map(at) as [string, string];
    expect([shardOf(a, 2), shardOf(b, 2)]).toEqual([0, 1]);
    for (const rel of [a, b]) {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), rows);
    }
    commitAll(dir, 'base');
    const base = git(dir, ['rev-parse', 'HEAD']).trim();
    git(dir, ['rm', '-rq', '.sdd']);
    mkdirSync(path.join(dir, '.sdd/runtime/journal/zz'), { recursive: true });
    writeFileSync(path.join(dir, at('zz')), rows);
    commitAll(dir, 'pr');
    const statuses = (r: Awaited<ReturnType<typeof checkWorkspace>>): string[][] =>
      r.items.map((i) => [i.path, i.status]);
    const whole = await checkWorkspace({ root: dir, base });
    expect(whole.ok).toBe(false);
    expect(statuses(whole)).toEqual([
      [at('zz'), 'ok'],
      [a, `renamed to ${at('zz')}`],
      [b, 'deleted'],
    ]);
    const shards = await Promise.all(
      [0, 1].map((index) => checkWorkspace({ root: dir, base, shard: { index, count: 2 } })),
    );
    const merged = mergeShardReports(shards.map((report, i) => ({ source: `r${i}`, report })));
    expect(merged.ok).toBe(false);
    expect(merged.faults.map((f) => [f.path, f.kind])).toEqual([[b, 'history_deleted']]);
    expect(statuses(merged).sort()).toEqual(statuses(whole).sort());
  });

  test("a shard's append_only is an outcome stepchain reports, never Markdown that reaches the summary", () => {
    const item = { kind: 'journal', path: 'p', id: 'a', steps: 1, head: '', ok: true, status: 'ok' };
    const doc = (extra: Record<string, unknown>) => ({
      ok: true,
      commit: null,
      base: null,
      verified: 1,
      failed: 0,
      heads: {},
      shard: null,
      items: [{ ...item, ...extra }],
      faults: [],
    });
    const hostile = 'x |\n\n# Owned\n\n<img src=https://evil.example/p.png> @octocat [c](javascript:alert(1))';
    expect(() => checkReportFromJson(doc({ append_only: hostile }), 'r.json')).toThrow(
      /^r\.json: not a stepchain check report: items\[0\]\.append_only is not appended, unchanged/,
    );
    expect(() => checkReportFromJson(doc({ append_only: 7 }), 'r.json')).toThrow(/items\[0\]\.append_only is not/);
    const read = checkReportFromJson(doc({ append_only: 'rewritten' }), 'r.json');
    expect(read.items[0]!.appendOnly).toBe('rewritten');
    expect(renderCheckMarkdown(read)).toContain('| ok · rewritten |');
    // The Markdown escapes the value itself too (a report built in memory is not read through the check above).
    const md = renderCheckMarkdown({ ...read, items: [{ ...read.items[0]!, appendOnly: hostile as 'rewritten' }] });
    for (const bad of ['<img', '@octocat', '](javascript', '\n# Owned']) expect(md).not.toContain(bad);
  });
});

describe('one git environment policy', () => {
  test('gitEnv drops every redirecting, config-injecting or program-naming GIT_* variable and keeps identity', () => {
    const env = gitEnv(
      {
        PATH: '/bin',
        GIT_DIR: '/x',
        GIT_WORK_TREE: '/x',
        GIT_INDEX_FILE: '/x',
        GIT_OBJECT_DIRECTORY: '/x',
        GIT_ALTERNATE_OBJECT_DIRECTORIES: '/x',
        GIT_CONFIG_GLOBAL: '/x',
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'a',
        GIT_CONFIG_PARAMETERS: "'a=b'",
        GIT_CEILING_DIRECTORIES: '/',
        GIT_NAMESPACE: 'x',
        GIT_REPLACE_REF_BASE: 'x',
        GIT_EXEC_PATH: '/x',
        GIT_SSH_COMMAND: 'ssh -i key',
        GIT_AUTHOR_NAME: 'me',
        GIT_ALLOW_PROTOCOL: 'ext',
        git_dir: '/lower-case',
      },
      { GIT_INDEX_FILE: '/deliberate' },
    );
    // GIT_SSH_COMMAND names a program: dropped since issue 20 (git runs no program it is handed; plain ssh).
    expect(env).toEqual({
      PATH: '/bin',
      GIT_AUTHOR_NAME: 'me',
      GIT_TERMINAL_PROMPT: '0',
      GIT_NO_REPLACE_OBJECTS: '1',
      GIT_ALLOW_PROTOCOL: 'file:http:https:ssh',
      GIT_INDEX_FILE: '/deliberate',
    });
  });

  test('every git read of the check goes through it: a GIT_DIR elsewhere changes nothing', async () => {
    const dir = emptyRepo(path.join(tmp, 'policy'));
    journalBytes(path.dirname(journalFile(dir, 'alice')), 2);
    const base = commitAll(dir, 'base');
    const other = emptyRepo(path.join(tmp, 'policy-other'));
    commitAll(other, 'empty');
    const saved = process.env['GIT_DIR'];
    process.env['GIT_DIR'] = path.join(other, '.git');
    try {
      expect(await listFilesAtCommit(dir, base, globSet(DEFAULT_JOURNALS))).toEqual([
        '.sdd/runtime/journal/alice/000000.jsonl',
      ]);
      expect(await resolveCommit(dir, 'HEAD')).toBe(base);
    } finally {
      if (saved === undefined) delete process.env['GIT_DIR'];
      else process.env['GIT_DIR'] = saved;
    }
  });
});

describe('links in the checkout', () => {
  test('scanFiles reports links where a pattern names them (error) or only a ** reaches them (warning), and never enters them', () => {
    const root = path.join(tmp, 'links');
    const fs = require('node:fs') as typeof import('node:fs');
    fs.mkdirSync(path.join(root, '.sdd/runtime/journal/ok'), { recursive: true });
    fs.writeFileSync(path.join(root, '.sdd/runtime/journal/ok/000000.jsonl'), '');
    fs.mkdirSync(path.join(root, 'outside/inner'), { recursive: true });
    fs.writeFileSync(path.join(root, 'outside/inner/000000.jsonl'), '');
    fs.writeFileSync(path.join(root, 'outside/x.receipt.tar'), '');
    fs.symlinkSync('../../../outside/inner', path.join(root, '.sdd/runtime/journal/linked'));
    fs.symlinkSync('outside', path.join(root, 'docs'));
    fs.symlinkSync('outside/x.receipt.tar', path.join(root, 'y.receipt.tar'));
    const j = scanFiles(root, globSet(DEFAULT_JOURNALS));
    expect(j.files).toEqual(['.sdd/runtime/journal/ok/000000.jsonl']);
    expect(j.links).toEqual([{ path: '.sdd/runtime/journal/linked', severity: 'error' }]);
    const r = scanFiles(root, globSet('**/*.receipt.tar'));
    expect(r.files).toEqual(['outside/x.receipt.tar']);
    expect(r.links).toEqual([
      { path: '.sdd/runtime/journal/linked', severity: 'warning' },
      { path: 'docs', severity: 'warning' },
      { path: 'y.receipt.tar', severity: 'error' },
    ]);
    // An exclusion takes a link out, as it takes a file out.
    expect(scanFiles(root, globSet('**/*.receipt.tar\n!docs/**\n!.sdd/**')).links).toEqual([
      { path: 'y.receipt.tar', severity: 'error' },
    ]);
    // A link on a pattern's literal prefix is never walked into.
    fs.symlinkSync('outside', path.join(root, 'journals'));
    expect(scanFiles(root, globSet('journals/*/000000.jsonl'))).toEqual({
      files: [],
      links: [{ path: 'journals', severity: 'error' }],
      unnamed: [],
    });
  });

  test('a backslash is part of a file name: `a\\b` is read, never `a/b`', async () => {
    const root = path.join(tmp, 'backslash');
    const good = journalBytes(path.join(root, '.sdd/runtime/journal/a\\b'), 2);
    // What a reader splitting on backslashes would read instead.
    mkdirSync(path.join(root, '.sdd/runtime/journal/a/b'), { recursive: true });
    writeFileSync(path.join(root, '.sdd/runtime/journal/a/b/000000.jsonl'), 'not a journal\n');
    const report = await checkWorkspace({ root });
    expect(report.items).toEqual([
      expect.objectContaining({ path: '.sdd/runtime/journal/a\\b/000000.jsonl', ok: true, steps: 2 }),
    ]);
    expect(report.faults).toEqual([]);
    expect(good.length).toBeGreaterThan(0);
  });
});
