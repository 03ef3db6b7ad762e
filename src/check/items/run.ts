import { checkExchangeLinkBytes, type LinkSources } from '../../runs/exchange-links';
import { readRunJournalBytes } from '../../runs/verify';
import type { CheckedItem, CheckFault } from '../types';
import { crlfFault, omittedFault, runOfFaults, type ItemCheck } from './common';
import { pluralWord } from '../../util/words';

/**
 * One run journal's bytes, read as `stepchain run verify` does. A flagged
 * provider-state mutation is a finding about the run, not the file: with
 * `failOnFlagged` false it is only a warning. With `links` (the journals of
 * the check), each exchange link is checked as replay checks it: one that does
 * not hold fails the run; one naming a journal the check does not hold is a
 * warning (the link is not checked, and the item says so).
 */
export function checkRun(
  rel: string,
  id: string,
  bytes: Buffer,
  failOnFlagged: boolean,
  links?: LinkSources,
): ItemCheck {
  const r = readRunJournalBytes(bytes, { keepEntries: false });
  const item: CheckedItem = {
    kind: 'run',
    path: rel,
    id,
    steps: r.count,
    head: r.head_hash,
    ok: true,
    status: 'ok',
    mutations: r.mutation_count,
    flagged: r.flagged_indices.length,
  };
  const faults: CheckFault[] = [];
  const crlf = crlfFault(item, bytes);
  if (crlf !== undefined) faults.push(crlf);
  // Judged on the counts, not the listed faults: a fault past the list's cap must fail the run as much as a listed one.
  const flaggedFaults = r.flagged_indices.length;
  if (r.fault_count > flaggedFaults || (failOnFlagged && flaggedFaults > 0)) item.ok = false;
  for (const f of r.errors) {
    const warn = f.kind === 'flagged_mutation' && !failOnFlagged;
    faults.push({
      item: 'run',
      path: rel,
      line: f.line,
      kind: f.kind,
      message: `run ${id}: ${f.kind}${f.index === null ? '' : ` at index ${f.index}`}: ${runOfFaults(f)}${f.message}`,
      severity: warn ? 'warning' : 'error',
      id,
    });
  }
  const omitted = omittedFault(item, r.errors_omitted, item.ok ? 'warning' : 'error');
  if (omitted !== undefined) faults.push(omitted);
  // A broken chain already fails the run: its links are not read.
  const linked = links === undefined || !r.chain_ok ? [] : checkExchangeLinkBytes(rel, bytes, id, links).faults;
  for (const f of linked) {
    const warn = f.kind === 'linked_journal_absent';
    if (!warn) item.ok = false;
    faults.push({
      item: 'run',
      path: rel,
      line: f.line,
      kind: f.kind,
      message: `run ${id}: ${f.kind}: ${f.message}`,
      severity: warn ? 'warning' : 'error',
      id,
    });
  }
  const unchecked = linked.filter((f) => f.kind === 'linked_journal_absent').length;
  const notes = [
    ...(item.flagged ? [`${item.flagged} flagged ${pluralWord(item.flagged, 'mutation')}`] : []),
    ...(unchecked > 0 ? [`${unchecked} exchange ${pluralWord(unchecked, 'link')} not checked`] : []),
  ];
  if (!item.ok) item.status = 'FAIL';
  else if (notes.length > 0) item.status = `ok (${notes.join(', ')})`;
  return { item, faults };
}
