import { chmodSync } from 'node:fs';
import path from 'node:path';
import { CanonicalEncodeError, MAX_NESTING, readOnce, type JsonValue } from '../canonical';
import { InputError } from '../errors';
import { isSha256Hex, sha256Hex } from '../util/hash';
import { statIdentity } from '../util/checkpoint';
import { ChainFile, type Planned, type TornTailMoved, tornTailOption } from '../util/chain-file';
import { ensureDir, ensureDirUnder } from '../util/fs';
import { PRIVATE_DIR_MODE } from '../util/modes';
import { Cas } from './cas';
import { JournalFormat } from './format';
import { casDir, JOURNAL_FILE } from './layout';
import type { ChainState } from './recover';
import { encodeRow, type StepRow } from './row';
import { computeStepHash } from './step-hash';
import { forkParentRoot } from './tombstone';
import { readJournalFile, type ReadJournal, type VerifyOptions } from './verify';
import { preciseNowMs } from '../util/time';

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
  /**
   * Told the rows an append is about to write (their seq and hashes fixed), under the journal's lock, before a byte
   * of them is written; what it throws stops the append, nothing written. For a caller that must leave a mark of
   * what it appends, one a crash between its append and its own next write cannot leave ambiguous (the Gemini CLI
   * hook's pending payloads: src/agents/gemini/pending.ts).
   */
  beforeWrite?: (rows: readonly StepRow[]) => void;
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
  return preciseNowMs() / 1000;
}

/** A step that can be written: its JSON values checked, its time decided. */
export interface ValidStep {
  model: JsonValue;
  prompt: JsonValue;
  tool_call: JsonValue;
  tool_result: JsonValue;
  ts: number;
}

/**
 * Checks a step before anything is written: JSON values must be writable (no
 * NaN or infinities), the input given once, a given input hash well-formed.
 */
export function validateStep(s: StepInput): ValidStep {
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

/**
 * The value as it will be hashed and written: read once (readOnce), so the row's bytes are what its hash covers; an
 * InputError naming the field when no row can hold it (NaN, an infinity, nesting past what a line holds).
 */
export function checkWritable(name: string, v: JsonValue | undefined): JsonValue {
  if (v === undefined) return null;
  try {
    return readOnce(v);
  } catch (e) {
    if (e instanceof CanonicalEncodeError && e.message.includes('nested deeper'))
      throw new InputError(
        `${name}: nested deeper than ${MAX_NESTING - 1} levels (with the row around it, more than the ${MAX_NESTING} a journal line may hold)`,
      );
    if (e instanceof CanonicalEncodeError) throw new InputError(`${name}: ${e.message}`);
    throw e;
  }
}

/** A step ready to be chained: its hashed fields (but the chain's), its blobs stored, its time. */
interface PreparedStep {
  fields: Omit<StepRow, 'prev_hash' | 'seq' | 'step_hash' | 'blob_refs' | 'ts'>;
  refs: string[];
  ts: number;
}

/**
 * A per-step journal opened for appending, over the chain-file writer
 * (src/util/chain-file.ts: the lock, the verified state from this object's own
 * last look, the checkpoint or the full walk, the rollback and torn-tail rules,
 * the durable append, the checkpoint). Opening establishes the verified chain
 * state (fail-closed) and moves a torn tail aside; each append re-takes the
 * lock, catches up on whatever changed meanwhile, and writes canonical rows
 * with a single write. So an append costs the same at any length, and any
 * other change to the file, an edit with size and mtime restored included, is
 * caught by the full walk before the next row is written.
 */
export class Journal {
  readonly file: string;
  readonly lockFile: string;
  readonly cas: Cas | undefined;
  /** `<root>` when the journal is laid out in a project (`<root>/.sdd/runtime/journal/<id>/`). */
  private readonly root: string | undefined;
  private readonly chain: ChainFile<ChainState>;
  private readonly format: JournalFormat;
  private readonly beforeWrite: ((rows: readonly StepRow[]) => void) | undefined;

  private constructor(
    readonly dir: string,
    options: JournalOptions,
  ) {
    this.file = path.join(dir, JOURNAL_FILE);
    this.lockFile = `${this.file}.lock`;
    const durable = (options.durability ?? 'durable') === 'durable';
    const env = options.env ?? process.env;
    this.root = projectRootOf(dir);
    this.cas = options.cas ?? (this.root === undefined ? undefined : new Cas(casDir(this.root), durable));
    this.format = new JournalFormat(dir, this.file, this.root, env);
    this.beforeWrite = options.beforeWrite;
    this.chain = new ChainFile(this.format, {
      durable,
      env,
      ...(options.lockTimeoutMs === undefined ? {} : { lockTimeoutMs: options.lockTimeoutMs }),
      ...tornTailOption(options),
    });
  }

  /** Opens (creating the directory if needed) and recovers. Throws JournalRecoveryError on a bad chain. */
  static open(dir: string, options: JournalOptions = {}): Journal {
    const j = new Journal(dir, options);
    j.makeDir();
    j.chain.locked(() => j.chain.establish());
    return j;
  }

  /**
   * Opens and appends `step` in one lock cycle (what a one-shot caller such as
   * the CLI wants): the step is checked before anything is created, the chain
   * recovered and verified under the lock before the row is written.
   */
  static appendTo(dir: string, step: StepInput, options: JournalOptions = {}): { journal: Journal; row: StepRow } {
    const j = new Journal(dir, options);
    const valid = validateStep(step); // nothing is created for a step that cannot be written
    j.makeDir();
    return { journal: j, row: j.appendValid([step], [valid])[0]! };
  }

  /** The head (step_hash of the last row, or 64 zeros). */
  get head(): string {
    return this.chain.current.head;
  }

  /** The number of steps in the chain. */
  get length(): number {
    return this.chain.current.steps;
  }

  append(step: StepInput): StepRow {
    return this.appendMany([step])[0]!;
  }

  /** Appends several steps with one write and (when durable) one fsync. */
  appendMany(steps: StepInput[]): StepRow[] {
    return this.appendValid(steps, steps.map(validateStep));
  }

  /** All rows, verified (a fault is reported in the result, nothing is hidden). */
  read(options: VerifyOptions = {}): ReadJournal {
    return readJournalFile(this.file, options);
  }

  private appendValid(steps: StepInput[], valid: ValidStep[]): StepRow[] {
    // Blobs are stored before the row is written, so a row never names a missing blob.
    const prepared = steps.map((s, i) => this.store(s, valid[i]!));
    return this.chain.append((state) => {
      const planned = chainRows(this.file, state, prepared);
      this.beforeWrite?.(planned.result);
      return planned;
    }).result!;
  }

  /** Creates the journal's directory (owner-only), never resurrecting a removed fork's worktree. */
  private makeDir(): void {
    const root = this.root;
    // A removed fork's journal is refused by its tombstone before its directory is made again.
    if (root !== undefined && statIdentity(this.file) === undefined) this.format.onMissing();
    if (root !== undefined && forkParentRoot(root) !== undefined) ensureDirUnder(root, this.dir, PRIVATE_DIR_MODE);
    else ensureDir(this.dir, PRIVATE_DIR_MODE);
    // Owner-only, as the reference makes it: the journal can carry sensitive prompts (docs/journal.md).
    if (process.platform !== 'win32') {
      try {
        chmodSync(this.dir, PRIVATE_DIR_MODE);
      } catch {
        /* not ours to change (another owner's directory): the file itself is still created 0600 */
      }
    }
  }

  /** Stores a step's blobs in the CAS; its hashed fields. */
  private store(s: StepInput, v: ValidStep): PreparedStep {
    const refs: string[] = [];
    const store = (bytes: Uint8Array): string => {
      if (this.cas === undefined)
        throw new InputError(`${this.dir}: no blob store for this journal (give a CAS directory)`);
      const d = this.cas.put(bytes);
      if (!refs.includes(d)) refs.push(d);
      return d;
    };
    const input_hash = s.input !== undefined ? store(s.input) : (s.inputHash ?? sha256Hex(new Uint8Array()));
    for (const b of s.blobs ?? []) store(b);
    const { model, prompt, tool_call, tool_result, ts } = v;
    return { fields: { input_hash, model, prompt, tool_call, tool_result }, refs, ts };
  }
}

/** The rows that extend the verified `state`, their bytes, and the state after them. */
function chainRows(file: string, state: ChainState, prepared: PreparedStep[]): Planned<ChainState, StepRow[]> {
  let prev = state.head;
  let seq = state.steps;
  const rows: StepRow[] = [];
  for (const p of prepared) {
    const fields = { prev_hash: prev, ...p.fields };
    const row: StepRow = { ...fields, seq, step_hash: computeStepHash(fields), blob_refs: p.refs, ts: p.ts };
    rows.push(row);
    prev = row.step_hash;
    seq++;
  }
  const data = Buffer.from(rows.map((r) => `${encodeRow(r)}\n`).join(''), 'utf8');
  return {
    file,
    data,
    result: rows,
    next: (after) => ({ state: { offset: state.offset + data.length, head: prev, steps: seq }, id: after }),
  };
}
