import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, verifyJournalBytes } from '../src/journal';
import {
  exportReceipt,
  generateKeyPair,
  loadReceipt,
  parsePrivateKey,
  parsePublicKey,
  verifyReceipt,
} from '../src/receipt';
import { tempDir } from './helpers/tmp';

/**
 * The library's byte inputs take any Uint8Array (bufferView, src/util/buffer-view.ts): `verifyJournalBytes` and
 * `verifyReceipt` given one that is not a Buffer (a TextEncoder's output, a fetch body, a view into a larger or shared
 * buffer) threw an internal TypeError ("buf.copy is not a function", "magic.equals is not a function").
 */
const root = tempDir();
const dir = path.join(root, '.sdd', 'runtime', 'journal', 'a');
let journal: Buffer;
let receipt: Buffer;

beforeAll(() => {
  const j = Journal.open(dir);
  for (let i = 0; i < 300; i++) j.append({ prompt: `p${i}`, tool_call: { n: i, f: i / 7 } });
  journal = readFileSync(path.join(dir, '000000.jsonl'));
  const out = path.join(root, 'r.tar');
  exportReceipt(path.join(dir, '000000.jsonl'), out);
  receipt = readFileSync(out);
});

/** The same bytes as a plain Uint8Array, a view in the middle of a larger one, and a view into shared memory. */
function forms(bytes: Buffer): [string, Uint8Array][] {
  const plain = new Uint8Array(bytes);
  const big = new Uint8Array(bytes.length + 40).fill(0x0a);
  big.set(bytes, 17);
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.length + 8), 8, bytes.length);
  shared.set(bytes);
  return [
    ['plain', plain],
    ['view', big.subarray(17, 17 + bytes.length)],
    ['shared', shared],
  ];
}

describe('byte inputs that are not Buffers', () => {
  it('verifyJournalBytes: the verdict of the Buffer, with the scanner and without', () => {
    const want = verifyJournalBytes(journal);
    expect(want).toMatchObject({ ok: true, steps: 300 });
    for (const [, bytes] of forms(journal)) {
      expect(verifyJournalBytes(bytes)).toEqual(want);
      expect(verifyJournalBytes(bytes, {}, { STEPCHAIN_WASM: '0' })).toEqual(want);
    }
    const edited = new TextEncoder().encode(journal.toString('utf8').replace('"p5"', '"P5"'));
    expect(verifyJournalBytes(edited)).toMatchObject({ ok: false, errors: [{ line: 6, kind: 'step_hash_mismatch' }] });
  });

  it('verifyReceipt and loadReceipt: the verdict of the Buffer', () => {
    const want = verifyReceipt(receipt);
    expect(want).toMatchObject({ ok: true, steps: 300 });
    for (const [, bytes] of forms(receipt)) {
      expect(verifyReceipt(bytes)).toEqual(want);
      expect(loadReceipt(bytes).manifest).toEqual(loadReceipt(receipt).manifest);
    }
  });

  it('parsePublicKey and parsePrivateKey: a PEM key as a Uint8Array is the key', () => {
    const pair = generateKeyPair();
    const pub = parsePublicKey(new TextEncoder().encode(pair.publicKeyPem), 'verify.pem');
    expect(pub.keyId).toBe(pair.keyId);
    expect(parsePublicKey(Buffer.from(pair.publicKeyPem), 'verify.pem').keyId).toBe(pair.keyId);
    expect(parsePrivateKey(new TextEncoder().encode(pair.privateKeyPem), 'signing.pem').keyId).toBe(pair.keyId);
  });
});
