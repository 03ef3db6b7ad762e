import path from 'node:path';
import type { ProgressFn } from '../journal';
import type { PublicKey } from '../receipt';
import { isReceiptFile, openReceipt } from './receipt';
import { requireExchangeLinks } from './exchanges';
import { openJournal, targetPath, type ReplaySource } from './source';

export interface ReplayOpenOptions {
  /** The project root for agent ids and the CAS (default `cwd`). */
  root?: string;
  /** The directory relative paths are taken from (default process.cwd()). */
  cwd?: string;
  /** Trusted keys for signed receipts. */
  publicKeys?: PublicKey[];
  /** Progress of verifying a large journal. */
  onProgress?: ProgressFn;
}

/**
 * Opens `<agent|dir|file|receipt>` for display, verified first: a journal's
 * chain from genesis (and the links of its steps to model exchanges), or the whole receipt. Throws
 * BrokenChainError (exit 1) when it does not verify, InputError (exit 2) when it cannot be found or read.
 */
export function openReplay(target: string, options: ReplayOpenOptions = {}): ReplaySource {
  const cwd = options.cwd ?? process.cwd();
  const t = targetPath(target, cwd);
  if (path.isAbsolute(t) && isReceiptFile(t))
    return openReceipt(t, options.publicKeys ? { publicKeys: options.publicKeys } : {});
  const source = openJournal(target, {
    cwd,
    ...(options.root === undefined ? {} : { root: options.root }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
  // A hook journal's links to the model exchanges behind its tool calls are claims about two journals: checked too.
  requireExchangeLinks(source);
  return source;
}
