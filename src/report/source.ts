import { statSync } from 'node:fs';
import path from 'node:path';
import { InputError, IntegrityError } from '../errors';
import { sha256Hex } from '../util/hash';
import { scanChunk } from '../journal/chunk';
import { pausePoint } from '../util/pause';
import { DEFAULT_MAX_READ_BYTES, lstatUnder, READ_FLAGS, readUnder } from '../util/nofollow';
import { closeSync, openSync, readSync } from 'node:fs';
import {
  Cas,
  casDir,
  projectRootOf,
  readJournalFileBytes,
  resolveJournal,
  UnverifiedJournalError,
  VerifiedSteps,
  verifyJournalBytesWithRefs,
  type ProgressFn,
  type VerifyResult,
} from '../journal';
import { AUTO_WINDOW_BYTES, AUTO_WINDOW_STEPS, streamedWindow, tooLargeUnverified, type Windowed } from './window';
import {
  inspectReceipt,
  JOURNAL_MEMBER,
  looksLikeReceipt,
  ReceiptFormatError,
  signatureVerdict,
  type PublicKey,
} from '../receipt';
import type { ReportForkNode, ReportStepFiles } from './client/data';
import { stepFilesOf } from '../provenance/step-files';

/** A problem found by the generator (chain faults carry their 1-based line). */
export interface ReportFault {
  line: number | null;
  kind: string;
  message: string;
}

/** Where a referenced blob's bytes come from. */
export interface ReportBlobSource {
  /** Size in bytes without reading it, or undefined when it is not available. */
  size(digest: string): number | undefined;
  /** The bytes, or undefined when missing, refused or over `maxBytes` (nothing over the cap is read). */
  read(digest: string, maxBytes?: number): Buffer | undefined;
  /** Why a blob that is there is not read (a symbolic link), when it is not. */
  refused?(digest: string): string | undefined;
}

/** What a report is made of: the journal's exact bytes and what surrounds them. */
export interface ReportSource {
  kind: 'journal' | 'receipt';
  /** The input as named (journal file or receipt file). */
  path: string;
  agentId: string;
  journal: Buffer;
  /** The head the chain must end at (a receipt manifest's), when there is one. */
  expectedHead?: string;
  blobs: ReportBlobSource;
  /** Blobs to list, in order (the chain's refs, first occurrence). Computed from the journal when absent. */
  blobOrder?: string[];
  receipt?: {
    /** manifest.json's exact bytes (what the signature covers). */
    manifestBytes: Buffer;
    /** The 64-byte signature, when the receipt is signed. */
    signature?: Buffer;
    /** The trusted keys the generator checked the signature with (the page checks with them too). */
    publicKeys: { keyId: string; raw: Buffer; source: string }[];
    signed: boolean;
    keyId: string | null;
    signatureCheck: string;
    /** Receipt-level faults (structure, signature, manifest vs chain), not the chain's own. */
    faults: ReportFault[];
    /** The SHA-256 of the receipt file's bytes the report was made of (what a keyless statement names). */
    sha256: string;
    /** A keyless (Sigstore) signer, when a bundle is beside the receipt: set by the caller that checked it. */
    keyless?: ReportKeyless;
  };
  /** The fork tree to draw, when known (see `ReportOptions.forks`). */
  forks?: ReportForkNode | null;
  /** The files each step changed, from the run journal of the same id (docs/provenance.md). */
  stepFiles?: ReportStepFiles[];
  /**
   * A journal file verified whole when it was loaded (streaming): its verdict, and
   * the window `journal` then holds (absent: `journal` is the whole file).
   */
  verified?: VerifyResult;
  windowed?: Windowed;
  /** The window options were applied when loading (so `windowed` absent means the whole journal). */
  windowDone?: boolean;
  /** The window was chosen because the journal is too large for one page (no --max-steps given). */
  autoWindow?: { bytes: number };
}

/** A keyless signature as the report shows it: who the certificate names, and whether that was checked. */
export interface ReportKeyless {
  bundle: string;
  identity: string | null;
  issuer: string | null;
  /** True only when the bundle verified under an identity policy (its faults are the receipt's otherwise). */
  verified: boolean;
  /** What was checked, in words. */
  text: string;
}

export interface LoadSourceOptions {
  /** Trusted public keys for a receipt's signature. */
  publicKeys?: PublicKey[];
  /** Embed at most this many steps: a window of the journal (the rest is checked by the generator only). */
  maxSteps?: number;
  /** The seq the window starts at (default: the window ends at the last step). Needs `maxSteps`. */
  fromStep?: number;
  /** Progress of verifying a large journal. */
  onProgress?: ProgressFn;
  /** How the caller's user gives a trusted key (the door's words, e.g. `stepchain report --public-key FILE`), shown
   * with "signature NOT checked". */
  keyHint?: string;
}

/**
 * Blobs from a project's CAS. Never through a symbolic link anywhere below the
 * project root (a committed link could point at `.git/config`), and never more
 * than the caller's cap; the caller hashes what it gets against the name.
 */
export function casSource(root: string | undefined): ReportBlobSource {
  if (root === undefined) return { size: () => undefined, read: () => undefined };
  const cas = new Cas(casDir(root), false);
  const rel = (digest: string): string => path.relative(root, cas.pathOf(digest));
  return {
    size(digest) {
      const st = lstatUnder(root, rel(digest));
      return st.kind === 'file' ? st.size : undefined;
    },
    read(digest, maxBytes) {
      const r = readUnder(root, rel(digest), maxBytes);
      return r.kind === 'file' ? r.bytes : undefined;
    },
    refused(digest) {
      const st = lstatUnder(root, rel(digest));
      if (st.kind === 'symlink') return `${st.at} is a symbolic link (never followed)`;
      // Something in a blob's place that is not a file (a FIFO, a directory) is no blob, and never "missing".
      if (st.kind === 'dir') return `${rel(digest)} is a directory, not a regular file (never read)`;
      if (st.kind === 'other') return `${rel(digest)} is not a regular file (a FIFO, socket or device; never read)`;
      return undefined;
    },
  };
}

function mapSource(blobs: Map<string, Buffer>): ReportBlobSource {
  return { size: (d) => blobs.get(d)?.length, read: (d) => blobs.get(d) };
}

/**
 * The chain's blob refs, first occurrence order (malformed lines skipped): what the verifier's walk collects (the
 * same list the rows give, every row parsed: test/helpers/journal-edits.ts holds the two equal), without a parse.
 */
export function blobRefsOf(journal: Buffer): string[] {
  return verifyJournalBytesWithRefs(journal).blob_refs;
}

function receiptSource(file: string, options: LoadSourceOptions): ReportSource {
  const keys = options.publicKeys ?? [];
  // One read: the report shows the bytes that were verified, whatever happens to the file meanwhile.
  const { verdict: checked, receipt: loaded, bytes } = inspectReceipt(file, { publicKeys: keys });
  if (loaded === undefined) {
    const first = checked.errors[0];
    throw new ReceiptFormatError(
      first?.kind ?? 'not_a_receipt',
      `${file}: ${first?.message ?? 'not a readable receipt'}`,
      first?.member,
    );
  }
  const faults: ReportFault[] = [];
  for (const f of checked.errors) {
    // The page re-checks the chain itself.
    if (f.member === JOURNAL_MEMBER && f.kind !== 'non_canonical') continue;
    // The page checks the head against the manifest, and the generator hashes every blob it lists.
    // A signature nobody checked stays a fault (see signatureVerdict): the verdict is never green on it.
    if (f.kind === 'manifest_head_mismatch' || f.kind === 'blob_digest_mismatch') continue;
    // A line of the journal member is named where the report names lines (RenderedReport.linesIn); any other
    // member, in the message.
    const named = f.member === undefined || (f.member === JOURNAL_MEMBER && f.line !== undefined);
    faults.push({
      line: f.line ?? null,
      kind: f.kind,
      message: `${named ? '' : `${f.member}: `}${f.message}`,
    });
  }
  const signed = loaded.signature !== undefined;
  const verdict = signatureVerdict(checked, keys.length);
  const signatureCheck =
    verdict.status === 'unsigned'
      ? 'unsigned: there is no signature to check'
      : verdict.status === 'not_checked'
        ? `signature NOT checked: no trusted public key was given to the generator${options.keyHint === undefined ? '' : ` (${options.keyHint})`}`
        : verdict.status === 'verified'
          ? `verified by the generator (Ed25519, node:crypto) under trusted key ${checked.key_id ?? ''}`
          : verdict.status === 'invalid'
            ? `FAILED: the signature does not verify under the given key(s) ${keys.map((k) => k.keyId).join(', ')}`
            : verdict.text;
  const refs = blobRefsOf(loaded.journal);
  // The manifest's digests the chain does not list, after the chain's: looked up in a set (a search of the list for
  // each was quadratic: 118 s for a receipt of 100,000 blobs).
  const listed = new Set(refs);
  const order = [...refs, ...loaded.manifest.blob_digests.filter((d) => !listed.has(d))];
  return {
    kind: 'receipt',
    path: file,
    agentId: loaded.manifest.agent_id,
    journal: loaded.journal,
    expectedHead: loaded.manifest.head_hash,
    blobs: mapSource(loaded.blobs),
    blobOrder: order,
    receipt: {
      manifestBytes: loaded.manifestBytes,
      ...(loaded.signature === undefined ? {} : { signature: loaded.signature }),
      publicKeys: keys.map((k) => ({ keyId: k.keyId, raw: k.raw, source: k.source })),
      signed,
      keyId: checked.key_id,
      signatureCheck,
      faults,
      sha256: sha256Hex(bytes ?? Buffer.alloc(0)),
    },
  };
}

/**
 * Resolves `<agent|dir|file|receipt>` into a report source. Blobs of a journal
 * come from its project's CAS (the project is found from the journal's path, else
 * `root`); a receipt's from its `blobs/` members. Missing input: InputError.
 */
export function loadReportSource(target: string, root: string, options: LoadSourceOptions = {}): ReportSource {
  const asPath = path.resolve(target);
  if (looksLikeReceipt(asPath)) {
    let st;
    try {
      st = statSync(asPath);
    } catch {
      throw new InputError(`${target}: no such receipt file`);
    }
    if (!st.isFile()) throw new InputError(`${target}: not a regular file`);
    return receiptSource(asPath, options);
  }
  const j = resolveJournal(target, root);
  const base: Pick<ReportSource, 'kind' | 'path' | 'agentId' | 'blobs' | 'stepFiles'> = {
    kind: 'journal' as const,
    path: j.file,
    agentId: j.agentId,
    blobs: casSource(projectRootOf(j.dir) ?? root),
  };
  // Verified once, streaming (docs/journal.md, "Reading windows"); a window then reads only its own rows.
  // A window lists the blobs of its own rows, read with them: collecting every row's refs during the walk (a
  // set of up to a million digests) is only worth it when the whole journal is embedded.
  let whole = options.maxSteps === undefined;
  let size = 0;
  try {
    size = statSync(j.file).size;
    whole &&= size <= AUTO_WINDOW_BYTES;
  } catch {
    /* the walk below names the file */
  }
  let steps: VerifiedSteps;
  try {
    steps = VerifiedSteps.open(j.file, {
      collectRefs: whole,
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    });
  } catch (e) {
    // A chain that does not verify is embedded as it is, for the page to show its faults.
    if (e instanceof UnverifiedJournalError) {
      if (size > AUTO_WINDOW_BYTES && options.maxSteps === undefined) throw tooLargeUnverified(e.message, size);
      if (size > DEFAULT_MAX_READ_BYTES) throw tooLargeUnverified(e.message, size, true);
      return { ...base, journal: readJournalFileBytes(j.file) };
    }
    throw e;
  }
  pausePoint('report:verified');
  const files = stepFilesOf(projectRootOf(j.dir) ?? root, j.agentId, (seq) => steps.at(seq)?.row.step_hash);
  if (files !== undefined)
    base.stepFiles = [...files.bySeq]
      .sort((a, b) => a[0] - b[0])
      .map(([seq, list]) => ({ seq, step_hash: steps.at(seq)!.row.step_hash, files: list }));
  const auto = options.maxSteps === undefined && steps.size > AUTO_WINDOW_BYTES;
  const maxSteps = options.maxSteps ?? (auto ? AUTO_WINDOW_STEPS : undefined);
  if (maxSteps !== undefined) {
    const w = streamedWindow(steps, (a, b) => readRange(j.file, a, b), maxSteps, options.fromStep);
    if (w !== null) {
      return {
        ...base,
        journal: w.bytes,
        verified: steps.result,
        windowed: w,
        windowDone: true,
        blobOrder: windowRefs(j.file, steps, w),
        ...(auto ? { autoWindow: { bytes: steps.size } } : {}),
      };
    }
  }
  return {
    ...base,
    journal: readJournalFileBytes(j.file),
    verified: steps.result,
    windowDone: true,
    ...(steps.blobRefs === undefined ? {} : { blobOrder: steps.blobRefs }),
  };
}

/**
 * The blob refs of a window's rows (first occurrence), from the bytes the page embeds: walked by the verifier's
 * fast path from the verified row before them, so they must be exactly the rows verified there, or the journal
 * changed since it was verified (refused). Reading each row in full for its refs cost ten times more.
 */
function windowRefs(file: string, steps: VerifiedSteps, w: Windowed): string[] {
  const first = w.window.first_seq;
  const walked = scanChunk(
    w.bytes,
    0,
    w.bytes.length,
    0,
    { strict: false, collectRefs: true },
    { steps: first, prevHash: w.window.anchor_hash },
  );
  const last = steps.at(first + w.steps - 1)!.row.step_hash;
  if (walked.faults.list.length > 0 || walked.rows !== w.steps || walked.last?.step_hash !== last)
    throw new IntegrityError(`${file}: the journal changed since it was verified (the window's rows); verify it again`);
  return walked.refs ?? [];
}

/** Bytes [start, end) of a file. */
function readRange(file: string, start: number, end: number): Buffer {
  const fd = openSync(file, READ_FLAGS);
  try {
    const buf = Buffer.allocUnsafe(end - start);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}
