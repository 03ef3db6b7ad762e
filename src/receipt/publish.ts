import { createHmac, randomBytes } from 'node:crypto';
import path from 'node:path';
import { canonicalOfRead, float, LONG_LINE_BYTES, type JsonValue } from '../canonical';
import { InputError, IntegrityError, withOsErrors } from '../errors';
import { refusedAsLong } from '../journal/long-row';
import {
  computeStepHash,
  readVerifiedJournal,
  sha256Ascii,
  VerifiedSteps,
  type RewritableRow,
  type RowSpans,
  type StepRow,
} from '../journal';
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
import { signingKeyWarnings } from './keys';
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
export function redactRows(
  rows: readonly StepRow[],
  fields: readonly RedactField[],
  blinding?: Uint8Array,
): RedactedChain {
  const redactor = new RowRedactor(fields, blinding);
  const parts = rows.map((r) => redactor.line(r));
  return { lines: Buffer.from(parts.join(''), 'utf8'), head: redactor.head, steps: redactor.steps };
}

/**
 * A published line (`\n`-terminated) of step `seq`, unless a receipt's reader would refuse it (a line longer than
 * LONG_LINE_BYTES that LongRowCheck does not take: the journal's row held a key over 64 KiB in a field kept): then
 * nothing is written.
 */
function checkedLine(line: string, seq: number): string {
  // Only a line that may be that long is measured (its UTF-8 is at most 3 bytes a character), and only one that is
  // is encoded to be checked.
  if (line.length * 3 <= LONG_LINE_BYTES) return line;
  const bytes = Buffer.byteLength(line) - 1;
  if (bytes <= LONG_LINE_BYTES || !refusedAsLong(Buffer.from(line.slice(0, -1)))) return line;
  throw new IntegrityError(
    `publish: step ${seq} published is a line of ${bytes.toLocaleString('en-US')} bytes that is not a canonical row a ` +
      `receipt's reader takes (a line longer than ${LONG_LINE_BYTES.toLocaleString('en-US')} bytes is taken only as ` +
      `one it checks as it is read, which holds no key over 64 KiB); nothing written`,
  );
}

/** redactRows a row at a time: each row's canonical line (`\n`-terminated), the chain re-anchored as it goes. */
export class RowRedactor {
  private prev = ZERO_HASH;
  steps = 0;
  /**
   * `blinding`: the key each `input_hash` is replaced under (blindInputHash); none keeps them as they are (the
   * reference's publish).
   */
  constructor(
    private readonly fields: readonly RedactField[],
    private readonly blinding?: Uint8Array,
  ) {}

  private inputHash(h: string): string {
    return this.blinding === undefined ? h : blindInputHash(this.blinding, h);
  }

  line(r: StepRow): string {
    const pick = (f: RedactField, v: JsonValue): JsonValue => (this.fields.includes(f) && v !== null ? REDACTED : v);
    const hashed = {
      prev_hash: this.prev,
      input_hash: this.inputHash(r.input_hash),
      model: pick('model', r.model),
      prompt: pick('prompt', r.prompt),
      tool_call: pick('tool_call', r.tool_call),
      tool_result: pick('tool_result', r.tool_result),
    };
    // `read` encoding: values written by a Python peer may hold NaN/Infinity.
    const step_hash = computeStepHash(hashed, true);
    this.prev = step_hash;
    this.steps++;
    return checkedLine(
      `${canonicalOfRead({ ...hashed, blob_refs: [], seq: r.seq, step_hash, ts: float(r.ts) })}\n`,
      r.seq,
    );
  }

  /**
   * `line` of a canonical row given as its text and the spans of its values (RewritableRow): each value is already
   * its canonical encoding, so the redacted row is those spans in the canonical key order, with no parse and no
   * encode (a 100,000-step publish parsed and encoded every row twice: most of its 6-9 s). The same bytes as `line`
   * of the parsed row (test/receipt.publish-fast).
   */
  lineOfText(seq: number, text: string, spans: RowSpans): string {
    const value = (f: RedactField): string => {
      const v = text.slice(spans[f][0], spans[f][1]);
      return this.fields.includes(f) && v !== 'null' ? REDACTED_TEXT : v;
    };
    // The span holds the quoted hex (64 ASCII digits: nothing escaped).
    const input = this.inputHash(text.slice(spans.input_hash[0] + 1, spans.input_hash[1] - 1));
    const head = `"input_hash":"${input}","model":${value('model')},"prev_hash":"${this.prev}","prompt":${value('prompt')}`;
    const tail = `"tool_call":${value('tool_call')},"tool_result":${value('tool_result')}`;
    const step_hash = sha256Ascii(`{${head},${tail}}`);
    this.prev = step_hash;
    this.steps++;
    const ts = text.slice(spans.ts[0], spans.ts[1]);
    return checkedLine(`{"blob_refs":[],${head},"seq":${seq},"step_hash":"${step_hash}",${tail},"ts":${ts}}\n`, seq);
  }

  /** The redacted line of a step as a block read gives it (VerifiedSteps.rewritable). */
  lineOf(r: RewritableRow): string {
    return 'entry' in r ? this.line(r.entry.row) : this.lineOfText(r.seq, r.text, r.spans);
  }

  get head(): string {
    return this.steps > 0 ? this.prev : ZERO_HASH;
  }
}

/**
 * A step's `input_hash` as a published receipt shows it: HMAC-SHA256 under a key drawn for this publish, in hex.
 * The input blob of a hook-recorded step is the agent's whole payload (prompt, tool input and result), so its plain
 * SHA-256 let anyone who can guess the redacted text confirm the guess offline. The key is kept only in the local
 * audit event (`replay.publish`, `input_blinding_key`): with it and the original journal the owner can show which
 * original step each published one is; without it the value says nothing of the input.
 */
export function blindInputHash(key: Uint8Array, inputHash: string): string {
  return createHmac('sha256', key).update(inputHash, 'latin1').digest('hex');
}

/** The marker's canonical encoding (ASCII, nothing to escape). */
const REDACTED_TEXT = JSON.stringify(REDACTED);

export interface PublishOptions extends ReceiptWriteOptions {
  /** Must be true: nothing leaves the machine unless the user asks (docs/format.md §3). */
  optIn: boolean;
  /** Fields to redact (default prompt, tool_result). */
  redact?: readonly RedactField[];
  /** Record `replay.publish` in the project's audit chain (publishReceipt only). */
  audit?: ReceiptAuditOptions;
  /**
   * `blinded` (the default): each `input_hash` is replaced under a key drawn for this publish (blindInputHash);
   * `kept`: as in the journal (the reference's publish; the plain SHA-256 of each step's input confirms a guess of
   * redacted text).
   */
  inputHashes?: InputHashes;
  /** The blinding key (32 bytes) instead of a random one: for a caller that keeps it itself, and for tests. */
  blindingKey?: Uint8Array;
}

export type InputHashes = 'blinded' | 'kept';

/** The key each input_hash is blinded under, or undefined when they are kept. */
function blindingOf(options: PublishOptions): Uint8Array | undefined {
  if (options.inputHashes === 'kept') return undefined;
  const key = options.blindingKey ?? randomBytes(32);
  if (key.length < 16) throw new InputError('publish: a blinding key is at least 16 bytes');
  return key;
}

/** How a result names its input hashes and their key. */
function inputHashFields(blinding: Uint8Array | undefined): Pick<PublishResult, 'input_hashes' | 'blinding_key'> {
  return blinding === undefined
    ? { input_hashes: 'kept', blinding_key: null }
    : { input_hashes: 'blinded', blinding_key: Buffer.from(blinding).toString('hex') };
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
  /** Whether the published rows' `input_hash` values are blinded (the default) or kept. */
  input_hashes: InputHashes;
  /** The blinding key in hex (null when kept): local knowledge, never in the receipt (blindInputHash). */
  blinding_key: string | null;
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
  const blinding = blindingOf(options);
  const read = readVerifiedJournal(journalFile);
  const chain = redactRows(
    read.entries.map((e) => e.row),
    fields,
    blinding,
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
    ...inputHashFields(blinding),
    warnings: signingKeyWarnings(options.signKey),
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
  const blinding = blindingOf(options);
  const gzip = options.gzip ?? wantsGzip(outFile);
  const steps = VerifiedSteps.open(journalFile);
  const scratch = withOsErrors(outFile, 'cannot write', () => scratchFile(outFile));
  try {
    const redactor = new RowRedactor(fields, blinding);
    const out = new LineBuffer((b) => withOsErrors(outFile, 'cannot write', () => writeAll(scratch, b)));
    for (const r of steps.rewritable()) out.push(redactor.lineOf(r));
    const size = out.end();
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
      ...inputHashFields(blinding),
      warnings: signingKeyWarnings(options.signKey),
      staged,
    };
  } finally {
    closeSync(scratch);
  }
}

/**
 * Lines written through a buffer of a few megabytes (encoded into it where they land: no joined string, no Buffer
 * per piece, which were a third of a large publish's time in the collector).
 */
class LineBuffer {
  private buf = Buffer.allocUnsafe(4 * 1024 * 1024);
  private used = 0;
  private written = 0;
  constructor(private readonly write: (bytes: Buffer) => void) {}

  push(line: string): void {
    // A UTF-8 encoding is at most 3 bytes a UTF-16 code unit.
    if (this.used + line.length * 3 > this.buf.length) {
      this.flush();
      if (line.length * 3 > this.buf.length) this.buf = Buffer.allocUnsafe(line.length * 3);
    }
    this.used += this.buf.write(line, this.used, 'utf8');
  }

  /** Writes what is held; the number of bytes written in all. */
  end(): number {
    this.flush();
    return this.written;
  }

  private flush(): void {
    if (this.used === 0) return;
    this.write(this.buf.subarray(0, this.used));
    this.written += this.used;
    this.used = 0;
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
    input_hashes: r.input_hashes,
    ...(r.blinding_key !== null ? { input_blinding_key: r.blinding_key } : {}),
  });
  if (warning !== undefined) r.warnings.push(warning);
  return r;
}
