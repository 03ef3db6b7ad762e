import type { FaultKind } from '../journal/chain';

/**
 * Every kind of fault a receipt's verification reports (docs/format.md): the
 * archive's own, the per-step journal's (its journal member is one) and, with
 * a Sigstore bundle, the keyless signature's.
 * Typed, so a consumer (the repository check, the doors) can tell them apart
 * without matching strings it cannot check.
 */
export type ReceiptOwnFaultKind =
  // the archive
  | 'not_a_receipt'
  | 'corrupt_archive'
  | 'truncated'
  | 'trailing_data'
  | 'too_large'
  | 'too_many_members'
  | 'too_many_faults'
  | 'unsafe_member'
  | 'unknown_member'
  | 'duplicate_member'
  | 'missing_member'
  // the manifest and its signature
  | 'manifest_not_json'
  | 'manifest_invalid'
  | 'manifest_not_canonical'
  | 'unknown_format_version'
  | 'manifest_too_large'
  | 'too_many_digests'
  | 'signature_not_base64'
  | 'signature_wrong_length'
  | 'signature_invalid'
  | 'no_trusted_key'
  | 'unsigned'
  // the manifest against the journal and the blobs
  | 'manifest_head_mismatch'
  | 'manifest_steps_mismatch'
  | 'blob_digests_mismatch'
  | 'blob_digest_mismatch'
  | 'unexpected_blob'
  | 'missing_blob';

/** A receipt's verdict holds its keyless signature's faults too (`receipt verify` with a bundle). */
export type ReceiptFaultKind = ReceiptOwnFaultKind | FaultKind | KeylessFaultKind;

/** Why a receipt's keyless (Sigstore) signature does not hold. */
export type KeylessFaultKind =
  | 'keyless_not_checked'
  /** Keyless anchors were given, but no bundle is beside the receipt: a signer was required and none is claimed. */
  | 'keyless_no_bundle'
  | 'keyless_unreadable'
  | 'keyless_no_certificate'
  | 'keyless_bad_certificate'
  | 'keyless_no_trusted_root'
  | 'keyless_identity_mismatch'
  | 'keyless_issuer_mismatch'
  | 'keyless_owner_mismatch'
  | 'keyless_no_log_entry'
  | 'keyless_no_timestamp'
  | 'keyless_no_verified_time'
  | 'keyless_signature_invalid'
  | 'keyless_payload_type'
  | 'keyless_statement'
  | 'keyless_subject_mismatch'
  | 'keyless_predicate_type'
  | 'keyless_predicate_mismatch'
  /** Export: a receipt that could not be signed keylessly (it is removed, never left unsigned). */
  | 'keyless_sign_failed';
