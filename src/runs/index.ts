export { CLAUDE_ADAPTER, readClaudeStream, scanClaudeStream, signalsOf } from './claude';
export type { ClaudeStreamSummary, ClaudeTranscript, MutationSignal } from './claude';
export { diffRuns } from './diff';
export type { DiffReasonCode, RunDiff } from './diff';
export { checkRunEvent, RunJournal, RunJournalRecoveryError } from './journal';
export type { RunEventInput, RunJournalOptions, RunState } from './journal';
export { resolveRunJournal, RUN_JOURNAL_FILE, runJournalFile, runJournalOwner, runsDir } from './layout';
export {
  CAPABILITIES,
  CAPABILITY_EVENT,
  canonicalSha256,
  capabilityPayload,
  checkMutationRow,
  contentAddress,
  DETERMINISTIC_ENV,
  deterministicModeVar,
  MUTATION_EVENT,
  mutationFromSignal,
  mutationOf,
  mutationPayload,
  signalDigests,
} from './provider-state';
export type { Capability, ProviderStateMutation, SignalDigests } from './provider-state';
export {
  ingestClaudeStream,
  ingestClaudeStreamBlocks,
  recordCapability,
  recordMutation,
  recordObserved,
  recordRunEvent,
} from './record';
export type {
  MutationInput,
  MutationRecord,
  MutationResult,
  ObservedItem,
  ObservedResult,
  RunRecordOptions,
} from './record';
export {
  computeEventHash,
  computePayloadHash,
  encodeRunRow,
  ENVELOPE_KEYS,
  readRunLine,
  RUN_GENESIS,
  runRowValue,
} from './row';
export type { Payload, RunRow } from './row';
export {
  describeRunFault,
  describeRunFaults,
  readRunJournalBytes,
  readRunJournalFile,
  verifyRunJournal,
} from './verify';
export type { ReadRunJournal, RunEntry, RunFault, RunFaultKind, RunVerifyOptions, RunVerifyResult } from './verify';
export { verifyRunJournalChecked } from './rollback';
