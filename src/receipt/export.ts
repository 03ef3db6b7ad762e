import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { auditEvent, auditOptions, operatorActor } from '../audit';
import { canonicalOfRead, type JsonObject } from '../canonical';
import { closeSync, unlinkSync } from 'node:fs';
import { InputError, isOsError } from '../errors';
import {
  Cas,
  casDir,
  describeFault,
  projectRootOf,
  readCanonicalJournal,
  rowValue,
  verifyJournalFile,
  type JournalEntry,
  type Fault,
} from '../journal';
import { replacesFile, stageFile, writeAll, writeFileWhole, type StagedFile, type WholeFileOptions } from '../util/fs';
import { pausePoint } from '../util/pause';
import { isSha256Hex, sha256Hex } from '../util/hash';
import type { TornTailMoved } from '../util/chain-file';
import { assertSafeId } from '../util/ids';
import { PRODUCER } from '../version';
import { signBytes, signingKeyWarnings, type SigningKey } from './keys';
import { IntegrityError } from '../errors';
import { createdAtSeconds, encodeManifest, FORMAT_VERSION, formatCreatedAt, type Manifest } from './manifest';
import { TarWriter, writeTar, type TarWriteMember } from './tar-write';
import {
  longLineFaults,
  openJournalForExport,
  ReceiptSink,
  streamable,
  untouchedSince,
  writeBlobMember,
  writeJournalMember,
  type OpenedJournal,
} from './export-file';
import { JOURNAL_MEMBER, MANIFEST_MEMBER, SIGNATURE_MEMBER } from './members';

export interface ReceiptWriteOptions {
  /** The manifest's agent_id (default: the journal directory's name). */
  agentId?: string;
  /** Sign manifest.json with this key (manifest.sig). */
  signKey?: SigningKey;
  /** created_at (default now). */
  now?: Date;
  /** gzip the archive (default: when the output name ends in .gz or .tgz). */
  gzip?: boolean;
  /**
   * false: a file at the output when the receipt is named (written meanwhile by another export) is not replaced: an
   * InputError with `field` 'replace'. Default true (the receipt replaces whatever is there).
   */
  replace?: boolean;
}

/** How a receipt is staged beside its output: fsync'ed, and named without replacing when `replace` is false. */
export function receiptStaging(options: ReceiptWriteOptions): WholeFileOptions {
  return { durable: true, exclusive: options.replace === false };
}

/** Where to mirror a written receipt into the audit chain (docs/format.md §5: replay.export / replay.publish). */
export interface ReceiptAuditOptions {
  /** The project root whose `.sdd/audit/` gets the event. */
  root: string;
  env: NodeJS.ProcessEnv;
  /** Told whenever a torn tail of the audit log is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
}

/** Best-effort audit event for a written receipt: a warning when it could not be written. */
export function auditReceipt(
  audit: ReceiptAuditOptions | undefined,
  eventType: 'replay.export' | 'replay.publish',
  agentId: string,
  details: JsonObject,
): string | undefined {
  if (audit === undefined) return undefined;
  const failed = auditEvent(
    audit.root,
    eventType,
    {
      actor: operatorActor(audit.env),
      resource_type: 'journal',
      resource_id: agentId,
      details: { agent: agentId, ...details },
    },
    auditOptions(audit.env, undefined, audit.onTornTail),
  );
  return failed === undefined ? undefined : `receipt written, but ${failed}`;
}

export interface ExportOptions extends ReceiptWriteOptions {
  /** The blob store to bundle from (default the project's CAS when the journal is in a project layout). */
  cas?: Cas;
  /** Record `replay.export` in the project's audit chain (exportReceipt only). */
  audit?: ReceiptAuditOptions;
}

export interface BuiltReceipt {
  /** The archive (gzip-compressed when asked). */
  bytes: Buffer;
  manifest: Manifest;
  signed: boolean;
  key_id: string | null;
  blobs: { bundled: string[]; missing: string[] };
  /** Non-fatal notes, e.g. a CAS blob whose bytes do not match its digest (left out). */
  warnings: string[];
}

/** The journal member: each verified row's canonical line (its own bytes when they already are canonical). */
export function canonicalJournalBytes(entries: readonly JournalEntry[]): Buffer {
  const parts: Buffer[] = [];
  const nl = Buffer.from('\n');
  for (const e of entries) {
    parts.push(e.canonical ? e.bytes : Buffer.from(canonicalOfRead(rowValue(e.row)), 'utf8'), nl);
  }
  return Buffer.concat(parts);
}

/** The blob store a journal's receipt bundles from: `--cas`, else its project's (a journal in a project layout). */
function blobStore(journalFile: string, options: ExportOptions): Cas | undefined {
  if (options.cas !== undefined) return options.cas;
  const root = projectRootOf(path.dirname(path.resolve(journalFile)));
  return root === undefined ? undefined : new Cas(casDir(root), false);
}

function defaultAgentId(journalFile: string): string {
  return path.basename(path.dirname(path.resolve(journalFile)));
}

/** Packs manifest, signature, journal and blobs (in that order) into a receipt. */
export function packReceipt(
  manifest: Manifest,
  journal: Buffer,
  blobs: ReadonlyArray<[string, Buffer]>,
  options: ReceiptWriteOptions,
): { bytes: Buffer; signed: boolean; key_id: string | null } {
  const members = headMembers(encodeManifest(manifest), options.signKey);
  members.push({ name: JOURNAL_MEMBER, data: journal });
  for (const [digest, data] of blobs) members.push({ name: `blobs/${digest}`, data });
  let bytes = writeTar(members, createdAtSeconds(manifest.created_at));
  if (options.gzip) bytes = gzipSync(bytes, { level: 6 });
  return { bytes, signed: options.signKey !== undefined, key_id: options.signKey?.keyId ?? null };
}

/** A receipt's first members: the manifest, and its signature when there is a key. */
function headMembers(manifestBytes: Buffer, signKey: SigningKey | undefined): TarWriteMember[] {
  const members: TarWriteMember[] = [{ name: MANIFEST_MEMBER, data: manifestBytes }];
  if (signKey !== undefined) {
    members.push({
      name: SIGNATURE_MEMBER,
      data: Buffer.from(signBytes(manifestBytes, signKey).toString('base64'), 'latin1'),
    });
  }
  return members;
}

export function newManifest(
  agentId: string,
  head: string,
  steps: number,
  blobDigests: string[],
  now: Date = new Date(),
): Manifest {
  return {
    agent_id: assertSafeId(agentId, 'agent id'),
    head_hash: head,
    steps,
    bernstein_version: PRODUCER,
    created_at: formatCreatedAt(now),
    blob_digests: blobDigests,
    format_version: FORMAT_VERSION,
  };
}

/**
 * A receipt of a journal, in memory. The journal is verified first (a broken
 * chain is never exported: IntegrityError naming the first fault); blobs are
 * bundled from the CAS best-effort, and the ones it lacks are reported.
 */
export function buildReceipt(journalFile: string, options: ExportOptions = {}): BuiltReceipt {
  // Verified first, on the fast path; its canonical lines are the file's own bytes when they already are.
  const { result: read, bytes: journalBytes, blob_refs: digests } = readCanonicalJournal(journalFile);
  if (!read.ok) throw journalRefused(journalFile, read.errors);
  // Re-encoded, a line longer than LONG_LINE_BYTES may still be one a receipt's reader refuses (export-file.ts).
  const refused = longLineFaults(journalBytes);
  if (refused.length > 0) throw journalRefused(journalFile, refused, 'a receipt of it would not verify');
  const agentId = options.agentId ?? defaultAgentId(journalFile);
  const cas = blobStore(journalFile, options);
  const bundled: [string, Buffer][] = [];
  const missing: string[] = [];
  const warnings = signingKeyWarnings(options.signKey);
  // No CAS directory at all (a journal copied without its blobs): every blob is missing, found with one look instead
  // of one per blob (200,000 of them cost seconds). A digest that is not one still goes to `get`, which refuses it.
  const none = cas !== undefined && digests.length > 0 && digests.every((d) => isSha256Hex(d)) && cas.missing();
  for (const d of digests) {
    const data = none ? undefined : cas?.get(d);
    if (data === undefined) {
      missing.push(d);
    } else if (sha256Hex(data) !== d) {
      warnings.push(`CAS blob ${d} does not match its digest; left out of the receipt`);
      missing.push(d);
    } else {
      bundled.push([d, data]);
    }
  }
  const manifest = newManifest(agentId, read.head_hash, read.steps, digests, options.now);
  const packed = packReceipt(manifest, journalBytes, bundled, options);
  return { ...packed, manifest, blobs: { bundled: bundled.map(([d]) => d), missing }, warnings };
}

/** A journal that does not verify, refused: its first fault, and how many more. */
function journalRefused(journalFile: string, errors: readonly Fault[], why?: string): IntegrityError {
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more fault${errors.length > 2 ? 's' : ''})` : '';
  return new IntegrityError(`${describeFault(journalFile, errors[0]!)}${more}${why === undefined ? '' : `: ${why}`}`);
}

/** Whether an output name asks for gzip. */
export function wantsGzip(outFile: string): boolean {
  return /\.(gz|tgz)$/i.test(outFile);
}

/**
 * A receipt written over its own journal would destroy it: by its path, and by any other way to the same name (a
 * link to its directory, `..`) or to the same file (a hard link), since the receipt is renamed onto the output.
 */
export function refuseOverwritingJournal(journalFile: string, outFile: string): void {
  if (replacesFile(journalFile, outFile)) throw new InputError(`${outFile}: the receipt would overwrite the journal`);
}

/** What `exportReceipt` wrote: BuiltReceipt without its bytes (they are on disk), and what names them. */
export interface ExportedReceiptFile extends Omit<BuiltReceipt, 'bytes'> {
  file: string;
  /** The receipt's size on disk and the SHA-256 of its bytes (what a keyless signature names). */
  size: number;
  sha256: string;
}

/** A receipt written under a temporary name beside its output: `commitExport` names it, `staged.abort()` removes it. */
export interface StagedExport extends ExportedReceiptFile {
  staged: StagedFile;
}

/**
 * `stepchain export`: writes the receipt of a journal to `outFile` (atomically: a temporary file beside it,
 * renamed), streamed from the journal and the CAS when every line of the journal is canonical (export-file.ts:
 * memory does not grow with the journal), built in memory otherwise.
 */
export function exportReceipt(journalFile: string, outFile: string, options: ExportOptions = {}): ExportedReceiptFile {
  return commitExport(stageExport(journalFile, outFile, options), options);
}

/** `exportReceipt`'s first half: the receipt written under a temporary name (a keyless signature is made over it). */
export function stageExport(journalFile: string, outFile: string, options: ExportOptions = {}): StagedExport {
  refuseOverwritingJournal(journalFile, outFile);
  const o = { ...options, gzip: options.gzip ?? wantsGzip(outFile) };
  const opened = openJournalForExport(journalFile);
  if (opened === undefined) throw new InputError(`${journalFile}: no such journal file`);
  try {
    if (streamable(opened.walk)) return stageStreamed(opened, outFile, o);
    // The strict walk found a fault. Unless it is only lines to re-encode, the journal is refused as `verify` walks
    // it (bounded memory), not once read whole: a torn tail on a 118 MB journal took 6.2 s and 539 MB to refuse.
    const walked = verifyJournalFile(journalFile);
    if (!walked.ok) throw journalRefused(journalFile, walked.errors);
    return stageBuilt(buildReceipt(journalFile, o), outFile, o);
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * A journal whose every line is canonical, copied into the receipt as it lies (its blobs from the CAS). Its bytes
 * are walked once, where they lie; a journal written to while it was copied (an agent appending, or anything
 * else) is copied again, walked as it is copied.
 */
function stageStreamed(j: OpenedJournal, outFile: string, options: ExportOptions): StagedExport {
  try {
    return stageCopy(j, outFile, options, false);
  } catch (e) {
    if (!(e instanceof WrittenMeanwhile)) throw e;
    return stageCopy(j, outFile, options, true);
  }
}

/** The journal was written to while it was copied without a second walk (the copy is removed, and made again). */
class WrittenMeanwhile extends Error {}

function stageCopy(j: OpenedJournal, outFile: string, options: ExportOptions, walkAgain: boolean): StagedExport {
  const agentId = options.agentId ?? defaultAgentId(j.file);
  const digests = j.walk.refs;
  const manifest = newManifest(agentId, j.walk.head, j.walk.steps, digests, options.now);
  const cas = blobStore(j.file, options);
  // No CAS directory at all: every blob is missing, found with one look (as buildReceipt does).
  const none = cas === undefined || (digests.length > 0 && cas.missing());
  const blobs: BuiltReceipt['blobs'] = { bundled: [], missing: [] };
  const warnings = signingKeyWarnings(options.signKey);
  let written = { sha256: '', size: 0 };
  const staged = stageFile(outFile, receiptStaging(options), (fd) => {
    written = writeReceiptStream(fd, options.gzip === true, manifest, options.signKey, (tar) => {
      writeJournalMember(tar, j, walkAgain);
      if (!walkAgain) {
        pausePoint('export:copied');
        if (!untouchedSince(j)) throw new WrittenMeanwhile();
      }
      for (const d of digests) {
        if (!none && writeBlobMember(tar, cas, d, warnings)) blobs.bundled.push(d);
        else blobs.missing.push(d);
      }
    });
  });
  const signed = options.signKey !== undefined;
  return {
    file: outFile,
    ...written,
    manifest,
    signed,
    key_id: options.signKey?.keyId ?? null,
    blobs,
    warnings,
    staged,
  };
}

/**
 * A receipt written to `fd` as it is made (through gzip when asked): the manifest and its signature, then what
 * `rest` adds (the journal, the blobs), then the archive's end. The size written and the SHA-256 of those bytes.
 */
export function writeReceiptStream(
  fd: number,
  gzip: boolean,
  manifest: Manifest,
  signKey: SigningKey | undefined,
  rest: (tar: TarWriter) => void,
): { sha256: string; size: number } {
  const sink = new ReceiptSink(fd, gzip);
  const tar = new TarWriter((b) => sink.write(b), createdAtSeconds(manifest.created_at));
  for (const m of headMembers(encodeManifest(manifest), signKey))
    tar.member(m.name, m.data.length, (put) => put(m.data));
  rest(tar);
  tar.end();
  return { sha256: sink.end(), size: sink.size };
}

/** A receipt built in memory, written under a temporary name. */
function stageBuilt(built: BuiltReceipt, outFile: string, options: ExportOptions): StagedExport {
  const { bytes, ...rest } = built;
  const staged = stageFile(outFile, receiptStaging(options), (fd) => writeAll(fd, bytes));
  return { ...rest, file: outFile, size: bytes.length, sha256: sha256Hex(bytes), staged };
}

/** `exportReceipt`'s second half: names the staged receipt (and writes its companion: both or neither), then audits it. */
export function commitExport(
  s: StagedExport,
  options: ExportOptions = {},
  companion?: ReceiptCompanion,
): ExportedReceiptFile {
  const { staged, ...done } = s;
  commitReceipt(staged, companion);
  const warning = auditReceipt(options.audit, 'replay.export', done.manifest.agent_id, {
    receipt: path.resolve(done.file),
    head_hash: done.manifest.head_hash,
    steps: done.manifest.steps,
    signed: done.signed,
    key_id: done.key_id,
  });
  if (warning !== undefined) done.warnings.push(warning);
  return done;
}

/** A file that goes with a receipt (its Sigstore bundle, `R.sigstore.json`): written after it, both or neither. */
export interface ReceiptCompanion {
  file: string;
  bytes: Uint8Array;
}

/** Writes a receipt and its companion; when the companion cannot be written, the receipt is removed again. */
export function writeReceiptFiles(outFile: string, bytes: Uint8Array, companion?: ReceiptCompanion): void {
  commitReceipt(
    stageFile(outFile, { durable: true }, (fd) => writeAll(fd, bytes)),
    companion,
  );
}

/** Names a staged receipt, then writes its companion; when the companion cannot be written, the receipt is removed. */
export function commitReceipt(staged: StagedFile, companion?: ReceiptCompanion): void {
  try {
    staged.commit();
  } catch (e) {
    // Only a receipt staged with replace: false (receiptStaging) is named with link(2), which says EEXIST.
    if (isOsError(e) && e.code === 'EEXIST')
      throw new InputError(
        `${staged.file}: exists (written while this receipt was made); refusing to replace it`,
        'replace',
      );
    throw e;
  }
  if (companion === undefined) return;
  try {
    writeFileWhole(companion.file, companion.bytes, { durable: true });
  } catch (e) {
    try {
      unlinkSync(staged.file);
    } catch {
      /* already gone */
    }
    throw e;
  }
}
