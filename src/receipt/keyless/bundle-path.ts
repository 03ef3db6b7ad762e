import { lstatSync } from 'node:fs';
import type { KeylessFaultKind } from '../fault-kinds';

/** The Sigstore bundle of a receipt: beside it, `R.sigstore.json` (`R.tgz.sigstore.json` for a `.tgz`). */
export function bundlePathOf(receiptFile: string): string {
  return `${receiptFile}.sigstore.json`;
}

/** The bundle beside a receipt, when there is one (anything at that name counts, a link or a FIFO too: it is then read, and refused if it is not a bundle). */
export function bundleBeside(receiptFile: string): string | undefined {
  const file = bundlePathOf(receiptFile);
  try {
    lstatSync(file);
  } catch {
    return undefined;
  }
  return file;
}

/**
 * "One meaning of signed" for keyless signatures: a bundle beside a receipt
 * claims a signer, so with no identity policy to check it against the receipt
 * does not hold (as a signed receipt without a trusted key does not).
 */
export function notCheckedFault(bundleFile: string): { kind: KeylessFaultKind; message: string } {
  return {
    kind: 'keyless_not_checked',
    message: `${bundleFile} is beside the receipt but no --certificate-identity and --certificate-oidc-issuer were given: its keyless signature was NOT checked`,
  };
}
