import { isJsonObject, type JsonValue } from '../canonical';
import { journalFile, VerifiedSteps, type JournalEntry, type StepList } from '../journal';
import { isSafeId } from '../util/ids';
import { mayHoldJsonText } from '../util/json-bytes';
import { readRegularFile, regularFileExists } from '../util/nofollow';
import { RunJournal, type RunJournalOptions } from './journal';
import { grownEventRows } from './grown-rows';
import { runJournalFile } from './layout';
import type { Payload, RunRow } from './row';
import { readRunJournalBytes, readRunJournalFile, type ReadRunJournal } from './verify';

/**
 * Links between a hook step and the model exchange that asked for its tool call (docs/record.md "Hook steps and
 * the exchange behind them"). A run recorded by `stepchain record` with the agent's hooks installed too has two
 * per-step journals: the hook's (`claude-<session_id>`: one step per tool call) and the proxy's (one step per model
 * exchange). An `exchange_link` event in the run journal of the hook journal's id names both steps by journal, seq
 * and step hash, and the tool call id that joins them (the exchange's `tool_call[].id`, the hook payload's
 * `tool_use_id`).
 *
 * A link is a claim about two other files, so it is checked against both whenever it is read (`checkExchangeLinks`):
 * a link naming a step that does not exist, whose hash differs, or whose tool call is not the one named, is a
 * fault, never skipped.
 */
export const EXCHANGE_LINK_EVENT = 'exchange_link';

export interface ExchangeLink {
  /** The tool call id both steps carry. */
  tool_use_id: string;
  hook_journal: string;
  hook_seq: number;
  hook_step_hash: string;
  /** The journal `stepchain record` wrote the exchange to. */
  exchange_journal: string;
  exchange_seq: number;
  exchange_step_hash: string;
}

const KEYS = [
  'tool_use_id',
  'hook_journal',
  'hook_seq',
  'hook_step_hash',
  'exchange_journal',
  'exchange_seq',
  'exchange_step_hash',
] as const;

export function exchangeLinkPayload(l: ExchangeLink): Payload {
  return new Map<string, JsonValue>(KEYS.map((k) => [k, l[k]]));
}

const HASH = /^[0-9a-f]{64}$/;

/** A link event's payload, checked for shape (not against the journals): the link, or why it is malformed. */
export function readExchangeLink(row: RunRow): { ok: true; link: ExchangeLink } | { ok: false; reason: string } {
  const p = row.payload;
  const str = (k: string): string | undefined => {
    const v = p.get(k);
    return typeof v === 'string' ? v : undefined;
  };
  const int = (k: string): number | undefined => {
    const v = p.get(k);
    return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
  };
  const l = {
    tool_use_id: str('tool_use_id'),
    hook_journal: str('hook_journal'),
    hook_seq: int('hook_seq'),
    hook_step_hash: str('hook_step_hash'),
    exchange_journal: str('exchange_journal'),
    exchange_seq: int('exchange_seq'),
    exchange_step_hash: str('exchange_step_hash'),
  };
  for (const k of KEYS) if (l[k] === undefined) return { ok: false, reason: `${k} is missing or not well-formed` };
  if (l.tool_use_id === '') return { ok: false, reason: 'tool_use_id is empty' };
  for (const k of ['hook_journal', 'exchange_journal'] as const)
    if (!isSafeId(l[k]!)) return { ok: false, reason: `${k} ${JSON.stringify(l[k])} is not a journal id` };
  for (const k of ['hook_step_hash', 'exchange_step_hash'] as const)
    if (!HASH.test(l[k]!)) return { ok: false, reason: `${k} is not a SHA-256 hex digest` };
  return { ok: true, link: l as ExchangeLink };
}

const sameLink = (a: ExchangeLink, b: ExchangeLink): boolean => KEYS.every((k) => a[k] === b[k]);

/** The ids of a step's tool calls: `tool_call` as one call `{id}` (a hook step) or a list of them (an exchange). */
export function toolCallIds(tool_call: JsonValue): string[] {
  const calls = Array.isArray(tool_call) ? tool_call : [tool_call];
  const out: string[] = [];
  for (const c of calls) {
    if (!isJsonObject(c)) continue;
    const id = typeof c.call_id === 'string' ? c.call_id : c.id;
    if (typeof id === 'string') out.push(id);
  }
  return out;
}

/** Gemini CLI's own id for a call whose wire id is `raw` (0.61.0: `<name>__<raw>`, unless `raw` starts so already). */
function geminiCliCallId(name: string, raw: string): string {
  return raw.startsWith(`${name}__`) ? raw : `${name}__${raw}`;
}

/**
 * The tool calls an exchange step asked for, each as the ids the agents' hooks may name it by: its own id, and for a
 * Gemini call (`{id, name, args}`, the generateContent shape) the id Gemini CLI gives it, which its hooks record:
 * `<name>__<id>`. A Gemini call without an id is known by the id of the function response that answered it (the
 * step's `tool_result`, matched by name: Gemini CLI makes one up, `<name>_<ms>_<n>`, and sends it with the result),
 * when exactly one id-less call has that name and exactly one such response answers it. Several: none of them
 * (which result answers which call is not known, so no link is claimed).
 */
export function exchangeCalls(tool_call: JsonValue, tool_result: JsonValue): string[][] {
  const out: string[][] = [];
  const own: string[] = [];
  for (const c of (Array.isArray(tool_call) ? tool_call : [tool_call]).filter(isJsonObject)) {
    const [id] = toolCallIds(c);
    const gemini = 'args' in c && typeof c.name === 'string';
    if (id !== undefined) own.push(id);
    if (id !== undefined) out.push(gemini ? [...new Set([id, geminiCliCallId(c.name as string, id)])] : [id]);
  }
  const idless = (Array.isArray(tool_call) ? tool_call : [])
    .filter(isJsonObject)
    .filter((c) => 'args' in c && typeof c.name === 'string' && c.id === null)
    .map((c) => c.name as string);
  const responses = (Array.isArray(tool_result) ? tool_result : [])
    .map((r) => (isJsonObject(r) ? r.functionResponse : null))
    .filter(isJsonObject)
    .filter((r) => typeof r.id === 'string' && typeof r.name === 'string' && !own.includes(r.id));
  for (const name of new Set(idless)) {
    const answers = responses.filter((r) => r.name === name);
    if (idless.filter((n) => n === name).length === 1 && answers.length === 1)
      out.push([geminiCliCallId(name, answers[0]!.id as string)]);
  }
  return out;
}

/** Every id an exchange step's tool calls may be named by (`exchangeCalls`, flat). */
export function exchangeCallIds(tool_call: JsonValue, tool_result: JsonValue): string[] {
  return [...new Set(exchangeCalls(tool_call, tool_result).flat())];
}

/**
 * Appends the links not recorded yet, each in the run journal of its hook journal's id, under that journal's lock:
 * two writers (the exchange's append, and `record`'s sweep at its end) never write one link twice. Returns the
 * links written.
 */
export function recordExchangeLinks(
  root: string,
  links: ExchangeLink[],
  options: RunJournalOptions & { env: NodeJS.ProcessEnv },
): ExchangeLink[] {
  const written: ExchangeLink[] = [];
  const byJournal = new Map<string, ExchangeLink[]>();
  for (const l of links) byJournal.set(l.hook_journal, [...(byJournal.get(l.hook_journal) ?? []), l]);
  for (const [hook, list] of byJournal) {
    const j = new RunJournal(runJournalFile(root, hook), options);
    j.transact(() => {
      // Under the lock, the journal as it is now (the append verified it first: a broken chain stops here).
      const have = exchangeLinksIn(j.file);
      const fresh = list.filter(
        (l, i) => !have.some((h) => sameLink(h, l)) && list.findIndex((m) => sameLink(m, l)) === i,
      );
      written.push(...fresh);
      return fresh.map((l) => ({ event: EXCHANGE_LINK_EVENT, payload: exchangeLinkPayload(l) }));
    });
  }
  return written;
}

/**
 * The well-formed links a run journal holds, read as it grows (grownEventRows: only what was appended since the last
 * look in this process is read).
 */
export function exchangeLinksIn(file: string): ExchangeLink[] {
  const out: ExchangeLink[] = [];
  for (const row of grownEventRows(file, EXCHANGE_LINK_EVENT)) {
    let link = linkOfRow.get(row);
    if (link === undefined) {
      const r = readExchangeLink(row);
      link = r.ok ? r.link : null;
      linkOfRow.set(row, link);
    }
    if (link !== null) out.push(link);
  }
  return out;
}

/** Each row's link as read once (the rows grownEventRows keeps are the same objects from look to look). */
const linkOfRow = new WeakMap<RunRow, ExchangeLink | null>();

/** A link that holds, with the exchange's step (for display). */
export interface CheckedExchangeLink extends ExchangeLink {
  /** The line of the run journal that records it. */
  line: number;
  exchange: JournalEntry;
}

/**
 * What a link can be found wrong with. `linked_journal_absent`: a journal it names is not among the files checked
 * (a pull request that holds the hook journal's run journal but not the exchange journal): the link is not checked,
 * which `stepchain check` says as a warning; where the journals are looked up on disk a missing one is a mismatch.
 */
export type ExchangeLinkFaultKind =
  'run_journal_broken' | 'link_malformed' | 'hook_step_mismatch' | 'exchange_step_mismatch' | 'linked_journal_absent';

export interface ExchangeLinkFault {
  file: string;
  line: number | null;
  kind: ExchangeLinkFaultKind;
  message: string;
}

export interface ExchangeLinksCheck {
  /** The run journal read (the hook journal's id). */
  file: string;
  links: CheckedExchangeLink[];
  faults: ExchangeLinkFault[];
}

/** A journal a link names that cannot be checked against: why (`unusable`), or that it is not at hand (`absent`). */
export type LinkedJournalProblem = { unusable: string } | { absent: string };

/** Where the steps a link names are read from. */
export interface LinkSources {
  /** The hook journal's verified step at a seq (undefined: none there), or why it cannot be used. */
  hook: ((seq: number) => { step_hash: string; tool_call: JsonValue } | undefined) | LinkedJournalProblem;
  /** A verified journal's steps by id (read a block at a time where they lie), or why it cannot be used. */
  journal(id: string): StepList | LinkedJournalProblem;
}

const problemText = (p: LinkedJournalProblem): string => ('unusable' in p ? p.unusable : p.absent);

/** A source's answer that is a reason, not steps. */
export const isLinkProblem = (v: StepList | LinkedJournalProblem): v is LinkedJournalProblem =>
  'unusable' in v || 'absent' in v;

/**
 * The rule every reader of links applies (replay, show, verify, run verify, check): each `exchange_link` row of the
 * run journal `run` (read from `file`, of the hook journal `hookJournal`) checked against both journals. The hook
 * step at `hook_seq` has `hook_step_hash` and the tool call `tool_use_id`; the exchange journal verifies and its
 * step at `exchange_seq` has `exchange_step_hash` and asked for that tool call. A run journal whose chain does not
 * verify is a fault (its links cannot be trusted).
 */
export function checkExchangeLinkRows(
  file: string,
  run: Pick<ReadRunJournal, 'chain_ok' | 'errors' | 'entries'>,
  hookJournal: string,
  sources: LinkSources,
): ExchangeLinksCheck {
  const out: ExchangeLinksCheck = { file, links: [], faults: [] };
  const rows = run.entries.filter((e) => e.row.event === EXCHANGE_LINK_EVENT);
  if (rows.length === 0) return out;
  if (!run.chain_ok) {
    const first = run.errors[0];
    out.faults.push({
      file,
      line: first?.line ?? null,
      kind: 'run_journal_broken',
      message: `the run journal's chain does not verify (${first?.message ?? 'no detail'}): its exchange links cannot be trusted`,
    });
    return out;
  }
  const journals = new Map<string, StepList | LinkedJournalProblem>();
  const stepsOf = (id: string): StepList | LinkedJournalProblem => {
    let v = journals.get(id);
    if (v === undefined) journals.set(id, (v = sources.journal(id)));
    return v;
  };
  for (const { line, row } of rows) {
    const fault = (kind: ExchangeLinkFaultKind, message: string): void => {
      out.faults.push({ file, line, kind, message });
    };
    const r = readExchangeLink(row);
    if (!r.ok) {
      fault('link_malformed', r.reason);
      continue;
    }
    const l = r.link;
    if (l.hook_journal !== hookJournal) {
      fault('link_malformed', `it names the hook journal ${l.hook_journal}, not ${hookJournal}`);
      continue;
    }
    if (typeof sources.hook !== 'function') {
      if ('absent' in sources.hook)
        fault(
          'linked_journal_absent',
          `the hook journal ${hookJournal} is not here (${sources.hook.absent}): not checked`,
        );
      else fault('hook_step_mismatch', `the hook journal ${hookJournal} cannot be used: ${sources.hook.unusable}`);
      continue;
    }
    const hook = sources.hook(l.hook_seq);
    if (hook === undefined)
      fault('hook_step_mismatch', `it names step ${l.hook_seq} of ${hookJournal}, which does not exist`);
    else if (hook.step_hash !== l.hook_step_hash)
      fault(
        'hook_step_mismatch',
        `step ${l.hook_seq} of ${hookJournal} has step_hash ${hook.step_hash}, the link names ${l.hook_step_hash}`,
      );
    else if (!toolCallIds(hook.tool_call).includes(l.tool_use_id))
      fault('hook_step_mismatch', `step ${l.hook_seq} of ${hookJournal} is not the tool call ${l.tool_use_id}`);
    else {
      const steps = stepsOf(l.exchange_journal);
      const x = isLinkProblem(steps) ? undefined : steps.at(l.exchange_seq);
      if (isLinkProblem(steps))
        fault(
          'absent' in steps ? 'linked_journal_absent' : 'exchange_step_mismatch',
          'absent' in steps
            ? `the exchange journal ${l.exchange_journal} is not here (${steps.absent}): not checked`
            : `the exchange journal ${l.exchange_journal} cannot be used: ${problemText(steps)}`,
        );
      else if (x === undefined || x.row.seq !== l.exchange_seq)
        fault(
          'exchange_step_mismatch',
          `it names step ${l.exchange_seq} of ${l.exchange_journal}, which does not exist`,
        );
      else if (x.row.step_hash !== l.exchange_step_hash)
        fault(
          'exchange_step_mismatch',
          `step ${l.exchange_seq} of ${l.exchange_journal} has step_hash ${x.row.step_hash}, the link names ${l.exchange_step_hash}`,
        );
      else if (!exchangeCallIds(x.row.tool_call as JsonValue, x.row.tool_result as JsonValue).includes(l.tool_use_id))
        fault(
          'exchange_step_mismatch',
          `step ${l.exchange_seq} of ${l.exchange_journal} did not ask for the tool call ${l.tool_use_id}`,
        );
      else out.links.push({ ...l, line, exchange: x });
    }
  }
  return out;
}

/**
 * A journal of the project read from disk for a link: its verified steps, read a block at a time (not every row
 * parsed: a link names one step of it), or why not (a missing one is unusable).
 */
function journalOnDisk(root: string, id: string): StepList | LinkedJournalProblem {
  try {
    const f = journalFile(root, id);
    return regularFileExists(f) ? VerifiedSteps.open(f) : { unusable: `no journal ${f}` };
  } catch (e) {
    return { unusable: (e as Error).message };
  }
}

/**
 * The exchange links of the hook journal `hookJournal` of the project at `root` (whose verified steps `hook` gives,
 * or why it cannot be used), each checked against both journals as read from disk. No run journal: no links.
 */
export function checkExchangeLinks(root: string, hookJournal: string, hook: LinkSources['hook']): ExchangeLinksCheck {
  const file = runJournalFile(root, hookJournal);
  let run;
  try {
    if (!regularFileExists(file)) return { file, links: [], faults: [] };
    run = readRunJournalFile(file);
  } catch (e) {
    return {
      file,
      links: [],
      faults: [{ file, line: null, kind: 'run_journal_broken', message: (e as Error).message }],
    };
  }
  return checkExchangeLinkRows(file, run, hookJournal, { hook, journal: (id) => journalOnDisk(root, id) });
}

/**
 * The exchange links of the project's run journal `runId`, the hook journal of that id read from disk too: what
 * `stepchain verify` and `stepchain run verify` check.
 */
export function checkProjectExchangeLinks(root: string, runId: string): ExchangeLinksCheck {
  const file = runJournalFile(root, runId);
  let bytes;
  try {
    bytes = readRegularFile(file);
  } catch (e) {
    return {
      file,
      links: [],
      faults: [{ file, line: null, kind: 'run_journal_broken', message: (e as Error).message }],
    };
  }
  // No link there: the hook journal is not read again.
  if (bytes === undefined || !mayHoldJsonText(bytes, EXCHANGE_LINK_EVENT)) return { file, links: [], faults: [] };
  const hook = journalOnDisk(root, runId);
  return checkExchangeLinks(root, runId, isLinkProblem(hook) ? hook : (seq) => hook.at(seq)?.row);
}

/** The exchange links of run journal bytes (`stepchain check`: the journals they name come from `sources`). */
export function checkExchangeLinkBytes(
  file: string,
  bytes: Buffer,
  hookJournal: string,
  sources: LinkSources,
): ExchangeLinksCheck {
  if (!mayHoldJsonText(bytes, EXCHANGE_LINK_EVENT)) return { file, links: [], faults: [] }; // no link can be there
  return checkExchangeLinkRows(file, readRunJournalBytes(bytes), hookJournal, sources);
}

/** `file:line: kind: message` for each fault (the CLI's lines). */
export function describeExchangeLinkFaults(faults: ExchangeLinkFault[]): string[] {
  return faults.map((f) => `${f.line === null ? f.file : `${f.file}:${f.line}`}: ${f.kind}: ${f.message}`);
}
