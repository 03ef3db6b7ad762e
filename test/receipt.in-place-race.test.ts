import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, journalDir, journalFile } from '../src/journal';
import { buildReceipt, generateKeyPair, inspectReceipt, parsePrivateKey, parsePublicKey } from '../src/receipt';
import { cliPath } from './helpers/paths';
import { cliChangedWhilePaused } from './helpers/proc';
import { tempDir } from './helpers/tmp';

/**
 * `stepchain receipt verify` of a plain receipt walks its journal member where it lies in the file, through the
 * descriptor the command opened (src/receipt/archive-scan.ts). The file changed between that open and the walk
 * (paused at walk:planned): a cut is exit 2 and one line, never OK; a rename reads the file opened; a rewrite or an
 * append is judged as the bytes the walk read.
 */
const root = tempDir('stepchain-in-place-race-');
const keys = generateKeyPair();
const pubFile = path.join(root, 'k.pub');
writeFileSync(pubFile, keys.publicKeyPem);
const pub = parsePublicKey(Buffer.from(keys.publicKeyPem), 'k.pub');
const j = Journal.open(journalDir(root, 'agent'), { durability: 'none' });
for (let i = 0; i < 300; i++)
  j.append({ prompt: `step ${i} ${'y'.repeat(i % 200)}`, model: 'm', ts: 1_700_000_000 + i });
const good = buildReceipt(journalFile(root, 'agent'), {
  signKey: parsePrivateKey(Buffer.from(keys.privateKeyPem), 'k'),
}).bytes;
const journalAt = good.indexOf('{"blob_refs"');
const journalEnd = good.indexOf('\n\0', journalAt) + 1;
const ENV = { STEPCHAIN_THREADS: '3', STEPCHAIN_PARALLEL_MIN_BYTES: '1' };

async function verifyWhileChanged(
  name: string,
  change: (file: string) => void,
): Promise<{ code: number | null; stdout: string; stderr: string[] }> {
  const file = path.join(root, `${name}.tar`);
  writeFileSync(file, good);
  const args = ['receipt', 'verify', file, '--public-key', pubFile, '--json'];
  return cliChangedWhilePaused(args, 'walk:planned', path.join(root, `${name}.resume`), () => change(file), ENV);
}

const verdictOf = (bytes: Buffer): unknown =>
  JSON.parse(JSON.stringify(inspectReceipt(bytes, { publicKeys: [pub] }).verdict));

test('cut inside the journal: exit 2, one line naming the file', async () => {
  const r = await verifyWhileChanged('cut-mid', (f) => truncateSync(f, journalAt + 5000));
  expect(r.code).toBe(2);
  expect(r.stderr).toEqual([expect.stringContaining('cut-mid.tar: it changed while it was read')]);
});

test('cut after the journal: the verdict of the bytes left', async () => {
  const r = await verifyWhileChanged('cut-after', (f) => truncateSync(f, journalEnd));
  expect(JSON.parse(r.stdout)).toEqual(verdictOf(good.subarray(0, journalEnd)));
  expect(r.code).toBe(1);
});

test('replaced by rename: the file opened is the one walked', async () => {
  const r = await verifyWhileChanged('renamed', (f) => {
    const other = `${f}.other`;
    writeFileSync(other, Buffer.from(good.toString('latin1').replace('"step 100 ', '"STEP 100 '), 'latin1'));
    renameSync(other, f);
  });
  expect(JSON.parse(r.stdout)).toEqual(verdictOf(good));
  expect(r.code).toBe(0);
});

test('rewritten in place, or grown: judged as the bytes read', async () => {
  const tampered = Buffer.from(good.toString('latin1').replace('"step 100 ', '"STEP 100 '), 'latin1');
  const r = await verifyWhileChanged('rewritten', (f) => writeFileSync(f, tampered));
  expect(JSON.parse(r.stdout)).toEqual(verdictOf(tampered));
  expect(r.code).toBe(1);
  const g = await verifyWhileChanged('grown', (f) => appendFileSync(f, 'junk'));
  expect(JSON.parse(g.stdout)).toEqual(verdictOf(Buffer.concat([good, Buffer.from('junk')])));
  expect(g.code).toBe(1);
  expect(readFileSync(path.join(root, 'grown.tar')).length).toBe(good.length + 4);
});

/**
 * The journal member is read once: its walk is seeded with the genesis, as a pushed slice is. Unseeded, a first row
 * whose seq is not 0 had the stitch walk the whole journal again from the file (its refs handed to the check twice,
 * from two reads of a file that may change between them; a million steps 4.0 -> 5.8 s, 174 -> 233 MB).
 */
test('a first row whose seq is not 0: the journal is read once, and judged as read', () => {
  const file = path.join(root, 'seq-off.tar');
  const bytes = Buffer.from(good.toString('latin1').replace('"seq":0,', '"seq":1,'), 'latin1');
  expect(bytes.equals(good)).toBe(false);
  writeFileSync(file, bytes);
  const resume = path.join(root, 'seq-off.resume');
  writeFileSync(resume, '');
  const r = spawnSync(process.execPath, [cliPath, 'receipt', 'verify', file, '--public-key', pubFile, '--json'], {
    env: { ...process.env, ...ENV, STEPCHAIN_TEST_PAUSE: 'walk:planned', STEPCHAIN_TEST_RESUME: resume },
    encoding: 'utf8',
  });
  expect(r.stderr.split('\n').filter((l) => l.includes('paused at walk:planned'))).toHaveLength(1);
  expect(JSON.parse(r.stdout)).toEqual(verdictOf(bytes));
  expect(r.status).toBe(1);
});
