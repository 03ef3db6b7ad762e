import { canonicalOfRead, type JsonValue } from '../canonical';
import { IntegrityError } from '../errors';
import { MUTATION_EVENT } from './provider-state';
import { readRunJournalFile, type RunEntry } from './verify';

export type DiffReasonCode = 'response_mismatch' | 'length_mismatch' | 'provider_state_mutation';

export interface RunDiff {
  diverged: boolean;
  /** 0-based index of the first divergent row (null when identical). */
  index: number | null;
  reason: string;
  reason_code: DiffReasonCode | null;
  /** The mutation kind when reason_code is provider_state_mutation, else null. */
  mutation_kind: string | null;
  /** Where both rows have the same event type: the payload keys whose values differ (e.g. `["flagged"]`). */
  fields_changed: string[];
}

/** The payload keys whose values differ between two rows of the same event type (sorted). */
function payloadDiff(a: RunEntry, b: RunEntry): string[] {
  const keys = new Set([...a.row.payload.keys(), ...b.row.payload.keys()]);
  const enc = (v: JsonValue | undefined): string | undefined => (v === undefined ? undefined : canonicalOfRead(v));
  return [...keys].filter((k) => enc(a.row.payload.get(k)) !== enc(b.row.payload.get(k))).sort();
}

function shown(v: JsonValue | undefined): string {
  if (v === undefined) return 'absent';
  const t = canonicalOfRead(v);
  return t.length > 80 ? `${t.slice(0, 79)}…` : t;
}

function mutationKind(e: RunEntry | undefined): string | undefined {
  if (e === undefined || e.row.event !== MUTATION_EVENT) return undefined;
  const k = e.row.payload.get('mutation_kind');
  return typeof k === 'string' && k !== '' ? k : 'unknown';
}

function stepOf(e: RunEntry | undefined): string {
  const s = e?.row.payload.get('step_index');
  return s === undefined ? '' : ` at step ${String(s)}`;
}

function load(file: string): RunEntry[] {
  const r = readRunJournalFile(file);
  if (!r.chain_ok) {
    const f = r.errors[0]!;
    const e = new IntegrityError(
      `${file}:${f.line}: ${f.kind}: ${f.message}; cannot diff a run journal whose chain does not verify`,
    );
    e.details = r.errors.map((x) => ({ file, line: x.line, kind: x.kind, message: x.message }));
    throw e;
  }
  return r.entries;
}

/**
 * The first index at which two run journals diverge, comparing each row's
 * event type and payload hash (recomputed: never the timestamps, never a
 * stored hash taken on trust). A divergence where either side's row is a
 * provider-side mutation is attributed to it (`provider_state_mutation`, with
 * the kind and step); otherwise `response_mismatch`, or `length_mismatch` when
 * one run is a prefix of the other. Both chains must verify (a flagged
 * mutation is fine: that is what diff explains).
 */
export function diffRuns(fileA: string, fileB: string): RunDiff {
  const a = load(fileA);
  const b = load(fileB);
  const n = Math.min(a.length, b.length);
  const attribute = (i: number, code: DiffReasonCode, reason: string): RunDiff => {
    const ka = mutationKind(a[i]);
    const kb = mutationKind(b[i]);
    const kind = ka ?? kb;
    if (ka !== undefined && kb !== undefined) {
      // The same kind of mutation on both sides: say what differs, not "no counterpart".
      const fields = payloadDiff(a[i]!, b[i]!);
      const what = fields
        .slice(0, 4)
        .map((f) => `${f} (${shown(a[i]!.row.payload.get(f))} in run A, ${shown(b[i]!.row.payload.get(f))} in run B)`)
        .join(', ');
      return {
        diverged: true,
        index: i,
        reason: `row ${i}: provider-side context mutation ${ka === kb ? ka : `${ka} vs ${kb}`} in both runs${stepOf(a[i])}, but ${fields.length === 1 ? `only ${what} differs` : `${what}${fields.length > 4 ? ', ...' : ''} differ`}`,
        reason_code: 'provider_state_mutation',
        mutation_kind: ka,
        fields_changed: fields,
      };
    }
    if (kind !== undefined) {
      const where = ka !== undefined ? 'run A' : 'run B';
      return {
        diverged: true,
        index: i,
        reason: `row ${i}: provider-side context mutation ${kind}${stepOf(ka !== undefined ? a[i] : b[i])} in ${where} has no counterpart in ${where === 'run A' ? 'run B' : 'run A'}`,
        reason_code: 'provider_state_mutation',
        mutation_kind: kind,
        fields_changed: [],
      };
    }
    const fields = i < n && a[i]!.row.event === b[i]!.row.event ? payloadDiff(a[i]!, b[i]!) : [];
    return { diverged: true, index: i, reason, reason_code: code, mutation_kind: null, fields_changed: fields };
  };
  for (let i = 0; i < n; i++) {
    const ra = a[i]!.row;
    const rb = b[i]!.row;
    if (ra.event !== rb.event || ra.payload_hash !== rb.payload_hash) {
      const fields = ra.event === rb.event ? payloadDiff(a[i]!, b[i]!) : [];
      const what =
        ra.event !== rb.event
          ? `event ${JSON.stringify(ra.event)} vs ${JSON.stringify(rb.event)}`
          : `${ra.event} payloads differ in ${fields.join(', ')}`;
      return attribute(i, 'response_mismatch', `row ${i}: ${what}`);
    }
  }
  if (a.length === b.length) {
    return {
      diverged: false,
      index: null,
      reason: `identical: ${a.length} rows match`,
      reason_code: null,
      mutation_kind: null,
      fields_changed: [],
    };
  }
  const longer = a.length > b.length ? 'A' : 'B';
  return attribute(
    n,
    'length_mismatch',
    `run ${longer} has ${Math.abs(a.length - b.length)} more row(s) from index ${n}`,
  );
}
