import { InputError } from '../errors';
import { walkedRows } from '../journal/verify';
import { loadReceipt, ReceiptFormatError } from '../receipt';
import type { AppendOnlyResult } from './append-only';
import { plural } from '../util/words';

/**
 * Append-only history for a committed receipt (a PR's base and head versions).
 *
 * A receipt is a snapshot of one agent's chain; re-exporting it after more steps
 * is an append, anything else rewrites what the base vouched for. So the head's
 * receipt must be the same agent's, and the base receipt's chain (its rows'
 * step hashes, in order) a prefix of the head's. Step hashes, not row bytes: a
 * published (redacted) re-export keeps every step hash, and the head receipt's
 * own verification checks its rows against them. A base receipt whose chain
 * cannot be read vouches for nothing that could be followed, so only an
 * unchanged copy keeps it.
 */
interface ReceiptChain {
  agent: string;
  /** The stored step_hash of each row walked, in order (null for a row without one). */
  hashes: (string | null)[];
}

/** The agent and chain of a receipt's bytes; undefined when its layout or manifest does not hold. */
export function receiptChain(bytes: Buffer): ReceiptChain | undefined {
  try {
    const r = loadReceipt(bytes);
    return { agent: r.manifest.agent_id, hashes: walkedRows(r.journal).map((w) => w.step_hash) };
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
  const n = was?.hashes.length ?? 0;
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
  const m = now.hashes.length;
  if (now.agent !== was.agent)
    return result(
      false,
      'rewritten',
      n,
      m,
      null,
      `receipt replaced by another agent's: the base's is agent ${was.agent}'s, this one agent ${now.agent}'s`,
    );
  let i = 0;
  // A base row without a step hash vouches for nothing: it matches nothing.
  while (i < n && i < m && was.hashes[i] !== null && now.hashes[i] === was.hashes[i]) i++;
  if (i === n) {
    return result(true, m > n ? 'appended' : 'unchanged', n, m, null, m > n ? `${steps(m - n)} appended` : 'unchanged');
  }
  if (i === m)
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
    `receipt replaced: its chain does not extend the base receipt's (step ${i} differs: the base's ${steps(n)} ending at ${was.hashes[n - 1] ?? 'none'} are not a prefix of it)`,
  );
}
