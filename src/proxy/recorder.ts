import type { JsonObject, JsonValue } from '../canonical';
import { canonicalSha256 } from '../runs/provider-state';
import { recordMutation } from '../runs/record';
import { recordStep } from '../record';
import { sha256Hex } from '../util/hash';
import { exchangeRecord, readExchange, requestView, resultsFor, type Exchange, type ExchangeReading } from './exchange';
import type { Protocol } from './protocols';

/**
 * Turns exchanges into steps of a per-step journal, in the order their
 * requests arrived. A step is appended once its tool calls are answered: the
 * step's `tool_result` is what a later request carries for them, so the step
 * waits for the first request that does (and is appended before that request
 * goes upstream), or for `close()`. A step whose response asks for no tool is
 * appended as soon as every earlier one is. Its worktree snapshot is taken
 * when it is appended: after the agent ran the tools the step asked for.
 *
 * Provider-side mutations (compactions, context edits) are chained into the
 * run journal as soon as their exchange is over, with the step's index.
 *
 * A failure to record is never thrown into the proxy (the agent's exchange
 * stands): recording stops at the first one, which `failure` keeps.
 */
export interface RecorderOptions {
  root: string;
  journalDir: string;
  runId: string;
  agentId: string;
  /** The agent kind, named in each exchange's record. */
  agent: string;
  env: NodeJS.ProcessEnv;
  /** The seq the first recorded exchange gets (the journal's length when recording starts). */
  firstSeq: number;
  onWarning?: (line: string) => void;
}

export interface RecorderSlot {
  state: 'open' | 'done' | 'dropped';
  exchange?: Exchange;
  reading?: ExchangeReading;
  seq?: number;
  results?: JsonValue[];
}

export interface RecordedStep {
  seq: number;
  step_hash: string;
  protocol: string;
  tool_calls: number;
}

export class Recorder {
  private readonly slots: RecorderSlot[] = [];
  /** Settled steps (seq assigned) not appended yet, in seq order. */
  private readonly pending: RecorderSlot[] = [];
  private nextSeq: number;
  readonly steps: RecordedStep[] = [];
  readonly mutations: { seq: number; kind: string; content_address: string }[] = [];
  failure: string | undefined;

  constructor(private readonly options: RecorderOptions) {
    this.nextSeq = options.firstSeq;
  }

  /** A place in the order, taken when a model request arrives. */
  reserve(): RecorderSlot {
    const slot: RecorderSlot = { state: 'open' };
    this.slots.push(slot);
    return slot;
  }

  /** The request `x` is about to go upstream: steps whose tool calls it answers are appended first. */
  beforeForward(protocol: Protocol, x: Pick<Exchange, 'target' | 'requestHeaders' | 'request'>): void {
    const view = requestView(x);
    if (view === undefined) return;
    const results = protocol.toolResults(view);
    for (const s of this.pending) {
      if (s.results !== undefined || s.reading!.toolCalls.length === 0) continue;
      if (s.exchange!.protocol !== protocol) continue;
      const answered = resultsFor(s.reading!.toolCalls, results);
      if (answered.length > 0) s.results = answered.map((r) => r.value);
    }
    this.drain(false);
  }

  complete(slot: RecorderSlot, exchange: Exchange): void {
    slot.state = 'done';
    slot.exchange = exchange;
    this.settle();
  }

  /** An exchange that produced no response (the upstream was unreachable): it takes no step. */
  drop(slot: RecorderSlot): void {
    slot.state = 'dropped';
    this.settle();
  }

  /** Appends every step still waiting (unanswered tool calls get a null tool_result). */
  close(): void {
    for (const s of this.slots) if (s.state === 'open') s.state = 'dropped';
    this.settle();
    this.drain(true);
  }

  private warn(line: string): void {
    this.options.onWarning?.(line);
  }

  /** Gives seqs to finished exchanges in arrival order, and pins their provider-side mutations. */
  private settle(): void {
    while (this.slots.length > 0 && this.slots[0]!.state !== 'open') {
      const s = this.slots.shift()!;
      if (s.state === 'dropped') continue;
      s.seq = this.nextSeq++;
      try {
        s.reading = readExchange(s.exchange!);
      } catch (e) {
        s.reading = { view: undefined, model: null, prompt: null, toolCalls: [], signals: [] };
        this.warn(
          `exchange ${s.seq}: its response could not be read (${(e as Error).message}); recorded as bytes only`,
        );
      }
      this.pinSignals(s);
      this.pending.push(s);
    }
    this.drain(false);
  }

  private pinSignals(s: RecorderSlot): void {
    if (this.failure !== undefined) return;
    const x = s.exchange!;
    for (const sig of s.reading!.signals) {
      const messages = s.reading!.view === undefined ? null : x.protocol.conversation(s.reading!.view);
      const detail: JsonObject = {
        ...sig.detail,
        exchange: s.seq!,
        protocol: x.protocol.name,
        pre_conversation_sha256: canonicalSha256(messages),
        request_sha256: sha256Hex(x.request),
        response_sha256: sha256Hex(x.response),
      };
      try {
        const r = recordMutation(
          this.options.root,
          this.options.runId,
          { agentId: this.options.agentId, kind: sig.kind, detail, stepIndex: s.seq! },
          { env: this.options.env },
        );
        for (const w of r.warnings) this.warn(w);
        for (const m of r.mutations)
          this.mutations.push({ seq: s.seq!, kind: sig.kind, content_address: m.content_address });
      } catch (e) {
        this.fail(`exchange ${s.seq}: its ${sig.kind} could not be pinned in the run journal: ${(e as Error).message}`);
      }
    }
  }

  private fail(why: string): void {
    if (this.failure === undefined) {
      this.failure = why;
      this.warn(`${why}; recording stopped (the agent's exchanges still pass)`);
    }
  }

  private drain(all: boolean): void {
    while (this.pending.length > 0) {
      const s = this.pending[0]!;
      if (!all && s.results === undefined && s.reading!.toolCalls.length > 0) return;
      this.pending.shift();
      this.append(s);
    }
  }

  private append(s: RecorderSlot): void {
    if (this.failure !== undefined) return;
    const x = s.exchange!;
    const r = s.reading!;
    try {
      const res = recordStep(
        this.options.journalDir,
        {
          input: x.request,
          model: r.model,
          prompt: r.prompt,
          tool_call: r.toolCalls.length === 0 ? null : r.toolCalls,
          tool_result: s.results ?? null,
          blobs: [x.response, exchangeRecord(x, this.options.agent)],
        },
        { root: this.options.root, env: this.options.env },
      );
      for (const w of res.warnings) this.warn(w);
      if (res.row.seq !== s.seq)
        this.fail(
          `exchange ${s.seq} was appended as step ${res.row.seq}: another writer appended to the journal meanwhile`,
        );
      this.steps.push({
        seq: res.row.seq,
        step_hash: res.row.step_hash,
        protocol: x.protocol.name,
        tool_calls: r.toolCalls.length,
      });
    } catch (e) {
      this.fail(`exchange ${s.seq} could not be appended: ${(e as Error).message}`);
    }
  }
}
