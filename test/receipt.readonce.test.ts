import fs, { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, journalDir, journalFile } from '../src/journal';
import { buildReceipt, generateKeyPair, parsePrivateKey, parsePublicKey } from '../src/receipt';
import { openForDiff } from '../src/replay/diff';
import { openReceipt } from '../src/replay/receipt';
import { loadReportSource } from '../src/report/source';
import { tempDir } from './helpers/tmp';

/**
 * Verify one thing, display another: every reader that verifies a receipt and
 * then shows it (replay, report, diff) reads the file once. The file is swapped
 * for another (validly signed) receipt right after the reader opens it, as a
 * stranger with write access to the directory would: what is shown must be
 * what was verified, the journal of the first receipt.
 */
const root = tempDir('stepchain-readonce-');
const keys = generateKeyPair();
const signKey = parsePrivateKey(Buffer.from(keys.privateKeyPem), 'k');
const pub = parsePublicKey(Buffer.from(keys.publicKeyPem), 'k.pub');

function receiptOf(agent: string, prompt: string): Buffer {
  const j = Journal.open(journalDir(root, agent), { durability: 'none' });
  j.append({ prompt, model: 'm', ts: 1_700_000_000 });
  return buildReceipt(journalFile(root, agent), { signKey }).bytes;
}

const first = receiptOf('first', 'transfer $10 to alice');
const second = receiptOf('second', 'transfer $10000 to mallory');

/** Runs `read` while every open of `file` is followed by a swap of the file for `second`. */
function withSwapAfterOpen<T>(file: string, read: () => T): { result: T; opens: number } {
  let opens = 0;
  const real = fs.openSync;
  const spy = jest.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
    const fd = (real as (...a: unknown[]) => number)(p, ...rest);
    if (path.resolve(String(p)) === file) {
      opens++;
      const tmp = `${file}.swap`;
      writeFileSync(tmp, second);
      renameSync(tmp, file); // the opened descriptor keeps the first file; a second open sees the other
    }
    return fd;
  }) as typeof fs.openSync);
  try {
    return { result: read(), opens };
  } finally {
    spy.mockRestore();
  }
}

function place(name: string): string {
  const file = path.join(root, name);
  writeFileSync(file, first);
  return file;
}

test('replay: the journal displayed is the one verified', () => {
  const file = place('replay.receipt.tar');
  const { result, opens } = withSwapAfterOpen(file, () => openReceipt(file, { publicKeys: [pub] }));
  expect(opens).toBe(1);
  expect(result.agentId).toBe('first');
  expect(JSON.stringify(result.entries.at(0)!.row)).toContain('transfer $10 to alice');
});

test('report: the page embeds the bytes verified', () => {
  const file = place('report.receipt.tar');
  const { result, opens } = withSwapAfterOpen(file, () => loadReportSource(file, root, { publicKeys: [pub] }));
  expect(opens).toBe(1);
  expect(result.agentId).toBe('first');
  expect(result.journal.toString()).toContain('transfer $10 to alice');
});

test('diff: the rows compared are the bytes verified', () => {
  const file = place('diff.receipt.tar');
  const { result, opens } = withSwapAfterOpen(file, () => openForDiff(file, { publicKeys: [pub] }));
  expect(opens).toBe(1);
  expect(result.verified).toBe(true);
  expect(JSON.stringify(result.entries.slice().map((e) => e.row))).toContain('transfer $10 to alice');
  expect(JSON.stringify(result.entries.slice().map((e) => e.row))).not.toContain('mallory');
});
