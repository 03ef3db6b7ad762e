import { cpSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, journalFile } from '../src/journal';
import { runJournalFile } from '../src/runs';
import { recordExchangeLinks, type ExchangeLink } from '../src/runs/exchange-links';
import { cli, expectNoStack } from './helpers/cli';
import { cliChangedWhilePaused } from './helpers/proc';
import { cliInProcess } from './helpers/cli-in-process';
import { commitAll, git, initRepo } from './helpers/git';
import { tempDir } from './helpers/tmp';

// `verify`, `run verify` and `check` check a run journal's exchange links with the rule replay uses
// (src/runs/exchange-links.ts, checkExchangeLinkRows): a link that does not hold is a named fault at its file and
// line, exit 1; a link to a journal a check does not hold is a warning that says it was not checked. The journals are
// written with the library, as `stepchain record` and the hooks write them (record.links.test.ts runs the real agent).
// The intact run is checked by the real processes; the faults through runCli in this process (`cliInProcess`, the code
// the bundle runs: what each command finds and says is the point).
jest.setTimeout(120_000);

const dir = tempDir('stepchain-verify-links-');
const env = { STEPCHAIN_AUDIT: 'off' };
const HOOK = 'claude-s1';
const EXCHANGE = 'rec';

/** A project with a hook journal (two tool calls), an exchange journal that asked for them, and the two links. */
function project(name: string): { root: string; links: ExchangeLink[] } {
  const root = path.join(dir, name);
  initRepo(root, { 'README.md': '# p\n' }, { ignoreSdd: false });
  const open = (id: string) => Journal.open(path.dirname(journalFile(root, id)), { durability: 'none' });
  const exchange = open(EXCHANGE).append({
    model: 'm-test',
    prompt: [{ role: 'user', content: 'make the files' }],
    tool_call: [
      { id: 'toolu_1', name: 'Bash', input: { command: 'printf one > one.txt' } },
      { id: 'toolu_2', name: 'Bash', input: { command: 'printf two > two.txt' } },
    ],
    ts: 1_700_000_000,
  });
  const hook = open(HOOK);
  const steps = ['toolu_1', 'toolu_2'].map((id, i) =>
    hook.append({ tool_call: { id, name: 'Bash', input: { n: i } }, tool_result: { ok: true }, ts: 1_700_000_001 }),
  );
  const links = steps.map((s, i) => ({
    tool_use_id: `toolu_${i + 1}`,
    hook_journal: HOOK,
    hook_seq: s.seq,
    hook_step_hash: s.step_hash,
    exchange_journal: EXCHANGE,
    exchange_seq: exchange.seq,
    exchange_step_hash: exchange.step_hash,
  }));
  expect(recordExchangeLinks(root, links, { env })).toHaveLength(2);
  return { root, links };
}

const commit = (root: string): string => commitAll(root, 'the run');

const intact = project('intact');
commit(intact.root);

/** A copy of the intact project with one more, well-chained link row whose claim is false. */
function forged(name: string, change: Partial<ExchangeLink>): string {
  const root = path.join(dir, name);
  cpSync(intact.root, root, { recursive: true });
  expect(recordExchangeLinks(root, [{ ...intact.links[0]!, ...change }], { env })).toHaveLength(1);
  commit(root);
  return root;
}

// The hook journal's run journal holds the two links (lines 1 and 2); a forged one is line 3.

test('an intact run: verify, run verify and check pass, each saying the links hold', () => {
  const v = cli(['verify', HOOK], { cwd: intact.root, env });
  expectNoStack(v);
  expect(v.code).toBe(0);
  expect(v.stdout).toContain('2 exchange links holding');
  const rv = cli(['run', 'verify', HOOK], { cwd: intact.root, env });
  expect(rv.code).toBe(0);
  expect(rv.stdout).toContain('2 exchange links holding');
  const json = JSON.parse(cli(['run', 'verify', HOOK, '--json'], { cwd: intact.root, env }).stdout) as {
    ok: boolean;
    exchange_links: { holding: number; faults: unknown[] };
  };
  expect(json).toMatchObject({ ok: true, exchange_links: { holding: 2, faults: [] } });
  const c = cli(['check', '--json'], { cwd: intact.root, env });
  expectNoStack(c);
  expect(c.code).toBe(0);
  const report = JSON.parse(c.stdout) as { ok: boolean; faults: { kind: string }[] };
  expect(report.ok).toBe(true);
  expect(report.faults).toEqual([]);
});

describe('a link that does not hold: verify, run verify and check each fail with the named fault at its line', () => {
  const cases: [string, Partial<ExchangeLink>, RegExp][] = [
    ['exchange-seq', { exchange_seq: 7 }, /exchange_step_mismatch: it names step 7 of rec, which does not exist/],
    [
      'exchange-hash',
      { exchange_step_hash: 'b'.repeat(64) },
      /exchange_step_mismatch: step 0 of rec has step_hash [0-9a-f]{64}, the link names b{64}/,
    ],
    [
      'hook-hash',
      { hook_step_hash: 'a'.repeat(64) },
      /hook_step_mismatch: step 0 of claude-s1 has step_hash [0-9a-f]{64}, the link names a{64}/,
    ],
    ['tool-call', { tool_use_id: 'toolu_9' }, /hook_step_mismatch: step 0 of claude-s1 is not the tool call toolu_9/],
  ];
  for (const [name, change, fault] of cases) {
    test(name, async () => {
      const root = forged(name, change);
      const file = runJournalFile(root, HOOK);
      const at = new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: ${fault.source}`);
      for (const args of [['verify', HOOK], ['run', 'verify', HOOK], ['check']]) {
        const r = await cliInProcess(args, { cwd: root, env });
        expectNoStack(r);
        expect(r.code).toBe(1);
        if (args[0] === 'check') expect(`${r.stdout}${r.stderr}`).toMatch(fault);
        else expect(r.stderr).toMatch(at);
      }
      // check names the repository path and the line, and the fault kind is typed in its JSON report.
      const report = JSON.parse((await cliInProcess(['check', '--json'], { cwd: root, env })).stdout) as {
        ok: boolean;
        faults: { kind: string; path: string; line: number; severity: string }[];
      };
      expect(report.ok).toBe(false);
      expect(report.faults).toEqual([
        expect.objectContaining({
          path: `.sdd/runs/${HOOK}/journal.jsonl`,
          line: 3,
          kind: fault.source.split(':')[0],
          severity: 'error',
        }),
      ]);
      const rv = JSON.parse((await cliInProcess(['run', 'verify', HOOK, '--json'], { cwd: root, env })).stdout) as {
        ok: boolean;
        exchange_links: { faults: { kind: string; line: number }[] };
      };
      expect(rv.ok).toBe(false);
      expect(rv.exchange_links.faults).toEqual([expect.objectContaining({ line: 3 })]);
    });
  }
});

test('a check without the exchange journal says the links were not checked (a warning), while verify fails', async () => {
  const root = path.join(dir, 'no-exchange');
  cpSync(intact.root, root, { recursive: true });
  git(root, ['rm', '-rq', '--cached', path.dirname(path.relative(root, journalFile(root, EXCHANGE)))]);
  rmSync(path.dirname(journalFile(root, EXCHANGE)), { recursive: true });
  git(root, ['commit', '-qm', 'without the exchange journal']);
  const c = await cliInProcess(['check', '--json'], { cwd: root, env });
  expectNoStack(c);
  expect(c.code).toBe(0);
  const report = JSON.parse(c.stdout) as {
    ok: boolean;
    items: { kind: string; status: string }[];
    faults: { kind: string; severity: string; line: number; message: string }[];
  };
  expect(report.faults).toHaveLength(2);
  for (const f of report.faults) {
    expect(f).toMatchObject({ kind: 'linked_journal_absent', severity: 'warning' });
    expect(f.message).toMatch(
      /the exchange journal rec is not here \(no journal rec among the files checked\): not checked/,
    );
  }
  expect(report.items.find((i) => i.kind === 'run')!.status).toBe('ok (2 exchange links not checked)');
  const human = await cliInProcess(['check'], { cwd: root, env });
  expect(`${human.stdout}${human.stderr}`).toMatch(/linked_journal_absent/);
  // On disk, where record wrote both journals, a missing one is a mismatch, as replay says it.
  const v = await cliInProcess(['verify', HOOK], { cwd: root, env });
  expect(v.code).toBe(1);
  expect(v.stderr).toMatch(/:1: exchange_step_mismatch: the exchange journal rec cannot be used: no journal/);
});

test('a forged link whose event name is written with a JSON escape is still checked (verify, run verify, check)', async () => {
  // The reader takes `exchange\u005flink` as `exchange_link` (a non-canonical line verifies unless --strict), and
  // replay shows it as a link: a byte pre-filter that looks for the plain name must not skip it.
  const root = forged('escaped-event', { exchange_seq: 7 });
  const file = runJournalFile(root, HOOK);
  const lines = readFileSync(file, 'utf8').split('\n');
  expect(lines[2]).toContain('"event": "exchange_link"');
  lines[2] = lines[2]!.replace('"event": "exchange_link"', '"event": "exchange\\u005flink"');
  // The other two links, escaped too: no plain `exchange_link` left anywhere in the file.
  for (const i of [0, 1]) lines[i] = lines[i]!.replace('"event": "exchange_link"', '"event": "exchange\\u005flink"');
  writeFileSync(file, lines.join('\n'));
  expect(readFileSync(file).includes('exchange_link')).toBe(false);
  commit(root);
  for (const args of [['verify', HOOK], ['run', 'verify', HOOK], ['check']]) {
    const r = await cliInProcess(args, { cwd: root, env });
    expectNoStack(r);
    expect(r.code).toBe(1);
    expect(`${r.stdout}${r.stderr}`).toMatch(/exchange_step_mismatch: it names step 7 of rec, which does not exist/);
  }
});

test('a hook journal swapped between its check and its links’ check: the links are not checked against other bytes', async () => {
  // check judges each journal, then reads the linked ones again for the links (src/check/workspace.ts, sameAsJudged):
  // the second read must be of the journal the report vouched for, or the links say it changed.
  const root = path.join(dir, 'swapped');
  cpSync(intact.root, root, { recursive: true });
  const other = path.join(dir, 'swapped-other');
  const j = Journal.open(path.join(other, 'j'), { durability: 'none' });
  for (const id of ['toolu_1', 'toolu_2'])
    j.append({ tool_call: { id, name: 'Bash', input: { n: 9 } }, tool_result: { ok: true }, ts: 1_700_000_009 });
  const file = journalFile(root, HOOK);
  const resume = path.join(dir, 'swapped-resume');
  const r = await cliChangedWhilePaused(
    ['check', '--json', '--root', root],
    'check:journals-judged',
    resume,
    () => {
      cpSync(path.join(other, 'j', '000000.jsonl'), `${file}.new`);
      renameSync(`${file}.new`, file);
    },
    env,
  );
  const report = JSON.parse(r.stdout) as { ok: boolean; heads: Record<string, string>; faults: { message: string }[] };
  expect(report.heads[HOOK]).toBe(intact.links[1]!.hook_step_hash);
  expect(report.ok).toBe(false);
  expect(report.faults.map((f) => f.message)).toEqual([
    expect.stringContaining(`changed while the check read it`),
    expect.stringContaining(`changed while the check read it`),
  ]);
});
