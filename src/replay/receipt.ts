import path from 'node:path';
import { VerifiedSteps } from '../journal';
import { IntegrityError } from '../errors';
import { describeReceiptFault, inspectReceipt, looksLikeReceipt, type PublicKey } from '../receipt';
import { BrokenChainError, mapBlobs, verifiedOrRefused, type ReplaySource } from './source';
import { keylessBundleOf } from './screen';

/**
 * Receipts (docs/format.md §3) as replay sources: the whole receipt is verified first
 * (layout, manifest, chain, bundled blobs, and the signature when trusted keys
 * are given), then its journal is read from memory a block at a time. Nothing is extracted.
 */

/** Whether a file is a receipt (see `looksLikeReceipt`). */
export const isReceiptFile = looksLikeReceipt;

export interface ReceiptOpenOptions {
  /** Trusted keys: with any, the signature must verify under one of them. */
  publicKeys?: PublicKey[];
}

/**
 * Opens a receipt for display. Any fault refuses it (BrokenChainError, exit 1),
 * except that a signed receipt opened without a trusted key is shown with its
 * signature marked unchecked: its chain and manifest still verified.
 */
export function openReceipt(file: string, options: ReceiptOpenOptions = {}): ReplaySource {
  const publicKeys = options.publicKeys ?? [];
  // One read: the journal displayed is the one in the bytes just verified.
  const { verdict: v, receipt: loaded } = inspectReceipt(file, publicKeys.length > 0 ? { publicKeys } : {});
  const faults = v.errors.filter((f) => !(f.kind === 'no_trusted_key' && publicKeys.length === 0));
  if (faults.length > 0)
    throw new BrokenChainError(
      file,
      faults.map((f) => describeReceiptFault(file, f)),
      'receipt',
      faults.map((f) => ({
        file: f.member === undefined ? file : `${file}:${f.member}`,
        line: f.line ?? null,
        kind: f.kind,
        message: f.message,
      })),
    );
  if (loaded === undefined) throw new IntegrityError(`${file}: the receipt verified but its parts could not be read`);
  // Read a block at a time where it lies in the receipt's bytes, as a journal file is: not every row parsed up front
  // (a 100,000-step receipt's `show` of one step took 7.5 s and 800 MB so). Whether it is a published one is what
  // the receipt's walk found (the rule of `redactedFields` over its rows, test/receipt.redaction.test.ts).
  const member = `${file}:journal/000000.jsonl`;
  const steps = verifiedOrRefused(member, () => VerifiedSteps.fromBytes(loaded.journal, member));
  return {
    kind: 'receipt',
    file,
    agentId: loaded.manifest.agent_id,
    head_hash: steps.head_hash,
    steps: steps.length,
    entries: steps,
    redacted: v.redacted_fields.length > 0,
    blobs: mapBlobs(`${path.basename(file)}:blobs/`, loaded.blobs),
    signed: v.signed,
    signatureChecked: v.signature_ok === true,
    ...keylessBundleOf(file),
  };
}
