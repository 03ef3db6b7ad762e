/**
 * stepchain's public library API (`import { … } from 'stepchain'`), documented in
 * docs/api.md, which lists every name exported here (test/api.names.test.ts holds
 * the two equal): what a program needs to record, verify and use agent runs. The
 * CLI and the Action are built on the same modules; everything else (display
 * helpers, lower-level readers, worker slices, the WebAssembly scanner, tar
 * parsing, terminal screens, CLI plumbing) stays internal and may change in any
 * release.
 */

// Canonical JSON (docs/format.md §1), and the strict JSON of every `--json` document ("JSON outputs" there).
export {
  CanonicalEncodeError,
  canonical,
  float,
  isJsonObject,
  JsonFloat,
  JsonParseError,
  outputJson,
  OutputTagError,
  parse,
  readOutputJson,
} from './canonical';
export type { JsonArray, JsonObject, JsonValue, OutputOptions, ParseOptions } from './canonical';

// Errors: InputError means exit 2 (usage, input), IntegrityError exit 1 (a check does not hold).
export { InputError, IntegrityError, StepchainError } from './errors';

// Per-step journals: record, open and append, verify, read verified (docs/format.md §2).
export {
  Cas,
  casDir,
  computeStepHash,
  Journal,
  journalDir,
  journalFile,
  JournalRecoveryError,
  JournalRollbackError,
  readVerifiedJournal,
  resolveJournal,
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
export { DeferredSnapshots, recordStep } from './record';
export type { RecordOptions, RecordResult } from './record';

// Receipts: export, publish, verify, sign (docs/format.md §3).
export {
  blindInputHash,
  buildReceipt,
  exportReceipt,
  generateKeyPair,
  parsePrivateKey,
  parsePublicKey,
  publishReceipt,
  readPrivateKeyFile,
  readPublicKeyFile,
  ReceiptFormatError,
  verifyReceipt,
  writeKeyPair,
} from './receipt';
export type {
  BuiltReceipt,
  ExportOptions,
  GeneratedKeyPair,
  Manifest,
  PublicKey,
  InputHashes,
  PublishOptions,
  PublishResult,
  ReceiptFault,
  ReceiptFaultKind,
  ReceiptVerifyResult,
  RedactField,
  SigningKey,
  VerifyReceiptOptions,
} from './receipt';

// Forks (docs/format.md §4).
export { createFork, listForks, removeFork } from './forks';
export type { ForkNode, ForkOptions, ForkResult, RemoveForkOptions, RemoveForkResult } from './forks';

// Run journals and provider-side mutations (docs/format.md §5).
export {
  diffRuns,
  recordCapability,
  recordMutation,
  recordRunEvent,
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
  loadAuditKey,
  queryAudit,
  queryAuditLog,
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

// A verified run of any size, step by step (a journal or a receipt), and where two runs diverge.
export { diffJournals, openReplay } from './replay';
export type { JournalDiff, ReplayOpenOptions, ReplaySource } from './replay';

// The self-verifying HTML report.
export { reportForkTree, writeReport } from './report';
export type { ReportOptions, ReportResult } from './report';

// The repository check (what the PR check and `stepchain check` run).
export { checkAppendOnly, checkWorkspace, pullRequestBase } from './check';
export type { CheckedItem, CheckFault, CheckFaultKind, CheckOptions, CheckReport, PullRequestBase } from './check';

// Provenance: which verified step last wrote each line of a file (docs/provenance.md).
export { blameFile } from './provenance/blame';
export type { BlameLine, BlameOrigin, BlameResult } from './provenance/blame';

// The recorded agents, one integration each (docs/agents.md): install, one hook payload, resume.
export { AGENTS, agentNamed } from './agents';
export type { AgentIntegration, HookOptions, HookOutcome, InitPlan, InitRequest } from './agents';

// Where a project's .sdd/ lives (found like git finds its repository).
export { findProjectRoot } from './project';
export type { ProjectRoot } from './project';

export { PRODUCER, VERSION } from './version';
