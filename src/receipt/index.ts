export {
  auditReceipt,
  buildReceipt,
  canonicalJournalBytes,
  commitExport,
  commitReceipt,
  exportReceipt,
  stageExport,
  writeReceiptFiles,
  newManifest,
  packReceipt,
  wantsGzip,
} from './export';
export type {
  BuiltReceipt,
  ExportedReceiptFile,
  ExportOptions,
  ReceiptAuditOptions,
  ReceiptCompanion,
  ReceiptWriteOptions,
  StagedExport,
} from './export';
export {
  generateKeyPair,
  isSignersSeed,
  keyIdOf,
  parsePrivateKey,
  parsePublicKey,
  publicKeyProblem,
  privateKeyExposure,
  signingKeyWarnings,
  readPrivateKeyFile,
  readPublicKeyFile,
  signBytes,
  verifyBytes,
  writeKeyPair,
} from './keys';
export type { GeneratedKeyPair, PublicKey, SigningKey } from './keys';
export {
  blobDigestsOf,
  encodeManifest,
  FORMAT_VERSION,
  formatCreatedAt,
  MANIFEST_KEYS,
  parseManifest,
} from './manifest';
export type { Manifest } from './manifest';
export {
  blindInputHash,
  buildPublishedReceipt,
  commitPublished,
  DEFAULT_REDACT,
  parseRedactFields,
  publishReceipt,
  REDACTABLE_FIELDS,
  stagePublished,
  REDACTED,
  redactRows,
  RowRedactor,
} from './publish';
export type {
  InputHashes,
  PublishedReceiptFile,
  PublishOptions,
  PublishResult,
  RedactedChain,
  RedactField,
  StagedPublished,
} from './publish';
export { DEFAULT_MAX_RECEIPT_BYTES, DEFAULT_MAX_TAR_MEMBERS, readTar, ReceiptFormatError, tarEntries } from './tar';
export { maybeGunzip } from './gzip';
export type { TarEntry, TarReadOptions } from './tar';
export { writeTar } from './tar-write';
export type { TarWriteMember } from './tar-write';
export { redactedFields, redactedFieldsOf } from './redaction';
export {
  decodeSignature,
  describeReceiptFault,
  inspectReceipt,
  loadReceipt,
  MAX_RECEIPT_FAULTS,
  verifyReceipt,
  walkReceiptJournal,
} from './verify';
export type {
  LoadedReceipt,
  LoadOptions,
  ReceiptInspection,
  ReceiptVerifyResult,
  VerifyReceiptOptions,
} from './verify';
export { JOURNAL_MEMBER, MANIFEST_MEMBER, SIGNATURE_MEMBER } from './members';
export type { ReceiptFault } from './members';
export type { KeylessFaultKind, ReceiptFaultKind, ReceiptOwnFaultKind } from './fault-kinds';
export { readReceiptBytes, readReceiptFile } from './read-file';
export { verifyReceiptFile } from './stream-verify';
export type { StreamedReceipt, StreamVerifyOptions } from './stream-verify';
export { looksLikeReceipt } from './sniff';
export { signatureFails, signatureVerdict, verdictText } from './trust';
export type { SignatureStatus, SignatureVerdict } from './trust';
