import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  CanonicalEncodeError,
  decodeUtf8,
  encode,
  isJsonObject,
  parse,
  type JsonObject,
  type JsonValue,
} from '../canonical';
import { InputError, IntegrityError, StepchainError } from '../errors';
import { appendDurably, finishLastLine, moveTornTailAside } from '../util/fs';
import { acquireLock } from '../util/lock';
import {
  auditTimestamp,
  computeAuditHmac,
  GENESIS_HMAC,
  nowMicros,
  prettySortedOfRead,
  withoutHmac,
  type AuditEntry,
  type AuditFields,
} from './entry';
import { loadAuditKey, resolveAuditKeyPath } from './key';
import { AUDIT_LOCK, auditDir, auditFiles, dayFileName } from './layout';

export interface AppendAuditOptions {
  /** The instant (unix microseconds) to stamp; default now. Tests use it to cross days. */
  nowMicros?: number;
  /** fsync each entry (default true). */
  durable?: boolean;
  lockTimeoutMs?: number;
}

/** `STEPCHAIN_AUDIT=off` (or 0/false/no) turns audit logging off. */
export function auditEnabled(env: NodeJS.ProcessEnv): boolean {
  const v = (env.STEPCHAIN_AUDIT ?? '').trim().toLowerCase();
  return !(v === 'off' || v === '0' || v === 'false' || v === 'no');
}

interface Tail {
  hmac: string;
  /** The newest file that holds entries (appends never go to an earlier day than it). */
  file?: string;
}

/**
 * Under the lock: the chain tip. Walks files newest first to the last entry.
 * A torn final line (a writer killed mid-write) is moved aside to
 * `<day>.jsonl.torn-<unix ms>` and cut off, so the next entry starts a clean
 * line; the last entry must be canonical and carry a valid HMAC under this key,
 * else the log is not extended (fail-closed: `audit verify` says why).
 */
function recoverTail(dir: string, key: Uint8Array, durable: boolean): Tail {
  const files = auditFiles(dir);
  for (let i = files.length - 1; i >= 0; i--) {
    const file = path.join(dir, files[i]!);
    let buf: Buffer = readFileSync(file);
    if (buf.length > 0 && buf[buf.length - 1] !== 0x0a) buf = repairTorn(file, buf, key, durable);
    if (buf.length === 0) continue;
    const lines = buf
      .subarray(0, buf.length - 1)
      .toString('latin1')
      .split('\n');
    const lineNo = lines.length;
    const start = buf.lastIndexOf(0x0a, buf.length - 2) + 1;
    const bytes = buf.subarray(start, buf.length - 1);
    const entry = checkTailEntry(bytes, key);
    if (!entry.ok) {
      throw new IntegrityError(
        `${file}:${lineNo}: ${entry.why}; refusing to extend the audit log (run \`stepchain audit verify\`)`,
      );
    }
    return { hmac: entry.hmac, file };
  }
  return { hmac: GENESIS_HMAC };
}

type TailCheck = { ok: true; hmac: string } | { ok: false; why: string };

/** The tail entry's hmac when it verifies, else why not. */
function checkTailEntry(bytes: Buffer, key: Uint8Array): TailCheck {
  const no = (why: string): TailCheck => ({ ok: false, why });
  let value: JsonValue;
  let text: string;
  try {
    text = decodeUtf8(bytes);
    value = parse(text);
  } catch (e) {
    return no(`last entry is not JSON (${(e as Error).message})`);
  }
  if (!isJsonObject(value)) return no('last entry is not a JSON object');
  if (prettySortedOfRead(value) !== text) return no('last entry has non-canonical line bytes');
  const stored = value.hmac;
  const prev = value.prev_hmac;
  if (typeof stored !== 'string' || typeof prev !== 'string') return no('last entry has no hmac or prev_hmac');
  if (computeAuditHmac(key, prev, withoutHmac(value)) !== stored)
    return no('last entry HMAC does not verify under this key');
  return { ok: true, hmac: stored };
}

/** Moves bytes after the last newline aside and truncates them (or finishes a complete, valid last line). */
function repairTorn(file: string, buf: Buffer, key: Uint8Array, durable: boolean): Buffer {
  const cut = buf.lastIndexOf(0x0a) + 1;
  const fragment = buf.subarray(cut);
  if (checkTailEntry(fragment, key).ok) {
    // The writer died between the entry and its newline: finish the line.
    finishLastLine(file, buf.length, durable);
    return Buffer.concat([buf, Buffer.from('\n')]);
  }
  moveTornTailAside(file, cut, durable, 0o600);
  return buf.subarray(0, cut);
}

function checkText(name: string, v: unknown): string {
  if (typeof v !== 'string') throw new InputError(`audit: ${name} must be a string`);
  return v;
}

/**
 * Appends one event to the HMAC chain in `dir` with `key`: takes the log's lock,
 * re-reads the tip inside it (so concurrent writers, threads or processes, keep
 * one unbroken chain), writes `pretty_sorted(entry)` + `\n` with one write to the
 * UTC day's file, and fsyncs it. Returns the entry written.
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
  const details: JsonObject = fields.details ?? {};
  if (!isJsonObject(details)) throw new InputError('audit: details must be a JSON object');
  const durable = options.durable ?? true;
  mkdirSync(dir, { recursive: true });
  const release = acquireLock(
    path.join(dir, AUDIT_LOCK),
    options.lockTimeoutMs === undefined ? {} : { timeoutMs: options.lockTimeoutMs },
  );
  try {
    const tail = recoverTail(dir, key, durable);
    const micros = options.nowMicros ?? nowMicros();
    let file = path.join(dir, dayFileName(micros));
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
      hmac = computeAuditHmac(key, tail.hmac, entry);
      line = encode({ ...entry, hmac }, { separators: 'pretty' });
    } catch (e) {
      if (e instanceof CanonicalEncodeError) throw new InputError(`audit: details: ${e.message}`);
      throw e;
    }
    appendDurably(file, Buffer.from(`${line}\n`, 'utf8'), durable);
    return { ...(entry as Omit<AuditEntry, 'hmac'>), hmac };
  } finally {
    release();
  }
}

export interface AuditEventOptions {
  /** The environment: STEPCHAIN_AUDIT, STEPCHAIN_AUDIT_KEY_PATH, XDG_STATE_HOME, HOME. */
  env: NodeJS.ProcessEnv;
  /** An explicit key file (wins over the environment). */
  keyPath?: string;
  /** The audit directory (default `<root>/.sdd/audit`). */
  dir?: string;
  nowMicros?: number;
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
    appendAuditEvent(
      options.dir ?? auditDir(root),
      key.bytes,
      eventType,
      fields,
      options.nowMicros === undefined ? {} : { nowMicros: options.nowMicros },
    );
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
