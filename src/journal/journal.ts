import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { canonical, CanonicalEncodeError, type JsonValue } from '../canonical';
import { InputError } from '../errors';
import { isSha256Hex, sha256Hex } from '../util/hash';
import { appendDurably, finishLastLine, moveTornTailAside } from '../util/fs';
import { acquireLock } from '../util/lock';
import { Cas } from './cas';
import { casDir, JOURNAL_FILE } from './layout';
import { scanSlices } from './parallel';
import { GENESIS, type ChainState } from './recover';
import { stitchRecovery } from './stitch';
import { encodeRow, type StepRow } from './row';
import { computeStepHash } from './step-hash';
import { readJournalFile, type ReadJournal, type VerifyOptions } from './verify';

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
  lockTimeoutMs?: number;
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
    canonical(v);
  } catch (e) {
    if (e instanceof CanonicalEncodeError) throw new InputError(`${name}: ${e.message}`);
    throw e;
  }
  return v;
}

/**
 * A per-step journal opened for appending. Opening takes the journal's lock,
 * revalidates the whole chain (fail-closed), moves a torn tail aside, and
 * releases the lock. Each append re-takes the lock, catches up on rows other
 * processes appended meanwhile (verifying them too), and writes one canonical
 * row with a single write.
 */
export class Journal {
  readonly file: string;
  readonly lockFile: string;
  readonly cas: Cas | undefined;
  private readonly durable: boolean;
  private readonly lockTimeoutMs: number | undefined;
  private state: ChainState = GENESIS;

  private constructor(
    readonly dir: string,
    options: JournalOptions,
  ) {
    this.file = path.join(dir, JOURNAL_FILE);
    this.lockFile = `${this.file}.lock`;
    this.durable = (options.durability ?? 'durable') === 'durable';
    this.lockTimeoutMs = options.lockTimeoutMs;
    const root = projectRootOf(dir);
    this.cas = options.cas ?? (root === undefined ? undefined : new Cas(casDir(root), this.durable));
  }

  /** Opens (creating the directory if needed) and recovers. Throws JournalRecoveryError on a bad chain. */
  static open(dir: string, options: JournalOptions = {}): Journal {
    const j = new Journal(dir, options);
    mkdirSync(dir, { recursive: true });
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
    return this.locked(() => {
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
      appendDurably(this.file, data, this.durable);
      this.state = { offset: this.state.offset + data.length, head: prev, steps: seq };
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

  private locked<T>(fn: () => T): T {
    const release = acquireLock(
      this.lockFile,
      this.lockTimeoutMs === undefined ? {} : { timeoutMs: this.lockTimeoutMs },
    );
    try {
      return fn();
    } finally {
      release();
    }
  }

  /** Under the lock: verify whatever was appended since we last looked, repair a torn tail. */
  private catchUp(): void {
    let size: number;
    try {
      size = statSync(this.file).size;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        this.state = GENESIS;
        return;
      }
      throw new InputError(`${this.file}: cannot open: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    if (size === this.state.offset) return;
    // Grown: verify only the new bytes. Shrunk (truncated by someone): start over.
    const from = size > this.state.offset ? this.state : GENESIS;
    const slices = scanSlices({ kind: 'file', path: this.file }, from.offset, size, { strict: false });
    const t = stitchRecovery(this.file, slices, from);
    let end = t.validEnd;
    if (t.unterminatedRowEnd !== undefined) {
      // A complete, valid row whose newline never made it: finish the line.
      finishLastLine(this.file, t.unterminatedRowEnd, this.durable);
      end = t.unterminatedRowEnd + 1;
    } else if (t.tornFrom !== undefined) {
      moveTornTailAside(this.file, t.tornFrom, this.durable);
    }
    this.state = { offset: end, head: t.head, steps: t.steps };
  }
}
