import type { TreeChange } from '../git/diff';
import type { StepChanges } from './changes';

/**
 * Attribution (docs/provenance.md): a file a pull request changes is `recorded`
 * when a verified step's recorded change produced exactly its final content
 * (the same path, git blob id and mode; for a deletion, the step that deleted
 * the path), naming the latest such step; otherwise `unrecorded`. A rename is
 * git's pairing of two changes, its source's deletion and its target's content
 * (diff-tree -M pairs a file deleted by hand with any similar new file): it is
 * recorded only when both are, named by the step of its content. Pure: the
 * caller hands in only records that verified.
 */

/** A step's recorded changes that verified, with where it stands among the runs (its run row's time). */
export interface VerifiedStepChanges extends StepChanges {
  /** The run row's ts (not covered by a hash: it only orders two agents' equally valid claims). */
  ts: number;
}

export type ProvenanceStatus = 'recorded' | 'unrecorded';

export interface AttributedFile {
  path: string;
  status: ProvenanceStatus;
  agent: string | null;
  seq: number | null;
  step_hash: string | null;
  /** What the pull request did to the path (`A`, `M`, `T`, `D`, `R`, `C`). */
  change: TreeChange['status'];
  /** The path a rename or copy came from. */
  from?: string;
}

interface Candidate {
  agent: string;
  seq: number;
  step_hash: string;
  ts: number;
}

const key = (path: string, blob: string | null, mode: string | null): string => `${blob ?? '-'} ${mode ?? '-'} ${path}`;

/** The latest of two claims: within one agent the higher seq; between agents the later run row, then the agent id. */
function later(a: Candidate, b: Candidate): Candidate {
  if (a.agent === b.agent) return b.seq > a.seq ? b : a;
  if (b.ts !== a.ts) return b.ts > a.ts ? b : a;
  return b.agent > a.agent ? b : a;
}

export function attribute(changes: readonly TreeChange[], records: readonly VerifiedStepChanges[]): AttributedFile[] {
  // Per (path, blob, mode) the latest step of each agent, then the latest of those.
  const best = new Map<string, Candidate>();
  for (const r of records) {
    for (const c of r.changes) {
      const k = key(c.path, c.blob, c.mode);
      const cand: Candidate = { agent: r.agent_id, seq: r.seq, step_hash: r.step_hash, ts: r.ts };
      const have = best.get(k);
      best.set(k, have === undefined ? cand : later(have, cand));
    }
  }
  return changes.map((c) => {
    const content = best.get(key(c.path, c.blob, c.mode));
    const deleted = c.status === 'R' && c.from !== undefined ? best.has(key(c.from, null, null)) : true;
    const hit = deleted ? content : undefined;
    const how = { change: c.status, ...(c.from === undefined ? {} : { from: c.from }) };
    return hit === undefined
      ? { path: c.path, status: 'unrecorded', agent: null, seq: null, step_hash: null, ...how }
      : { path: c.path, status: 'recorded', agent: hit.agent, seq: hit.seq, step_hash: hit.step_hash, ...how };
  });
}
