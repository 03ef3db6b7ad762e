import path from 'node:path';
import { canonicalOfRead, float, type JsonValue } from '../canonical';
import { InputError, withOsErrors } from '../errors';
import { computeStepHash, readVerifiedJournal, VerifiedSteps, type StepRow } from '../journal';
import { closeSync, openSync, readSync, unlinkSync } from 'node:fs';
import { stageFile, tempPath, writeAll, type StagedFile } from '../util/fs';
import { ZERO_HASH } from '../util/hash';
import { JOURNAL_MEMBER } from './members';
import {
  auditReceipt,
  commitReceipt,
  newManifest,
  receiptStaging,
  packReceipt,
  refuseOverwritingJournal,
  wantsGzip,
  writeReceiptStream,
  type ReceiptAuditOptions,
  type ReceiptCompanion,
  type ReceiptWriteOptions,
} from './export';
import type { Manifest } from './manifest';
import { DEFAULT_REDACT, REDACTABLE_FIELDS, REDACTED, type RedactField } from './redaction';

export { DEFAULT_REDACT, REDACTABLE_FIELDS, REDACTED, type RedactField };

/** Parses a list of fields to redact (`prompt,tool_result`): known fields only, at least one. */
export function parseRedactFields(text: string): RedactField[] {
  const parts = text.split(',').map((s) => s.trim());
  const out: RedactField[] = [];
  for (const p of parts) {
    if (!(REDACTABLE_FIELDS as readonly string[]).includes(p)) {
      throw new InputError(
        `${JSON.stringify(p)} is not a redactable field (allowed: ${REDACTABLE_FIELDS.join(', ')})`,
        'redact',
      );
    }
    if (!out.includes(p as RedactField)) out.push(p as RedactField);
  }
  return out;
}

export interface RedactedChain {
  /** Canonical lines, `\n`-terminated. */
  lines: Buffer;
  head: string;
  steps: number;
}

/**
 * Replaces each non-null value of the chosen fields by `<<redacted>>`, empties
 * `blob_refs`, and re-anchors the chain from genesis over the redacted rows.
 */
export function redactRows(rows: readonly StepRow[], fields: readonly RedactField[]): RedactedChain {
  const redactor = new RowRedactor(fields);
  const parts = rows.map((r) => redactor.line(r));
  return { lines: Buffer.from(parts.join(''), 'utf8'), head: redactor.head, steps: redactor.steps };
}

/** redactRows a row at a time: each row's canonical line (`\n`-terminated), the chain re-anchored as it goes. */
export class RowRedactor {
  private prev = ZERO_HASH;
  steps = 0;
  constructor(private readonly fields: readonly RedactField[]) {}

  line(r: StepRow): string {
    const pick = (f: RedactField, v: JsonValue): JsonValue => (this.fields.includes(f) && v !== null ? REDACTED : v);
    const hashed = {
      prev_hash: this.prev,
      input_hash: r.input_hash,
      model: pick('model', r.model),
      prompt: pick('prompt', r.prompt),
      tool_call: pick('tool_call', r.tool_call),
      tool_result: pick('tool_result', r.tool_result),
    };
    // `read` encoding: values written by a Python peer may hold NaN/Infinity.
    const step_hash = computeStepHash(hashed, true);
    this.prev = step_hash;
    this.steps++;
    return `${canonicalOfRead({ ...hashed, blob_refs: [], seq: r.seq, step_hash, ts: float(r.ts) })}\n`;
  }

  get head(): string {
    return this.steps > 0 ? this.prev : ZERO_HASH;
  }
}

export interface PublishOptions extends ReceiptWriteOptions {
  /** Must be true: nothing leaves the machine unless the user asks (docs/format.md §3). */
  optIn: boolean;
  /** Fields to redact (default prompt, tool_result). */
  redact?: readonly RedactField[];
  /** Record `replay.publish` in the project's audit chain (publishReceipt only). */
  audit?: ReceiptAuditOptions;
}

export interface PublishResult {
  bytes: Buffer;
  manifest: Manifest;
  original_head: string;
  published_head: string;
  steps: number;
  redacted: RedactField[];
  signed: boolean;
  key_id: string | null;
  /** Non-fatal notes (e.g. the audit event could not be written). */
  warnings: string[];
}

function checkOptIn(options: PublishOptions): RedactField[] {
  if (options.optIn !== true) {
    throw new InputError(
      'refusing to publish without opting in (receipts stay local unless you explicitly opt in); nothing was written',
      'optIn',
    );
  }
  const fields = [...(options.redact ?? DEFAULT_REDACT)];
  for (const f of fields) {
    if (!(REDACTABLE_FIELDS as readonly string[]).includes(f))
      throw new InputError(`publish: ${JSON.stringify(f)} is not a redactable field`);
  }
  if (fields.length === 0) throw new InputError('publish: give at least one field to redact');
  return fields;
}

/** A redacted receipt in memory; the journal is only read (verified first). */
export function buildPublishedReceipt(journalFile: string, options: PublishOptions): PublishResult {
  const fields = checkOptIn(options);
  const read = readVerifiedJournal(journalFile);
  const chain = redactRows(
    read.entries.map((e) => e.row),
    fields,
  );
  const agentId = options.agentId ?? path.basename(path.dirname(path.resolve(journalFile)));
  const manifest = newManifest(agentId, chain.head, chain.steps, [], options.now);
  const packed = packReceipt(manifest, chain.lines, [], options);
  return {
    bytes: packed.bytes,
    manifest,
    original_head: read.head_hash,
    published_head: chain.head,
    steps: chain.steps,
    redacted: fields,
    signed: packed.signed,
    key_id: packed.key_id,
    warnings: [],
  };
}

/** `stepchain publish`: refuses without opt-in (writing nothing), else writes the redacted receipt. */
export function publishReceipt(journalFile: string, outFile: string, options: PublishOptions): PublishedReceiptFile {
  return commitPublished(stagePublished(journalFile, outFile, options), options);
}

/** What `publishReceipt` wrote: PublishResult without its bytes (they are on disk), and what names them. */
export interface PublishedReceiptFile extends Omit<PublishResult, 'bytes'> {
  file: string;
  /** The receipt's size on disk and the SHA-256 of its bytes (what a keyless signature names). */
  size: number;
  sha256: string;
}

/** A redacted receipt written under a temporary name beside its output (`commitPublished` names it). */
export interface StagedPublished extends PublishedReceiptFile {
  staged: StagedFile;
}

/**
 * `publishReceipt`'s first half: the redacted receipt written under a temporary name; nothing is under `outFile`'s
 * name yet. Never held: the journal is verified once (in parallel) and its rows read back a block at a time
 * (VerifiedSteps: each checked against what verified), redacted into a scratch file that has no name (the published
 * head must be in the manifest, before the chain), then copied into the archive.
 */
export function stagePublished(journalFile: string, outFile: string, options: PublishOptions): StagedPublished {
  refuseOverwritingJournal(journalFile, outFile);
  const fields = checkOptIn(options);
  const gzip = options.gzip ?? wantsGzip(outFile);
  const steps = VerifiedSteps.open(journalFile);
  const scratch = withOsErrors(outFile, 'cannot write', () => scratchFile(outFile));
  try {
    const redactor = new RowRedactor(fields);
    let size = 0;
    const chunk: string[] = [];
    const flush = (): void => {
      const b = Buffer.from(chunk.join(''), 'utf8');
      withOsErrors(outFile, 'cannot write', () => writeAll(scratch, b));
      size += b.length;
      chunk.length = 0;
    };
    for (let seq = 0; seq < steps.length; seq++) {
      chunk.push(redactor.line(steps.at(seq)!.row));
      if (chunk.length >= 1024) flush();
    }
    flush();
    const agentId = options.agentId ?? path.basename(path.dirname(path.resolve(journalFile)));
    const manifest = newManifest(agentId, redactor.head, redactor.steps, [], options.now);
    let written = { sha256: '', size: 0 };
    const staged = stageFile(outFile, receiptStaging(options), (fd) => {
      written = writeReceiptStream(fd, gzip, manifest, options.signKey, (tar) =>
        tar.member(JOURNAL_MEMBER, size, (put) => copyFrom(scratch, size, put)),
      );
    });
    return {
      file: outFile,
      ...written,
      manifest,
      original_head: steps.head_hash,
      published_head: redactor.head,
      steps: redactor.steps,
      redacted: fields,
      signed: options.signKey !== undefined,
      key_id: options.signKey?.keyId ?? null,
      warnings: [],
      staged,
    };
  } finally {
    closeSync(scratch);
  }
}

/** A file beside `outFile` only this process can reach: removed from the directory as soon as it is made. */
function scratchFile(outFile: string): number {
  const name = tempPath(outFile);
  const fd = openSync(name, 'wx+', 0o600);
  unlinkSync(name);
  return fd;
}

/** Bytes [0, size) of a descriptor, a piece at a time. */
function copyFrom(fd: number, size: number, put: (b: Uint8Array) => void): void {
  const piece = Buffer.allocUnsafe(Math.min(4 * 1024 * 1024, Math.max(1, size)));
  for (let at = 0; at < size;) {
    const n = readSync(fd, piece, 0, Math.min(piece.length, size - at), at);
    if (n === 0) throw new Error(`scratch file cut at byte ${at} of ${size}`);
    put(piece.subarray(0, n));
    at += n;
  }
}

/** `publishReceipt`'s second half: names it (and writes its companion: both or neither), then audits it. */
export function commitPublished(
  s: StagedPublished,
  options: PublishOptions,
  companion?: ReceiptCompanion,
): PublishedReceiptFile {
  const { staged, ...r } = s;
  commitReceipt(staged, companion);
  const warning = auditReceipt(options.audit, 'replay.publish', r.manifest.agent_id, {
    receipt: path.resolve(r.file),
    original_head: r.original_head,
    published_head: r.published_head,
    steps: r.steps,
    redacted: r.redacted,
    signed: r.signed,
    key_id: r.key_id,
  });
  if (warning !== undefined) r.warnings.push(warning);
  return r;
}
