import { inspectReceipt, signatureVerdict, type PublicKey } from '../../receipt';
import type { CheckedItem, CheckFault } from '../types';
import type { ItemCheck } from './common';

/**
 * One receipt's bytes, verified as `stepchain receipt verify` does, under the
 * caller's trusted keys. One meaning of "signed" (signatureVerdict): a
 * signature nobody checked fails, named as such. `name` is what the receipt
 * goes by until it loads (its file name); then it is its agent's id.
 */
export function checkReceipt(
  rel: string,
  name: string,
  bytes: Buffer,
  keys: PublicKey[],
  keyHint: string | undefined,
): ItemCheck {
  const { verdict: r, receipt } = inspectReceipt(bytes, keys.length > 0 ? { publicKeys: keys } : {});
  // A receipt that does not load keeps its file name; the verdict says why.
  const id = receipt === undefined ? name : receipt.manifest.agent_id;
  const item: CheckedItem = {
    kind: 'receipt',
    path: rel,
    id,
    steps: r.steps,
    head: r.head_hash,
    ok: true,
    status: 'ok',
    signed: r.signed,
    keyId: r.key_id,
  };
  const faults: CheckFault[] = [];
  for (const f of r.errors) {
    const untrusted = f.kind === 'no_trusted_key' && keys.length === 0;
    item.ok = false;
    const where = f.member === undefined ? '' : ` (${f.member}${f.line === undefined ? '' : `:${f.line}`})`;
    faults.push({
      item: 'receipt',
      path: rel,
      line: null,
      kind: untrusted ? 'signature_not_checked' : f.kind,
      message: untrusted
        ? `receipt ${id}: ${signatureVerdict(r, keys.length).text.replace('--public-key FILE', keyHint ?? 'public-keys')}`
        : `receipt ${id}: ${f.kind}: ${f.message}${where}`,
      severity: 'error',
      id,
    });
  }
  const onlyUnchecked = r.errors.length > 0 && r.errors.every((f) => f.kind === 'no_trusted_key') && keys.length === 0;
  if (!item.ok) item.status = onlyUnchecked ? 'signature NOT checked' : 'FAIL';
  else if (r.signed) item.status = `signed (${r.key_id})`;
  else item.status = 'ok (unsigned)';
  return { item, faults };
}
