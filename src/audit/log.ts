import { closeSync, openSync, statSync } from 'node:fs';
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
import {
  identityOf,
  readCheckpoint,
  sameIdentity,
  statIdentity,
  tailDigest,
  writeCheckpoint,
  type CheckpointRecord,
  type FileIdentity,
} from '../util/checkpoint';
import { appendDurably, ensureDir, finishLastLine, moveTornTailAside, readRange } from '../util/fs';
import { sha256Hex } from '../util/hash';
import { acquireLock } from '../util/lock';
import { pausePoint } from '../util/pause';
import {
  auditTimestamp,
  computeAuditHmac,
  nowMicros,
  prettySortedOfRead,
  withoutHmac,
  type AuditEntry,
  type AuditFields,
} from './entry';
import { loadAuditKey, resolveAuditKeyPath } from './key';
import { AUDIT_CHECKPOINT, AUDIT_CHECKPOINT_KIND, AUDIT_LOCK, auditDir, auditFiles, dayFileName } from './layout';
import { archivedSegments, describeAuditFault, verifyAuditLog } from './verify';
import { auditRollback, auditTornRollback, checkpointedAuditTip, priorAuditCheckpoint } from './rollback';
import type { RollbackFault } from '../util/rollback';
import { parsesAsJson } from '../journal/json-syntax';
import { READ_FLAGS } from '../util/nofollow';

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
  /** Entries in the whole chain up to this tip (undefined: from a checkpoint that did not count them). */
  entries?: number;
  /** The newest file that holds entries (appends never go to an earlier day than it). */
  file?: string;
}

export { AUDIT_CHECKPOINT };
const CHECKPOINT_KIND = AUDIT_CHECKPOINT_KIND;

interface AuditCheckpoint {
  /** Every segment (live day files and `archive/…` days) with its identity, in name order. */
  files: [string, FileIdentity][];
  tail: Tail;
  /** Whether the state may be vouched for after this append (nothing else changed the log meanwhile). */
  trusted: boolean;
}

/**
 * Every segment the chain runs through, as the checkpoint names them: the
 * archived days (`archive/<day>.jsonl.gz`, read first by `audit verify`) and
 * the live `*.jsonl` files. An archived day edited, added or removed is a
 * change like any other (docs/journal.md, "Checkpoints").
 */
function segmentNames(dir: string): string[] {
  return [...archivedSegments(dir).map((a) => a.name), ...auditFiles(dir)].sort();
}

/**
 * What the checkpoint is bound to for the log as a whole: the directory
 * (device, inode) and its segments' names (count, digest of the names; a
 * file added or removed is a change). Each segment's own identity is listed
 * inside. The log's checkpoint is keyed with the audit key itself
 * (domain-separated in src/util/checkpoint.ts).
 */
function listingIdentity(dir: string, files: string[]): FileIdentity {
  const st = statSync(dir, { bigint: true });
  return {
    dev: String(st.dev),
    ino: String(st.ino),
    size: String(files.length),
    ctime_ns: sha256Hex(Buffer.from(files.join('\n'))),
  };
}

/** The identity of every segment now (undefined when one vanished or cannot be looked at). */
function identities(dir: string, names: string[]): [string, FileIdentity][] | undefined {
  const out: [string, FileIdentity][] = [];
  for (const name of names) {
    let id: FileIdentity | undefined;
    try {
      id = statIdentity(path.join(dir, name));
    } catch {
      return undefined;
    }
    if (id === undefined) return undefined;
    out.push([name, id]);
  }
  return out;
}

/** The chain tip as the checkpoint records it, when every segment is exactly as it was then. */
function fromCheckpoint(dir: string, names: string[], key: Uint8Array): AuditCheckpoint | undefined {
  let listing: FileIdentity;
  try {
    listing = listingIdentity(dir, names);
  } catch {
    return undefined;
  }
  const s = readCheckpoint(path.join(dir, AUDIT_CHECKPOINT), CHECKPOINT_KIND, listing, key);
  if (s === undefined || !Array.isArray(s.files) || typeof s.hmac !== 'string') return undefined;
  const recorded = s.files as unknown[];
  if (recorded.length !== names.length) return undefined;
  const out = identities(dir, names);
  if (out === undefined) return undefined;
  for (let i = 0; i < names.length; i++) {
    const r = recorded[i];
    if (!Array.isArray(r) || r[0] !== names[i] || typeof r[1] !== 'object' || r[1] === null) return undefined;
    if (!sameIdentity(out[i]![1], r[1] as FileIdentity)) return undefined;
  }
  const tailFile = typeof s.file === 'string' ? s.file : undefined;
  if (tailFile !== undefined) {
    const at = out.find(([n]) => n === tailFile);
    if (at === undefined || typeof s.tail_sha256 !== 'string') return undefined;
    try {
      if (tailDigest(path.join(dir, tailFile), Number(at[1].size)) !== s.tail_sha256) return undefined;
    } catch {
      return undefined;
    }
  }
  // A checkpoint without the entry count (an earlier release's) is walked once, so the next one has it (the rollback rule needs it).
  if (typeof s.entries !== 'number' || !Number.isSafeInteger(s.entries)) return undefined;
  const entries = { entries: s.entries };
  return {
    files: out,
    tail:
      tailFile === undefined
        ? { hmac: s.hmac, ...entries }
        : { hmac: s.hmac, ...entries, file: path.join(dir, tailFile) },
    trusted: true,
  };
}

function saveCheckpoint(dir: string, key: Uint8Array, files: [string, FileIdentity][], tail: Tail): void {
  const names = files.map(([n]) => n);
  let listing: FileIdentity;
  let tailSha: string | null = null;
  try {
    listing = listingIdentity(dir, names);
    if (tail.file !== undefined) {
      const id = files.find(([n]) => n === path.basename(tail.file!))?.[1];
      if (id === undefined) return;
      tailSha = tailDigest(tail.file, Number(id.size));
    }
  } catch {
    return;
  }
  writeCheckpoint(
    path.join(dir, AUDIT_CHECKPOINT),
    CHECKPOINT_KIND,
    dir,
    listing,
    {
      files,
      hmac: tail.hmac,
      entries: tail.entries ?? null,
      file: tail.file === undefined ? null : path.basename(tail.file),
      tail_sha256: tailSha,
    },
    key,
  );
}

/** The last line of a file (without its newline) and where it starts, reading backwards from the end. */
function lastLine(file: string, size: number): { start: number; bytes: Buffer; terminated: boolean } {
  const fd = openSync(file, READ_FLAGS);
  try {
    const terminated = size > 0 && readRange(fd, size - 1, 1)[0] === 0x0a;
    const end = terminated ? size - 1 : size;
    const parts: Buffer[] = [];
    let pos = end;
    while (pos > 0) {
      const from = Math.max(0, pos - 65536);
      const chunk = readRange(fd, from, pos - from);
      const nl = chunk.lastIndexOf(0x0a);
      if (nl >= 0) {
        parts.unshift(chunk.subarray(nl + 1));
        pos = from + nl + 1;
        break;
      }
      parts.unshift(chunk);
      pos = from;
    }
    return { start: pos, bytes: Buffer.concat(parts), terminated };
  } finally {
    closeSync(fd);
  }
}

/** The 1-based number of the line starting at byte `at` (newlines before it, plus one), counted in chunks. */
function lineNumberAt(file: string, at: number): number {
  const fd = openSync(file, READ_FLAGS);
  try {
    let n = 1;
    for (let pos = 0; pos < at;) {
      const chunk = readRange(fd, pos, Math.min(1 << 20, at - pos));
      if (chunk.length === 0) break;
      for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) n++;
      pos += chunk.length;
    }
    return n;
  } finally {
    closeSync(fd);
  }
}

/** Where the content of a file's last non-empty line ends (0: none), reading backwards from `end`. */
function lastContentEnd(file: string, end: number): number {
  const fd = openSync(file, READ_FLAGS);
  try {
    for (let pos = end; pos > 0;) {
      const from = Math.max(0, pos - 65536);
      const chunk = readRange(fd, from, pos - from);
      for (let i = chunk.length - 1; i >= 0; i--) if (chunk[i] !== 0x0a) return from + i + 1;
      pos = from;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

/**
 * Under the lock: the chain tip. From the checkpoint when every segment is
 * exactly as the last writer left it (O(1) in the log's length); else the
 * full walk, fail-closed: bytes after the last newline that do not parse as
 * JSON (a writer killed mid-write) are moved aside to `<day>.jsonl.torn-<unix
 * ms>` and cut off, so the next entry starts a clean line; anything there that
 * parses must be a valid entry (its newline is then finished), else the log
 * is refused. The last entry (empty lines skipped, as `audit verify` skips
 * them) must be canonical and carry a valid HMAC under this key, and the
 * whole chain, archived days included, must verify, else the log is not
 * extended (`audit verify` says why). The tip is the last entry walked, in an
 * archived day when no live file holds one.
 */
function recoverTail(dir: string, key: Uint8Array, durable: boolean): AuditCheckpoint {
  const names = segmentNames(dir);
  const known = fromCheckpoint(dir, names, key);
  if (known !== undefined) return known;
  const files = auditFiles(dir);
  const before = identities(dir, names);
  // Rollback is tampering (docs/journal.md, "Rollback"): judged against the last checkpoint, whatever the log is now.
  const prior = priorAuditCheckpoint(dir, key);
  const record = prior !== undefined && 'record' in prior ? prior.record : undefined;
  let repaired = false;
  let tailFile: string | undefined;
  for (let i = files.length - 1; i >= 0; i--) {
    const file = path.join(dir, files[i]!);
    let size = statSync(file).size;
    if (size === 0) continue;
    const last = lastLine(file, size);
    if (!last.terminated) {
      size = repairTorn(file, size, last, key, durable, record);
      repaired = true;
    }
    const end = lastContentEnd(file, size);
    if (end === 0) continue; // only empty lines: the tip is in an earlier file
    const entryLine = lastLine(file, end);
    const entry = checkTailEntry(entryLine.bytes, key);
    if (!entry.ok) {
      throw new IntegrityError(
        `${file}:${lineNumberAt(file, entryLine.start)}: ${entry.why}; refusing to extend the audit log (run \`stepchain audit verify\`)`,
      );
    }
    tailFile = file;
    break;
  }
  const ck = record === undefined ? undefined : checkpointedAuditTip(record);
  const whole = verifyAuditLog(dir, key, ck === undefined ? {} : { hashAt: ck.steps - 1 });
  // A log with no entries yet is where a new chain starts (`audit verify` is where an emptied log is reported).
  const bad = whole.errors.find((f) => f.kind !== 'no_audit_log' && f.kind !== 'empty_audit_log');
  if (bad !== undefined) {
    throw new IntegrityError(
      `${describeAuditFault(dir, bad)}; refusing to extend the audit log (run \`stepchain audit verify\`)`,
    );
  }
  // A chain that holds, but less than the checkpoint recorded: rolled back (a fault on a line is named first, above).
  const rolledBack = ck === undefined ? undefined : auditRollback(ck, whole);
  if (rolledBack !== undefined) refuseRollback(dir, rolledBack);
  // The whole chain verified: its tip is the last entry walked (in an archived day when no live file has one).
  const tail: Tail =
    tailFile === undefined
      ? { hmac: whole.head_hmac, entries: whole.entries }
      : { hmac: whole.head_hmac, entries: whole.entries, file: tailFile };
  const ids = identities(dir, names) ?? [];
  // Vouched for only if nothing changed the log while it was walked (a repaired file is walked again next time).
  const trusted =
    !repaired &&
    before !== undefined &&
    before.length === ids.length &&
    before.every(([n, id], k) => ids[k]![0] === n && sameIdentity(ids[k]![1], id));
  if (trusted) saveCheckpoint(dir, key, ids, tail);
  return { files: ids, tail, trusted };
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

/**
 * The bytes after the last newline: a valid entry whose newline never made it
 * is finished; bytes that do not parse as JSON at all (a write cut short, NUL
 * padding) are moved aside and cut off; anything else that parses is a tamper
 * and refuses the log. Returns the new size.
 */
function repairTorn(
  file: string,
  size: number,
  fragment: { start: number; bytes: Buffer },
  key: Uint8Array,
  durable: boolean,
  record: CheckpointRecord | undefined,
): number {
  const check = checkTailEntry(fragment.bytes, key);
  if (check.ok) {
    // The writer died between the entry and its newline: finish the line.
    finishLastLine(file, size, durable);
    return size + 1;
  }
  if (parsesAsJson(fragment.bytes)) {
    throw new IntegrityError(
      `${file}:${lineNumberAt(file, fragment.start)}: ${check.why} (it parses as JSON, so it is no torn write); refusing to extend the audit log (run \`stepchain audit verify\`)`,
    );
  }
  // Bytes the checkpoint vouched for are no torn write: the entry there was cut or edited.
  const vouched = record === undefined ? undefined : auditTornRollback(record, path.basename(file), fragment.start);
  if (vouched !== undefined) refuseRollback(file, vouched);
  moveTornTailAside(file, fragment.start, durable, 0o600);
  return fragment.start;
}

function refuseRollback(where: string, f: RollbackFault): never {
  throw new IntegrityError(
    `${where}: rollback: ${f.message}; refusing to extend the audit log (run \`stepchain audit verify\`; restore the ` +
      `log from a copy)`,
  );
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
  ensureDir(dir);
  const lock = acquireLock(
    path.join(dir, AUDIT_LOCK),
    options.lockTimeoutMs === undefined ? {} : { timeoutMs: options.lockTimeoutMs },
  );
  try {
    const known = recoverTail(dir, key, durable);
    const tail = known.tail;
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
    lock.refresh();
    lock.assertHeld();
    const name = path.basename(file);
    const expect = known.trusted ? (known.files.find(([n]) => n === name)?.[1] ?? 'new') : undefined;
    const { after, untouched } = appendDurably(file, Buffer.from(`${line}\n`, 'utf8'), durable, expect);
    pausePoint('audit:after-write');
    const files = known.files.filter(([n]) => n !== name);
    files.push([name, identityOf(after)]);
    files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const entries = tail.entries === undefined ? {} : { entries: tail.entries + 1 };
    // Only a log nothing else touched while we verified and wrote it is vouched for (docs/journal.md, "Checkpoints").
    if (untouched) saveCheckpoint(dir, key, files, { hmac, file, ...entries });
    return { ...(entry as Omit<AuditEntry, 'hmac'>), hmac };
  } finally {
    lock();
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
