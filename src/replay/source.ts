import path from 'node:path';
import { decodeUtf8, parse, type JsonValue } from '../canonical';
import { IntegrityError, type ErrorFault } from '../errors';
import {
  Cas,
  casDir,
  describeFaults,
  faultMessage,
  projectRootOf,
  resolveJournal,
  verifiedOr,
  VerifiedSteps,
  type Fault,
  type JournalEntry,
  type ProgressFn,
  type ReadJournal,
  type StepList,
  unhashedKeys,
} from '../journal';
import { looksLikeReceipt, redactedFields } from '../receipt';
import { sha256Hex } from '../util/hash';
import { plural } from '../util/words';

/** Where a step's blobs can be read from (a project's CAS, or a receipt's bundled blobs). */
export interface BlobSource {
  /** Where the blobs come from, for messages. */
  readonly where: string;
  /** The blob's bytes when present (and matching its digest), else undefined. */
  get(digest: string): Buffer | undefined;
  /** Why `get` found no blob where a file is stored under its name (its bytes do not match), if so. */
  problem?(digest: string): string | undefined;
}

/** A verified journal, ready to display. Only built after its chain verified. */
export interface ReplaySource {
  kind: 'journal' | 'receipt';
  /** The file the operator named (journal file or receipt archive). */
  file: string;
  agentId: string;
  head_hash: string;
  steps: number;
  /** The steps by seq: in memory (receipts), or read a window at a time from the verified file (journals). */
  entries: StepList;
  blobs: BlobSource;
  /** The project the journal belongs to (for forks); undefined for receipts. */
  projectRoot?: string;
  /** Whether any field reads `<<redacted>>`: a published receipt, its chain re-anchored over redacted rows. */
  redacted: boolean;
  /** A receipt: whether it carries a signature, and whether a trusted key verified it. */
  signed?: boolean;
  signatureChecked?: boolean;
  /** A receipt with a keyless (Sigstore) bundle beside it: the bundle, which replay and show do not check. */
  keylessBundle?: string;
}

/**
 * A chain that does not verify: nothing is displayed. `faults` are the
 * `file:line: kind: message` lines to print, one per fault.
 */
export class BrokenChainError extends IntegrityError {
  override name = 'BrokenChainError';
  constructor(
    readonly file: string,
    readonly faults: string[],
    what: 'chain' | 'receipt' | 'exchange links' = 'chain',
    details?: ErrorFault[],
  ) {
    super(
      `${file}: the ${what} ${what === 'exchange links' ? 'do' : 'does'} not verify (${plural(faults.length, 'fault')}); refusing to display it`,
    );
    if (details !== undefined) this.details = details;
  }
}

/** The CAS directories that may hold a journal's blobs, first found wins. */
export function casBlobs(dirs: string[]): BlobSource {
  const unique = [...new Set(dirs.map((d) => path.resolve(d)))];
  const stores = unique.map((d) => new Cas(d, false));
  const problems = new Map<string, string>();
  return {
    where: unique.join(', '),
    get(digest) {
      for (const s of stores) {
        const b = s.get(digest);
        if (b !== undefined && sha256Hex(b) === digest) return b;
        // Read no more than the file held; a blob is known by its digest, so bytes that do not hash to it are said so.
        if (b !== undefined && !problems.has(digest))
          problems.set(digest, `${s.pathOf(digest)} holds ${b.length} bytes that do not hash to its name`);
      }
      return undefined;
    },
    problem: (digest) => problems.get(digest),
  };
}

/** Blobs bundled in memory (a receipt's `blobs/`); a blob whose bytes do not match its name is absent. */
export function mapBlobs(where: string, blobs: Map<string, Buffer>): BlobSource {
  return {
    where,
    get(digest) {
      const b = blobs.get(digest);
      return b !== undefined && sha256Hex(b) === digest ? b : undefined;
    },
  };
}

function isRedacted(entries: JournalEntry[]): boolean {
  return redactedFields(entries.map((e) => e.row)).length > 0;
}

/** Faults as `--json` error documents carry them (a run says its lines and count in its message). */
function errorFaults(file: string, faults: readonly Fault[]): ErrorFault[] {
  return faults.map((f) => ({
    file,
    line: f.line,
    kind: f.kind,
    message: faultMessage(f),
  }));
}

/** Throws BrokenChainError unless the read journal verified (its faults listed, bounded). */
export function requireVerified(file: string, r: ReadJournal): void {
  if (!r.ok) throw new BrokenChainError(file, describeFaults(file, r), 'chain', errorFaults(file, r.errors));
}

/**
 * A journal opened to be read a block at a time (`VerifiedSteps`): one that does not verify is refused as nothing is
 * displayed of a broken chain (BrokenChainError naming `file` and its faults).
 */
export function verifiedOrRefused(file: string, open: () => VerifiedSteps): VerifiedSteps {
  return verifiedOr(open, (e) => {
    throw new BrokenChainError(file, describeFaults(file, e.result), 'chain', errorFaults(file, e.result.errors));
  });
}

/** Builds a source from an already verified read. */
export function sourceFromRead(
  r: ReadJournal,
  init: Omit<ReplaySource, 'head_hash' | 'steps' | 'entries' | 'redacted'>,
): ReplaySource {
  return { ...init, head_hash: r.head_hash, steps: r.steps, entries: r.entries, redacted: isRedacted(r.entries) };
}

export interface OpenOptions {
  /** The project root for agent ids and the CAS (default the current directory). */
  root?: string;
  /** The directory relative paths are taken from (default process.cwd()). */
  cwd?: string;
  /** Progress of the verification (a terminal shows it). */
  onProgress?: ProgressFn;
}

/** A path-like target taken relative to `cwd`; an agent id as is. */
export function targetPath(target: string, cwd: string): string {
  const isPath =
    target.includes('/') || target.includes(path.sep) || target.endsWith('.jsonl') || looksLikeReceipt(target);
  return isPath ? path.resolve(cwd, target) : target;
}

/**
 * Opens `<agent|dir|file>` for display: resolves it and verifies the chain from
 * genesis once, streaming; the steps shown are then read a window at a time, so
 * memory does not grow with the journal. A broken chain throws BrokenChainError
 * (exit 1); a missing journal or bad id throws InputError (exit 2).
 */
export function openJournal(target: string, options: OpenOptions = {}): ReplaySource {
  const cwd = options.cwd ?? process.cwd();
  const root = path.resolve(cwd, options.root ?? '.');
  const { file, dir, agentId } = resolveJournal(targetPath(target, cwd), root);
  const steps = verifiedOrRefused(file, () =>
    VerifiedSteps.open(file, options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  );
  const projectRoot = projectRootOf(dir);
  const cas = [projectRoot, root].filter((x): x is string => x !== undefined).map(casDir);
  return {
    kind: 'journal',
    file,
    agentId,
    head_hash: steps.head_hash,
    steps: steps.length,
    entries: steps,
    // Redaction is a property of published receipts; a journal is shown as it is.
    redacted: false,
    blobs: casBlobs(cas),
    ...(projectRoot === undefined ? {} : { projectRoot }),
  };
}

/** A row exactly as stored (key order, exact integers, float-ness), keys outside the ten included (`diff`). */
export function storedRow(entry: JournalEntry): JsonValue {
  return parse(decodeUtf8(entry.bytes), { objects: 'map' });
}

/**
 * A stored row split in two: the step (the ten keys of the format, as stored: key order, exact integers,
 * float-ness) and what is `unverified`, the keys outside the ten with their values, which no hash covers
 * (docs/journal.md, "Keys outside the row"). Shown beside the step, never as part of it. A canonical row
 * has exactly the ten keys and is not parsed for this.
 */
export function storedParts(entry: JournalEntry): { row: JsonValue; unverified: Map<string, JsonValue> } {
  const stored = storedRow(entry) as Map<string, JsonValue>;
  const unverified = new Map<string, JsonValue>();
  if (entry.canonical) return { row: stored, unverified };
  for (const k of unhashedKeys(stored.keys())) {
    unverified.set(k, stored.get(k)!);
    stored.delete(k);
  }
  return { row: stored, unverified };
}

/** The keys outside the ten of a step, with their values (empty for most rows). */
export function unverifiedFields(entry: JournalEntry): Map<string, JsonValue> {
  return entry.canonical ? new Map() : storedParts(entry).unverified;
}
