/**
 * The operator's replay surface (terminal half): a verified source,
 * the step model (fields, changes since the previous step, search), the layout
 * of a screen, and the non-interactive views. The TTY driver is `tty.ts`.
 */
export { blobInfo, changeText, entryAt, formatSize, stepBlobs, stepBody } from './body';
export type { BlobInfo, BodyLine, BodyOptions } from './body';
export { diffJournals, diffSideDocument, openForDiff, sideHolds } from './diff';
export type { Comparable, DiffOpenOptions, DiffSide, JournalDiff } from './diff';
export { openReplay } from './open';
export type { ReplayOpenOptions } from './open';
export { isReceiptFile, openReceipt } from './receipt';
export type { ReceiptOpenOptions } from './receipt';
export { keyHints, keyList, parseKeys } from './keys';
export type { Key } from './keys';
export { headerText, renderScreen, signatureText, sourceSignature } from './screen';
export type { ScreenLine } from './screen';
export type { ScreenSize } from './body';
export { initialState, reduce, walkedSteps } from './walk';
export type { ReplayAction, ReplayState, WalkOptions } from './walk';
export {
  BrokenChainError,
  casBlobs,
  mapBlobs,
  openJournal,
  requireVerified,
  sourceFromRead,
  storedParts,
  storedRow,
  targetPath,
  unverifiedFields,
} from './source';
export type { BlobSource, OpenOptions, ReplaySource } from './source';
export {
  CONTENT_FIELDS,
  fieldsChanged,
  findStep,
  matchingSteps,
  nextMatch,
  stepChanges,
  stepMatches,
  stepSearchText,
  stepSummary,
  toolName,
} from './step';
export type { ContentField, FieldChange, StepSummary } from './step';
export {
  compactJson,
  displayWidth,
  isoTime,
  prettyJson,
  preview,
  sanitize,
  shortHash,
  truncate,
  valueLines,
  wrap,
} from './text';
export { runInteractive } from './tty';
export type { TtyOptions } from './tty';
export {
  diffLines,
  diffSideLines,
  replayDocument,
  replayDocumentParts,
  showDocument,
  showLines,
  signatureDocument,
  stepTable,
} from './views';
export type { DocumentEntry, ReplayDocumentParts, ReplayDocumentTail, ShowDocument } from './views';
