import { printTornTailNotice, type TornTailMoved, tornTailOption } from '../util/chain-file';
import { canonical, type JsonObject, type JsonValue } from '../canonical';
import { checkWritable } from '../journal';
import { canonicalSha256 } from '../runs/provider-state';
import { recordMutation } from '../runs/record';
import { startAppender, type Appender, type AppendJob, type LinkReply } from './append-worker';
import type { HookSession, SessionRequest } from '../agents/hook-session';
import { exchangeCalls } from '../runs/exchange-links';
import { linkExchange, recordingSessions, type LinkableStep } from './links';
import { sha256Hex } from '../util/hash';
import { exchangeRecord, readExchange, requestView, resultsFor, type Exchange, type ExchangeReading } from './exchange';
import type { Protocol, RequestView } from './protocols';
import { someOf } from '../util/words';

/**
 * Turns exchanges into steps of a per-step journal, in the order their
 * requests arrived. A step is appended once its tool calls are answered: the
 * step's `tool_result` is what a later request carries for them, so the step
 * waits for the first request that does, or for `close()`. Appends start
 * once such a request has gone upstream (`flush()`, called 25 ms after the
 * request went out or when its response begins, whichever comes first) and at
 * `close()`: an append with its worktree snapshot costs tens to hundreds of
 * milliseconds of git, and the request's way upstream never waits on it. The
 * response's bytes are held until those appends are done (the proxy waits on
 * `flush()`'s promise), so the agent can run no tool of its answer before the
 * step's snapshot is taken: the snapshot holds the files after the agent ran
 * the tools the step asked for, and none of the next step's.
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
  /** Told whenever a torn tail of a journal the recording writes is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
  /** The agent's hook session of a request (`AgentProxy.hookSession`): its exchanges' tool calls are linked to it. */
  hookSession?: (request: SessionRequest, env: NodeJS.ProcessEnv) => HookSession | undefined;
  /** The token the agent's process got (`RECORDING_ENV`): its hook sessions that record it ran under this recording. */
  recordingToken?: string;
}

export interface RecorderSlot {
  state: 'open' | 'done' | 'dropped';
  /** The request as JSON, once `answeredBy` read it (null: not a JSON object), so it is parsed once. */
  view?: RequestView | null;
  exchange?: Exchange;
  reading?: ExchangeReading;
  seq?: number;
  /** The step's fields read from the exchange, as the journal will write them (canonical text), once it is read. */
  fields?: { model: string; prompt: string; tool_call: string };
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
  /** Tool calls linked to their hook steps (the agent's hooks installed too), and those no hook step named. */
  readonly links = { linked: 0, unlinked: [] as string[] };
  /** Appended exchanges whose tool calls are not all linked yet: tried again at `close()`. */
  private readonly toLink: LinkableStep[] = [];
  /** Appended exchanges of an agent whose requests name no session: linked at `close()`, to the one that ran. */
  private readonly toLinkSingle: Omit<LinkableStep, 'hookJournal'>[] = [];
  /**
   * The exchanges that asked for each tool call id, noted as each response ends: an id two exchanges asked for is
   * linked to neither (which one's call a hook step ran is not known), even for the one linked only at the end.
   */
  private readonly askedBy = new Map<string, number[]>();
  failure: string | undefined;
  private readonly appender: Appender;
  /** The appends under way, in order. */
  private appends: Promise<void> = Promise.resolve();

  constructor(private readonly options: RecorderOptions) {
    this.nextSeq = options.firstSeq;
    this.appender = startAppender();
  }

  /** A place in the order, taken when a model request arrives. */
  reserve(): RecorderSlot {
    const slot: RecorderSlot = { state: 'open' };
    this.slots.push(slot);
    return slot;
  }

  /**
   * The request `x` went upstream: the steps whose tool calls it answers get their results (the proxy calls this
   * once the request is written, so reading it as JSON never delays it; `slot` keeps that reading for the
   * exchange's own step). They are appended by `flush()`, before any byte of the response reaches the agent.
   */
  answeredBy(
    protocol: Protocol,
    x: Pick<Exchange, 'target' | 'requestHeaders' | 'request'>,
    slot?: RecorderSlot,
  ): void {
    const view = requestView(x);
    if (slot !== undefined) slot.view = view ?? null;
    if (view === undefined) return;
    const results = protocol.toolResults(view);
    for (const s of this.pending) {
      if (s.results !== undefined || s.reading!.toolCalls.length === 0) continue;
      if (s.exchange!.protocol !== protocol) continue;
      const answered = resultsFor(s.reading!.toolCalls, results);
      if (answered.length > 0) s.results = answered.map((r) => r.value);
    }
  }

  /** Appends the steps that are ready (in order: one waiting for its tool results holds back those after it). */
  /** Starts the appends the requests so far have settled; the promise is kept when they (and their snapshots) are done. */
  flush(): Promise<void> {
    this.drain(false);
    return this.appends;
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

  /** Appends every step still waiting (unanswered tool calls get a null tool_result), and waits for them. */
  async close(): Promise<void> {
    for (const s of this.slots) if (s.state === 'open') s.state = 'dropped';
    this.settle();
    this.drain(true);
    await this.appends;
    await this.appender.close();
    this.resolveSingleSession();
    this.sweepLinks();
  }

  /** The exchanges of an agent whose requests name no session, linked to the one session that ran (or none). */
  private resolveSingleSession(): void {
    if (this.toLinkSingle.length === 0) return;
    const token = this.options.recordingToken;
    const sessions = token === undefined ? [] : recordingSessions(this.options.root, this.options.agent, token);
    const steps = this.toLinkSingle.splice(0);
    if (sessions.length === 1) {
      for (const s of steps) this.toLink.push({ ...s, hookJournal: sessions[0]! });
      return;
    }
    if (sessions.length === 0) return; // its hooks are not installed (or not given the token): nothing to link
    const ids = steps.flatMap((s) => s.calls.map((c) => c[0]!));
    this.links.unlinked.push(...ids);
    this.warn(
      `${sessions.length} ${this.options.agent} sessions ran under this recording (${someOf(sessions)}) and its requests name none: which exchange is whose is not known, so no tool call is linked`,
    );
  }

  /** The tool calls a hook step named after their exchange was appended (or a failed link write): linked now. */
  private sweepLinks(): void {
    for (const step of this.toLink.splice(0)) {
      // An exchange asked since for one of its calls takes that call out (the hook step may be the later one's).
      const s = { ...step, calls: this.ownCalls(step.seq, step.calls) };
      if (s.calls.length === 0) continue;
      let r: LinkReply;
      try {
        r = linkExchange(this.options.root, s, this.writeOptions());
      } catch (e) {
        r = { error: (e as Error).message };
      }
      this.noteLinks(s, r, true);
    }
  }

  private noteLinks(s: LinkableStep, r: LinkReply, last: boolean): void {
    if ('error' in r) {
      if (last) this.warn(`exchange ${s.seq}: its tool calls could not be linked to ${s.hookJournal}: ${r.error}`);
      else this.toLink.push(s);
      return;
    }
    if (!r.hookJournalExists) return;
    if (r.unlinked.length > 0 && !last) {
      this.toLink.push(s); // the step whole, at the end (its links are written once)
      return;
    }
    this.links.linked += r.linked.length;
    this.links.unlinked.push(...r.unlinked, ...r.ambiguous);
    if (r.unlinked.length > 0)
      this.warn(`exchange ${s.seq}: no step of ${s.hookJournal} ran the tool call ${someOf(r.unlinked)}; not linked`);
    if (r.ambiguous.length > 0)
      this.warn(
        `exchange ${s.seq}: the tool call ${someOf(r.ambiguous)} is named by several steps of ${s.hookJournal}, or its step is linked to another exchange; not linked`,
      );
  }

  /** Notes the ids each tool call of exchange `seq` may be named by. */
  private noteAsked(seq: number, calls: string[][]): void {
    for (const id of calls.flat()) {
      const by = this.askedBy.get(id) ?? [];
      if (!by.includes(seq)) this.askedBy.set(id, [...by, seq]);
    }
  }

  /**
   * The exchange's tool calls that no other exchange of this recording asked for (as far as is known now: the
   * exchanges whose responses have ended); the rest are warned and never linked. Asked when the exchange is
   * appended, and again before its links are retried at the end.
   */
  private ownCalls(seq: number, calls: string[][]): string[][] {
    this.noteAsked(seq, calls);
    const own: string[][] = [];
    for (const names of calls) {
      const others = [...new Set(names.flatMap((id) => this.askedBy.get(id) ?? []))].filter((o) => o !== seq);
      if (others.length === 0) {
        own.push(names);
        continue;
      }
      this.links.unlinked.push(names[0]!);
      this.warn(
        `exchange ${seq}: the tool call ${names[0]} was asked for by exchange ${others.join(' and ')} too; not linked`,
      );
    }
    return own;
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
        s.reading = readExchange(s.exchange!, s.view);
      } catch (e) {
        s.reading = { view: undefined, model: null, prompt: null, toolCalls: [], signals: [] };
        this.warn(
          `exchange ${s.seq}: its response could not be read (${(e as Error).message}); recorded as bytes only`,
        );
      }
      if (s.reading.unread !== undefined)
        this.warn(
          `exchange ${s.seq}: its response ${s.reading.unread}: its tool calls are not read (its bytes are recorded)`,
        );
      s.fields = this.writableFields(s.seq, s.reading);
      this.pinSignals(s);
      this.noteAsked(s.seq, exchangeCalls(s.reading.toolCalls, null));
      this.pending.push(s);
    }
  }

  /**
   * A field of the step as the journal will write it (canonical text), or undefined with a warning when no row can
   * hold it: both sides of an exchange are read from bytes a peer chose, and a value such as NaN (which the parser
   * reads, as Python's does) or one nested past what a journal line holds cannot be written. Checked by the rule the
   * journal's append applies (`checkWritable`), here where the exchange is read: a value that threw on the way to its
   * append ended `record` with a stack trace, its journal never written and the agent left without its proxy.
   */
  private fieldText(seq: number, name: string, v: JsonValue): string | undefined {
    try {
      return canonical(checkWritable(name, v));
    } catch (e) {
      this.warn(`exchange ${seq}: ${(e as Error).message}: recorded as null (the exchange's bytes are in its blobs)`);
      return undefined;
    }
  }

  /** The fields read from an exchange, each that cannot be written null; tool calls not written are not waited for. */
  private writableFields(seq: number, r: ExchangeReading): NonNullable<RecorderSlot['fields']> {
    const tool_call = this.fieldText(seq, 'tool_call', r.toolCalls.length === 0 ? null : r.toolCalls);
    if (tool_call === undefined) r.toolCalls = [];
    return {
      model: this.fieldText(seq, 'model', r.model) ?? 'null',
      prompt: this.fieldText(seq, 'prompt', r.prompt) ?? 'null',
      tool_call: tool_call ?? 'null',
    };
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
          this.writeOptions(),
        );
        for (const w of r.warnings) this.warn(w);
        for (const m of r.mutations)
          this.mutations.push({ seq: s.seq!, kind: sig.kind, content_address: m.content_address });
      } catch (e) {
        this.fail(`exchange ${s.seq}: its ${sig.kind} could not be pinned in the run journal: ${(e as Error).message}`);
      }
    }
  }

  /** The environment and torn-tail notice every journal write of the recording is given. */
  private writeOptions(): { env: NodeJS.ProcessEnv; onTornTail?: (m: TornTailMoved) => void } {
    const o = this.options;
    return { env: o.env, ...tornTailOption(o) };
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
    const x = s.exchange!;
    const r = s.reading!;
    const ids = this.ownCalls(s.seq!, exchangeCalls(r.toolCalls, s.results ?? null));
    const session =
      ids.length === 0
        ? undefined
        : this.options.hookSession?.({ headers: x.requestHeaders, body: r.view?.body }, this.options.env);
    const hookJournal = session !== undefined && 'journal' in session ? session.journal : undefined;
    const job: AppendJob = {
      journalDir: this.options.journalDir,
      root: this.options.root,
      env: this.options.env,
      input: x.request,
      ...s.fields!,
      tool_result: this.fieldText(s.seq!, 'tool_result', s.results ?? null) ?? 'null',
      blobs: [x.response, exchangeRecord(x, this.options.agent)],
      ...(hookJournal === undefined ? {} : { link: { hookJournal, exchangeJournal: this.options.runId, calls: ids } }),
    };
    this.appends = this.appends.then(async () => {
      if (this.failure !== undefined) return;
      const res = await this.appender.append(job);
      // What the append moved aside is told whether or not the row was written after it.
      for (const m of res.torn) (this.options.onTornTail ?? printTornTailNotice)(m);
      if (!res.ok) {
        this.fail(`exchange ${s.seq} could not be appended: ${res.error}`);
        return;
      }
      for (const w of res.warnings) this.warn(w);
      if (res.seq !== s.seq)
        this.fail(
          `exchange ${s.seq} was appended as step ${res.seq}: another writer appended to the journal meanwhile`,
        );
      if (res.link !== undefined && job.link !== undefined)
        this.noteLinks({ ...job.link, seq: res.seq, step_hash: res.step_hash }, res.link, false);
      else if (session !== undefined && 'single' in session)
        this.toLinkSingle.push({
          exchangeJournal: this.options.runId,
          seq: res.seq,
          step_hash: res.step_hash,
          calls: ids,
        });
      this.steps.push({
        seq: res.seq,
        step_hash: res.step_hash,
        protocol: x.protocol.name,
        tool_calls: r.toolCalls.length,
      });
    });
  }
}
