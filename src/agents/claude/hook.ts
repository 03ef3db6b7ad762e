import path from 'node:path';
import { isJsonObject, type JsonObject, type JsonValue } from '../../canonical';
import { Cas, casDir, type StepInput } from '../../journal';
import { CLAUDE_ADAPTER, type ObservedItem } from '../../runs';
import { errorLine, runEvent, runHookFrame, SessionRecorder } from '../kit';
import { subagentJournalId, subagentLinkItem, subagentStartItem, subagentStopItem } from '../subagents';
import type { HookOptions, HookOutcome } from '../types';
import { failureResult, field, strOrNull, value, type HookPayload } from './payload';
import { readSessionState, writeSessionState, type SessionState } from './state';
import { modelOfToolUse, sessionTranscriptDir } from './transcript';

/**
 * `stepchain hook claude`: one Claude Code hook payload in, what it means
 * recorded (docs/claude.md):
 * - PostToolUse / PostToolUseFailure: one step of the journal `claude-<session_id>`
 *   (tool call, result or error, the prompt that led to it, the model when the
 *   transcript already names it, the raw payload as the input blob, the
 *   worktree snapshot and the audit event, as every append);
 * - SessionStart: the run journal `claude-<session_id>`, with the `claude`
 *   adapter recorded as `observed`, and a `session_start` event;
 * - PreCompact (or SessionStart with source `compact` when no PreCompact was
 *   recorded): one `compact_boundary` provider-state mutation per compaction;
 * - PostCompact: the compaction's summary, stored in the CAS, named with the compaction's content address by a
 *   `compact_summary` run event (the compaction chained here when PreCompact did not);
 * - a subagent's tool call (its payload names `agent_id`): a step of `claude-<session_id>-<agent_id>`; the parent's
 *   step of the tool call that launched it (its response names `agentId`) is linked to it by a `subagent_link`
 *   run event; SubagentStart / SubagentStop: `subagent_start` / `subagent_stop` (src/agents/subagents.ts);
 * - PostToolBatch: a `tool_batch` run event naming the batch's tool calls (which ran as one model turn);
 * - UserPromptSubmit, Stop, SessionEnd: run events (`prompt`, `stop`, `session_end`).
 *
 * It never throws: a failure is reported in `errors` (the command prints one
 * line and exits 1, never 2, which would block the agent), and whatever could
 * be recorded is.
 */
/** The events stepchain records; `init claude` installs a hook for each. */
export const RECORDED_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'Stop',
  'SessionEnd',
] as const;

/** The journal step of a tool call (docs/claude.md "What a step holds"). */
export function toolStep(
  p: HookPayload,
  state: SessionState,
  env: NodeJS.ProcessEnv = process.env,
  warn?: (message: string) => void,
): StepInput {
  const call: JsonObject = {
    id: strOrNull(value(p, 'tool_use_id')),
    input: value(p, 'tool_input') ?? null,
    name: strOrNull(value(p, 'tool_name')),
  };
  let result: JsonValue;
  if (p.event === 'PostToolUseFailure') result = failureResult(p);
  else {
    result = value(p, 'tool_response') ?? null;
  }
  // The prompt in progress, when the state names the same prompt (a payload without prompt_id takes the latest).
  const prompt =
    state.prompt !== null && (p.promptId === undefined || state.prompt_id === p.promptId) ? state.prompt : null;
  const toolUseId = field(p, 'tool_use_id');
  // Read only where this environment's Claude Code keeps the session: a payload never names a file to read.
  let transcript =
    p.transcriptPath !== undefined && sessionTranscriptDir(p.transcriptPath, p.sessionId, env) !== undefined
      ? path.resolve(p.transcriptPath)
      : undefined;
  // A subagent's conversation is beside the session's: `<session_id>/subagents/agent-<agent_id>.jsonl`.
  const agentId = field(p, 'agent_id');
  if (transcript !== undefined && agentId !== undefined)
    transcript = path.join(transcript.slice(0, -'.jsonl'.length), 'subagents', `agent-${agentId}.jsonl`);
  const model =
    transcript !== undefined && toolUseId !== undefined
      ? modelOfToolUse(transcript, toolUseId, undefined, warn)
      : undefined;
  return { input: p.bytes, tool_call: call, tool_result: result, prompt, model: model ?? null };
}

/** Handles one payload. Never throws. */
export function handleClaudeHook(bytes: Uint8Array, options: HookOptions): HookOutcome {
  return runHookFrame(bytes, options, { agent: 'claude', projectDirVar: 'CLAUDE_PROJECT_DIR' }, handle);
}

/** What every event's handler works with: the payload, its project and journal, the recorder and the outcome. */
interface HookContext {
  p: HookPayload;
  root: string;
  /** The session's journal id (`claude-<session_id>`). */
  agent: string;
  options: HookOptions;
  out: HookOutcome;
  rec: SessionRecorder;
  /** Records run items; false when they could not be (said in `out`). */
  run(items: ObservedItem[], what: string): boolean;
  /** The session's state (a warning in `out` when it could not be read). */
  state(): SessionState;
  /** Saves the session's state (a warning in `out` when it could not be). */
  saveState(s: SessionState): void;
}

function handle(p: HookPayload, root: string, agent: string, options: HookOptions, out: HookOutcome): void {
  const rec = new SessionRecorder(root, agent, CLAUDE_ADAPTER, options, out);
  const ctx: HookContext = {
    p,
    root,
    agent,
    options,
    out,
    rec,
    run: (items, what) => rec.run(items, what),
    state: () => {
      const r = readSessionState(root, p.sessionId);
      if (r.warning !== undefined) out.warnings.push(r.warning);
      return r.state;
    },
    saveState: (s) => {
      try {
        writeSessionState(root, p.sessionId, s);
      } catch (e) {
        out.warnings.push(`session state not saved: ${errorLine(e)}`);
      }
    },
  };
  // Other events (PreToolUse, Notification, ...) carry nothing stepchain records.
  HANDLERS.get(p.event)?.(ctx);
}

/** A subagent's payloads name it (`agent_id`): its journal is `claude-<session_id>-<agent_id>`; refused when unsafe. */
function subagentOf(ctx: HookContext): { id: string; journal: string } | undefined {
  const { p, root, agent, out } = ctx;
  const id = value(p, 'agent_id');
  if (id === undefined || id === null) return undefined;
  const journal = typeof id === 'string' ? subagentJournalId(agent, id) : undefined;
  if (journal === undefined || typeof id !== 'string') {
    let kept = '';
    try {
      kept = `; its payload is kept as ${new Cas(casDir(root)).put(p.bytes)} in ${casDir(root)}`;
    } catch {
      /* nothing more can be kept */
    }
    out.errors.push(
      `${p.event}: unsafe agent_id ${JSON.stringify(id)} (1-64 of A-Z a-z 0-9 _ -); nothing recorded${kept}`,
    );
    return undefined;
  }
  return { id, journal };
}

/** The journal a tool call belongs to: the session's, or its subagent's; undefined when refused. */
function journalOf(ctx: HookContext): string | undefined {
  if (value(ctx.p, 'agent_id') === undefined) return ctx.agent;
  return subagentOf(ctx)?.journal;
}

/** An asynchronous launch's response does not name the subagent's type: the call's input does. */
function launchedType(p: HookPayload): string | null {
  const input = value(p, 'tool_input');
  return isJsonObject(input) && typeof input.subagent_type === 'string' ? input.subagent_type : null;
}

/** After the step of a tool call that launched a subagent (its response names `agentId`): the link. */
function linkLaunchedSubagent(ctx: HookContext, journal: string, seq: number | null): void {
  const { p, agent, out } = ctx;
  const response = value(p, 'tool_response');
  if (!isJsonObject(response) || typeof response.agentId !== 'string') return;
  const child = subagentJournalId(agent, response.agentId);
  if (child === undefined) {
    out.errors.push(`${p.event}: unsafe agentId ${JSON.stringify(response.agentId)} in the tool response; not linked`);
    return;
  }
  ctx.run(
    [
      subagentLinkItem({
        agentId: response.agentId,
        agentType: typeof response.agentType === 'string' ? response.agentType : launchedType(p),
        journal: child,
        parentJournal: journal,
        parentStep: seq,
        parentToolUseId: strOrNull(value(p, 'tool_use_id')),
        status: typeof response.status === 'string' ? response.status : null,
      }),
    ],
    'run event subagent_link',
  );
}

function onToolUse(ctx: HookContext): void {
  const { p, out } = ctx;
  const journal = journalOf(ctx);
  if (journal === undefined) return;
  // A transcript that cannot be read (a link, a FIFO) costs the step its model, never the step.
  const step = toolStep(p, ctx.state(), ctx.options.env, (w) => out.warnings.push(w));
  const recorded = ctx.rec.step(step, journal);
  linkLaunchedSubagent(ctx, journal, recorded ? (out.row?.seq ?? null) : null);
}

function onToolBatch(ctx: HookContext): void {
  const calls = value(ctx.p, 'tool_calls');
  const ids = Array.isArray(calls)
    ? calls.map((c) => (isJsonObject(c) && typeof c.tool_use_id === 'string' ? c.tool_use_id : null))
    : [];
  ctx.run(
    [
      runEvent('tool_batch', [
        ['agent_id', strOrNull(value(ctx.p, 'agent_id'))],
        ['tool_use_ids', ids],
      ]),
    ],
    'run event tool_batch',
  );
}

function onSubagent(ctx: HookContext): void {
  const { p } = ctx;
  const sub = subagentOf(ctx);
  if (sub === undefined) return;
  const type = strOrNull(value(p, 'agent_type'));
  ctx.run(
    [
      p.event === 'SubagentStart'
        ? subagentStartItem(sub.id, type, sub.journal)
        : subagentStopItem(sub.id, type, sub.journal, strOrNull(value(p, 'last_assistant_message'))),
    ],
    p.event === 'SubagentStart' ? 'run event subagent_start' : 'run event subagent_stop',
  );
}

function onPostCompact(ctx: HookContext): void {
  const { p, root, out, rec } = ctx;
  const s = ctx.state();
  const trigger = value(p, 'trigger');
  const summary = strOrNull(value(p, 'compact_summary'));
  let blob: string | null = null;
  if (summary !== null) {
    try {
      blob = new Cas(casDir(root)).put(Buffer.from(summary, 'utf8'));
    } catch (e) {
      out.errors.push(`the compaction summary was not stored: ${errorLine(e)}`);
    }
  }
  const summaryEvent = (address: string | null): ObservedItem =>
    runEvent('compact_summary', [
      ['trigger', typeof trigger === 'string' ? trigger : null],
      ['compaction', address],
      ['summary_blob', blob],
    ]);
  // The compaction chained by PreCompact (or SessionStart(compact), whichever came first) and not summarised yet.
  if (s.compaction_address !== null) {
    if (ctx.run([summaryEvent(s.compaction_address)], 'run event compact_summary'))
      ctx.saveState({ ...s, compaction_address: null });
    return;
  }
  // No hook chained it (PreCompact missing or failed): chained here, with its trigger; SessionStart(compact)
  // then only records its event. The mutation's address is known once it is chained: the summary follows.
  const detail: JsonObject = typeof trigger === 'string' ? { trigger } : {};
  if (ctx.run([{ signal: { kind: 'compact_boundary', detail } }], 'compaction')) {
    const address = rec.lastMutations[0] ?? null;
    ctx.saveState({ ...s, compaction_pending: true, compaction_address: null });
    ctx.run([summaryEvent(address)], 'run event compact_summary');
  }
}

function onPrompt(ctx: HookContext): void {
  const { p } = ctx;
  const prompt = strOrNull(value(p, 'prompt'));
  ctx.saveState({ ...ctx.state(), prompt_id: p.promptId ?? null, prompt });
  ctx.run(
    [
      runEvent('prompt', [
        ['prompt_id', p.promptId ?? null],
        ['prompt', prompt],
      ]),
    ],
    'run event prompt',
  );
}

function onSessionStart(ctx: HookContext): void {
  const { p, rec } = ctx;
  const source = strOrNull(value(p, 'source'));
  const s = ctx.state();
  const items: ObservedItem[] = [];
  // A compaction PreCompact did not record (its hook missing or failed) is chained here, trigger unknown.
  const chained = source === 'compact' && !s.compaction_pending;
  if (chained) items.push({ signal: { kind: 'compact_boundary', detail: {} } });
  const model = value(p, 'model');
  items.push(
    runEvent('session_start', [
      ['source', source],
      ...(typeof model === 'string' ? [['model', model] as [string, JsonValue]] : []),
    ]),
  );
  if (
    ctx.run(items, chained ? 'compaction and run event session_start' : 'run event session_start') &&
    source === 'compact'
  )
    ctx.saveState({
      ...s,
      compaction_pending: false,
      // PostCompact may come after this: its summary names the compaction chained here.
      ...(chained ? { compaction_address: rec.lastMutations[0] ?? null } : {}),
    });
}

function onPreCompact(ctx: HookContext): void {
  const trigger = value(ctx.p, 'trigger');
  const detail: JsonObject = typeof trigger === 'string' ? { trigger } : {};
  if (ctx.run([{ signal: { kind: 'compact_boundary', detail } }], 'compaction'))
    ctx.saveState({ ...ctx.state(), compaction_pending: true, compaction_address: ctx.rec.lastMutations[0] ?? null });
}

function onStop(ctx: HookContext): void {
  ctx.run(
    [
      runEvent('stop', [
        ['prompt_id', ctx.p.promptId ?? null],
        ['last_assistant_message', strOrNull(value(ctx.p, 'last_assistant_message'))],
      ]),
    ],
    'run event stop',
  );
}

function onSessionEnd(ctx: HookContext): void {
  ctx.run([runEvent('session_end', [['reason', strOrNull(value(ctx.p, 'reason'))]])], 'run event session_end');
}

/** One handler per recorded event (RECORDED_EVENTS); a Map, so that no event name reaches a prototype's member. */
const HANDLERS = new Map<string, (ctx: HookContext) => void>([
  ['PostToolUse', onToolUse],
  ['PostToolUseFailure', onToolUse],
  ['PostToolBatch', onToolBatch],
  ['SubagentStart', onSubagent],
  ['SubagentStop', onSubagent],
  ['PostCompact', onPostCompact],
  ['UserPromptSubmit', onPrompt],
  ['SessionStart', onSessionStart],
  ['PreCompact', onPreCompact],
  ['Stop', onStop],
  ['SessionEnd', onSessionEnd],
]);
