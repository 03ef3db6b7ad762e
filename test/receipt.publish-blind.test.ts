/**
 * publish blinds each step's input_hash (docs/receipts.md, "publish"): a hook-recorded step's input blob is the
 * agent's whole payload, prompt and tool result included, so its plain SHA-256 in a published receipt let anyone who
 * can guess the redacted text confirm the guess. Tested through the bin: the published rows hold no original
 * input_hash, each is HMAC-SHA256 under the key the local audit event keeps, two publishes draw two keys, the
 * receipt verifies, and `--keep-input-hashes` keeps the reference's rows.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { blindInputHash } from '../src';
import { readTar } from '../src/receipt';
import { JOURNAL_MEMBER } from '../src/receipt/members';
import { cli, expectNoStack } from './helpers/cli';
import { initRepo } from './helpers/git';
import { tempDir } from './helpers/tmp';

const root = tempDir('stepchain-publish-blind-');
const keyPath = path.join(root, 'audit.key');
const run = (args: string[], cwd?: string) =>
  cli(args, {
    ...(cwd !== undefined ? { cwd } : {}),
    env: { STEPCHAIN_AUDIT: 'on', STEPCHAIN_AUDIT_KEY_PATH: keyPath },
  });

interface Row {
  input_hash: string;
  prompt: unknown;
}

function rowsOf(receipt: string): Row[] {
  const journal = readTar(readFileSync(receipt)).find((e) => e.name === JOURNAL_MEMBER);
  if (journal === undefined) throw new Error(`${receipt}: no journal member`);
  return journal.data
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Row);
}

function auditDetails(project: string): Array<Record<string, unknown>> {
  const r = run(['audit', 'query', '--event-type', 'replay.publish', '--json'], project);
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout) as { events?: Array<{ details: Record<string, unknown> }> };
  return (doc.events ?? []).map((e) => e.details);
}

const prompts = ['yes', 'no', 'deploy to production'];
const project = initRepo(path.join(root, 'p'), { 'a.txt': 'a\n' });
for (const p of prompts) expect(run(['append', 'ag', '--prompt', p], project).code).toBe(0);
const journal = path.join(project, '.sdd', 'runtime', 'journal', 'ag', '000000.jsonl');
const original = readFileSync(journal, 'utf8')
  .split('\n')
  .filter((l) => l !== '')
  .map((l) => JSON.parse(l) as Row);

test('the published input hashes are blinded under the key the audit event keeps, and the receipt verifies', () => {
  const out = path.join(root, 'one.receipt.tar');
  const r = run(['publish', 'ag', '-o', out, '--opt-in', '--json'], project);
  expectNoStack(r);
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout) as { input_hashes: string; published_head: string };
  expect(doc.input_hashes).toBe('blinded');
  expect(r.stdout).not.toMatch(/blinding_key/);
  const published = rowsOf(out);
  expect(published).toHaveLength(prompts.length);
  const kept = new Set(original.map((o) => o.input_hash));
  for (const p of published) expect(kept.has(p.input_hash)).toBe(false);
  // A guess of the redacted prompt no longer confirms against the published value.
  for (const p of prompts) {
    const guess = createHash('sha256').update(p).digest('hex');
    expect(published.map((x) => x.input_hash)).not.toContain(guess);
  }
  const [details] = auditDetails(project).slice(-1);
  const key = Buffer.from(String(details?.input_blinding_key), 'hex');
  expect(key).toHaveLength(32);
  expect(details?.input_hashes).toBe('blinded');
  expect(published.map((p) => p.input_hash)).toEqual(original.map((o) => blindInputHash(key, o.input_hash)));
  const v = run(['receipt', 'verify', out, '--expected-head', doc.published_head, '--json']);
  expect(v.code).toBe(0);
  expect(JSON.parse(v.stdout)).toMatchObject({ ok: true, published: true, steps: prompts.length });
});

test('two publishes of the same journal draw two keys: their input hashes differ', () => {
  const a = path.join(root, 'a.receipt.tar');
  const b = path.join(root, 'b.receipt.tar');
  expect(run(['publish', 'ag', '-o', a, '--opt-in'], project).code).toBe(0);
  expect(run(['publish', 'ag', '-o', b, '--opt-in'], project).code).toBe(0);
  const ha = rowsOf(a).map((r) => r.input_hash);
  const hb = rowsOf(b).map((r) => r.input_hash);
  for (let i = 0; i < ha.length; i++) expect(ha[i]).not.toBe(hb[i]);
});

test('--keep-input-hashes keeps the journal input hashes (the reference publish), and says so', () => {
  const out = path.join(root, 'kept.receipt.tar');
  const r = run(['publish', 'ag', '-o', out, '--opt-in', '--keep-input-hashes'], project);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/input hashes +kept as in the journal/);
  expect(rowsOf(out).map((p) => p.input_hash)).toEqual(original.map((o) => o.input_hash));
  const [details] = auditDetails(project).slice(-1);
  expect(details?.input_hashes).toBe('kept');
  expect(details).not.toHaveProperty('input_blinding_key');
});
