/** `stepchain check`: the Action's verify mode from the built CLI (run `npm run build` first). */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, journalFile } from '../src/journal';
import { commitAll, git, initRepo } from './helpers/action';
import { cli, expectNoStack } from './helpers/cli';
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

test('check --base passes an append and fails a rewrite at its line', () => {
  const dir = initRepo(path.join(tmp, 'repo'));
  append(dir, 'alice', 3);
  commitAll(dir, 'base');
  git(dir, 'checkout', '-q', '-b', 'pr');
  append(dir, 'alice', 2);
  const ok = cli(['check', '--base', 'main'], { cwd: dir });
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain('OK   journal .sdd/runtime/journal/alice/000000.jsonl: 5 steps');
  expect(ok.stdout).toMatch(/OK: 1 verified, 0 failed, append-only since main \([0-9a-f]{12}\)/);

  const file = journalFile(dir, 'alice');
  writeFileSync(file, readFileSync(file, 'utf8').replace('"r1"', '"r-one"'));
  const bad = cli(['check', '--base', 'main', '--json'], { cwd: dir });
  expect(bad.code).toBe(1);
  expectNoStack(bad);
  const doc = JSON.parse(bad.stdout) as { ok: boolean; faults: { path: string; line: number; kind: string }[] };
  expect(doc.ok).toBe(false);
  expect(doc.faults.map((f) => [f.kind, f.line])).toEqual([
    ['step_hash_mismatch', 2],
    ['history_rewritten', 2],
  ]);
  expect(bad.stderr).toContain('.sdd/runtime/journal/alice/000000.jsonl:2: agent alice: history rewritten from seq 1');

  const md = cli(['check', '--markdown'], { cwd: dir });
  expect(md.code).toBe(1);
  expect(md.stdout).toContain('| ❌ | journal | <code>.sdd/runtime/journal/alice/000000.jsonl</code> | alice | 5 |');

  const badRef = cli(['check', '--base', 'no-such-branch'], { cwd: dir });
  expect(badRef.code).toBe(2);
  expect(badRef.stderr.trim().split('\n')).toHaveLength(1);
});
