import { isOsError, osError } from '../errors';
import {
  checkpointKey,
  readCheckpoint,
  sameIdentity,
  statIdentity,
  tipMirrorDir,
  writeCheckpoint,
  type CheckpointRecord,
  type FileIdentity,
} from './checkpoint';
import { finishLastLine, moveTornTailAside } from './chain-repair';
import { appendDurably } from './fs';
import { acquireLock, lockTimeoutFromEnv, type LockHandle } from './lock';
import { pausePoint } from './pause';
import { priorCheckpoint, rollbackFault, type RollbackFault } from './rollback';
import { sanitize } from './terminal';
import { plural } from './words';

/**
 * The one append-only writer behind the three hash-chained files (per-step
 * journals, run journals, the audit log): take the lock, establish the
 * verified state, refuse a rollback, repair a torn tail (or refuse a tamper),
 * append durably, save the checkpoint (docs/journal.md, "Checkpoints",
 * "Rollback", "Recovery on open"). A format (`ChainFormat`) keeps only its row
 * rules: how its rows are walked and verified, what state a writer carries,
 * and how a checkpoint records it.
 *
 * The verified state comes from, in order: this writer's own last look, when
 * the target's identity (device, inode, size, ctime) is unchanged since; the
 * authenticated checkpoint, when it holds for the target as it is (another
 * writer appended); else the format's full walk, judged against what was
 * vouched for before (this writer's last look, the checkpoint, and its mirror
 * beside the key: whichever vouches for more rows) before anything is
 * repaired.
 */

/** What a checkpoint (or this writer) vouched for: `steps` rows ending at `head`, and the bytes of each file it covered. */
export interface Vouched {
  steps: number;
  head: string;
  /** The bytes vouched for in `file` (0: none). */
  endIn(file: string): number;
}

/**
 * A repair the walk found at the end of a file: a complete last row that lost
 * its newline (`finishAt`: where the newline goes), or a torn write to set
 * aside (`tornFrom` to `size`).
 */
export type TailRepair = { file: string; finishAt: number } | { file: string; tornFrom: number; size: number };

/** A fail-closed walk of the whole chain, nothing repaired yet. */
export interface Walked<S> {
  /** The state once `repairs` are made. */
  state: S;
  /** Rows walked (a torn tail left out). */
  steps: number;
  repairs: TailRepair[];
  /** The stored hash of row `v.steps - 1` as the files hold it now (undefined: no such row). */
  headAt(v: Vouched): string | undefined;
}

/** One append the format planned: the bytes for `file`, and the state once they are written. */
export interface Planned<S, T> {
  file: string;
  data: Uint8Array;
  /** What the caller gets back (the rows written). */
  result: T;
  /** The state after the write, and the target's identity then, given `file`'s identity after the write. */
  next(after: FileIdentity): { state: S; id: FileIdentity | undefined };
}

/** The row rules of one kind of chain file. */
export interface ChainFormat<S> {
  /** The checkpoint's kind. */
  readonly kind: string;
  /** What rows are called in a message ("steps", "events", "entries"). */
  readonly unit: string;
  /** The file (or directory, for a chain of several files) the checkpoint describes. */
  readonly target: string;
  readonly checkpointFile: string;
  readonly lockFile: string;
  /** The test pause point after a write (src/util/pause.ts). */
  readonly pausePoint: string;
  /** The state of a chain without rows. */
  empty(): S;
  /** The target's identity now (undefined: there is none yet, and a fresh chain starts). Throws words on an OS error. */
  identity(): FileIdentity | undefined;
  /** The state a checkpoint recorded, when it holds for the target as it is (`id`); else undefined. */
  restore(saved: Record<string, unknown>, id: FileIdentity): S | undefined;
  /** What a checkpoint records of `state` (`written`: the bytes just appended, if any). Undefined: none saved. */
  record(state: S, id: FileIdentity, written?: Uint8Array): Record<string, unknown> | undefined;
  /** The full walk, fail-closed: throws, naming the file and line, on anything but valid rows and a torn tail. */
  walk(priors: readonly Vouched[], id: FileIdentity): Walked<S>;
  /** What this writer vouches for in `state` (the target's identity then: `id`). */
  vouchedBy(state: S, id: FileIdentity): Vouched;
  /** What a checkpoint record vouched for, if well-formed. */
  vouchedIn(record: CheckpointRecord): Vouched | undefined;
  /** The refusal of a rollback, in the format's words (`file`: where a torn tail was vouched for). */
  rollbackError(f: RollbackFault, file?: string): Error;
  /** The identity `file` had in `state` (a chain of several files; default: the target's last known identity). */
  fileIdentity?(state: S, file: string): FileIdentity | undefined;
  /**
   * Called when the target is missing, before a fresh chain starts there: to refuse (a removed fork's journal;
   * one this writer verified, `mine`, that disappeared since).
   */
  onMissing?(mine?: Vouched): void;
  /** Called when the lock cannot be had (before the error is thrown). */
  onLockError?(): void;
}

/**
 * The data half of a ChainFormat, set one way for every chain: the lock beside the target (`<target>.lock`) unless
 * the format keeps it elsewhere, and the test pause point after a write named `<name>:after-write`.
 */
export abstract class ChainFormatData {
  readonly lockFile: string;
  readonly pausePoint: string;

  protected constructor(
    readonly kind: string,
    readonly unit: string,
    readonly target: string,
    readonly checkpointFile: string,
    where: { pauseName: string; lockFile?: string },
  ) {
    this.lockFile = where.lockFile ?? `${target}.lock`;
    this.pausePoint = `${where.pauseName}:after-write`;
  }
}

export interface ChainFileOptions {
  durable: boolean;
  /** The environment (checkpoint key, STEPCHAIN_CHECKPOINT, lock timeout, pause points). */
  env: NodeJS.ProcessEnv;
  lockTimeoutMs?: number;
  /** The key checkpoints are made with (default: the local checkpoint key from `env`). */
  key?: Uint8Array;
  /** Where the mirror of the checkpoint is kept (default: beside the local checkpoint key). */
  mirrorDir?: string;
  /** Told whenever a torn tail is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
}

/** The identity of a chain kept in one file (undefined: none yet); an OS error is worded, naming the file. */
export function chainFileIdentity(file: string): FileIdentity | undefined {
  try {
    return statIdentity(file);
  } catch (e) {
    if (isOsError(e)) throw osError(e, file, 'cannot open');
    throw e;
  }
}

/** What a writer did to a torn tail (for the operator: stderr by default). */
export interface TornTailMoved {
  file: string;
  /** The side file the bytes were copied to (`<file>.torn-<unix ms>`). */
  sideFile: string;
  bytes: number;
}

/**
 * The `onTornTail` of `o`, to hand on to the options of another writer the same operation uses: the option itself, or
 * nothing where `o` has none (the other writer's default then).
 */
export function tornTailOption(o: { onTornTail?: ((m: TornTailMoved) => void) | undefined }): {
  onTornTail?: (m: TornTailMoved) => void;
} {
  return o.onTornTail === undefined ? {} : { onTornTail: o.onTornTail };
}

/** The notice's one line, through the terminal sanitiser (a path may hold escapes). */
export function tornTailLine(m: TornTailMoved): string {
  return sanitize(
    `stepchain: ${m.file}: moved a torn tail of ${plural(m.bytes, 'byte')} (a write that never finished) to ${m.sideFile}`,
  );
}

/** The default notice, where the caller gave no `onTornTail`: its line on the process's stderr. */
export function printTornTailNotice(m: TornTailMoved): void {
  process.stderr.write(`${tornTailLine(m)}\n`);
}

export class ChainFile<S> {
  private state: S;
  /** The target's identity when `state` was last established, if nothing else changed it meanwhile. */
  private known: FileIdentity | undefined;
  /** Whether the last look found no target (the append creates it). */
  private fresh = false;
  private keyCache: Uint8Array | undefined | null = null;
  private readonly lockTimeoutMs: number | undefined;

  constructor(
    readonly format: ChainFormat<S>,
    private readonly options: ChainFileOptions,
  ) {
    this.state = format.empty();
    this.lockTimeoutMs = options.lockTimeoutMs ?? lockTimeoutFromEnv(options.env);
  }

  /** The state as last established (call `establish` under the lock for the state now). */
  get current(): S {
    return this.state;
  }

  /** Runs `fn` holding the chain's lock. */
  locked<T>(fn: (lock: LockHandle) => T): T {
    let lock: LockHandle;
    try {
      lock = acquireLock(
        this.format.lockFile,
        this.lockTimeoutMs === undefined ? {} : { timeoutMs: this.lockTimeoutMs },
      );
    } catch (e) {
      this.format.onLockError?.();
      throw e;
    }
    try {
      return fn(lock);
    } finally {
      lock();
    }
  }

  /** Takes the lock, establishes the state, appends what `plan` makes of it. */
  append<T>(plan: (state: S) => Planned<S, T> | undefined): { result: T | undefined; state: S } {
    return this.locked((lock) => {
      const planned = plan(this.establish());
      if (planned === undefined) return { result: undefined, state: this.state };
      return { result: this.write(lock, planned), state: this.state };
    });
  }

  /**
   * Under the lock: the verified state of the chain as it is now (unchanged
   * since this writer's last look, else its checkpoint, else the full walk,
   * a torn tail repaired).
   */
  establish(): S {
    const f = this.format;
    const id = f.identity();
    if (id === undefined) return this.startFresh();
    this.fresh = false;
    if (this.known !== undefined && sameIdentity(id, this.known)) return this.state;
    const key = this.key();
    const saved = key === undefined ? undefined : readCheckpoint(f.checkpointFile, f.kind, id, key);
    const restored = saved === undefined ? undefined : f.restore(saved, id);
    if (restored !== undefined) {
      this.state = restored;
      this.known = id;
      return restored;
    }
    return this.walk(id);
  }

  private startFresh(): S {
    const f = this.format;
    f.onMissing?.(this.known === undefined ? undefined : f.vouchedBy(this.state, this.known));
    this.state = f.empty();
    this.known = undefined;
    this.fresh = true;
    return this.state;
  }

  /** The full walk; rollback is judged before anything is repaired. */
  private walk(id: FileIdentity): S {
    const f = this.format;
    const priors = this.priors();
    const w = f.walk(priors, id);
    // Rollback is tampering: never repair or extend a chain that holds less than was vouched for.
    for (const v of priors) this.refuseRollback(v, w);
    for (const r of w.repairs) this.repair(r);
    // Vouched for only if the target is still exactly what was walked (an edit made during the walk must not be
    // checkpointed); a repaired one is walked again by the next writer instead.
    let now: FileIdentity | undefined;
    try {
      now = f.identity();
    } catch {
      now = undefined;
    }
    this.state = w.state;
    this.known = now !== undefined && w.repairs.length === 0 && sameIdentity(now, id) ? now : undefined;
    this.saveCheckpoint();
    return w.state;
  }

  /** What was vouched for before: this writer's last look, and the checkpoint (or its mirror, whichever vouches for more). */
  private priors(): Vouched[] {
    const f = this.format;
    const out: Vouched[] = [];
    if (this.known !== undefined) out.push(f.vouchedBy(this.state, this.known));
    const key = this.key();
    if (key === undefined) return out;
    const mirror = { dir: this.mirrorDir(), target: f.target, rows: (r: CheckpointRecord) => f.vouchedIn(r)?.steps };
    const prior = priorCheckpoint(f.checkpointFile, f.kind, this.options.env, key, mirror);
    const v = prior !== undefined && 'record' in prior ? f.vouchedIn(prior.record) : undefined;
    if (v !== undefined) out.push(v);
    return out;
  }

  private refuseRollback(v: Vouched, w: Walked<S>): void {
    const f = this.format;
    for (const r of w.repairs) {
      if (!('tornFrom' in r)) continue;
      const torn = rollbackFault(
        { steps: v.steps, head: v.head, end: v.endIn(r.file) },
        { tornFrom: r.tornFrom },
        f.unit,
      );
      if (torn !== undefined) throw f.rollbackError(torn, r.file);
    }
    const headAt = w.steps >= v.steps ? w.headAt(v) : undefined;
    const fault = rollbackFault({ steps: v.steps, head: v.head, end: 0 }, { steps: w.steps, headAt }, f.unit);
    if (fault !== undefined) throw f.rollbackError(fault);
  }

  private repair(r: TailRepair): void {
    if ('finishAt' in r) {
      finishLastLine(r.file, r.finishAt, this.options.durable);
      return;
    }
    const sideFile = moveTornTailAside(r.file, r.tornFrom, this.options.durable);
    (this.options.onTornTail ?? printTornTailNotice)({ file: r.file, sideFile, bytes: r.size - r.tornFrom });
  }

  /** Writes the planned bytes with one write; the new state is vouched for only if nothing else touched the file. */
  private write<T>(lock: LockHandle, p: Planned<S, T>): T {
    lock.refresh();
    lock.assertHeld();
    const { after, untouched } = appendDurably(p.file, p.data, this.options.durable, this.expected(p.file));
    const next = p.next({
      dev: String(after.dev),
      ino: String(after.ino),
      size: String(after.size),
      ctime_ns: String(after.ctimeNs),
    });
    this.state = next.state;
    // Only a file nothing else touched while we verified and wrote it is vouched for (docs/journal.md, "Checkpoints").
    this.known = untouched ? next.id : undefined;
    this.fresh = false;
    pausePoint(this.format.pausePoint, this.options.env);
    this.saveCheckpoint(p.data);
    return p.result;
  }

  /** The identity `file` must have for the append to leave a state that can be vouched for. */
  private expected(file: string): FileIdentity | 'new' | undefined {
    if (this.fresh) return 'new';
    if (this.known === undefined) return undefined;
    const fileIdentity = this.format.fileIdentity;
    return fileIdentity === undefined ? this.known : (fileIdentity(this.state, file) ?? 'new');
  }

  private key(): Uint8Array | undefined {
    if (this.keyCache === null) this.keyCache = this.options.key ?? checkpointKey(this.options.env);
    return this.keyCache;
  }

  private mirrorDir(): string {
    return this.options.mirrorDir ?? tipMirrorDir(this.options.env);
  }

  private saveCheckpoint(written?: Uint8Array): void {
    const key = this.key();
    if (key === undefined || this.known === undefined) return;
    const f = this.format;
    const body = f.record(this.state, this.known, written);
    if (body === undefined) return;
    writeCheckpoint(f.checkpointFile, f.kind, f.target, this.known, body, key, this.mirrorDir());
  }
}
