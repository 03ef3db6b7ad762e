import type { CheckReport, ItemKind } from './types';

/**
 * A check that found nothing does not say OK. Messages (one line each) for the
 * patterns the user gave that matched no file, and for a check with nothing in
 * it at all; the CLI fails on them (unless `--allow-empty`), the Action applies
 * its `if-no-files-found` input.
 */
const NOUN: Record<ItemKind, string> = { journal: 'journals', run: 'runs', receipt: 'receipts' };

export function emptyFindings(report: CheckReport, given: Partial<Record<ItemKind, string[]>>): string[] {
  const out: string[] = [];
  for (const kind of ['journal', 'run', 'receipt'] as const) {
    const patterns = given[kind];
    if (patterns !== undefined && patterns.length > 0 && report.matched[kind] === 0)
      out.push(`${NOUN[kind]}: ${patterns.join(', ')} matched no file`);
  }
  const matched = report.matched.journal + report.matched.run + report.matched.receipt;
  if (out.length === 0 && report.items.length === 0 && matched === 0)
    out.push('nothing was checked: no journal, run journal or receipt was found');
  return out;
}
