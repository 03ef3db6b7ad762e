import type { JsonValue } from '../canonical';
import { StepchainError } from '../errors';
import { Cas, casDir, journalDir, type StepInput } from '../journal';
import { recordStep } from '../record';
import { recordObserved, type ObservedItem, type Payload } from '../runs';
import type { HookOptions, HookOutcome } from './types';

/**
 * What every agent's hook does with what it has understood, written once: a tool call appended as one step of
 * the per-step journal, session events and compactions chained into the run journal of the same id, the adapter
 * recorded `observed`. Failures become lines of the outcome, never exceptions: a hook never makes the agent fail.
 */

/** One line for an error: a StepchainError's own message, else the first line of whatever was thrown. */
export function errorLine(e: unknown): string {
  if (e instanceof StepchainError) return e.message;
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
  ) {}

  /** Appends one step. On failure the payload is kept in the CAS, where the operator can find it. */
  step(step: StepInput, journal = this.journal): boolean {
    try {
      const r = recordStep(journalDir(this.root, journal), step, {
        root: this.root,
        env: this.options.env,
        ...(this.options.snapshot === false ? { snapshot: false } : {}),
      });
      this.out.row = r.row;
      this.out.warnings.push(...r.warnings);
      this.out.recorded.push(journal === this.journal ? `step ${r.row.seq}` : `step ${r.row.seq} of ${journal}`);
      return true;
    } catch (e) {
      let kept = '';
      try {
        if (step.input !== undefined)
          kept = `; its payload is kept as ${new Cas(casDir(this.root)).put(step.input)} in ${casDir(this.root)}`;
      } catch {
        /* nothing more can be kept */
      }
      this.out.errors.push(`step not recorded in ${journal}: ${errorLine(e)}${kept}`);
      return false;
    }
  }

  /** Chains run-journal items (events, compaction signals); `what` names them in the outcome. */
  run(items: ObservedItem[], what: string, journal = this.journal): boolean {
    try {
      const r = recordObserved(this.root, journal, this.adapter, journal, items, { env: this.options.env });
      this.out.warnings.push(...r.warnings);
      if (r.deterministic !== undefined && r.mutations.length > 0)
        this.out.warnings.push(`${r.deterministic} is set: the compaction was recorded flagged (run verify fails)`);
      this.out.recorded.push(what);
      return true;
    } catch (e) {
      this.out.errors.push(`${what} not recorded in the run journal ${journal}: ${errorLine(e)}`);
      return false;
    }
  }
}
