import { parse, type JsonValue } from '../canonical';
import { VerifiedSteps, type RewritableRow } from '../journal';
import type { SignatureStatus } from '../receipt';
import type { DiffSide, JournalDiff } from './diff';
import { entryAt, stepBlobs, stepBody, type BlobInfo } from './body';
import { exchangeNotes, exchangesDocument, stepExchangeLines, type ExchangeView } from './exchanges';
import { storedParts, unverifiedFields, type ReplaySource } from './source';
import { keylessBundleDocument, keylessNote, signatureText, sourceSignature } from './screen';
import { rowSummary, stepSummary, type StepSummary } from './step';
import { displayWidth, fit, preview, sanitize, shortHash, truncate } from './text';
import { stepFilesOf, type StepFiles } from '../provenance/step-files';
import type { RecordedChange } from '../provenance/changes';
import { plural, pluralWord } from '../util/words';

/** The non-interactive outputs of `replay`, `show` and `diff`: plain lines and JSON documents. */

function statusLine(source: ReplaySource): string {
  const what = source.kind === 'receipt' ? `receipt ${source.file}` : source.file;
  const extra =
    source.kind === 'receipt' ? `${source.redacted ? ', published: redacted' : ''}${signatureText(source)}` : '';
  return `${sanitize(source.agentId)}: ${plural(source.steps, 'step')}, head ${source.head_hash}, chain verified (${sanitize(what)}${extra})`;
}

const filesCache = new WeakMap<ReplaySource, StepFiles | null>();

/** The files each step changed, from the run journal of the same id (docs/provenance.md); journals only. */
function stepFiles(source: ReplaySource): StepFiles | undefined {
  if (source.kind !== 'journal' || source.projectRoot === undefined) return undefined;
  if (!filesCache.has(source)) {
    const root = source.projectRoot;
    filesCache.set(source, stepFilesOf(root, source.agentId, (seq) => source.entries.at(seq)?.row.step_hash) ?? null);
  }
  return filesCache.get(source) ?? undefined;
}

function fileLine(c: RecordedChange): string {
  return c.blob === null ? `  deleted ${sanitize(c.path)}` : `  wrote   ${sanitize(c.path)}  ${c.blob} ${c.mode ?? ''}`;
}

/** Below the table: the files the shown steps changed (steps that changed none are not listed). */
function changedFileNotes(source: ReplaySource, shown: number): string[] {
  const files = stepFiles(source);
  if (files === undefined) return [];
  const out: string[] = [];
  for (const [seq, changes] of [...files.bySeq].sort((a, b) => a[0] - b[0])) {
    if (seq >= shown) continue;
    const names = changes.slice(0, 5).map((c) => `${c.blob === null ? '-' : ''}${c.path}`);
    const more = changes.length > 5 ? ` (+${changes.length - 5} more)` : '';
    out.push(`  step ${seq}: ${truncate(sanitize(names.join(', ')), 90)}${more}`);
  }
  return out.length === 0 ? [] : ['', `files changed (${sanitize(files.file)}; - deleted):`, ...out];
}

/**
 * The steps as a table (seq, time, model, tool, short step hash, prompt preview), first `limit` steps; the note
 * under a limited table names the limit as the caller's user does (`limitName`, the door's words: `--limit`).
 */
export function stepTable(source: ReplaySource, limit?: number, limitName = 'limit'): string[] {
  // One pass over the steps shown (a verified journal's read a block at a time): only what a table line prints is
  // kept of each (a run of 100,000 steps read whole, rows and bytes, held 1.1 GB and took 14 s).
  const rows: TableRow[] = [];
  const unverified: UnverifiedStep[] = [];
  for (const r of shownSteps(source, limit)) {
    const e = 'entry' in r ? r.entry : undefined;
    const summary = e === undefined ? summaryOfText(r as Extract<RewritableRow, { text: string }>) : stepSummary(e);
    rows.push({
      seq: summary.seq,
      time: own(summary.time.slice(0, 19).replace('T', ' ')),
      model: own(summary.model),
      tool: own(summary.tool),
      hash: own(shortHash(summary.step_hash)),
      prompt: own(truncate(summary.prompt, 60)),
    });
    if (e === undefined || e.canonical) continue;
    const keys = [...unverifiedFields(e).keys()];
    if (keys.length > 0) unverified.push({ seq: e.row.seq, line: e.line, keys });
  }
  // Widths by reduce, not Math.max(...rows): a journal can have more rows than a call has arguments.
  const widest = (min: number, f: (r: TableRow) => number): number => rows.reduce((m, r) => Math.max(m, f(r)), min);
  const seqW = widest(3, (r) => String(r.seq).length);
  const modelW = Math.min(
    28,
    widest(5, (r) => displayWidth(r.model)),
  );
  const toolW = Math.min(
    16,
    widest(4, (r) => displayWidth(r.tool)),
  );
  const head = `${'seq'.padStart(seqW)}  ${fit('time (UTC)', 20)}  ${fit('model', modelW)}  ${fit('tool', toolW)}  ${fit('step', 12)}  prompt`;
  const out = [statusLine(source), '', head];
  for (const r of rows) {
    out.push(
      `${String(r.seq).padStart(seqW)}  ${fit(r.time, 20)}  ${fit(r.model, modelW)}  ${fit(r.tool, toolW)}  ${r.hash}  ${r.prompt}`,
    );
  }
  if (rows.length < source.steps)
    out.push(
      `… ${source.steps - rows.length} more ${pluralWord(source.steps - rows.length, 'step')} (${limitName} ${rows.length})`,
    );
  out.push(...changedFileNotes(source, rows.length));
  out.push(...exchangeNotes(source, rows.length));
  out.push(...unverifiedNotes(unverified));
  return out;
}

/** A canonical row's summary from the values a table line shows, each parsed alone (never the tool's result). */
function summaryOfText(r: Extract<RewritableRow, { text: string }>): StepSummary {
  const value = (span: readonly [number, number]): JsonValue => parse(r.text.slice(span[0], span[1]));
  return rowSummary({
    seq: r.seq,
    ts: Number(r.text.slice(r.spans.ts[0], r.spans.ts[1])),
    model: value(r.spans.model),
    prompt: value(r.spans.prompt),
    tool_call: value(r.spans.tool_call),
    step_hash: r.step_hash,
  });
}

/**
 * A string of its own: a cut of a longer one (a substring, a prompt cut to its column) keeps all of that one alive,
 * here a row's whole line (100,000 rows kept 600 MB).
 */
const own = (s: string): string => (s.length < 13 ? s : Buffer.from(s, 'utf16le').toString('utf16le'));

/** A table line's fields, as printed (the time, the hash and the prompt already cut to their columns). */
interface TableRow {
  seq: number;
  time: string;
  model: string;
  tool: string;
  hash: string;
  prompt: string;
}

/** A step whose row carries keys outside the ten (1-based line of the file). */
interface UnverifiedStep {
  seq: number;
  line: number;
  keys: string[];
}

/**
 * The first `limit` steps (all when none), in order, read once: from a verified journal a block at a time, nothing
 * kept, a canonical row as its line's text (never parsed); from a list in memory, its entries.
 */
function* shownSteps(source: ReplaySource, limit: number | undefined): Generator<RewritableRow, void, undefined> {
  const shown = Math.min(limit ?? source.entries.length, source.entries.length);
  if (source.entries instanceof VerifiedSteps) {
    for (const r of source.entries.rewritable()) {
      if (r.seq >= shown) return;
      yield r;
    }
    return;
  }
  for (let i = 0; i < shown; i++) {
    const entry = source.entries.at(i)!;
    yield { seq: i, entry };
  }
}

const LISTED_UNVERIFIED = 20;

/**
 * Below the table: the steps shown whose rows carry keys outside the ten, which no hash
 * covers, named so that nobody reads them as part of a verified step (`show <seq>` prints them in full).
 */
function unverifiedNotes(steps: readonly UnverifiedStep[]): string[] {
  if (steps.length === 0) return [];
  const count = steps.length;
  const notes = steps
    .slice(0, LISTED_UNVERIFIED)
    .map(
      (u) =>
        `  step ${u.seq} (line ${u.line}): ${truncate(u.keys.map((k) => sanitize(JSON.stringify(k))).join(', '), 80)}`,
    );
  const more = count > LISTED_UNVERIFIED ? [`  … and ${count - LISTED_UNVERIFIED} more`] : [];
  return [
    '',
    `UNVERIFIED: ${count} step${count === 1 ? ' carries' : 's carry'} keys outside the hashed row (no hash covers them; not part of the step):`,
    ...notes,
    ...more,
  ];
}

/** A receipt's signature for `--json` (`{status, holds}`), or null for a journal. */
export function signatureDocument(
  source: ReplaySource,
): { status: string; holds: boolean; keyless_bundle?: { file: string; checked: false } } | null {
  const v = sourceSignature(source);
  if (v === undefined) return null;
  // A keyless bundle beside the receipt is named, never checked here (`receipt verify` checks it).
  return { status: v.status, holds: v.holds, ...keylessBundleDocument(source.keylessBundle) };
}

/** What `replay --json` and `show --json` open with: the run, and whether its signature holds. */
export interface SourceDocumentHead {
  /** False only for a receipt whose signature was not checked (a chain that does not verify is an error document). */
  ok: boolean;
  agent_id: string;
  head_hash: string;
  steps: number;
  signature: ReturnType<typeof signatureDocument>;
}

function sourceDocumentHead(source: ReplaySource): SourceDocumentHead {
  const signature = signatureDocument(source);
  return {
    ok: signature?.holds ?? true,
    agent_id: source.agentId,
    head_hash: source.head_hash,
    steps: source.steps,
    signature,
  };
}

/** One step of `replay --json`: a canonical row's own text (already its encoding there: ASCII, keys in order), or the row as stored. */
export type DocumentEntry = { text: string } | { value: JsonValue };

/**
 * `replay --json` in parts, so that a door can write a document of any length without holding it: the head, the
 * entries (read once, lazily, a block at a time), and what follows them, known once they are read (`tail`).
 */
export interface ReplayDocumentParts {
  head: SourceDocumentHead;
  entries: Iterable<DocumentEntry>;
  tail(): ReplayDocumentTail;
}

export interface ReplayDocumentTail {
  unverified?: { seq: number; line: number; fields: JsonValue }[];
  changes?: { seq: number; files: RecordedChange[] }[];
  exchanges?: { seq: number; tool_use_id: string; run_line: number; exchange: ExchangeView }[];
}

/**
 * `replay --json`: `{ok, agent_id, head_hash, steps, signature, entries, unverified}`, rows
 * as stored (the ten keys of the format); `steps` counts them all; `ok` is false only for a receipt
 * whose signature was not checked (a chain that does not verify is an error document). Keys outside the
 * ten are never in `entries`: `unverified` lists each step carrying some, `{seq, line, fields}` (present only
 * when there is one).
 */
export function replayDocumentParts(source: ReplaySource, limit?: number): ReplayDocumentParts {
  const unverified: { seq: number; line: number; fields: JsonValue }[] = [];
  let shown = 0;
  function* entries(): Generator<DocumentEntry, void, undefined> {
    for (const r of shownSteps(source, limit)) {
      shown++;
      if ('text' in r) yield { text: r.text };
      else if (r.entry.canonical) yield { text: r.entry.bytes.toString('latin1') };
      else {
        const parts = storedParts(r.entry);
        if (parts.unverified.size > 0)
          unverified.push({ seq: r.entry.row.seq, line: r.entry.line, fields: parts.unverified });
        yield { value: parts.row };
      }
    }
  }
  return {
    head: sourceDocumentHead(source),
    entries: entries(),
    tail: () => ({
      ...(unverified.length === 0 ? {} : { unverified }),
      ...changesDocument(source, shown),
      ...exchangesDocument(source, shown),
    }),
  };
}

/** `replay --json` as one value (replayDocumentParts, held): each entry the row as stored. */
export function replayDocument(
  source: ReplaySource,
  limit?: number,
): SourceDocumentHead & { entries: JsonValue[] } & ReplayDocumentTail {
  const parts = replayDocumentParts(source, limit);
  const entries = [...parts.entries].map((e) => ('text' in e ? parse(e.text, { objects: 'map' }) : e.value));
  return { ...parts.head, entries, ...parts.tail() };
}

/** One step in full, as lines (nothing cut). */
export function showLines(source: ReplaySource, seq: number): string[] {
  const e = entryAt(source, seq);
  const out = [statusLine(source), '', `seq ${e.row.seq} (step ${e.row.seq + 1} of ${source.steps})`];
  for (const l of stepBody(source, seq, { width: 100, expanded: true, wrapLines: false, showFile: true }).lines)
    out.push(l.text);
  const blobs = stepBlobs(source, e);
  if (blobs.length > 0) {
    out.push('', `blobs (from ${sanitize(source.blobs.where)}):`);
    for (const b of blobs) {
      out.push(`  ${b.digest}${b.input ? '  (input)' : ''}`);
      if (!b.present) out.push(`    MISSING: ${b.problem === undefined ? 'not in the store' : sanitize(b.problem)}`);
      else {
        out.push(`    ${b.size} bytes${b.binary ? ', binary' : ''}`);
        if (b.preview !== null)
          for (const l of b.preview.replace(/\n$/, '').split('\n').slice(0, 6)) out.push(`    | ${sanitize(l)}`);
      }
    }
  }
  const changed = stepFiles(source)?.bySeq.get(seq);
  if (changed !== undefined) {
    out.push('', `files changed (from ${sanitize(stepFiles(source)!.file)}):`);
    for (const c of changed) out.push(fileLine(c));
  }
  out.push(...stepExchangeLines(source, seq));
  return out;
}

export interface ShowDocument extends SourceDocumentHead {
  seq: number;
  line: number;
  entry: JsonValue;
  /** Keys of the stored row outside the ten, with their values: no hash covers them (`{}` when none). */
  unverified: JsonValue;
  blobs: BlobInfo[];
  /** The files the step changed (docs/provenance.md), when a verified record says. */
  changes?: RecordedChange[];
}

/** `replay --json`'s `changes`: the files each listed step changed, when a verified record says. */
function changesDocument(
  source: ReplaySource,
  shown: number,
): { changes?: { seq: number; files: RecordedChange[] }[] } {
  const files = stepFiles(source);
  if (files === undefined) return {};
  const changes = [...files.bySeq]
    .filter(([seq]) => seq < shown)
    .sort((a, b) => a[0] - b[0])
    .map(([seq, list]) => ({ seq, files: list }));
  return changes.length === 0 ? {} : { changes };
}

/** `show --json`: the row as stored (its ten keys), its 1-based line, what no hash covers, and its blobs. */
export function showDocument(source: ReplaySource, seq: number): ShowDocument {
  const e = entryAt(source, seq);
  const parts = storedParts(e);
  return {
    ...sourceDocumentHead(source),
    seq: e.row.seq,
    line: e.line,
    entry: parts.row,
    unverified: parts.unverified,
    blobs: stepBlobs(source, e),
    ...(stepFiles(source)?.bySeq.has(e.row.seq) ? { changes: stepFiles(source)!.bySeq.get(e.row.seq)! } : {}),
  };
}

/** One side's verification status for `diff`: verified, or every fault. */
export function diffSideLines(side: DiffSide, label: 'left' | 'right', name: string): string[] {
  const shown = `${label.padEnd(5)} ${sanitize(name)}`;
  // The signature's own words, as replay's header says them ("verified" alone would read as the chain's).
  const words: Record<SignatureStatus, string> & Record<string, string | undefined> = {
    verified: 'signature verified',
    not_checked: 'signature NOT checked',
    invalid: 'signature INVALID',
    unsigned: 'unsigned',
    unsigned_but_required: 'unsigned, but a signature was required',
  };
  const sig =
    side.signature === null
      ? ''
      : `, ${words[side.signature.status] ?? side.signature.status.replace(/_/g, ' ')}${keylessNote(side.keylessBundle)}`;
  if (side.verified) return [`${shown}: chain verified, ${plural(side.steps, 'step')}, head ${side.head_hash}${sig}`];
  const out = [
    `${shown}: chain does NOT verify (${plural(side.errors.length, 'fault')}), ${side.steps} well-formed ${pluralWord(side.steps, 'row')}${sig}`,
  ];
  const shownFaults = side.errors.slice(0, 10);
  for (const f of shownFaults)
    out.push(
      `  ${sanitize(f.line === null ? (f.file ?? '') : `${f.file ?? ''}:${f.line}`)}: ${f.kind}: ${sanitize(f.message)}`,
    );
  if (side.errors.length > shownFaults.length) out.push(`  … and ${side.errors.length - shownFaults.length} more`);
  return out;
}

/** `diff` as lines: each side's status (when given), the verdict, then the fields that differ at the divergence. */
export function diffLines(
  d: JournalDiff,
  leftName: string,
  rightName: string,
  sides?: { left: DiffSide; right: DiffSide },
): string[] {
  const l = sanitize(leftName);
  const r = sanitize(rightName);
  const status =
    sides === undefined
      ? []
      : [...diffSideLines(sides.left, 'left', leftName), ...diffSideLines(sides.right, 'right', rightName)];
  if (!d.diverged)
    return [...status, `same: ${l} and ${r} have the same ${plural(d.left_steps, 'step')} (head ${d.left_head})`];
  if (d.reason === 'length_mismatch') {
    const longer = d.left_steps > d.right_steps ? l : r;
    return [
      ...status,
      `diverged at step ${d.seq}: length_mismatch (${l} has ${d.left_steps} steps, ${r} has ${d.right_steps})`,
      `  the first ${d.seq} steps are the same; ${longer} goes on`,
    ];
  }
  const what = [...d.fields_changed, ...d.hashes_changed.filter(() => d.fields_changed.length === 0)];
  const out = [
    ...status,
    `diverged at step ${d.seq}: ${what.join(', ')} ${what.length > 1 ? 'differ' : 'differs'}` +
      (d.left_line !== d.right_line
        ? ` (line ${d.left_line} of ${l}, line ${d.right_line} of ${r})`
        : ` (line ${d.left_line})`),
  ];
  const get = (v: JsonValue, k: string): JsonValue => (v instanceof Map ? (v.get(k) ?? null) : null);
  for (const f of what) {
    out.push(`  ${f}:`);
    out.push(`    - ${truncate(preview(get(d.left, f)), 200)}`);
    out.push(`    + ${truncate(preview(get(d.right, f)), 200)}`);
  }
  const faultAt = (side: DiffSide | undefined, line: number | null): string => {
    const f = side?.errors.find((e) => e.line === line && e.kind === 'step_hash_mismatch');
    return f === undefined ? '' : ' (stored: does not match the fields, step_hash_mismatch)';
  };
  out.push(`  left  ${l}: step_hash ${String(get(d.left, 'step_hash'))}${faultAt(sides?.left, d.left_line)}`);
  out.push(`  right ${r}: step_hash ${String(get(d.right, 'step_hash'))}${faultAt(sides?.right, d.right_line)}`);
  return out;
}
