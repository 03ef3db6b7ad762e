import { lstatSync, rmSync } from 'node:fs';
import { InputError } from '../../errors';
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
 * `identityHint`: how the door's user gives one (the door's words, e.g. its flags).
 */
export function notCheckedFault(bundleFile: string, identityHint: string): { kind: KeylessFaultKind; message: string } {
  return {
    kind: 'keyless_not_checked',
    message: `${bundleFile} is beside the receipt but no ${identityHint} were given: its keyless signature was NOT checked`,
  };
}

/** A bundle beside a receipt about to be written without a keyless signature, to remove once it is written. */
export interface StaleBundle {
  file: string;
  remove(): void;
}

/**
 * The stale-bundle rule of every export and publish that writes no keyless signature: a Sigstore bundle already
 * beside the output signed another receipt, and a verifier would take it for this one's signature (and fail it).
 * Refused before any work (an InputError: `shown` names the bundle, `remedy` says what to do, both in the door's
 * words) unless `force`; then the caller removes it (`remove`) once the new receipt is written.
 */
export function staleBundleBeside(
  outFile: string,
  options: { force: boolean; shown?: string; remedy?: string },
): StaleBundle | undefined {
  const file = bundleBeside(outFile);
  if (file === undefined) return undefined;
  if (!options.force)
    throw new InputError(
      `${options.shown ?? file} exists beside the output: it signed another receipt and would be taken for this one's ` +
        `keyless signature; refusing (${options.remedy ?? 'remove it, sign the receipt keylessly, or force its removal'})`,
    );
  return { file, remove: () => rmSync(file, { force: true }) };
}
