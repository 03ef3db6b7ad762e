import { tornTailOption } from '../util/chain-file';
import path from 'node:path';
import type { JsonValue } from '../canonical';
import { asStepchainError } from '../errors';
import { Cas, casDir, journalDir, type JournalOptions, type StepInput } from '../journal';
import { recordStep } from '../record';
import { recordObserved, type ObservedItem, type Payload } from '../runs';
import { parseHookPayload, type HookPayload } from './claude/payload';
import { claudeProjectRoot, givenHookRoot } from './claude/root';
import { withWritableNumbers } from './non-finite';
import type { HookOptions, HookOutcome } from './types';

/**
 * What every agent's hook does with what it has understood, written once: a tool call appended as one step of
 * the per-step journal, session events and compactions chained into the run journal of the same id, the adapter
 * recorded `observed`. Failures become lines of the outcome, never exceptions: a hook never makes the agent fail.
 */

/** One line for an error: a StepchainError's own message, else the first line of whatever was thrown. */
export function errorLine(e: unknown): string {
  // An OS error in the words every other message uses (the path, the cause), not Node's `ENOTDIR: ..., stat '...'`.
  const known = asStepchainError(e);
  if (known !== undefined) return known.message;
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0] ?? m;
}

export function emptyOutcome(): HookOutcome {
  return { event: undefined, root: undefined, agent: undefined, recorded: [], warnings: [], errors: [] };
}

/** A run event item (`session_start`, `prompt`, `stop`, ...) with its payload fields in the given order. */
export function runEvent(name: string, entries: [string, JsonValue][]): ObservedItem {
  const payload: Payload = new Map(entries);
  return { event: { event: name, payload } };
}

/** Records into the journals of one session; every outcome lands in `out`. */
export class SessionRecorder {
  constructor(
    readonly root: string,
    /** The journal id (`<agent>-<session_id>`), per-step and run journal alike. */
    readonly journal: string,
    readonly adapter: string,
    readonly options: HookOptions,
    readonly out: HookOutcome,
    /** What the adapter sees of provider-side mutations: `declared-blind` where no hook reports a compaction. */
    readonly capability: 'observed' | 'declared-blind' = 'observed',
  ) {}

  /** The content addresses of the mutations the last successful `run` chained (a compaction's, for its summary). */
  lastMutations: string[] = [];

  /**
   * Appends one step. A number JSON cannot write in it (./non-finite.ts) is written as a string, with a warning,
   * rather than the tool call lost. On failure the payload is kept in the CAS, where the operator can find it.
   */
  step(step: StepInput, journal = this.journal, beforeWrite?: JournalOptions['beforeWrite']): boolean {
    const first = this.append(step, journal, beforeWrite);
    if (first === true) return true;
    const fixed = withWritableNumbers(step);
    if (fixed === undefined || this.append(fixed.step, journal, beforeWrite) !== true)
      return this.refused(step, journal, first);
    this.out.warnings.push(
      `${journal}: ${fixed.fields.join(', ')}: a number JSON cannot write (NaN or an infinity) recorded as a string; ` +
        "the payload as sent is the step's input",
    );
    return true;
  }

  /** One attempt at appending: true, or what was thrown. */
  private append(
    step: StepInput,
    journal: string,
    beforeWrite: JournalOptions['beforeWrite'],
  ): true | { error: unknown } {
    try {
      const deferred = this.options.deferSnapshots;
      const r = recordStep(journalDir(this.root, journal), step, {
        root: this.root,
        env: this.options.env,
        ...(beforeWrite === undefined ? {} : { beforeWrite }),
        ...(this.options.snapshot === false ? { snapshot: false } : {}),
        ...(deferred === undefined ? {} : { deferSnapshots: deferred }),
        ...this.notices(),
      });
      this.out.row = r.row;
      // Deferred, the step's snapshot warnings come when its snapshot is done.
      if (deferred === undefined) this.out.warnings.push(...r.warnings);
      else deferred.after(() => this.out.warnings.push(...r.warnings));
      this.out.recorded.push(journal === this.journal ? `step ${r.row.seq}` : `step ${r.row.seq} of ${journal}`);
      return true;
    } catch (error) {
      return { error };
    }
  }

  /** A step that could not be appended: its payload kept in the CAS and named, the error in the outcome. */
  private refused(step: StepInput, journal: string, failed: { error: unknown }): false {
    const kept = step.input === undefined ? '' : keptInCas(this.root, step.input);
    this.out.errors.push(`step not recorded in ${journal}: ${errorLine(failed.error)}${kept}`);
    return false;
  }

  /** The caller's torn-tail notice, for every journal written. */
  private notices(): Pick<HookOptions, 'onTornTail'> {
    return tornTailOption(this.options);
  }

  /** Chains run-journal items (events, compaction signals); `what` names them in the outcome. */
  run(items: ObservedItem[], what: string, journal = this.journal): boolean {
    try {
      const r = recordObserved(this.root, journal, this.adapter, journal, items, {
        env: this.options.env,
        capability: this.capability,
        ...this.notices(),
      });
      this.out.warnings.push(...r.warnings);
      if (r.deterministic !== undefined && r.mutations.length > 0)
        this.out.warnings.push(`${r.deterministic} is set: the compaction was recorded flagged (run verify fails)`);
      this.lastMutations = r.mutations.map((m) => m.content_address);
      this.out.recorded.push(what);
      return true;
    } catch (e) {
      this.out.errors.push(`${what} not recorded in the run journal ${journal}: ${errorLine(e)}`);
      return false;
    }
  }
}

/** What differs in how one agent's hook finds its session. */
export interface HookFrame {
  /** The agent's word: journals are `<agent>-<session_id>`. */
  agent: string;
  /**
   * The environment variable in which the agent names the directory it was started in (whose config ran the hook);
   * the payload's cwd, which follows the agent's `cd`, decides when it is absent.
   */
  projectDirVar?: string;
}

/** What a hook does once its payload, project and journal are known (a failure it throws is a line of the outcome). */
export type HookHandler<P> = (p: P, root: string, journal: string, options: HookOptions, out: HookOutcome) => void;

/**
 * The frame every hook of Claude Code's payload schema shares: the payload parsed and checked (its session id safe
 * as `<agent>-<session_id>`), the project root found from the agent's start directory or the payload's cwd.
 */
export function runHookFrame(
  bytes: Uint8Array,
  options: HookOptions,
  frame: HookFrame,
  handle: HookHandler<HookPayload>,
): HookOutcome {
  return runPayloadFrame(
    bytes,
    options,
    {
      agent: frame.agent,
      parse: (b) => parseHookPayload(b, '<stdin>', frame.agent),
      startDir: (p) => {
        const started = frame.projectDirVar === undefined ? undefined : options.env[frame.projectDirVar];
        return started !== undefined && path.isAbsolute(started) ? started : p.cwd;
      },
    },
    handle,
  );
}

/**
 * The frame every hook shares, written once, whatever its payload's schema: the payload parsed (`parse` throws,
 * naming what is wrong), the project root found from the directory the session started in, the journal id
 * `<agent>-<session_id>`; then `handle` records. Nothing escapes: a failure is a line of the outcome.
 */
export function runPayloadFrame<P extends { event: string; sessionId: string }>(
  bytes: Uint8Array,
  options: HookOptions,
  frame: { agent: string; parse(bytes: Uint8Array): P; startDir(p: P): string },
  handle: HookHandler<P>,
): HookOutcome {
  const out = emptyOutcome();
  let p: P;
  try {
    p = frame.parse(bytes);
  } catch (e) {
    out.errors.push(errorLine(e));
    return out;
  }
  out.event = p.event;
  let root: string;
  try {
    root = options.root === undefined ? claudeProjectRoot(frame.startDir(p)) : givenHookRoot(options.root);
  } catch (e) {
    out.errors.push(`${p.event}: ${errorLine(e)}`);
    return out;
  }
  const journal = `${frame.agent}-${p.sessionId}`;
  out.root = root;
  out.agent = journal;
  try {
    handle(p, root, journal, options, out);
  } catch (e) {
    out.errors.push(`${p.event}: ${errorLine(e)}`);
  }
  return out;
}

/**
 * A payload that could not be recorded, kept in the project's CAS so that it is not lost: `; its payload is kept as
 * <digest> in <cas>` for the error line, or '' when even that fails.
 */
export function keptInCas(root: string, bytes: Uint8Array): string {
  try {
    return `; its payload is kept as ${new Cas(casDir(root)).put(bytes)} in ${casDir(root)}`;
  } catch {
    return '';
  }
}
