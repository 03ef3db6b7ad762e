import path from 'node:path';
import { InputError } from '../errors';
import { forkPoint } from '../git/commits';
import { diffCommits } from '../git/diff';
import { attribute } from '../provenance/attribute';
import { verifiedChanges } from '../provenance/verified';
import { readUnder, type CheckedDirs } from '../util/nofollow';
import type { CheckFault, CheckReport, ProvenancePolicy, ProvenanceReport } from './types';

export type { ProvenancePolicy, ProvenanceReport } from './types';

/**
 * The check's provenance pass (docs/provenance.md): for every file the pull
 * request changes (its fork point to the checkout's HEAD, renames followed,
 * `.sdd/` left out), the verified step whose recorded change produced exactly
 * that content, or `unrecorded`. It reads only what is committed: the run
 * journals the check found and the per-step journals beside them (no snapshot
 * ref, no CAS), so it works from a fresh clone.
 */
export const PROVENANCE_POLICIES: readonly ProvenancePolicy[] = ['off', 'warn', 'error'];

export function parseProvenancePolicy(value: string, where: string): ProvenancePolicy {
  const v = value.trim().toLowerCase();
  if ((PROVENANCE_POLICIES as readonly string[]).includes(v)) return v as ProvenancePolicy;
  throw new InputError(`${where}: ${JSON.stringify(value)} is not off, warn or error`);
}

/** `<project>/.sdd/runs/<id>/journal.jsonl` -> the project and the id (undefined for a run journal elsewhere). */
function runLayout(rel: string): { project: string; id: string } | undefined {
  const m = /^(?:(.*)\/)?\.sdd\/runs\/([^/]+)\/journal\.jsonl$/.exec(rel);
  return m === null ? undefined : { project: m[1] ?? '', id: m[2]! };
}

export interface ProvenanceOptions {
  root: string;
  base: string;
  policy: Exclude<ProvenancePolicy, 'off'>;
  /** The run journals the check found (root-relative). */
  runs: readonly string[];
}

export async function checkProvenance(options: ProvenanceOptions): Promise<ProvenanceReport> {
  const root = path.resolve(options.root);
  const from = (await forkPoint(root, options.base)) ?? options.base;
  const changes = await diffCommits(root, from, 'HEAD');
  const checked: CheckedDirs = new Set();
  const read = (rel: string): Buffer | undefined => {
    const r = readUnder(root, rel, undefined, checked);
    return r.kind === 'file' ? r.bytes : undefined;
  };
  const records = [];
  const ignored: string[] = [];
  for (const rel of options.runs) {
    const at = runLayout(rel);
    if (at === undefined) continue;
    const bytes = read(rel);
    if (bytes === undefined) continue; // the check has said why (a link, unreadable)
    const journal = read(`${at.project === '' ? '' : `${at.project}/`}.sdd/runtime/journal/${at.id}/000000.jsonl`);
    const v = verifiedChanges(at.id, bytes, journal);
    records.push(...v.records);
    ignored.push(...v.ignored);
  }
  const files = attribute(changes, records);
  const recorded = files.filter((f) => f.status === 'recorded').length;
  return { policy: options.policy, base: from, files, recorded, unrecorded: files.length - recorded, ignored };
}

/** Each unrecorded file a fault (an error under `error`, a warning under `warn`); each ignored record a warning. */
export function provenanceFaults(p: ProvenanceReport): CheckFault[] {
  const out: CheckFault[] = [];
  for (const f of p.files) {
    if (f.status !== 'unrecorded') continue;
    out.push({
      item: 'run',
      path: f.path,
      line: null,
      kind: 'unrecorded_change',
      message:
        f.change === 'D'
          ? `${f.path}: deleted by no verified recorded step`
          : `${f.path}: this content was produced by no verified recorded step (edited by hand, or by an unrecorded run)`,
      severity: p.policy === 'error' ? 'error' : 'warning',
    });
  }
  for (const why of p.ignored)
    out.push({ item: 'run', path: '.', line: null, kind: 'provenance_ignored', message: why, severity: 'warning' });
  return out;
}

/**
 * The one call the check makes: with a base and a policy other than `off`, the
 * pass's result on the report and its faults among the report's. Sharded, only
 * the first shard runs it (it reads the whole pull request).
 */
export async function addProvenance(
  report: CheckReport,
  options: Omit<ProvenanceOptions, 'policy' | 'base'> & { policy?: ProvenancePolicy; base?: string | null },
): Promise<void> {
  const policy = options.policy ?? 'off';
  if (policy === 'off' || options.base === undefined || options.base === null || report.commit === null) return;
  if (report.shard !== null && report.shard.index !== 0) return;
  const p = await checkProvenance({ root: options.root, base: options.base, policy, runs: options.runs });
  report.provenance = p;
  report.faults.push(...provenanceFaults(p));
}
