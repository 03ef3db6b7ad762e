export { AUDIT_EVENT_TYPES, auditTimestamp, computeAuditHmac, GENESIS_HMAC, nowMicros } from './entry';
export type { AuditEntry, AuditEventType, AuditFields } from './entry';
export { loadAuditKey, resolveAuditKeyPath } from './key';
export type { AuditKey } from './key';
export { auditDir, auditFiles, dayFileName } from './layout';
export { appendAuditEvent, auditEnabled, auditEvent, auditOptions, operatorActor } from './log';
export type { AppendAuditOptions, AuditEventOptions } from './log';
export {
  archivedSegments,
  describeAuditFault,
  describeAuditFaults,
  MAX_ARCHIVED_SEGMENT_BYTES,
  readArchivedSegment,
  readAuditLines,
  verifyAuditLog,
} from './verify';
export type { ArchivedSegment, AuditFault, AuditFaultKind, AuditLine, AuditVerifyResult } from './verify';
export { isoMicros, queryAudit, queryAuditLog, type AuditSkipped } from './query';
export { verifyAuditLogChecked } from './rollback';
export type { AuditMatch, AuditQuery } from './query';
