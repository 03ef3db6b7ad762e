import type { FaultKind } from '../journal/chain';
import type { KeylessFaultKind, ReceiptFaultKind } from '../receipt/fault-kinds';
import type { ExchangeLinkFaultKind } from '../runs/exchange-links';
import type { RunFaultKind } from '../runs/verify';

/**
 * Every kind of fault the repository check reports: what the verifiers of each
 * item kind report (journal, run journal, receipt, a receipt's keyless
 * bundle), and the check's own (the checkout, the base's history, the shards,
 * the export). A typed union, and a table of them all for what reads a report
 * back (a shard's report.json is data from another job: an unknown kind is refused).
 */
export type CheckOwnFaultKind =
  // the checkout
  | 'symlink'
  | 'too_large'
  | 'unreadable'
  | 'crlf_line_endings'
  | 'not_committed'
  | 'faults_not_listed'
  // the base's history
  | 'history_deleted'
  | 'history_truncated'
  | 'history_rewritten'
  // a signed receipt no trusted key checked
  | 'signature_not_checked'
  // gathering shards
  | 'shard_foreign'
  | 'shard_mismatch'
  | 'shard_repeated'
  | 'shard_failed'
  | 'shard_missing'
  // exporting receipts
  | 'input_error'
  | 'export_refused'
  // provenance (provenance.ts): a changed file no verified step produced, a record that counts for nothing
  | 'unrecorded_change'
  | 'provenance_ignored';

export type CheckFaultKind =
  CheckOwnFaultKind | FaultKind | RunFaultKind | ExchangeLinkFaultKind | ReceiptFaultKind | KeylessFaultKind;

/** Every kind, once: the compiler holds this table to the union (a kind missing or extra does not compile). */
const KINDS: Record<CheckFaultKind, true> = {
  symlink: true,
  too_large: true,
  unreadable: true,
  crlf_line_endings: true,
  not_committed: true,
  faults_not_listed: true,
  history_deleted: true,
  history_truncated: true,
  history_rewritten: true,
  signature_not_checked: true,
  shard_foreign: true,
  shard_mismatch: true,
  shard_repeated: true,
  shard_failed: true,
  shard_missing: true,
  input_error: true,
  export_refused: true,
  unrecorded_change: true,
  provenance_ignored: true,
  // journals
  malformed_json: true,
  seq_mismatch: true,
  prev_hash_mismatch: true,
  step_hash_mismatch: true,
  head_mismatch: true,
  non_canonical: true,
  empty_journal: true,
  rollback: true,
  // run journals
  index_mismatch: true,
  payload_hash_mismatch: true,
  event_hash_mismatch: true,
  content_address_mismatch: true,
  flagged_mutation: true,
  bad_capability: true,
  capability_conflict: true,
  // a run journal's exchange links (docs/record.md)
  run_journal_broken: true,
  link_malformed: true,
  hook_step_mismatch: true,
  exchange_step_mismatch: true,
  linked_journal_absent: true,
  // receipts
  not_a_receipt: true,
  corrupt_archive: true,
  truncated: true,
  trailing_data: true,
  too_many_members: true,
  too_many_faults: true,
  unsafe_member: true,
  unknown_member: true,
  duplicate_member: true,
  missing_member: true,
  manifest_not_json: true,
  manifest_invalid: true,
  manifest_not_canonical: true,
  unknown_format_version: true,
  manifest_too_large: true,
  too_many_digests: true,
  signature_not_base64: true,
  signature_wrong_length: true,
  signature_invalid: true,
  no_trusted_key: true,
  unsigned: true,
  manifest_head_mismatch: true,
  manifest_steps_mismatch: true,
  blob_digests_mismatch: true,
  blob_digest_mismatch: true,
  unexpected_blob: true,
  missing_blob: true,
  // keyless bundles
  keyless_not_checked: true,
  keyless_no_bundle: true,
  keyless_unreadable: true,
  keyless_no_certificate: true,
  keyless_bad_certificate: true,
  keyless_no_trusted_root: true,
  keyless_identity_mismatch: true,
  keyless_issuer_mismatch: true,
  keyless_owner_mismatch: true,
  keyless_no_log_entry: true,
  keyless_no_timestamp: true,
  keyless_no_verified_time: true,
  keyless_signature_invalid: true,
  keyless_payload_type: true,
  keyless_statement: true,
  keyless_subject_mismatch: true,
  keyless_predicate_type: true,
  keyless_predicate_mismatch: true,
  keyless_sign_failed: true,
};

export function isCheckFaultKind(s: string): s is CheckFaultKind {
  return Object.prototype.hasOwnProperty.call(KINDS, s);
}
