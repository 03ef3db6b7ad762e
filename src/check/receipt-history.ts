import { InputError } from '../errors';
import { walkedRows } from '../journal/verify';
import { loadReceipt, ReceiptFormatError } from '../receipt';
import { checkAppendOnly, type AppendOnlyResult } from './append-only';
import { plural } from '../util/words';

/**
 * Append-only history for a committed receipt (a PR's base and head versions).
 *
 * A receipt is a snapshot of one agent's chain; re-exporting it after more steps
 * is an append, anything else rewrites what the base vouched for. So the head's
 * receipt must be the same agent's, and the base receipt's journal rows a prefix
 * of the head's, byte for byte, by the rule a committed journal's history follows
 * (checkAppendOnly). Bytes, not step hashes: a step hash covers neither `ts` nor
 * `blob_refs` (nor a key outside the ten), so a prefix of hashes let a change
 * rewrite every step time of a committed receipt (its signature still verifying:
 * the manifest does not cover them either) and read `unchanged`. A re-export of
 * the same journal writes the same canonical lines; a published (redacted) one
 * re-anchors the chain, so it never extended the full receipt. A base receipt
 * whose chain cannot be read vouches for nothing that could be followed, so only
 * an unchanged copy keeps it.
 */
interface ReceiptChain {
  agent: string;
  /** The journal member's bytes. */
  journal: Buffer;
  /** Rows walked (as the verifier walks them). */
  rows: number;
}

/** The agent and chain of a receipt's bytes; undefined when its layout or manifest does not hold. */
export function receiptChain(bytes: Buffer): ReceiptChain | undefined {
  try {
    const r = loadReceipt(bytes);
    return { agent: r.manifest.agent_id, journal: r.journal, rows: walkedRows(r.journal).length };
  } catch (e) {
    if (e instanceof ReceiptFormatError || e instanceof InputError) return undefined;
    throw e;
  }
}

const steps = (n: number): string => `${plural(n, 'step')}`;

function result(
  ok: boolean,
  kind: AppendOnlyResult['kind'],
  base: number,
  head: number,
  firstChangedSeq: number | null,
  message: string,
): AppendOnlyResult {
  return {
    ok,
    kind,
    baseRows: base,
    headRows: head,
    appended: ok ? head - base : 0,
    firstChangedSeq,
    line: null,
    message,
  };
}

/** Compares a base receipt (bytes) with the head's version at the same path (bytes, or undefined when it is gone). */
export function checkReceiptHistory(base: Buffer, head: Buffer | undefined): AppendOnlyResult {
  const was = receiptChain(base);
  const n = was?.rows ?? 0;
  if (head === undefined) {
    const what = was === undefined ? 'an unreadable receipt' : `agent ${was.agent}'s receipt of ${steps(n)}`;
    return result(false, 'deleted', n, 0, n > 0 ? 0 : null, `receipt deleted (the base has ${what})`);
  }
  if (head.equals(base)) return result(true, 'unchanged', n, n, null, 'unchanged');
  if (was === undefined)
    return result(
      false,
      'rewritten',
      0,
      0,
      null,
      "receipt replaced: the base's receipt cannot be read, so no replacement can be shown to extend it",
    );
  const now = receiptChain(head);
  if (now === undefined)
    return result(
      false,
      'rewritten',
      n,
      0,
      null,
      `receipt replaced by one that cannot be read (the base has agent ${was.agent}'s)`,
    );
  const m = now.rows;
  if (now.agent !== was.agent)
    return result(
      false,
      'rewritten',
      n,
      m,
      null,
      `receipt replaced by another agent's: the base's is agent ${was.agent}'s, this one agent ${now.agent}'s`,
    );
  // The rows as the verifier reads them, every base row byte-identical at its place in the head.
  const rows = checkAppendOnly(was.journal, now.journal);
  if (rows.ok) {
    return result(true, m > n ? 'appended' : 'unchanged', n, m, null, m > n ? `${steps(m - n)} appended` : 'unchanged');
  }
  const i = rows.firstChangedSeq ?? 0;
  if (rows.kind === 'truncated')
    return result(
      false,
      'truncated',
      n,
      m,
      i,
      `receipt truncated at seq ${i}: the base's chain has ${steps(n)}, this one ${m}`,
    );
  return result(
    false,
    'rewritten',
    n,
    m,
    i,
    `receipt replaced: its chain does not extend the base receipt's (step ${i} differs: the base's ${steps(n)} are not a prefix of its rows, byte for byte)`,
  );
}
