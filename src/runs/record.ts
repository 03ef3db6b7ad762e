import { isJsonInteger, type JsonObject } from '../canonical';
import { auditEvent, auditOptions } from '../audit/log';
import { InputError, IntegrityError } from '../errors';
import { assertSafeId } from '../util/ids';
import { CLAUDE_ADAPTER, scanClaudeStream, type ClaudeStreamSummary } from './claude';
import { checkRunEvent, RunJournal, type RunEventInput, type RunJournalOptions } from './journal';
import { runJournalFile } from './layout';
import {
  CAPABILITIES,
  CAPABILITY_EVENT,
  capabilityPayload,
  deterministicModeVar,
  MUTATION_EVENT,
  mutationFromSignal,
  mutationOf,
  mutationPayload,
  signalDigests,
  type Capability,
  type ProviderStateMutation,
  type SignalDigests,
} from './provider-state';
import type { Payload, RunRow } from './row';

export interface RunRecordOptions extends RunJournalOptions {
  /** The environment (deterministic mode, audit settings). Read here, never from process.env. */
  env: NodeJS.ProcessEnv;
  /** `recordObserved`: the adapter's capability (default `observed`); a `declared-blind` one records no mutation. */
  capability?: Capability;
  /** Audit key file (wins over the environment). */
  keyPath?: string;
}

function toPayload(data: Payload | JsonObject): Payload {
  return data instanceof Map ? new Map(data) : new Map(Object.entries(data));
}

function journalFor(root: string, runId: string, options: RunRecordOptions): RunJournal {
  return new RunJournal(runJournalFile(root, runId), options);
}

/**
 * Records one event. Mutations and capabilities have their own functions
 * (content address, one capability per adapter), so their event types are
 * refused here.
 */
export function recordRunEvent(
  root: string,
  runId: string,
  event: string,
  data: Payload | JsonObject,
  options: RunRecordOptions,
): { row: RunRow; file: string } {
  if (event === MUTATION_EVENT || event === CAPABILITY_EVENT) {
    throw new InputError(
      `run record: record ${event} entries with \`run ${event === MUTATION_EVENT ? 'mutation' : 'capability'}\``,
    );
  }
  const input = { event, payload: toPayload(data) };
  checkRunEvent(input); // before anything is created
  const j = journalFor(root, runId, options);
  const [row] = j.record([input]);
  return { row: row!, file: j.file };
}

function checkCapability(capability: string): Capability {
  if (!(CAPABILITIES as readonly string[]).includes(capability)) {
    throw new InputError(`capability must be observed or declared-blind, got ${JSON.stringify(capability)}`);
  }
  return capability as Capability;
}

/** The capability event to add for `adapter`, or none when it is already recorded the same; refuses a different one. */
function capabilityPlan(
  existing: Map<string, string>,
  adapter: string,
  capability: Capability,
  file: string,
): RunEventInput[] {
  const have = existing.get(adapter);
  if (have === capability) return [];
  if (have !== undefined) {
    throw new IntegrityError(
      `${file}: adapter ${JSON.stringify(adapter)} is already recorded as ${have} for this run; one capability per adapter per run`,
    );
  }
  return [{ event: CAPABILITY_EVENT, payload: capabilityPayload(adapter, capability) }];
}

/**
 * Records an adapter's mutation-observability capability: one per adapter per
 * run. The same capability again is a no-op (`row` undefined); a different
 * one is refused (IntegrityError).
 */
export function recordCapability(
  root: string,
  runId: string,
  adapter: string,
  capability: string,
  options: RunRecordOptions,
): { row: RunRow | undefined; file: string } {
  if (typeof adapter !== 'string' || adapter === '') throw new InputError('capability: the adapter name is empty');
  const cap = checkCapability(capability);
  const j = journalFor(root, runId, options);
  const { rows } = j.transact((s) => capabilityPlan(s.capabilities, adapter, cap, j.file));
  return { row: rows[0], file: j.file };
}

export interface MutationInput {
  agentId: string;
  kind: string;
  detail?: JsonObject;
  /** Default: the agent's next ordinal in this run (its mutations so far). */
  stepIndex?: number;
}

export interface MutationRecord {
  row: RunRow;
  mutation: ProviderStateMutation;
  content_address: string;
}

export interface MutationResult {
  file: string;
  mutations: MutationRecord[];
  /** The capability row written first (ingest), if any. */
  capabilityRow?: RunRow;
  /** The deterministic-mode variable that flagged the mutations, if any. */
  deterministic: string | undefined;
  /** Audit events that could not be written (the journal entries stand). */
  warnings: string[];
}

function mirror(root: string, runId: string, records: MutationRecord[], options: RunRecordOptions): string[] {
  const warnings: string[] = [];
  for (const r of records) {
    const w = auditEvent(
      root,
      'provider.state_mutation',
      {
        actor: String(r.row.payload.get('agent_id')),
        resource_type: 'run',
        resource_id: runId,
        details: {
          run: runId,
          agent: String(r.row.payload.get('agent_id')),
          kind: r.mutation.kind,
          content_address: r.content_address,
          step_index: r.mutation.step_index,
          flagged: r.mutation.flagged,
          journal_head: r.row.event_hash,
        },
      },
      auditOptions(options.env, options.keyPath, options.onTornTail),
    );
    if (w !== undefined) warnings.push(w);
  }
  return collapsed(warnings);
}

/**
 * Each warning once, with how many events it stood for: an audit log that refuses one event refuses the rest for the
 * same reason (500 mutations of an ingest printed the same line 500 times).
 */
function collapsed(warnings: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const w of warnings) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts].map(([w, n]) => (n === 1 ? w : `${w} (the same for ${n} events)`));
}

function toRecords(rows: RunRow[], mutations: ProviderStateMutation[]): MutationRecord[] {
  const mrows = rows.filter((r) => r.event === MUTATION_EVENT);
  return mrows.map((row, i) => ({
    row,
    mutation: mutations[i]!,
    content_address: String(row.payload.get('content_address')),
  }));
}

/**
 * Chains one provider-side mutation into the run journal as a
 * content-addressed `provider_state_mutation` entry (flagged when a
 * deterministic mode is set in `options.env`), then mirrors it into the audit
 * chain as `provider.state_mutation` (best-effort: a failure is a warning).
 */
export function recordMutation(
  root: string,
  runId: string,
  input: MutationInput,
  options: RunRecordOptions,
): MutationResult {
  assertSafeId(input.agentId, 'agent id');
  if (typeof input.kind !== 'string' || input.kind === '') throw new InputError('mutation: the kind is empty');
  if (input.stepIndex !== undefined && (!isJsonInteger(input.stepIndex) || input.stepIndex < 0)) {
    throw new InputError('mutation: step index must be a non-negative integer');
  }
  const det = deterministicModeVar(options.env);
  const j = journalFor(root, runId, options);
  const made: ProviderStateMutation[] = [];
  const { rows } = j.transact((s) => {
    const step = input.stepIndex ?? s.mutationsByAgent.get(input.agentId) ?? 0;
    const m = mutationFromSignal(input.kind, input.detail ?? {}, step, det !== undefined);
    made.push(m);
    return [{ event: MUTATION_EVENT, payload: mutationPayload(m, input.agentId) }];
  });
  const mutations = toRecords(rows, made);
  return { file: j.file, mutations, deterministic: det, warnings: mirror(root, runId, mutations, options) };
}

/**
 * One thing an observing adapter saw: a run event, or a provider-side context-mutation signal (with the provider's
 * detail, or only its digests: a reader that keeps many signals need not keep what each detail held).
 */
export type ObservedItem =
  | { event: RunEventInput }
  | { signal: { kind: string; detail: JsonObject } | { kind: string; digests: SignalDigests } };

export interface ObservedResult extends MutationResult {
  /** Every row written, in order (capability, events, mutations). */
  rows: RunRow[];
}

/**
 * Records what an adapter that can see provider-side mutations observed, in
 * one locked append: the adapter's `observed` capability first (once per run;
 * a run that declared it blind refuses), then the items in order, each signal
 * chained as a content-addressed mutation of `agentId` whose step index
 * continues the agent's ordinal in the run. Mutations are mirrored into the
 * audit chain. Nothing is written when an item cannot be.
 */
export function recordObserved(
  root: string,
  runId: string,
  adapter: string,
  agentId: string,
  items: ObservedItem[],
  options: RunRecordOptions,
): ObservedResult {
  assertSafeId(agentId, 'agent id');
  for (const it of items) {
    if ('event' in it) {
      if (it.event.event === MUTATION_EVENT || it.event.event === CAPABILITY_EVENT)
        throw new InputError(`run journal: ${it.event.event} entries are recorded as signals or capabilities`);
      checkRunEvent(it.event);
    } else if (typeof it.signal.kind !== 'string' || it.signal.kind === '') {
      throw new InputError('mutation: the kind is empty');
    }
  }
  const capability = options.capability ?? 'observed';
  if (capability !== 'observed' && items.some((it) => 'signal' in it))
    throw new InputError(`run journal: adapter ${JSON.stringify(adapter)} is ${capability}: it records no mutation`);
  const det = deterministicModeVar(options.env);
  // Digested before the journal is locked (the lock is held for the append, not for hashing details).
  const digests = items.map((it) =>
    'signal' in it ? ('digests' in it.signal ? it.signal.digests : signalDigests(it.signal.detail)) : undefined,
  );
  const j = journalFor(root, runId, options);
  const made: ProviderStateMutation[] = [];
  const { rows } = j.transact((s) => {
    made.length = 0;
    const events = capabilityPlan(s.capabilities, adapter, capability, j.file);
    let step = s.mutationsByAgent.get(agentId) ?? 0;
    for (const [i, it] of items.entries()) {
      if ('event' in it) {
        events.push(it.event);
        continue;
      }
      const m = mutationOf(it.signal.kind, digests[i]!, step++, det !== undefined);
      made.push(m);
      events.push({ event: MUTATION_EVENT, payload: mutationPayload(m, agentId) });
    }
    return events;
  });
  const mutations = toRecords(rows, made);
  const result: ObservedResult = {
    file: j.file,
    rows,
    mutations,
    deterministic: det,
    warnings: mirror(root, runId, mutations, options),
  };
  const capabilityRow = rows.find((r) => r.event === CAPABILITY_EVENT);
  if (capabilityRow !== undefined) result.capabilityRow = capabilityRow;
  return result;
}

/**
 * Ingests a Claude Code stream-json transcript for one agent: records the
 * `claude` adapter as `observed` (once per run) and chains every
 * context-mutation signal in transcript order, all in one append. Step indices
 * continue the agent's ordinal in the run (0, 1, ... for its first session).
 * A transcript that does not read whole is refused before anything is written.
 * The transcript whole in `bytes`: ingestClaudeStreamBlocks reads one a block at a time.
 */
export function ingestClaudeStream(
  root: string,
  runId: string,
  agentId: string,
  bytes: Uint8Array,
  source: string,
  options: RunRecordOptions,
): MutationResult & { transcript: ClaudeStreamSummary } {
  return ingestClaudeStreamBlocks(root, runId, agentId, [bytes], source, options);
}

/**
 * ingestClaudeStream of a transcript that arrives in blocks (a file or a pipe read a block at a time: `claude -p |
 * stepchain run ingest ... -`), read a line at a time: memory holds one line of it, and per signal what its row
 * holds (its kind and the digests of its detail), never the transcript. Nothing is written until the last line has
 * read: a transcript that does not read whole writes nothing.
 */
export function ingestClaudeStreamBlocks(
  root: string,
  runId: string,
  agentId: string,
  blocks: Iterable<Uint8Array>,
  source: string,
  options: RunRecordOptions,
): MutationResult & { transcript: ClaudeStreamSummary } {
  assertSafeId(agentId, 'agent id');
  const items: ObservedItem[] = [];
  const transcript = scanClaudeStream(blocks, source, (s) =>
    items.push({ signal: { kind: s.kind, digests: signalDigests(s.detail) } }),
  );
  const r = recordObserved(root, runId, CLAUDE_ADAPTER, agentId, items, options);
  const result: MutationResult & { transcript: ClaudeStreamSummary } = {
    file: r.file,
    mutations: r.mutations,
    deterministic: r.deterministic,
    warnings: r.warnings,
    transcript,
  };
  if (r.capabilityRow !== undefined) result.capabilityRow = r.capabilityRow;
  return result;
}
