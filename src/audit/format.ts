import { randomBytes } from 'node:crypto';
import { closeSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import { decodeUtf8, isJsonObject, parse, type JsonValue } from '../canonical';
import { IntegrityError } from '../errors';
import { statIdentity, tailDigest, type CheckpointRecord, type FileIdentity } from '../util/checkpoint';
import { ChainFormatData } from '../util/chain-file';
import type { ChainFormat, TailRepair, Vouched, Walked } from '../util/chain-file';
import { readRange } from '../util/fs';
import { sha256Hex } from '../util/hash';
import { READ_FLAGS } from '../util/nofollow';
import type { RollbackFault } from '../util/rollback';
import { parsesAsJson } from '../journal/json-syntax';
import { computeAuditHmac, GENESIS_HMAC, prettySortedOfRead, withoutHmac } from './entry';
import { AUDIT_CHECKPOINT, AUDIT_CHECKPOINT_KIND, AUDIT_LOCK, auditFiles } from './layout';
import { checkpointedAuditTip } from './rollback';
import { archivedSegments, describeAuditFault, verifyAuditLog } from './verify';

/** The chain tip a writer extends: the last entry's hmac, the entries up to it, the newest file holding one. */
export interface AuditTail {
  hmac: string;
  entries: number;
  /** The newest file that holds entries (appends never go to an earlier day than it). */
  file?: string;
}

/** What an audit writer knows: every segment (live day files and `archive/…` days) with its identity, and the tip. */
export interface AuditState {
  files: [string, FileIdentity][];
  tail: AuditTail;
}

/**
 * The audit log's rules for the chain-file writer (src/util/chain-file.ts).
 * The chain runs through several files (the archived days, then one file per
 * UTC day), so its identity is the directory's with every segment's name and
 * identity folded in (an archived or live day edited, added or removed is a
 * change like any other: docs/journal.md, "Checkpoints"). Its checkpoint is
 * keyed with the audit key itself (domain-separated in src/util/checkpoint.ts),
 * so whoever verifies the log can check it.
 */
export class AuditFormat extends ChainFormatData implements ChainFormat<AuditState> {
  constructor(
    target: string,
    readonly key: Uint8Array,
  ) {
    super(AUDIT_CHECKPOINT_KIND, 'entries', target, path.join(target, AUDIT_CHECKPOINT), {
      pauseName: 'audit',
      lockFile: path.join(target, AUDIT_LOCK),
    });
  }

  empty(): AuditState {
    return { files: [], tail: { hmac: GENESIS_HMAC, entries: 0 } };
  }

  identity(): FileIdentity {
    const names = segmentNames(this.target);
    return listingIdentity(this.target, identities(this.target, names));
  }

  restore(s: Record<string, unknown>): AuditState | undefined {
    // The identity matched: every segment is as the checkpoint lists it. What is left: its shape and the tail.
    if (!Array.isArray(s.files) || typeof s.hmac !== 'string') return undefined;
    // A checkpoint without the entry count (an earlier release's) is walked once, so the next one has it.
    if (typeof s.entries !== 'number' || !Number.isSafeInteger(s.entries)) return undefined;
    const files: [string, FileIdentity][] = [];
    for (const r of s.files as unknown[]) {
      if (!Array.isArray(r) || typeof r[0] !== 'string' || typeof r[1] !== 'object' || r[1] === null) return undefined;
      files.push([r[0], r[1] as FileIdentity]);
    }
    const tail: AuditTail = { hmac: s.hmac, entries: s.entries };
    if (typeof s.file === 'string') {
      const at = files.find(([n]) => n === s.file);
      if (at === undefined || typeof s.tail_sha256 !== 'string') return undefined;
      tail.file = path.join(this.target, s.file);
      try {
        if (tailDigest(tail.file, Number(at[1].size)) !== s.tail_sha256) return undefined;
      } catch {
        return undefined;
      }
    }
    return { files, tail };
  }

  record(state: AuditState): Record<string, unknown> | undefined {
    const { files, tail } = state;
    let tailSha: string | null = null;
    if (tail.file !== undefined) {
      const id = files.find(([n]) => n === path.basename(tail.file!))?.[1];
      if (id === undefined) return undefined;
      try {
        tailSha = tailDigest(tail.file, Number(id.size));
      } catch {
        return undefined;
      }
    }
    return {
      files,
      hmac: tail.hmac,
      entries: tail.entries,
      file: tail.file === undefined ? null : path.basename(tail.file),
      tail_sha256: tailSha,
    };
  }

  /**
   * The full walk, fail-closed: bytes after a file's last newline that do not
   * parse as JSON (a writer killed mid-write) are a torn tail, to be moved aside
   * to `<day>.jsonl.torn-<unix ms>` and cut off so the next entry starts a clean
   * line; anything there that parses must be a valid entry (its newline is then
   * finished), else the log is refused. The last entry (empty lines skipped, as
   * `audit verify` skips them) must be canonical and carry a valid HMAC under
   * this key, and the whole chain, archived days included and read as the
   * repairs will leave it, must verify, else the log is not extended (`audit
   * verify` says why). The tip is the last entry walked, in an archived day when
   * no live file holds one.
   */
  walk(priors: readonly Vouched[]): Walked<AuditState> {
    const dir = this.target;
    const files = identities(dir, segmentNames(dir)) ?? [];
    const { repairs, tailFile } = this.tailOfLog();
    const repaired = new Map<string, number>();
    for (const r of repairs) repaired.set(path.basename(r.file), 'finishAt' in r ? r.finishAt : r.tornFrom);
    const verify = (hashAt?: number) =>
      verifyAuditLog(dir, this.key, { repaired, ...(hashAt === undefined ? {} : { hashAt }) });
    const wanted = priors.at(-1);
    const whole = verify(wanted === undefined ? undefined : wanted.steps - 1);
    // A log with no entries yet is where a new chain starts (`audit verify` is where an emptied log is reported).
    const bad = whole.errors.find((f) => f.kind !== 'no_audit_log' && f.kind !== 'empty_audit_log');
    if (bad !== undefined) refuse(describeAuditFault(dir, bad));
    const tail: AuditTail = { hmac: whole.head_hmac, entries: whole.entries };
    if (tailFile !== undefined) tail.file = tailFile;
    return {
      state: { files, tail },
      steps: whole.entries,
      repairs,
      headAt: (v) => (v === wanted ? whole.hash_at : verify(v.steps - 1).hash_at),
    };
  }

  /**
   * From the newest live file back: the repairs its end needs, and the file
   * whose last entry is the tip (its HMAC checked here, to name its line).
   */
  private tailOfLog(): { repairs: TailRepair[]; tailFile?: string } {
    const repairs: TailRepair[] = [];
    const live = auditFiles(this.target);
    for (let i = live.length - 1; i >= 0; i--) {
      const file = path.join(this.target, live[i]!);
      let size = statSync(file).size;
      if (size === 0) continue;
      const last = lastLine(file, size);
      if (!last.terminated) {
        const r = this.judgeUnterminated(file, size, last);
        repairs.push(r);
        if ('tornFrom' in r) size = r.tornFrom;
      }
      const end = lastContentEnd(file, size);
      if (end === 0) continue; // only empty lines: the tip is in an earlier file
      const entryLine = lastLine(file, end);
      const entry = checkTailEntry(entryLine.bytes, this.key);
      if (!entry.ok) refuse(`${file}:${lineNumberAt(file, entryLine.start)}: ${entry.why}`);
      return { repairs, tailFile: file };
    }
    return { repairs };
  }

  /**
   * The bytes after the last newline: a valid entry whose newline never made
   * it is to be finished; bytes that do not parse as JSON at all (a write cut
   * short, NUL padding) are a torn tail; anything else that parses is a tamper
   * and refuses the log.
   */
  private judgeUnterminated(file: string, size: number, fragment: { start: number; bytes: Buffer }): TailRepair {
    const check = checkTailEntry(fragment.bytes, this.key);
    // The writer died between the entry and its newline: finish the line.
    if (check.ok) return { file, finishAt: size };
    if (parsesAsJson(fragment.bytes))
      refuse(`${file}:${lineNumberAt(file, fragment.start)}: ${check.why} (it parses as JSON, so it is no torn write)`);
    return { file, tornFrom: fragment.start, size };
  }

  vouchedBy(state: AuditState): Vouched {
    const { files, tail } = state;
    return {
      steps: tail.entries,
      head: tail.hmac,
      endIn: (file) => Number(files.find(([n]) => n === path.basename(file))?.[1].size ?? 0),
    };
  }

  vouchedIn(record: CheckpointRecord): Vouched | undefined {
    const tip = checkpointedAuditTip(record);
    if (tip === undefined) return undefined;
    return {
      steps: tip.steps,
      head: tip.head,
      endIn: (file) => checkpointedAuditTip(record, path.basename(file))!.end,
    };
  }

  rollbackError(f: RollbackFault, file?: string): Error {
    return new IntegrityError(
      `${file ?? this.target}: rollback: ${f.message}; refusing to extend the audit log (run \`stepchain audit verify\`; ` +
        `restore the log from a copy)`,
    );
  }

  fileIdentity(state: AuditState, file: string): FileIdentity | undefined {
    return state.files.find(([n]) => n === path.basename(file))?.[1];
  }

  /** The state after `line` went to `file` (whose identity is now `after`), and the log's identity then. */
  appended(
    state: AuditState,
    file: string,
    hmac: string,
    after: FileIdentity,
  ): { state: AuditState; id: FileIdentity } {
    const name = path.basename(file);
    const files = state.files.filter(([n]) => n !== name);
    files.push([name, after]);
    files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      state: { files, tail: { hmac, file, entries: state.tail.entries + 1 } },
      id: listingIdentity(this.target, files),
    };
  }
}

function refuse(why: string): never {
  throw new IntegrityError(`${why}; refusing to extend the audit log (run \`stepchain audit verify\`)`);
}

/** Every segment the chain runs through, in name order: the archived days (`archive/<day>.jsonl.gz`) and the live files. */
function segmentNames(dir: string): string[] {
  return [...archivedSegments(dir).map((a) => a.name), ...auditFiles(dir)].sort();
}

/**
 * The log's identity: the directory's device and inode, the count of its
 * segments, and a digest of every segment's name and identity (`files`
 * undefined: one vanished or could not be looked at, and the identity matches
 * nothing, so nothing is vouched for).
 */
function listingIdentity(dir: string, files: [string, FileIdentity][] | undefined): FileIdentity {
  const st = statSync(dir, { bigint: true });
  return {
    dev: String(st.dev),
    ino: String(st.ino),
    size: String(files?.length ?? -1),
    ctime_ns:
      files === undefined
        ? `unstable-${randomBytes(16).toString('hex')}`
        : sha256Hex(Buffer.from(JSON.stringify(files), 'utf8')),
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
