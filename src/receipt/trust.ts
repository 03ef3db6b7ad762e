/**
 * One meaning of "signed" for every command that shows a receipt (`receipt
 * verify`, `report`, `replay`, `show`, `diff`, `check` and the Action): a green
 * verdict never rests on a signature nobody checked. A signed receipt holds only
 * when its signature verifies under a trusted public key; given no key, it is
 * shown (its chain, manifest and blobs are still checked) with "signature NOT
 * checked" in the warning colour, and the verdict is "does not hold" (exit 1),
 * as docs/format.md §3 has `receipt verify` fail it (`no_trusted_key`).
 * An unsigned receipt claims no signer: it holds on its chain alone, unless
 * trusted keys were given (then it fails: `unsigned`).
 */
export type SignatureStatus = 'unsigned' | 'verified' | 'not_checked' | 'invalid' | 'unsigned_but_required';

export interface SignatureVerdict {
  status: SignatureStatus;
  /** Whether the signature part of the verdict holds (never true for `not_checked`). */
  holds: boolean;
  /** The trusted key that verified it. */
  key_id: string | null;
  /** Words for a banner or a status line, e.g. `signature NOT checked (no trusted public key given)`. */
  text: string;
  /** Whether the text is shown in the warning colour. */
  warn: boolean;
}

const NOT_CHECKED = 'signature NOT checked (signed, but no trusted public key was given)';

/**
 * The verdict's words with the door's own way to give a trusted key (`--public-key FILE`, `public-keys`) where
 * one is missing: the library does not know a door's flags.
 */
export function verdictText(v: SignatureVerdict, keyHint?: string): string {
  return v.status === 'not_checked' && keyHint !== undefined ? `${NOT_CHECKED.slice(0, -1)}: ${keyHint})` : v.text;
}

/** The verdict on a receipt's signature, from what `verifyReceipt` found and how many trusted keys were given. */
export function signatureVerdict(
  checked: { signed: boolean; signature_ok: boolean | null; key_id: string | null },
  trustedKeys: number,
): SignatureVerdict {
  if (!checked.signed) {
    return trustedKeys === 0
      ? { status: 'unsigned', holds: true, key_id: null, text: 'unsigned', warn: false }
      : {
          status: 'unsigned_but_required',
          holds: false,
          key_id: null,
          text: 'unsigned, but a trusted key was given: a signature is required',
          warn: true,
        };
  }
  if (trustedKeys === 0) {
    return {
      status: 'not_checked',
      holds: false,
      key_id: null,
      text: NOT_CHECKED,
      warn: true,
    };
  }
  if (checked.signature_ok === true) {
    return {
      status: 'verified',
      holds: true,
      key_id: checked.key_id,
      text: `signature verified (key id ${checked.key_id ?? '?'})`,
      warn: false,
    };
  }
  return {
    status: 'invalid',
    holds: false,
    key_id: null,
    text: 'signature INVALID: it does not verify under any trusted key',
    warn: true,
  };
}

/** The fault a failing signature status stands for among a receipt's errors. */
const STATUS_FAULT: Partial<Record<SignatureStatus, string>> = {
  unsigned_but_required: 'unsigned',
  not_checked: 'no_trusted_key',
  invalid: 'signature_invalid',
};

/**
 * Whether the signature is among why a receipt's verdict fails: a receipt that could not be read (a corrupt gzip, an
 * archive cut short) was never judged signed or not, and its verdict says nothing of a signature.
 */
export function signatureFails(v: SignatureVerdict, errors: readonly { kind: string }[]): boolean {
  const kind = STATUS_FAULT[v.status];
  return kind !== undefined && errors.some((e) => e.kind === kind);
}
