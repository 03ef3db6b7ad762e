import path from 'node:path';
import { CanonicalEncodeError, encode, isJsonObject, readOnce, type JsonObject, type JsonValue } from '../canonical';
import { InputError, StepchainError } from '../errors';
import { ChainFile, type Planned, type TornTailMoved, tornTailOption } from '../util/chain-file';
import { ensureDir } from '../util/fs';
import { auditTimestamp, computeAuditHmac, nowMicros, type AuditEntry, type AuditFields } from './entry';
import { AuditFormat, type AuditState } from './format';
import { loadAuditKey, resolveAuditKeyPath } from './key';
import { AUDIT_CHECKPOINT, auditDir, dayFileName } from './layout';

export interface AppendAuditOptions {
  /** The instant (unix microseconds) to stamp; default now. Tests use it to cross days. */
  nowMicros?: number;
  /** fsync each entry (default true). */
  durable?: boolean;
  lockTimeoutMs?: number;
  /**
   * The environment for the lock timeout, pause points and where the checkpoint's mirror is kept (default
   * process.env): the caller's, as every other writer takes it.
   */
  env?: NodeJS.ProcessEnv;
  /** Told whenever a torn tail is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
}

export { AUDIT_CHECKPOINT };

/** `STEPCHAIN_AUDIT=off` (or 0/false/no) turns audit logging off. */
export function auditEnabled(env: NodeJS.ProcessEnv): boolean {
  const v = (env.STEPCHAIN_AUDIT ?? '').trim().toLowerCase();
  return !(v === 'off' || v === '0' || v === 'false' || v === 'no');
}

function checkText(name: string, v: unknown): string {
  if (typeof v !== 'string') throw new InputError(`audit: ${name} must be a string`);
  return v;
}

/** An `auditEvent`'s options from a writer's own: its environment, its key file and its notice, where given. */
export function auditOptions(
  env: NodeJS.ProcessEnv,
  keyPath: string | undefined,
  onTornTail: ((m: TornTailMoved) => void) | undefined,
): AuditEventOptions {
  return {
    env,
    ...(keyPath === undefined ? {} : { keyPath }),
    ...tornTailOption({ onTornTail }),
  };
}

/**
 * Appends one event to the HMAC chain in `dir` with `key`, through the
 * chain-file writer (src/util/chain-file.ts): takes the log's lock,
 * establishes the tip inside it (from the checkpoint when every segment is
 * exactly as the last writer left it, else the full walk: src/audit/format.ts),
 * so concurrent writers, threads or processes, keep one unbroken chain; writes
 * `pretty_sorted(entry)` + `\n` with one write to the UTC day's file, and
 * fsyncs it. Returns the entry written.
 */
export function appendAuditEvent(
  dir: string,
  key: Uint8Array,
  eventType: string,
  fields: AuditFields,
  options: AppendAuditOptions = {},
): AuditEntry {
  checkText('event_type', eventType);
  if (eventType === '') throw new InputError('audit: event_type is empty');
  const details = auditDetails(fields.details);
  ensureDir(dir);
  const format = new AuditFormat(dir, key);
  const chain = new ChainFile(format, {
    durable: options.durable ?? true,
    env: options.env ?? process.env,
    key,
    ...(options.lockTimeoutMs === undefined ? {} : { lockTimeoutMs: options.lockTimeoutMs }),
    ...tornTailOption(options),
  });
  return chain.append((state) => planEntry(format, state, eventType, fields, details, options)).result!;
}

/** The details as they will be HMAC'ed and written: read once (readOnce), so the line is what its HMAC covers. */
function auditDetails(given: JsonObject | undefined): JsonObject {
  const object = given ?? {};
  if (!isJsonObject(object)) throw new InputError('audit: details must be a JSON object');
  let details: JsonValue;
  try {
    details = readOnce(object);
  } catch (e) {
    if (e instanceof CanonicalEncodeError) throw new InputError(`audit: details: ${e.message}`);
    throw e;
  }
  if (!isJsonObject(details)) throw new InputError('audit: details must be a JSON object');
  return details;
}

/** The entry that extends the tip of `state`, the day file it goes to, and the state after it. */
function planEntry(
  format: AuditFormat,
  state: AuditState,
  eventType: string,
  fields: AuditFields,
  details: JsonObject,
  options: AppendAuditOptions,
): Planned<AuditState, AuditEntry> {
  const { tail } = state;
  const micros = options.nowMicros ?? nowMicros();
  let file = path.join(format.target, dayFileName(micros));
  // A clock that went back a day must not put the entry before the chain tip's file.
  if (tail.file !== undefined && path.basename(tail.file) > path.basename(file)) file = tail.file;
  const entry: JsonObject = {
    timestamp: auditTimestamp(micros),
    event_type: eventType,
    actor: checkText('actor', fields.actor),
    resource_type: checkText('resource_type', fields.resource_type),
    resource_id: checkText('resource_id', fields.resource_id),
    details,
    prev_hmac: tail.hmac,
  };
  let hmac: string;
  let line: string;
  try {
    hmac = computeAuditHmac(format.key, tail.hmac, entry);
    line = encode({ ...entry, hmac }, { separators: 'pretty' });
  } catch (e) {
    if (e instanceof CanonicalEncodeError) throw new InputError(`audit: details: ${e.message}`);
    throw e;
  }
  return {
    file,
    data: Buffer.from(`${line}\n`, 'utf8'),
    result: { ...(entry as Omit<AuditEntry, 'hmac'>), hmac },
    next: (after) => format.appended(state, file, hmac, after),
  };
}

export interface AuditEventOptions {
  /** The environment: STEPCHAIN_AUDIT, STEPCHAIN_AUDIT_KEY_PATH, XDG_STATE_HOME, HOME. */
  env: NodeJS.ProcessEnv;
  /** An explicit key file (wins over the environment). */
  keyPath?: string;
  /** The audit directory (default `<root>/.sdd/audit`). */
  dir?: string;
  nowMicros?: number;
  /** Told whenever a torn tail of the audit log is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
}

/**
 * Best-effort audit hook for library operations: appends one event to
 * `<root>/.sdd/audit/`, creating the key on first use. Never throws: returns
 * undefined when written (or when `STEPCHAIN_AUDIT=off`), else a one-line
 * warning for the caller to report. The operation it records is never undone.
 */
export function auditEvent(
  root: string,
  eventType: string,
  fields: AuditFields,
  options: AuditEventOptions,
): string | undefined {
  if (!auditEnabled(options.env)) return undefined;
  try {
    const key = loadAuditKey(resolveAuditKeyPath(options.env, options.keyPath), { create: true });
    appendAuditEvent(options.dir ?? auditDir(root), key.bytes, eventType, fields, {
      env: options.env,
      ...(options.nowMicros === undefined ? {} : { nowMicros: options.nowMicros }),
      ...tornTailOption(options),
    });
    return undefined;
  } catch (e) {
    const why = e instanceof StepchainError ? e.message : `${(e as Error)?.message ?? String(e)}`;
    return `the audit chain was NOT extended (event ${eventType} not written): ${why}`;
  }
}

/** Who acts, for events an operator triggers: STEPCHAIN_ACTOR, else the login name, else "stepchain". */
export function operatorActor(env: NodeJS.ProcessEnv): string {
  return env.STEPCHAIN_ACTOR || env.USER || env.LOGNAME || 'stepchain';
}
