import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { InputError } from '../errors';
import { verifyJournalBytes } from '../journal';
import { writeFileAtomic } from '../receipt';
import { sha256Hex } from '../util/hash';
import { PRODUCER } from '../version';
import type { ReportBlob, ReportData, ReportForkNode } from './client/app';
import { buildPage } from './page';
import { blobRefsOf, loadReportSource, type LoadSourceOptions, type ReportFault, type ReportSource } from './source';

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
  /** Overwrite an existing file that is not a stepchain report. */
  force?: boolean;
  /** The generation time shown in the page (tests pin it). */
  now?: Date;
}

export interface RenderedReport {
  html: string;
  /** The journal or receipt file the report was made from. */
  source: string;
  /** The generator's verdict on the same bytes: chain, blobs and (receipts) manifest and signature. */
  ok: boolean;
  head_hash: string;
  steps: number;
  errors: ReportFault[];
  blobs: { embedded: number; skipped: number };
}

export interface ReportResult extends Omit<RenderedReport, 'html'> {
  file: string;
}

export const DEFAULT_MAX_BLOB_BYTES = 256 * 1024;
export const DEFAULT_MAX_TOTAL_BLOB_BYTES = 20 * 1024 * 1024;

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
  const chain = verifyJournalBytes(
    source.journal,
    source.expectedHead === undefined ? {} : { expectedHead: source.expectedHead },
  );
  const order = source.blobOrder ?? blobRefsOf(source.journal);
  const { blobs, faults: blobFaults } = collectBlobs(
    source,
    order,
    options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES,
    options.maxTotalBlobBytes ?? DEFAULT_MAX_TOTAL_BLOB_BYTES,
  );
  const receiptFaults = source.receipt?.faults ?? [];
  const data: ReportData = {
    format: 1,
    generator: PRODUCER,
    generated_at: (options.now ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    title: options.title ?? `stepchain report: ${source.agentId}`,
    agent_id: source.agentId,
    source: { kind: source.kind, path: source.path },
    journal_b64: source.journal.toString('base64'),
    expected_head: source.expectedHead ?? null,
    generator_verify: { ok: chain.ok, head_hash: chain.head_hash, steps: chain.steps, errors: chain.errors },
    receipt:
      source.receipt === undefined
        ? null
        : {
            manifest_text: source.receipt.manifestText,
            signed: source.receipt.signed,
            key_id: source.receipt.keyId,
            signature_check: source.receipt.signatureCheck,
            generator_faults: receiptFaults,
          },
    blobs,
    blob_caps: {
      per_blob: options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES,
      total: options.maxTotalBlobBytes ?? DEFAULT_MAX_TOTAL_BLOB_BYTES,
    },
    forks: options.forks ?? source.forks ?? null,
  };
  const errors: ReportFault[] = [...chain.errors, ...blobFaults, ...receiptFaults];
  const embedded = blobs.filter((b) => b.b64 !== undefined).length;
  return {
    html: buildPage(data),
    source: source.path,
    ok: errors.length === 0,
    head_hash: chain.head_hash,
    steps: chain.steps,
    errors,
    blobs: { embedded, skipped: blobs.length - embedded },
  };
}

const GENERATOR_MARK = '<meta name="generator" content="stepchain report">';

/** Overwriting is allowed for a previous report; anything else needs `force` (a mistyped -o must not eat a file). */
function checkOverwrite(outFile: string, force: boolean): void {
  let st;
  try {
    st = statSync(outFile);
  } catch {
    return;
  }
  if (st.isDirectory()) throw new InputError(`${outFile}: is a directory`);
  if (force) return;
  let head = '';
  try {
    const fd = openSync(outFile, 'r');
    try {
      const buf = Buffer.alloc(2048);
      head = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('latin1');
    } finally {
      closeSync(fd);
    }
  } catch {
    /* unreadable: treated as foreign */
  }
  if (!head.includes(GENERATOR_MARK)) {
    throw new InputError(`${outFile}: exists and is not a stepchain report; refusing to overwrite it (use --force)`);
  }
}

/**
 * Resolves a target (or takes a loaded source), renders the report and writes it
 * atomically (temporary file, fsync, rename): the file is either the old one or
 * the complete new one. Throws InputError for bad input or a refused overwrite.
 */
export function writeReport(target: string | ReportSource, outFile: string, options: ReportOptions = {}): ReportResult {
  checkOverwrite(outFile, options.force ?? false);
  const source = typeof target === 'string' ? loadReportSource(target, options.root ?? process.cwd(), options) : target;
  const { html, ...rest } = renderReport(source, options);
  writeFileAtomic(outFile, Buffer.from(html, 'utf8'));
  return { file: outFile, ...rest };
}
