import path from 'node:path';
import { InputError } from '../errors';
import { pullRequestChanges } from './pr-changes';
import { attribute } from '../provenance/attribute';
import { verifiedChanges } from '../provenance/verified';
import { readUnder, type CheckedDirs } from '../util/nofollow';
import type { Scan } from './scan';
import type { CheckFault, CheckOptions, CheckReport, ProvenancePolicy, ProvenanceReport } from './types';

export type { ProvenancePolicy, ProvenanceReport } from './types';

/**
 * Provenance in the check (docs/provenance.md): for every file the pull
 * request changes (the check's base to the checkout's HEAD, renames followed,
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
  /** Further merge bases (a criss-cross history): a change against any of them is the PR's to explain. */
  alsoBases?: readonly string[];
  policy: Exclude<ProvenancePolicy, 'off'>;
  /** The run journals the check found (root-relative). */
  runs: readonly string[];
  /**
   * Reads a checkout file (the check's own reader: never through a link, and held to the commit when it judges
   * one); undefined when it cannot be read. Default: read without following a link.
   */
  read?: (rel: string) => Buffer | undefined;
}

/** A per-step journal where a run journal's provenance records name it (`[<project>/].sdd/runtime/journal/<id>/`). */
export const STEP_JOURNAL = /(?:^|\/)\.sdd\/runtime\/journal\/[^/]+\/000000\.jsonl$/;

export async function checkProvenance(options: ProvenanceOptions): Promise<ProvenanceReport> {
  const root = path.resolve(options.root);
  const changes = await pullRequestChanges(root, [options.base, ...(options.alsoBases ?? [])]);
  const checked: CheckedDirs = new Set();
  const read =
    options.read ??
    ((rel: string): Buffer | undefined => {
      const r = readUnder(root, rel, undefined, checked);
      return r.kind === 'file' ? r.bytes : undefined;
    });
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
  return { policy: options.policy, base: options.base, files, recorded, unrecorded: files.length - recorded, ignored };
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
      // The path is the fault's own (every reader prints it beside the message): not said twice.
      message:
        f.change === 'D'
          ? 'deleted by no verified recorded step'
          : f.change === 'R' && f.from !== undefined
            ? `renamed from ${f.from}: no verified recorded step both deleted ${f.from} and produced this content (a file deleted by hand is paired with any similar new file)`
            : 'this content was produced by no verified recorded step (edited by hand, or by an unrecorded run)',
      severity: p.policy === 'error' ? 'error' : 'warning',
    });
  }
  for (const why of p.ignored)
    out.push({ item: 'run', path: '.', line: null, kind: 'provenance_ignored', message: why, severity: 'warning' });
  return out;
}

/**
 * The check's provenance pass (one of workspace.ts's passes): with a base and a policy other than `off`, the
 * pass's result on the report and its faults among the report's. The base is the one the check compares history
 * with (check/base.ts: where a pull request branched). Sharded, only the first shard runs it (it reads the whole
 * pull request).
 */
export async function provenancePass(ctx: { options: CheckOptions; report: CheckReport; scan: Scan }): Promise<void> {
  const { options, report, scan } = ctx;
  const policy = options.provenance ?? 'off';
  if (policy === 'off' || report.base === null || report.commit === null) return;
  if (report.shard !== null && report.shard.index !== 0) return;
  const p = await checkProvenance({
    root: report.root,
    base: report.base,
    ...(options.alsoBases === undefined ? {} : { alsoBases: options.alsoBases }),
    policy,
    runs: scan.found.run,
    read: (rel) => {
      const r = scan.read(rel);
      return r.kind === 'file' ? r.bytes : undefined;
    },
  });
  report.provenance = p;
  report.faults.push(...provenanceFaults(p));
}

/** The CLI's lines: one per changed file, unrecorded first (what a reviewer looks at), then the count. */
export function provenanceLines(p: ProvenanceReport | undefined): string[] {
  if (p === undefined) return [];
  const files = [...p.files].sort((a, b) => (a.status === b.status ? 0 : a.status === 'unrecorded' ? -1 : 1));
  const out = files.map((f) =>
    f.status === 'recorded'
      ? `recorded   ${f.path}: ${f.agent} step ${f.seq} (${f.step_hash})`
      : `UNRECORDED ${f.path}${f.change === 'D' ? ' (deleted)' : ''}`,
  );
  const n = p.files.length;
  out.push(
    `provenance (${p.policy}): ${p.recorded} recorded, ${p.unrecorded} unrecorded of ${n} changed file${n === 1 ? '' : 's'} since ${p.base.slice(0, 12)}`,
  );
  return out;
}
