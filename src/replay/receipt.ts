import path from 'node:path';
import { readJournalBytes } from '../journal';
import { IntegrityError } from '../errors';
import { describeReceiptFault, inspectReceipt, looksLikeReceipt, type PublicKey } from '../receipt';
import { BrokenChainError, mapBlobs, requireVerified, sourceFromRead, type ReplaySource } from './source';
import { keylessBundleOf } from './screen';

/**
 * Receipts (docs/format.md §3) as replay sources: the whole receipt is verified first
 * (layout, manifest, chain, bundled blobs, and the signature when trusted keys
 * are given), then its journal is walked from memory. Nothing is extracted.
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
  const r = readJournalBytes(loaded.journal);
  requireVerified(`${file}:journal/000000.jsonl`, r);
  return {
    ...sourceFromRead(r, {
      kind: 'receipt',
      file,
      agentId: loaded.manifest.agent_id,
      blobs: mapBlobs(`${path.basename(file)}:blobs/`, loaded.blobs),
    }),
    signed: v.signed,
    signatureChecked: v.signature_ok === true,
    ...keylessBundleOf(file),
  };
}
