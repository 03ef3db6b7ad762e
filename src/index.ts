/**
 * stepchain's public library API (`import { … } from 'stepchain'`), documented in
 * docs/api.md: what a program needs to record, verify and use agent runs. The CLI
 * and the Action are built on the same modules; their internals (worker slices,
 * the WebAssembly scanner, tar parsing, terminal screens, CLI plumbing) stay
 * internal and may change in any release.
 */

// Canonical JSON (docs/format.md §1).
export {
  CanonicalEncodeError,
  canonical,
  canonicalOfRead,
  encode,
  float,
  isJsonObject,
  JsonFloat,
  JsonParseError,
  parse,
  parseBytes,
  prettyInsertionOrder,
  prettySorted,
} from './canonical';
export type { EncodeOptions, JsonArray, JsonObject, JsonValue, ParseOptions } from './canonical';

// Errors: InputError means exit 2 (usage, input), IntegrityError exit 1 (a check does not hold).
export { InputError, IntegrityError, StepchainError } from './errors';

// Per-step journals: record, open, verify, read (docs/format.md §2).
export {
  Cas,
  casDir,
  computeStepHash,
  describeFault,
  encodeRow,
  GENESIS,
  Journal,
  journalDir,
  journalFile,
  journalHead,
  JournalRecoveryError,
  JournalRollbackError,
  readJournalBytes,
  readJournalFile,
  readStep,
  readVerifiedJournal,
  readWindow,
  resolveJournal,
  ROW_KEYS,
  stepPayload,
  unhashedKeys,
  verifyJournalBytes,
  verifyJournalFile,
} from './journal';
export type {
  Durability,
  Fault,
  FaultKind,
  JournalEntry,
  JournalOptions,
  JournalTarget,
  ReadJournal,
  StepFields,
  StepInput,
  StepRow,
  VerifyOptions,
  VerifyResult,
} from './journal';
export { recordStep } from './record';
export type { RecordOptions, RecordResult } from './record';

// Receipts: export, publish, verify, keys (docs/format.md §3).
export {
  buildPublishedReceipt,
  buildReceipt,
  describeReceiptFault,
  exportReceipt,
  generateKeyPair,
  inspectReceipt,
  keyIdOf,
  loadReceipt,
  parsePrivateKey,
  parsePublicKey,
  parseRedactFields,
  publishReceipt,
  readPrivateKeyFile,
  readPublicKeyFile,
  ReceiptFormatError,
  signatureVerdict,
  verifyReceipt,
  verifyReceiptFile,
  writeKeyPair,
} from './receipt';
export type {
  BuiltReceipt,
  ExportOptions,
  GeneratedKeyPair,
  LoadedReceipt,
  LoadOptions,
  Manifest,
  PublicKey,
  PublishOptions,
  PublishResult,
  ReceiptFault,
  ReceiptInspection,
  ReceiptVerifyResult,
  RedactField,
  SignatureStatus,
  SignatureVerdict,
  SigningKey,
  VerifyReceiptOptions,
} from './receipt';

// Forks and per-step snapshots (docs/format.md §4).
export { createFork, drawForks, forksMermaid, listForks, removeFork } from './forks';
export type { ForkNode, ForkOptions, ForkResult, RemoveForkOptions, RemoveForkResult } from './forks';
export { listSnapshots } from './git';
export type { SnapshotInfo } from './git';

// Run journals and provider-side mutations (docs/format.md §5).
export {
  describeRunFault,
  diffRuns,
  ingestClaudeStream,
  readRunJournalFile,
  recordCapability,
  recordMutation,
  recordRunEvent,
  resolveRunJournal,
  RunJournal,
  runJournalFile,
  verifyRunJournal,
} from './runs';
export type {
  Capability,
  MutationInput,
  MutationResult,
  RunDiff,
  RunEventInput,
  RunFault,
  RunJournalOptions,
  RunRecordOptions,
  RunVerifyOptions,
  RunVerifyResult,
} from './runs';

// The HMAC audit chain (docs/format.md §5).
export {
  appendAuditEvent,
  auditDir,
  describeAuditFault,
  loadAuditKey,
  queryAudit,
  resolveAuditKeyPath,
  verifyAuditLog,
} from './audit';
export type {
  AuditEntry,
  AuditEventType,
  AuditFault,
  AuditKey,
  AuditMatch,
  AuditQuery,
  AuditVerifyResult,
} from './audit';

// The replay model: a verified run, step by step (what `replay`, `show` and `diff` show).
export {
  diffJournals,
  openReceipt,
  openReplay,
  replayDocument,
  showDocument,
  stepChanges,
  stepSummary,
} from './replay';
export type { FieldChange, JournalDiff, ReplayOpenOptions, ReplaySource, ShowDocument, StepSummary } from './replay';

// The self-verifying HTML report.
export { loadReportSource, renderReport, reportForkTree, writeReport } from './report';
export type { RenderedReport, ReportOptions, ReportResult } from './report';

// The workspace check (what the PR check and `stepchain check` run).
export { checkAppendOnly, checkWorkspace, renderCheckMarkdown } from './check';
export type { CheckedItem, CheckFault, CheckOptions, CheckReport } from './check';

// Recording Claude Code sessions through its hooks (docs/claude.md).
export {
  claudeAgentId,
  forkClaudeSession,
  handleClaudeHook,
  parseHookPayload,
  planClaudeSettings,
  writeClaudeSettings,
} from './agents/claude';
export type { ClaudeForkResult, ClaudeSettingsPlan, HookOptions, HookOutcome, HookPayload } from './agents/claude';

// Where a project's .sdd/ lives (found like git finds its repository).
export { findProjectRoot, resolveProjectRoot } from './project';
export type { ProjectRoot } from './project';

export { PRODUCER, VERSION } from './version';
