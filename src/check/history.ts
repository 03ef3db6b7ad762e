import { checkAppendOnly, type AppendOnlyResult } from './append-only';
import { checkReceiptHistory } from './receipt-history';

/** What a committed file's history is compared by: journals and run journals row by row, receipts by chain. */
export type HistoryKind = 'journal' | 'run' | 'receipt';

/** Compares a base version of a committed file with its head version (undefined when it is gone). */
export function compareHistory(kind: HistoryKind, base: Buffer, head: Buffer | undefined): AppendOnlyResult {
  if (kind === 'receipt') return checkReceiptHistory(base, head);
  return checkAppendOnly(base, head, kind === 'run' ? 'index' : 'seq');
}

/** The name a receipt goes by before it is read: its file name without the receipt suffix. */
export function receiptNameOf(rel: string): string {
  return rel
    .split('/')
    .pop()!
    .replace(/\.receipt\.(tar|tar\.gz|tgz)$/, '');
}
