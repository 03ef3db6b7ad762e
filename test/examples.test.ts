import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cli, expectNoStack } from './helpers/cli';
import { repoRoot } from './helpers/paths';

/**
 * The committed examples (what the self-test workflow runs the Action on) hold:
 * the same check, locally, through the built CLI.
 */
const args = [
  'check',
  '--root',
  repoRoot,
  '--journals',
  'examples/.sdd/runtime/journal/*/000000.jsonl',
  '--runs',
  'examples/.sdd/runs/*/journal.jsonl',
  '--receipts',
  'examples/**/*.receipt.tar',
  '--public-key',
  path.join(repoRoot, 'examples', 'keys', 'example.pub'),
  '--expected-heads',
  path.join(repoRoot, 'examples', 'expected-heads.json'),
  '--json',
];

describe('examples/', () => {
  it('verify: journals, the fork, the run journal and the signed receipt, at the pinned heads', () => {
    const r = cli(args);
    expectNoStack(r);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      ok: boolean;
      verified: number;
      failed: number;
      heads: Record<string, string>;
    };
    expect(report).toMatchObject({ ok: true, verified: 4, failed: 0 });
    const pinned = JSON.parse(readFileSync(path.join(repoRoot, 'examples', 'expected-heads.json'), 'utf8')) as Record<
      string,
      string
    >;
    for (const [agent, head] of Object.entries(pinned)) expect(report.heads[agent]).toBe(head);
  });

  it('the example receipt verifies under its public key', () => {
    const r = cli([
      'receipt',
      'verify',
      path.join(repoRoot, 'examples', 'receipts', 'researcher.receipt.tar'),
      '--public-key',
      path.join(repoRoot, 'examples', 'keys', 'example.pub'),
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, signed: true, signature_ok: true });
  });
});
