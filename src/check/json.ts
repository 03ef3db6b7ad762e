import { InputError } from '../errors';
import { idRecord } from '../util/records';
import type { AttributedFile } from '../provenance/attribute';
import { isCheckFaultKind, type CheckFaultKind, type CheckOwnFaultKind } from './fault-kinds';
import type {
  CheckedItem,
  CheckFault,
  CheckReport,
  ItemKind,
  ProvenanceReport,
  Shard,
  TrustedKeySource,
} from './types';
import { isObjectId } from '../git/object-id';

/**
 * The check's report as a JSON document (`stepchain check --json`, the Action's
 * `report.json`): one shape, snake_case keys like every other stepchain
 * document. `checkReportFromJson` reads one back (the Action's gather mode
 * merges the shards' reports), refusing anything that is not one.
 */
export interface CheckReportJson {
  ok: boolean;
  base: string | null;
  commit: string | null;
  fetched_base: boolean;
  fetched_blobs: number;
  verified: number;
  failed: number;
  heads: Record<string, string>;
  matched: Record<ItemKind, number>;
  shard: Shard | null;
  trusted_keys: { key_id: string; source: string }[];
  items: Record<string, string | number | boolean | null>[];
  faults: Record<string, string | number | null>[];
  /** Which verified step produced each changed file (docs/provenance.md), when the pass ran. */
  provenance?: ProvenanceReport;
}

export function checkReportJson(report: CheckReport): CheckReportJson {
  return {
    ok: report.ok,
    base: report.base,
    commit: report.commit,
    fetched_base: report.fetchedBase,
    fetched_blobs: report.fetchedBlobs,
    verified: report.verified,
    failed: report.failed,
    heads: report.heads,
    matched: report.matched,
    shard: report.shard,
    trusted_keys: report.trustedKeys.map((k) => ({ key_id: k.keyId, source: k.source })),
    items: report.items.map((i) => {
      const o: Record<string, string | number | boolean | null> = {
        kind: i.kind,
        path: i.path,
        id: i.id,
        steps: i.steps,
        head: i.head,
        ok: i.ok,
        status: i.status,
      };
      if (i.appendOnly !== undefined) o['append_only'] = i.appendOnly;
      if (i.renamedTo !== undefined) o['renamed_to'] = i.renamedTo;
      if (i.signed !== undefined) o['signed'] = i.signed;
      if (i.keyId !== undefined) o['key_id'] = i.keyId;
      if (i.mutations !== undefined) o['mutations'] = i.mutations;
      if (i.flagged !== undefined) o['flagged'] = i.flagged;
      return o;
    }),
    faults: report.faults.map((f) => {
      const o: Record<string, string | number | null> = {
        item: f.item,
        path: f.path,
        line: f.line,
        kind: f.kind,
        message: f.message,
        severity: f.severity,
      };
      if (f.id !== undefined) o['id'] = f.id;
      return o;
    }),
    ...(report.provenance === undefined ? {} : { provenance: report.provenance }),
  };
}

/** The provenance block read back, or an error naming what is wrong (gather mode merges it from the first shard). */
function provenanceFromJson(v: unknown, bad: (what: string) => never): ProvenanceReport {
  if (!isObj(v)) return bad('provenance is not an object');
  const policy = v['policy'];
  if (policy !== 'warn' && policy !== 'error') return bad('provenance.policy is not warn or error');
  if (typeof v['base'] !== 'string') return bad('provenance.base is not a commit id');
  if (!Array.isArray(v['files'])) return bad('provenance.files is not a list');
  const files: AttributedFile[] = v['files'].map((f: unknown, n: number) => {
    const w = `provenance.files[${n}]`;
    if (!isObj(f) || typeof f['path'] !== 'string') return bad(`${w}.path is not a string`);
    const recorded = f['status'] === 'recorded';
    if (!recorded && f['status'] !== 'unrecorded') return bad(`${w}.status is not recorded or unrecorded`);
    if (
      recorded &&
      (typeof f['agent'] !== 'string' || !Number.isSafeInteger(f['seq']) || typeof f['step_hash'] !== 'string')
    )
      return bad(`${w}: a recorded file names its agent, seq and step_hash`);
    const change = typeof f['change'] === 'string' && /^[AMTDRC]$/.test(f['change']) ? f['change'] : 'M';
    return {
      path: f['path'],
      status: recorded ? 'recorded' : 'unrecorded',
      agent: recorded ? (f['agent'] as string) : null,
      seq: recorded ? (f['seq'] as number) : null,
      step_hash: recorded ? (f['step_hash'] as string) : null,
      change: change as AttributedFile['change'],
      ...(typeof f['from'] === 'string' ? { from: f['from'] } : {}),
    };
  });
  const recorded = files.filter((f) => f.status === 'recorded').length;
  const ignored = Array.isArray(v['ignored']) ? v['ignored'].filter((x): x is string => typeof x === 'string') : [];
  return { policy, base: v['base'], files, recorded, unrecorded: files.length - recorded, ignored };
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const KINDS = new Set<string>(['journal', 'run', 'receipt']);
const APPEND_ONLY = new Set<string>(['appended', 'unchanged', 'deleted', 'truncated', 'rewritten', 'renamed']);

/** Reads a report document back; an InputError naming `source` and the first thing wrong. */
export function checkReportFromJson(doc: unknown, source: string, root = ''): CheckReport {
  const bad = (what: string): never => {
    throw new InputError(`${source}: not a stepchain check report: ${what}`);
  };
  if (!isObj(doc)) return bad('not a JSON object');
  const str = (o: Obj, k: string, where: string): string =>
    typeof o[k] === 'string' ? (o[k] as string) : bad(`${where}.${k} is not a string`);
  const int = (o: Obj, k: string, where: string): number =>
    Number.isSafeInteger(o[k]) && (o[k] as number) >= 0 ? (o[k] as number) : bad(`${where}.${k} is not a count`);
  const bool = (o: Obj, k: string, where: string): boolean =>
    typeof o[k] === 'boolean' ? (o[k] as boolean) : bad(`${where}.${k} is not true or false`);
  const faultKind = (k: string, where: string): CheckFaultKind =>
    isCheckFaultKind(k) ? k : bad(`${where}.kind ${JSON.stringify(k)} is not a fault kind stepchain reports`);
  const arr = (o: Obj, k: string): unknown[] => (Array.isArray(o[k]) ? (o[k] as unknown[]) : bad(`${k} is not a list`));
  const items: CheckedItem[] = arr(doc, 'items').map((v, n) => {
    const w = `items[${n}]`;
    if (!isObj(v)) return bad(`${w} is not an object`);
    const kind = str(v, 'kind', w);
    if (!KINDS.has(kind)) bad(`${w}.kind is not journal, run or receipt`);
    const item: CheckedItem = {
      kind: kind as ItemKind,
      path: str(v, 'path', w),
      id: str(v, 'id', w),
      steps: int(v, 'steps', w),
      head: str(v, 'head', w),
      ok: bool(v, 'ok', w),
      status: str(v, 'status', w),
    };
    const appendOnly = v['append_only'];
    if (appendOnly !== undefined && appendOnly !== null) {
      // Only an outcome stepchain reports: the value reaches the job summary and the PR comment.
      if (typeof appendOnly !== 'string' || !APPEND_ONLY.has(appendOnly))
        bad(`${w}.append_only is not ${[...APPEND_ONLY].join(', ')}`);
      item.appendOnly = appendOnly as NonNullable<CheckedItem['appendOnly']>;
    }
    if (typeof v['renamed_to'] === 'string') item.renamedTo = v['renamed_to'];
    if (typeof v['signed'] === 'boolean') item.signed = v['signed'];
    if (typeof v['key_id'] === 'string' || v['key_id'] === null) item.keyId = v['key_id'] as string | null;
    if (Number.isSafeInteger(v['mutations'])) item.mutations = v['mutations'] as number;
    if (Number.isSafeInteger(v['flagged'])) item.flagged = v['flagged'] as number;
    return item;
  });
  const faults: CheckFault[] = arr(doc, 'faults').map((v, n) => {
    const w = `faults[${n}]`;
    if (!isObj(v)) return bad(`${w} is not an object`);
    const item = str(v, 'item', w);
    if (!KINDS.has(item)) bad(`${w}.item is not journal, run or receipt`);
    const severity = str(v, 'severity', w);
    if (severity !== 'error' && severity !== 'warning') bad(`${w}.severity is not error or warning`);
    const line = v['line'];
    if (line !== null && !(Number.isSafeInteger(line) && (line as number) > 0)) bad(`${w}.line is not a line number`);
    const f: CheckFault = {
      item: item as ItemKind,
      path: str(v, 'path', w),
      line: line as number | null,
      kind: faultKind(str(v, 'kind', w), w),
      message: str(v, 'message', w),
      severity: severity as 'error' | 'warning',
    };
    if (typeof v['id'] === 'string') f.id = v['id'];
    return f;
  });
  const heads = idRecord<string>();
  if (!isObj(doc['heads'])) bad('heads is not an object');
  for (const [k, v] of Object.entries(doc['heads'] as Obj)) heads[k] = typeof v === 'string' ? v : bad(`heads.${k}`);
  let shard: Shard | null = null;
  if (doc['shard'] !== null && doc['shard'] !== undefined) {
    const s = isObj(doc['shard']) ? doc['shard'] : bad('shard is not an object');
    shard = { index: int(s, 'index', 'shard'), count: int(s, 'count', 'shard') };
  }
  const m = isObj(doc['matched']) ? doc['matched'] : {};
  const matched = { journal: 0, run: 0, receipt: 0 };
  for (const k of ['journal', 'run', 'receipt'] as const) if (Number.isSafeInteger(m[k])) matched[k] = m[k] as number;
  const trustedKeys: TrustedKeySource[] = Array.isArray(doc['trusted_keys'])
    ? (doc['trusted_keys'] as unknown[])
        .filter(isObj)
        .map((k) => ({ keyId: String(k['key_id'] ?? ''), source: String(k['source'] ?? '') }))
    : [];
  const base = doc['base'];
  if (base !== null && typeof base !== 'string') bad('base is not a commit id or null');
  const commit = doc['commit'] ?? null;
  if (commit !== null && !(typeof commit === 'string' && isObjectId(commit))) bad('commit is not a commit id or null');
  const verified = int(doc, 'verified', 'report');
  const failed = int(doc, 'failed', 'report');
  const okItems = items.filter((i) => i.ok).length;
  if (verified !== okItems || failed !== items.length - okItems)
    bad(`verified ${verified} and failed ${failed} do not count its ${items.length} items`);
  const provenance = doc['provenance'] === undefined ? undefined : provenanceFromJson(doc['provenance'], bad);
  return {
    ...(provenance === undefined ? {} : { provenance }),
    ok: bool(doc, 'ok', 'report'),
    root,
    base: base as string | null,
    commit: commit as string | null,
    fetchedBase: doc['fetched_base'] === true,
    fetchedBlobs: Number.isSafeInteger(doc['fetched_blobs']) ? (doc['fetched_blobs'] as number) : 0,
    verified,
    failed,
    heads,
    items,
    faults,
    matched,
    shard,
    trustedKeys,
  };
}

/** One shard's report as gather mode read it. */
export interface ShardPart {
  /** Where it was read from (for messages). */
  source: string;
  report: CheckReport;
  /** What failed the shard's job besides its faults (its `nothing_matched` lines), shown when `ok` is false. */
  reasons?: string[];
}

/**
 * The shards' reports as one: every shard of one count present exactly once,
 * all checked against the same base and, when `commit` is given, all made from
 * that commit (the gathering job's own checkout: a report.json committed to the
 * repository cannot name the commit that holds it, so a pull request cannot
 * bring its own "green" shard). A report from another commit is not merged at
 * all; a missing, repeated or mismatched shard, or a shard whose job failed for
 * a reason none of its faults shows, is a fault (the merged check fails), never
 * silently a smaller or greener check.
 */
export function mergeShardReports(parts: ShardPart[], root = '', commit?: string): CheckReport {
  const faults: CheckFault[] = [];
  const shardFault = (path: string, kind: CheckOwnFaultKind, message: string): void => {
    faults.push({ item: 'journal', path, line: null, kind, message, severity: 'error' });
  };
  const reports: ShardPart[] = [];
  for (const part of parts) {
    const c = part.report.commit;
    if (commit === undefined || c === commit) reports.push(part);
    else
      shardFault(
        part.source,
        'shard_foreign',
        `${part.source}: made from commit ${c ?? 'none'}, not this job's ${commit}: not a report of this run's shards ` +
          '(a report.json committed to the repository, or left from another run?); not merged',
      );
  }
  const count = reports.find((r) => r.report.shard !== null)?.report.shard?.count ?? 1;
  const byIndex = new Map<number, string>();
  const base = reports[0]?.report.base ?? null;
  for (const { source, report, reasons } of reports) {
    const s = report.shard ?? { index: 0, count: 1 };
    if (s.count !== count)
      shardFault(
        source,
        'shard_mismatch',
        `${source}: shard ${s.index + 1} of ${s.count}, expected a shard of ${count}`,
      );
    else if (byIndex.has(s.index))
      shardFault(
        source,
        'shard_repeated',
        `${source}: shard ${s.index + 1} of ${count} is also in ${byIndex.get(s.index)}`,
      );
    else byIndex.set(s.index, source);
    if (report.base !== base)
      shardFault(
        source,
        'shard_mismatch',
        `${source}: checked against base ${report.base ?? 'none'}, not ${base ?? 'none'}`,
      );
    // A shard that failed with no failed file and no error fault (e.g. if-no-files-found: error): its verdict stands.
    const explained = report.items.some((i) => !i.ok) || report.faults.some((f) => f.severity === 'error');
    if (!report.ok && !explained)
      shardFault(
        source,
        'shard_failed',
        `${source}: shard ${s.index + 1} of ${s.count} failed` +
          (reasons !== undefined && reasons.length > 0 ? `: ${reasons.join('; ')}` : ' (see its job)'),
      );
  }
  for (let i = 0; i < count; i++)
    if (!byIndex.has(i))
      shardFault(
        '.',
        'shard_missing',
        `shard ${i + 1} of ${count} sent no report (did its job fail before the check?)`,
      );
  if (reports.length === 0 && parts.length === 0) shardFault('.', 'shard_missing', 'no shard reports were found');
  const merged: CheckReport = {
    ok: true,
    root,
    base,
    commit: commit ?? reports[0]?.report.commit ?? null,
    fetchedBase: reports.some((r) => r.report.fetchedBase),
    fetchedBlobs: reports.reduce((n, r) => n + r.report.fetchedBlobs, 0),
    verified: 0,
    failed: 0,
    heads: idRecord<string>(),
    items: reports.flatMap((r) => r.report.items),
    faults: [...faults, ...reports.flatMap((r) => r.report.faults)],
    matched: reports[0]?.report.matched ?? { journal: 0, run: 0, receipt: 0 },
    shard: null,
    trustedKeys: reports[0]?.report.trustedKeys ?? [],
  };
  for (const r of reports) Object.assign(merged.heads, r.report.heads);
  // The first shard alone runs the provenance pass (it reads the whole pull request).
  const provenance = reports.find((r) => r.report.provenance !== undefined)?.report.provenance;
  if (provenance !== undefined) merged.provenance = provenance;
  for (const i of merged.items) {
    if (i.ok) merged.verified++;
    else merged.failed++;
  }
  merged.ok =
    merged.failed === 0 && !merged.faults.some((f) => f.severity === 'error') && reports.every((r) => r.report.ok);
  return merged;
}
