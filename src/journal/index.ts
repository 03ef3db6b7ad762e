export { Cas, CAS_BATCH_FILES, newCasBatch, type CasBatch } from './cas';
export { ChainChecker } from './chain';
export type { Fault, FaultKind, FaultSink } from './chain';
export { expandFaults, FaultList, MAX_LISTED_FAULTS } from './faults';
export { checkWritable, Journal, projectRootOf, validateStep } from './journal';
export type { Durability, JournalOptions, StepInput } from './journal';
export { parsesAsJson } from './json-syntax';
export { casDir, JOURNAL_FILE, journalDir, journalFile, journalsDir, runtimeDir } from './layout';
export { countLines, forEachReferenceLine, pyStrip, strippedLine } from './lines';
export type { LineEnd } from './lines';
export { resolveJournal } from './locate';
export { findTombstone, refuseRemovedJournal, refuseRemovedJournalAt, tombstoneFile } from './tombstone';
export type { Tombstone } from './tombstone';
export type { JournalTarget } from './locate';
export { GENESIS, JournalRecoveryError, JournalRollbackError } from './recover';
export { withJournalRollback } from './rollback';
export { isChunkJob, runChunkJob, scanSlices, setChunkWorkerEntry, walkRanges } from './parallel';
export type { ChunkSource, ProgressFn } from './parallel';
export { stitchRecovery, stitchVerify } from './stitch';
export type { RowIndex, Stitched } from './stitch';
export type { ChainState, RecoveredTail } from './recover';
export { checkTail, printTornTailNotice } from './tail';
export type { TornTailMoved } from './tail';
export { encodeRow, readRowLine, ROW_KEYS, rowFromValue, rowValue, unhashedKeys } from './row';
export type { LineRead, ReadRow, RowView, StepRow } from './row';
export { computeStepHash, stepPayload } from './step-hash';
export type { StepFields } from './step-hash';
export {
  readCanonicalJournal,
  readJournalBytes,
  readJournalFile,
  readJournalFileBytes,
  verifyJournalBytes,
  verifyJournalBytesWithRefs,
  verifyJournalFile,
  verifyJournalFileIndexed,
  walkedRows,
} from './verify';
export type { JournalEntry, ReadJournal, VerifyOptions, VerifyResult } from './verify';
export {
  describeFault,
  describeFaults,
  faultMessage,
  journalHead,
  readStep,
  readVerifiedJournal,
  readWindow,
  UnverifiedJournalError,
  verifiedOr,
  VerifiedSteps,
} from './read';
export type { RewritableRow, StepList, StepMarks } from './read';
export { sha256Ascii, type RowSpans } from './fast-line';
