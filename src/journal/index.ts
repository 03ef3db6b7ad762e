export { Cas } from './cas';
export { ChainChecker } from './chain';
export type { Fault, FaultKind } from './chain';
export { Journal, projectRootOf, validateStep } from './journal';
export type { Durability, JournalOptions, StepInput } from './journal';
export { casDir, JOURNAL_FILE, journalDir, journalFile, journalsDir, runtimeDir } from './layout';
export { resolveJournal } from './locate';
export { findTombstone, refuseRemovedJournal, refuseRemovedJournalAt, tombstoneFile } from './tombstone';
export type { Tombstone } from './tombstone';
export type { JournalTarget } from './locate';
export { GENESIS, JournalRecoveryError } from './recover';
export { isChunkJob, runChunkJob, scanSlices, setChunkWorkerEntry } from './parallel';
export type { ChunkSource } from './parallel';
export { stitchFaults, stitchRecovery, stitchRefs } from './stitch';
export type { ChainState, RecoveredTail } from './recover';
export { encodeRow, readRowLine, ROW_KEYS, rowFromValue, rowValue } from './row';
export type { ReadRow, StepRow } from './row';
export { computeStepHash, stepPayload } from './step-hash';
export type { StepFields } from './step-hash';
export {
  forEachLine,
  readCanonicalJournal,
  readJournalBytes,
  readJournalFile,
  readJournalFileBytes,
  verifyJournalBytes,
  verifyJournalBytesWithRefs,
  verifyJournalFile,
} from './verify';
export type { JournalEntry, ReadJournal, VerifyOptions, VerifyResult } from './verify';
export { describeFault, journalHead, readStep, readVerifiedJournal, readWindow } from './read';
