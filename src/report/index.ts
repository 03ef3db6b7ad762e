export {
  checkOverwrite as refuseReportOverwrite,
  describeReportFault,
  renderReport,
  writeReport,
  DEFAULT_MAX_BLOB_BYTES,
  DEFAULT_MAX_TOTAL_BLOB_BYTES,
  DEFAULT_WARN_BYTES,
  DEFAULT_WARN_STEPS,
} from './report';
export type { RenderedReport, ReportOptions, ReportResult } from './report';
export { loadReportSource } from './source';
export type { LoadSourceOptions, ReportBlobSource, ReportFault, ReportKeyless, ReportSource } from './source';
export type {
  ReportData,
  ReportForkNode,
  ReportBlob,
  ReportReceiptInfo,
  ReportPublicKey,
  ReportWindow,
} from './client/data';
export { buildPage, buildUnreadPage, pageScript } from './page';
export { forkTreeOf, reportForkTree } from './forks';
