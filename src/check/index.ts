export { checkAppendOnly } from './append-only';
export type { AppendOnlyKind, AppendOnlyResult } from './append-only';
export { DEFAULT_SESSIONS, forkTree, forkTreeFromSessions } from './forks';
export { DEFAULT_JOURNALS, DEFAULT_RECEIPTS, DEFAULT_RUNS, idOfPath, listFilesAtCommit, shardOf } from './scan';
export { CRLF_REMEDY } from './items/common';
export { findFiles, globSet, globToRegExp, matchesGlob, NOT_UTF8_NAME, parsePatterns, scanFiles } from './glob';
export type { DirCache, FoundLink, GlobSet, ScanResult } from './glob';
export {
  COMMENT_MARKER,
  COMMENT_MAX_CHARS,
  forkTreeMermaid,
  mdCode,
  mdText,
  mermaidText,
  renderCheckMarkdown,
  SUMMARY_MAX_BYTES,
} from './markdown';
export type { ForkTreeNode, MarkdownOptions } from './markdown';
export { pullRequestBase } from './base';
export type { PullRequestBase } from './base';
export { CHECK_PASSES, checkWorkspace } from './workspace';
export { isCheckFaultKind } from './fault-kinds';
export type { CheckFaultKind, CheckOwnFaultKind } from './fault-kinds';
export { checkedItemLine } from './text';
export type { CheckContext, CheckPass } from './workspace';
export type {
  CheckedItem,
  CheckFault,
  CheckOptions,
  CheckReport,
  ItemKind,
  Shard,
  TrustedKeySource,
} from './workspace';
export { checkReportFromJson, checkReportJson, mergeShardReports } from './json';
export type { CheckReportJson, ShardPart } from './json';
export { emptyFindings } from './empty';
export { exportAllReceipts, WorkspaceCas } from './export-receipts';
export type { ExportAllOptions, ExportAllResult, ExportedReceipt } from './export-receipts';
export { parseExpectedHeads } from './heads';
export { writeHtmlReports } from './html-reports';
export type { HtmlReports, HtmlReportsOptions } from './html-reports';
