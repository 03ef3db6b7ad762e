import { chmodSync, existsSync } from 'node:fs';
import path from 'node:path';
import { canonical, CanonicalEncodeError, MAX_NESTING, type JsonValue } from '../canonical';
import { InputError, IntegrityError, isOsError, osError } from '../errors';
import { isSha256Hex, sha256Hex } from '../util/hash';
import { checkpointKey, identityOf, sameIdentity, statIdentity, type FileIdentity } from '../util/checkpoint';
import { appendDurably, ensureDir, ensureDirUnder } from '../util/fs';
import { priorCheckpoint, type CheckpointedTip } from '../util/rollback';
import { acquireLock, lockTimeoutFromEnv, type LockHandle } from '../util/lock';
import { pausePoint } from '../util/pause';
import { Cas } from './cas';
import {
  journalCheckpointFile,
  JOURNAL_CHECKPOINT_KIND,
  loadJournalCheckpoint,
  saveJournalCheckpoint,
} from './checkpoint';
import { casDir, JOURNAL_FILE } from './layout';
import { GENESIS, JournalRollbackError, type ChainState, type RecoveredTail } from './recover';
import { checkpointedJournalTip, journalRollback } from './rollback';
import { checkTail, refuseNoRows, repairTail, type TornTailMoved } from './tail';
import { encodeRow, type StepRow } from './row';
import { computeStepHash } from './step-hash';
import { forkParentRoot, refuseRemovedJournal } from './tombstone';
import { readJournalFile, type ReadJournal, type VerifyOptions } from './verify';
import { refuseNonRegular } from '../util/nofollow';

/**
 * Durability of appends:
 * - `durable` (default): each append (or `appendMany` batch) is fsync'ed before it
 *   returns, and so are new files and their directories. An append that returned
 *   survives a crash or power loss.
 * - `none`: written with write(2) only (survives a process crash, not power loss).
 */
export type Durability = 'durable' | 'none';

export interface JournalOptions {
  /** The blob store (default `<root>/.sdd/runtime/cas` when the journal is in a project layout). */
  cas?: Cas;
  durability?: Durability;
  /** How long to wait for the journal's lock (default STEPCHAIN_LOCK_TIMEOUT_MS, else 30 s). */
  lockTimeoutMs?: number;
  /**
   * The environment for the checkpoint key (STEPCHAIN_CHECKPOINT_KEY_PATH,
   * XDG_STATE_HOME, HOME) and STEPCHAIN_CHECKPOINT=off (default process.env).
   */
  env?: NodeJS.ProcessEnv;
  /** Told whenever a torn tail is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
}

/** One step to append. The input blob is stored in the CAS and hashed into `input_hash`. */
export interface StepInput {
  /** The user-supplied input blob. */
  input?: Uint8Array;
  /** The input's SHA-256 when the blob itself is not at hand (not stored). */
  inputHash?: string;
  model?: JsonValue;
  prompt?: JsonValue;
  tool_call?: JsonValue;
  tool_result?: JsonValue;
  /** Extra blobs stored in the CAS and listed in `blob_refs`. */
  blobs?: Uint8Array[];
  /** Unix seconds (default now). */
  ts?: number;
}

/** `<root>` of a journal at `<root>/.sdd/runtime/journal/<id>/000000.jsonl`, if it is laid out so. */
export function projectRootOf(journalDirPath: string): string | undefined {
  const parts = path.resolve(journalDirPath).split(path.sep);
  const n = parts.length;
  if (n >= 5 && parts[n - 2] === 'journal' && parts[n - 3] === 'runtime' && parts[n - 4] === '.sdd') {
    return parts.slice(0, n - 4).join(path.sep) || path.sep;
  }
  return undefined;
}

function nowSeconds(): number {
  return (performance.timeOrigin + performance.now()) / 1000;
}

/**
 * Checks a step before anything is written: JSON values must be writable (no
 * NaN or infinities), the input given once, a given input hash well-formed.
 */
export function validateStep(s: StepInput): {
  model: JsonValue;
  prompt: JsonValue;
  tool_call: JsonValue;
  tool_result: JsonValue;
  ts: number;
} {
  const model = checkWritable('model', s.model);
  const prompt = checkWritable('prompt', s.prompt);
  const tool_call = checkWritable('tool_call', s.tool_call);
  const tool_result = checkWritable('tool_result', s.tool_result);
  if (s.input !== undefined && s.inputHash !== undefined) throw new InputError('give the input or its hash, not both');
  if (s.inputHash !== undefined && !isSha256Hex(s.inputHash)) {
    throw new InputError(`input hash must be 64 lowercase hex digits, got ${JSON.stringify(s.inputHash)}`);
  }
  const ts = s.ts ?? nowSeconds();
  if (!Number.isFinite(ts)) throw new InputError('ts must be a finite number');
  return { model, prompt, tool_call, tool_result, ts };
}

function checkWritable(name: string, v: JsonValue | undefined): JsonValue {
  if (v === undefined) return null;
  try {
    // Encoded one level down, as in the row and the hashed payload (MAX_NESTING counts the row).
    canonical([v]);
  } catch (e) {
    if (e instanceof CanonicalEncodeError && e.message.includes('nested deeper'))
      throw new InputError(
        `${name}: nested deeper than ${MAX_NESTING - 1} levels (with the row around it, more than the ${MAX_NESTING} a journal line may hold)`,
      );
    if (e instanceof CanonicalEncodeError) throw new InputError(`${name}: ${e.message}`);
    throw e;
  }
  return v;
}

/**
 * A per-step journal opened for appending. Opening takes the journal's lock,
 * establishes the verified chain state (fail-closed), moves a torn tail aside,
 * and releases the lock. Each append re-takes the lock, catches up on whatever
 * changed meanwhile, and writes one canonical row with a single write.
 *
 * The verified state comes from, in order: this object's own last look, when
 * the file's identity (device, inode, size, ctime) is unchanged since; the
 * authenticated checkpoint beside the file, when it holds for the file as it
 * is (another stepchain writer appended); else the full walk from genesis
 * (docs/journal.md, "Checkpoints"). So an append costs the same at any length,
 * and any other change to the file, an edit with size and mtime restored
 * included, is caught by the full walk before the next row is written.
 */
export class Journal {
  readonly file: string;
  readonly lockFile: string;
  readonly cas: Cas | undefined;
  private readonly durable: boolean;
  private readonly lockTimeoutMs: number | undefined;
  private readonly env: NodeJS.ProcessEnv;
  private readonly onTornTail: ((m: TornTailMoved) => void) | undefined;
  private state: ChainState = GENESIS;
  /**
   * The file's identity when `state` was last established, if nothing else
   * changed it meanwhile (undefined: never, no file, or not to be vouched for).
   */
  private known: FileIdentity | undefined;
  /** `'new'` when the last look found no file (the append creates it). */
  private expectNew: 'new' | undefined;
  private key: Buffer | undefined | null = null;

  private constructor(
    readonly dir: string,
    options: JournalOptions,
  ) {
    this.file = path.join(dir, JOURNAL_FILE);
    this.lockFile = `${this.file}.lock`;
    this.durable = (options.durability ?? 'durable') === 'durable';
    this.env = options.env ?? process.env;
    this.lockTimeoutMs = options.lockTimeoutMs ?? lockTimeoutFromEnv(this.env);
    this.onTornTail = options.onTornTail;
    const root = projectRootOf(dir);
    this.cas = options.cas ?? (root === undefined ? undefined : new Cas(casDir(root), this.durable));
  }

  /** Opens (creating the directory if needed) and recovers. Throws JournalRecoveryError on a bad chain. */
  static open(dir: string, options: JournalOptions = {}): Journal {
    const j = new Journal(dir, options);
    const root = projectRootOf(dir);
    if (root !== undefined && statIdentity(j.file) === undefined) j.refuseIfRemoved();
    // Never resurrect a removed fork's worktree by creating its journal directory.
    if (root !== undefined && forkParentRoot(root) !== undefined) ensureDirUnder(root, dir);
    else ensureDir(dir);
    // Owner-only, as the reference makes it: the journal can carry sensitive prompts (docs/journal.md).
    if (process.platform !== 'win32') {
      try {
        chmodSync(dir, 0o700);
      } catch {
        /* not ours to change (another owner's directory): the file itself is still created 0600 */
      }
    }
    j.locked(() => j.catchUp());
    return j;
  }

  /** The head (step_hash of the last row, or 64 zeros). */
  get head(): string {
    return this.state.head;
  }

  /** The number of steps in the chain. */
  get length(): number {
    return this.state.steps;
  }

  append(step: StepInput): StepRow {
    return this.appendMany([step])[0]!;
  }

  /** Appends several steps with one write and (when durable) one fsync. */
  appendMany(steps: StepInput[]): StepRow[] {
    const prepared = steps.map((s) => this.prepare(s));
    return this.locked((lock) => {
      this.catchUp();
      let prev = this.state.head;
      let seq = this.state.steps;
      const rows: StepRow[] = [];
      for (const p of prepared) {
        const fields = { prev_hash: prev, ...p.fields };
        const row: StepRow = { ...fields, seq, step_hash: computeStepHash(fields), blob_refs: p.refs, ts: p.ts };
        rows.push(row);
        prev = row.step_hash;
        seq++;
      }
      const data = Buffer.from(rows.map((r) => `${encodeRow(r)}\n`).join(''), 'utf8');
      lock.refresh();
      lock.assertHeld();
      const { after, untouched } = appendDurably(this.file, data, this.durable, this.known ?? this.expectNew);
      this.state = { offset: this.state.offset + data.length, head: prev, steps: seq };
      // Only a file nothing else touched while we verified and wrote it is vouched for (docs/journal.md, "Checkpoints").
      this.known = untouched ? identityOf(after) : undefined;
      pausePoint('journal:after-write', this.env);
      this.saveCheckpoint(data);
      return rows;
    });
  }

  /** All rows, verified (a fault is reported in the result, nothing is hidden). */
  read(options: VerifyOptions = {}): ReadJournal {
    return readJournalFile(this.file, options);
  }

  private prepare(s: StepInput): {
    fields: Omit<StepRow, 'prev_hash' | 'seq' | 'step_hash' | 'blob_refs' | 'ts'>;
    refs: string[];
    ts: number;
  } {
    const { model, prompt, tool_call, tool_result, ts } = validateStep(s);
    const refs: string[] = [];
    const store = (bytes: Uint8Array): string => {
      if (this.cas === undefined)
        throw new InputError(`${this.dir}: no blob store for this journal (give a CAS directory)`);
      const d = this.cas.put(bytes);
      if (!refs.includes(d)) refs.push(d);
      return d;
    };
    // Blobs are stored before the row is written, so a row never names a missing blob.
    const input_hash = s.input !== undefined ? store(s.input) : (s.inputHash ?? sha256Hex(new Uint8Array()));
    for (const b of s.blobs ?? []) store(b);
    return { fields: { input_hash, model, prompt, tool_call, tool_result }, refs, ts };
  }

  /** Refuses (naming the tombstone) when this journal belongs to a removed fork. */
  private refuseIfRemoved(): void {
    const root = projectRootOf(this.dir);
    if (root !== undefined) refuseRemovedJournal(root, path.basename(path.resolve(this.dir)), this.file);
  }

  private locked<T>(fn: (lock: LockHandle) => T): T {
    let lock: LockHandle;
    try {
      lock = acquireLock(this.lockFile, this.lockTimeoutMs === undefined ? {} : { timeoutMs: this.lockTimeoutMs });
    } catch (e) {
      // The directory went away while we waited (a fork removed under us): say so, naming the tombstone.
      if (!existsSync(this.dir)) this.refuseIfRemoved();
      throw e;
    }
    try {
      return fn(lock);
    } finally {
      lock();
    }
  }

  private checkpointKey(): Buffer | undefined {
    if (this.key === null) this.key = checkpointKey(this.env);
    return this.key;
  }

  private saveCheckpoint(written?: Uint8Array): void {
    const key = this.checkpointKey();
    if (key !== undefined && this.known !== undefined)
      saveJournalCheckpoint(this.file, this.known, this.state, key, written);
  }

  /**
   * The rollback rule (docs/journal.md, "Rollback"), before anything is
   * repaired: the walked file against what this object last verified and
   * against the authenticated checkpoint beside it, whatever identity the
   * file has now.
   */
  private refuseRollback(t: RecoveredTail): void {
    const tips: CheckpointedTip[] = [];
    if (this.known !== undefined) tips.push({ steps: this.state.steps, head: this.state.head, end: this.state.offset });
    const key = this.checkpointKey();
    const prior =
      key === undefined
        ? undefined
        : priorCheckpoint(journalCheckpointFile(this.file), JOURNAL_CHECKPOINT_KIND, this.env, key);
    const recorded = prior !== undefined && 'record' in prior ? checkpointedJournalTip(prior.record) : undefined;
    if (recorded !== undefined) tips.push(recorded);
    for (const ck of tips) {
      const f = journalRollback(this.file, ck, { steps: t.steps, head: t.head }, t.tornFrom, this.env);
      if (f !== undefined) throw new JournalRollbackError(this.file, f);
    }
  }

  /**
   * Under the lock: establish the verified state of the file as it is now
   * (unchanged since our last look, else its checkpoint, else the full walk),
   * repairing a torn tail.
   */
  private catchUp(): void {
    let id: FileIdentity | undefined;
    refuseNonRegular(this.file, 'cannot open for appending'); // a link, a FIFO, a directory: named, never walked
    try {
      id = statIdentity(this.file);
    } catch (e) {
      if (isOsError(e)) throw osError(e, this.file, 'cannot open');
      throw e;
    }
    if (id === undefined) {
      if (this.known !== undefined && this.state.steps > 0) {
        throw new IntegrityError(
          `${this.file}: the journal (${this.state.steps} steps, head ${this.state.head}) disappeared; refusing to start a fresh chain in its place`,
        );
      }
      this.refuseIfRemoved();
      this.state = GENESIS;
      this.known = undefined;
      this.expectNew = 'new';
      return;
    }
    this.expectNew = undefined;
    if (this.known !== undefined && sameIdentity(id, this.known)) return;
    const key = this.checkpointKey();
    const fromCheckpoint = key === undefined ? undefined : loadJournalCheckpoint(this.file, id, key);
    if (fromCheckpoint !== undefined) {
      refuseNoRows(this.file, fromCheckpoint.offset, fromCheckpoint.steps);
      this.state = fromCheckpoint;
      this.known = id;
      return;
    }
    // Anything else: walk the whole file (fail-closed).
    const size = Number(id.size);
    const from = GENESIS;
    // The torn-tail rule (docs/journal.md): refuse anything but valid rows and a torn tail; move that aside and say so.
    const t = checkTail(this.file, from, size, this.env);
    // Rollback is tampering: never repair or extend a file that holds less than was verified here before.
    this.refuseRollback(t);
    this.state = repairTail(this.file, t, size, this.durable, this.onTornTail);
    // Vouched for only if the file is still exactly what was walked: an edit made during the walk (to a part
    // already read) must not be checkpointed. A repaired file is walked again by the next writer instead.
    const now = statIdentity(this.file);
    const repaired = t.unterminatedRowEnd !== undefined || t.tornFrom !== undefined;
    this.known = now !== undefined && !repaired && sameIdentity(now, id) ? now : undefined;
    this.saveCheckpoint();
  }
}
