import path from 'node:path';
import { canonicalOfRead, float, type JsonValue } from '../canonical';
import { InputError } from '../errors';
import { computeStepHash, readVerifiedJournal, type StepRow } from '../journal';
import { stageFile, writeAll, type StagedFile } from '../util/fs';
import { sha256Hex, ZERO_HASH } from '../util/hash';
import {
  auditReceipt,
  commitReceipt,
  newManifest,
  packReceipt,
  refuseOverwritingJournal,
  wantsGzip,
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
  let prev = ZERO_HASH;
  const parts: string[] = [];
  for (const r of rows) {
    const pick = (f: RedactField, v: JsonValue): JsonValue => (fields.includes(f) && v !== null ? REDACTED : v);
    const hashed = {
      prev_hash: prev,
      input_hash: r.input_hash,
      model: pick('model', r.model),
      prompt: pick('prompt', r.prompt),
      tool_call: pick('tool_call', r.tool_call),
      tool_result: pick('tool_result', r.tool_result),
    };
    // `read` encoding: values written by a Python peer may hold NaN/Infinity.
    const step_hash = computeStepHash(hashed, true);
    parts.push(canonicalOfRead({ ...hashed, blob_refs: [], seq: r.seq, step_hash, ts: float(r.ts) }));
    prev = step_hash;
  }
  return {
    lines: Buffer.from(parts.map((p) => `${p}\n`).join(''), 'utf8'),
    head: rows.length > 0 ? prev : ZERO_HASH,
    steps: rows.length,
  };
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
export function publishReceipt(journalFile: string, outFile: string, options: PublishOptions): PublishResult {
  return commitPublished(stagePublished(journalFile, outFile, options), options);
}

/** A redacted receipt written under a temporary name beside its output (`commitPublished` names it). */
export interface StagedPublished extends PublishResult {
  file: string;
  /** The SHA-256 of its bytes (what a keyless signature names). */
  sha256: string;
  staged: StagedFile;
}

/**
 * `publishReceipt`'s first half: the redacted receipt, built in memory (its chain is re-anchored row by row), written
 * under a temporary name; nothing is under `outFile`'s name yet.
 */
export function stagePublished(journalFile: string, outFile: string, options: PublishOptions): StagedPublished {
  refuseOverwritingJournal(journalFile, outFile);
  const r = buildPublishedReceipt(journalFile, { ...options, gzip: options.gzip ?? wantsGzip(outFile) });
  const staged = stageFile(outFile, { durable: true }, (fd) => writeAll(fd, r.bytes));
  return { ...r, file: outFile, sha256: sha256Hex(r.bytes), staged };
}

/** `publishReceipt`'s second half: names it (and writes its companion: both or neither), then audits it. */
export function commitPublished(
  s: StagedPublished,
  options: PublishOptions,
  companion?: ReceiptCompanion,
): PublishResult {
  const { staged, file, sha256: _digest, ...r } = s;
  commitReceipt(staged, companion);
  const warning = auditReceipt(options.audit, 'replay.publish', r.manifest.agent_id, {
    receipt: path.resolve(file),
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
