import { closeSync, constants, lstatSync, openSync, readSync } from 'node:fs';
import { InputError } from '../errors';
import { describeFault, verifyJournalBytes } from '../journal';
import { stageFile, writeAll } from '../util/fs';
import { sha256Hex } from '../util/hash';
import { PRODUCER } from '../version';
import type { ReportBlob, ReportData, ReportForkNode } from './client/data';
import { journalMark, pageAround } from './page';
import { JOURNAL_MEMBER } from '../receipt';
import { blobRefsOf, loadReportSource, type LoadSourceOptions, type ReportFault, type ReportSource } from './source';
import { AUTO_WINDOW_BYTES, AUTO_WINDOW_STEPS, bytesWindow, tooLargeUnverified } from './window';

export { reportWindow } from './window';
export type { Windowed } from './window';

export interface ReportOptions extends LoadSourceOptions {
  /** Project root for an agent id target and for the CAS (default: the current directory). */
  root?: string;
  /** Largest blob embedded, in bytes (default 256 KiB). */
  maxBlobBytes?: number;
  /** Total embedded blob bytes (default 20 MiB); later blobs are listed as skipped. */
  maxTotalBlobBytes?: number;
  /** The fork tree to draw (the hook for src/git's fork listing); null or absent draws none. */
  forks?: ReportForkNode | null;
  /** Page title (default `stepchain report: <agent>`). */
  title?: string;
  /** Replace an existing file at the output (an earlier stepchain report too); without it, writeReport refuses. */
  force?: boolean;
  /** The generation time shown in the page (tests pin it). */
  now?: Date;
  /** Warn when the page embeds more steps than this (default 50,000)... */
  warnSteps?: number;
  /** ...or when the page is larger than this many bytes (default 64 MiB). */
  warnBytes?: number;
}

export interface RenderedReport {
  html: string;
  /** The journal or receipt file the report was made from. */
  source: string;
  /**
   * Where the lines its faults name are: the journal file, or a receipt's journal member as `receipt verify` names
   * it (`r.tar:journal/000000.jsonl`): a fault's line is the member's, never the archive's.
   */
  linesIn: string;
  /** The generator's verdict on the same bytes: chain, blobs and (receipts) manifest and signature. */
  ok: boolean;
  head_hash: string;
  steps: number;
  errors: ReportFault[];
  blobs: { embedded: number; skipped: number };
  /** The embedded window (1-based journal lines, inclusive), or null when the whole journal is embedded. */
  window: { first_line: number; last_line: number; steps: number } | null;
  /** Advice for the operator (e.g. a page too large for a browser to open comfortably). */
  warnings: string[];
}

export interface ReportResult extends Omit<RenderedReport, 'html'> {
  file: string;
}

/**
 * One fault of a report as a line, `file[:line]: kind: message`: a fault with a line is named where its lines are
 * (`linesIn`: a receipt's journal member), one without by the file the report was made from.
 */
export function describeReportFault(r: Pick<RenderedReport, 'source' | 'linesIn'>, f: ReportFault): string {
  return describeFault(f.line === null ? r.source : r.linesIn, f);
}

export const DEFAULT_MAX_BLOB_BYTES = 256 * 1024;
export const DEFAULT_MAX_TOTAL_BLOB_BYTES = 20 * 1024 * 1024;
/** Past this many embedded steps a browser takes long to open and verify the page: say so. */
export const DEFAULT_WARN_STEPS = 50_000;
export const DEFAULT_WARN_BYTES = 64 * 1024 * 1024;
/** Receipt faults the page re-derives itself by checking the Ed25519 signature in the browser. */
const SIGNATURE_KINDS = new Set(['signature_invalid', 'unsigned', 'no_trusted_key']);

/** Picks the blobs to embed under the caps, in chain order; the rest are listed with the reason. */
function collectBlobs(
  source: ReportSource,
  order: string[],
  perBlob: number,
  total: number,
): { blobs: ReportBlob[]; faults: ReportFault[] } {
  const blobs: ReportBlob[] = [];
  const faults: ReportFault[] = [];
  let used = 0;
  for (const digest of order) {
    const refused = source.blobs.refused?.(digest);
    if (refused !== undefined) {
      blobs.push({ digest, size: null, skipped: refused });
      faults.push({ line: null, kind: 'blob_refused', message: `blob ${digest}: ${refused}` });
      continue;
    }
    const size = source.blobs.size(digest);
    if (size === undefined) {
      blobs.push({
        digest,
        size: null,
        skipped: source.kind === 'receipt' ? 'not bundled in the receipt' : 'not in the project\u2019s blob store',
      });
      continue;
    }
    // Over the cap: listed, never read.
    if (size > perBlob) {
      blobs.push({ digest, size, skipped: `larger than the ${perBlob}-byte per-blob cap` });
      continue;
    }
    const bytes = source.blobs.read(digest, perBlob);
    if (bytes === undefined) {
      blobs.push({ digest, size: null, skipped: 'unreadable' });
      continue;
    }
    // A blob is embedded only when its bytes are what its name says.
    const got = sha256Hex(bytes);
    if (got !== digest) {
      faults.push({ line: null, kind: 'blob_digest_mismatch', message: `blob ${digest}: its bytes hash to ${got}` });
      blobs.push({ digest, size: bytes.length, skipped: 'its bytes do not match its digest (not embedded)' });
      continue;
    }
    if (used + bytes.length > total) {
      blobs.push({ digest, size: bytes.length, skipped: `the ${total}-byte total cap was reached` });
      continue;
    }
    used += bytes.length;
    blobs.push({ digest, size: bytes.length, b64: bytes.toString('base64') });
  }
  return { blobs, faults };
}

/**
 * Renders the self-contained HTML report of a source. A broken chain is rendered
 * too (the page shows the faults): check `ok`.
 */
export function renderReport(source: ReportSource, options: ReportOptions = {}): RenderedReport {
  const { page, ...rest } = renderPieces(source, options);
  return { html: page.before + page.journal.toString('base64') + page.after, ...rest };
}

/** A page in pieces: the page before the embedded journal's base64, the journal, the page after it. */
interface PagePieces {
  before: string;
  journal: Buffer;
  after: string;
}

/** The page's length in characters (what buildPage's string would hold). */
const pageLength = (p: PagePieces): number => p.before.length + Math.ceil(p.journal.length / 3) * 4 + p.after.length;

/** renderReport, the page in pieces (writeReport writes the journal's base64 a piece at a time). */
function renderPieces(
  source: ReportSource,
  options: ReportOptions,
): Omit<RenderedReport, 'html'> & { page: PagePieces } {
  if (options.fromStep !== undefined && options.maxSteps === undefined)
    throw new InputError('missing: a window that starts at a given step needs its size', 'maxSteps');
  // A journal file loaded by loadReportSource was verified whole, streaming, and windowed already;
  // bytes in hand (a receipt, a source built by the caller) are verified and windowed here.
  const chain =
    source.verified ??
    verifyJournalBytes(source.journal, source.expectedHead === undefined ? {} : { expectedHead: source.expectedHead });
  // Bytes in hand larger than a page embeds whole (a receipt's journal): the last steps, as a journal file's are;
  // a chain that does not verify cannot be windowed, and is refused rather than held as one string.
  const auto = !source.windowDone && options.maxSteps === undefined && source.journal.length > AUTO_WINDOW_BYTES;
  // A receipt's fault is named by its journal member's line (RenderedReport.linesIn), never the archive's.
  const linesIn = source.kind === 'receipt' ? `${source.path}:${JOURNAL_MEMBER}` : source.path;
  if (auto && !chain.ok)
    throw tooLargeUnverified(
      describeReportFault({ source: source.path, linesIn }, chain.errors[0]!),
      source.journal.length,
    );
  const maxSteps = options.maxSteps ?? (auto ? AUTO_WINDOW_STEPS : undefined);
  const windowed = source.windowDone
    ? (source.windowed ?? null)
    : maxSteps === undefined
      ? null
      : bytesWindow(source.journal, chain.ok, maxSteps, options.fromStep);
  const inMemoryWindow = windowed !== null && source.windowed === undefined;
  const embeddedJournal = inMemoryWindow ? windowed.bytes : source.journal;
  // A window lists only the blobs its own rows refer to.
  const order = inMemoryWindow ? blobRefsOf(embeddedJournal) : (source.blobOrder ?? blobRefsOf(source.journal));
  const { blobs, faults: blobFaults } = collectBlobs(
    source,
    order,
    options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES,
    options.maxTotalBlobBytes ?? DEFAULT_MAX_TOTAL_BLOB_BYTES,
  );
  const receiptFaults = source.receipt?.faults ?? [];
  const r = source.receipt;
  const mark = journalMark();
  const data: ReportData = {
    format: 2,
    generator: PRODUCER,
    generated_at: (options.now ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    title: options.title ?? `stepchain report: ${source.agentId}`,
    agent_id: source.agentId,
    source: { kind: source.kind, path: source.path },
    journal_b64: mark,
    expected_head: source.expectedHead ?? null,
    generator_verify: { ok: chain.ok, head_hash: chain.head_hash, steps: chain.steps, errors: chain.errors },
    window: windowed?.window ?? null,
    receipt:
      r === undefined
        ? null
        : {
            manifest_b64: r.manifestBytes.toString('base64'),
            signature_b64: r.signature?.toString('base64') ?? null,
            signed: r.signed,
            public_keys: r.publicKeys.map((k) => ({
              key_id: k.keyId,
              raw_b64: k.raw.toString('base64'),
              source: k.source,
            })),
            key_id: r.keyId,
            signature_check: r.signatureCheck,
            keyless: r.keyless ?? null,
            // The page checks the signature itself, with the same keys.
            generator_faults: receiptFaults.filter((f) => !SIGNATURE_KINDS.has(f.kind)),
          },
    blobs,
    blob_caps: {
      per_blob: options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES,
      total: options.maxTotalBlobBytes ?? DEFAULT_MAX_TOTAL_BLOB_BYTES,
    },
    forks: options.forks ?? source.forks ?? null,
    ...(source.stepFiles === undefined ? {} : { step_files: source.stepFiles }),
  };
  const errors: ReportFault[] = [...chain.errors, ...blobFaults, ...receiptFaults];
  const embedded = blobs.filter((b) => b.b64 !== undefined).length;
  const page = { ...pageAround(data, mark), journal: embeddedJournal };
  const embeddedSteps = windowed === null ? chain.steps : windowed.steps;
  const warnings: string[] = [];
  const autoBytes = source.autoWindow?.bytes ?? (auto ? source.journal.length : undefined);
  if (autoBytes !== undefined && windowed !== null)
    warnings.push(
      `the journal is too large for one page (${(autoBytes / 1048576).toFixed(0)} MB): the page embeds its last ${windowed.steps} steps ` +
        `(all ${chain.steps} were verified here); choose a window with --max-steps N [--from SEQ]`,
    );
  const warnSteps = options.warnSteps ?? DEFAULT_WARN_STEPS;
  const length = pageLength(page);
  if (embeddedSteps > warnSteps || length > (options.warnBytes ?? DEFAULT_WARN_BYTES)) {
    warnings.push(
      `the page embeds ${embeddedSteps} steps (${(length / 1048576).toFixed(0)} MB): a browser takes long to open and verify it; ` +
        `embed a window with --max-steps N (the last N steps, or from --from SEQ)`,
    );
  }
  return {
    page,
    source: source.path,
    linesIn,
    ok: errors.length === 0,
    head_hash: chain.head_hash,
    steps: chain.steps,
    errors,
    blobs: { embedded, skipped: blobs.length - embedded },
    window:
      windowed === null
        ? null
        : { first_line: windowed.window.first_line, last_line: windowed.lastLine, steps: windowed.steps },
    warnings,
  };
}

const GENERATOR_MARK = '<meta name="generator" content="stepchain report">';

/**
 * An existing file at the output is replaced only with `force`, as `export` and `publish` do: an earlier
 * report too (a mistyped -o must not eat a file, and a report kept as evidence is not silently rewritten).
 * The message says which it is.
 */
export function checkOverwrite(outFile: string, force: boolean): void {
  let st;
  try {
    st = lstatSync(outFile);
  } catch {
    return;
  }
  if (st.isDirectory()) throw new InputError(`${outFile}: is a directory`);
  if (force) return;
  let head = '';
  if (st.isFile()) {
    try {
      const fd = openSync(outFile, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      try {
        const buf = Buffer.alloc(2048);
        head = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('latin1');
      } finally {
        closeSync(fd);
      }
    } catch {
      /* unreadable: treated as foreign */
    }
  }
  throw new InputError(
    head.includes(GENERATOR_MARK)
      ? `${outFile}: exists (an earlier stepchain report); refusing to replace it (use --force)`
      : `${outFile}: exists and is not a stepchain report; refusing to overwrite it (use --force)`,
  );
}

/**
 * Resolves a target (or takes a loaded source), renders the report and writes it
 * atomically (temporary file, fsync, rename): the file is either the old one or
 * the complete new one. Throws InputError for bad input or a refused overwrite.
 */
export function writeReport(target: string | ReportSource, outFile: string, options: ReportOptions = {}): ReportResult {
  checkOverwrite(outFile, options.force ?? false);
  const source = typeof target === 'string' ? loadReportSource(target, options.root ?? process.cwd(), options) : target;
  const { page, ...rest } = renderPieces(source, options);
  stageFile(outFile, { durable: true }, (fd) => writePage(fd, page)).commit();
  return { file: outFile, ...rest };
}

/** Base64 is written from this many bytes of the journal at a time (a multiple of 3: the pieces join as one). */
const BASE64_PIECE = 3 << 20;

function writePage(fd: number, page: PagePieces): void {
  writeAll(fd, Buffer.from(page.before, 'utf8'));
  for (let at = 0; at < page.journal.length; at += BASE64_PIECE)
    writeAll(
      fd,
      Buffer.from(page.journal.toString('base64', at, Math.min(page.journal.length, at + BASE64_PIECE)), 'latin1'),
    );
  writeAll(fd, Buffer.from(page.after, 'utf8'));
}
