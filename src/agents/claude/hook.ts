import path from 'node:path';
import { isJsonObject, type JsonObject, type JsonValue } from '../../canonical';
import { Cas, casDir, type StepInput } from '../../journal';
import { CLAUDE_ADAPTER, type ObservedItem } from '../../runs';
import { errorLine, runEvent, runHookFrame, SessionRecorder } from '../kit';
import { subagentJournalId, subagentLinkItem, subagentStartItem, subagentStopItem } from '../subagents';
import type { HookOptions, HookOutcome } from '../types';
import { field, value, type HookPayload } from './payload';
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

function strOrNull(v: JsonValue | undefined): string | null {
  return typeof v === 'string' ? v : null;
}

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
  if (p.event === 'PostToolUseFailure') {
    const failure: JsonObject = { error: value(p, 'error') ?? null };
    const interrupt = value(p, 'is_interrupt');
    if (typeof interrupt === 'boolean') failure.is_interrupt = interrupt;
    result = failure;
  } else {
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
  return runHookFrame(
    bytes,
    options,
    { agent: 'claude', projectDirVar: 'CLAUDE_PROJECT_DIR' },
    (p, root, journal, out) => handle(p, root, journal, options, out),
  );
}

function handle(p: HookPayload, root: string, agent: string, options: HookOptions, out: HookOutcome): void {
  const env = options.env;
  const state = (): SessionState => {
    const r = readSessionState(root, p.sessionId);
    if (r.warning !== undefined) out.warnings.push(r.warning);
    return r.state;
  };
  const saveState = (s: SessionState): void => {
    try {
      writeSessionState(root, p.sessionId, s);
    } catch (e) {
      out.warnings.push(`session state not saved: ${errorLine(e)}`);
    }
  };
  const rec = new SessionRecorder(root, agent, CLAUDE_ADAPTER, options, out);
  const run = (items: ObservedItem[], what: string): boolean => rec.run(items, what);
  const event = runEvent;
  // A subagent's payloads name it (`agent_id`): its journal is `claude-<session_id>-<agent_id>`.
  const subagent = (): { id: string; journal: string } | undefined => {
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
  };
  /** The journal a tool call belongs to: the session's, or its subagent's; undefined when refused. */
  const journalOf = (): string | undefined => {
    if (value(p, 'agent_id') === undefined) return agent;
    return subagent()?.journal;
  };
  // An asynchronous launch's response does not name the type: the call's input does.
  const launchedType = (): string | null => {
    const input = value(p, 'tool_input');
    return isJsonObject(input) && typeof input.subagent_type === 'string' ? input.subagent_type : null;
  };
  /** After the step of a tool call that launched a subagent (its response names `agentId`): the link. */
  const linkLaunchedSubagent = (journal: string, seq: number | null): void => {
    const response = value(p, 'tool_response');
    if (!isJsonObject(response) || typeof response.agentId !== 'string') return;
    const child = subagentJournalId(agent, response.agentId);
    if (child === undefined) {
      out.errors.push(
        `${p.event}: unsafe agentId ${JSON.stringify(response.agentId)} in the tool response; not linked`,
      );
      return;
    }
    run(
      [
        subagentLinkItem({
          agentId: response.agentId,
          agentType: typeof response.agentType === 'string' ? response.agentType : launchedType(),
          journal: child,
          parentJournal: journal,
          parentStep: seq,
          parentToolUseId: strOrNull(value(p, 'tool_use_id')),
          status: typeof response.status === 'string' ? response.status : null,
        }),
      ],
      'run event subagent_link',
    );
  };

  switch (p.event) {
    case 'PostToolUse':
    case 'PostToolUseFailure': {
      const journal = journalOf();
      if (journal === undefined) return;
      // A transcript that cannot be read (a link, a FIFO) costs the step its model, never the step.
      const step = toolStep(p, state(), env, (w) => out.warnings.push(w));
      const recorded = rec.step(step, journal);
      linkLaunchedSubagent(journal, recorded ? (out.row?.seq ?? null) : null);
      return;
    }
    case 'PostToolBatch': {
      const calls = value(p, 'tool_calls');
      const ids = Array.isArray(calls)
        ? calls.map((c) => (isJsonObject(c) && typeof c.tool_use_id === 'string' ? c.tool_use_id : null))
        : [];
      run(
        [
          event('tool_batch', [
            ['agent_id', strOrNull(value(p, 'agent_id'))],
            ['tool_use_ids', ids],
          ]),
        ],
        'run event tool_batch',
      );
      return;
    }
    case 'SubagentStart':
    case 'SubagentStop': {
      const sub = subagent();
      if (sub === undefined) return;
      const type = strOrNull(value(p, 'agent_type'));
      run(
        [
          p.event === 'SubagentStart'
            ? subagentStartItem(sub.id, type, sub.journal)
            : subagentStopItem(sub.id, type, sub.journal, strOrNull(value(p, 'last_assistant_message'))),
        ],
        p.event === 'SubagentStart' ? 'run event subagent_start' : 'run event subagent_stop',
      );
      return;
    }
    case 'PostCompact': {
      const s = state();
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
        event('compact_summary', [
          ['trigger', typeof trigger === 'string' ? trigger : null],
          ['compaction', address],
          ['summary_blob', blob],
        ]);
      // The compaction chained by PreCompact (or SessionStart(compact), whichever came first) and not summarised yet.
      if (s.compaction_address !== null) {
        if (run([summaryEvent(s.compaction_address)], 'run event compact_summary'))
          saveState({ ...s, compaction_address: null });
        return;
      }
      // No hook chained it (PreCompact missing or failed): chained here, with its trigger; SessionStart(compact)
      // then only records its event. The mutation's address is known once it is chained: the summary follows.
      const detail: JsonObject = typeof trigger === 'string' ? { trigger } : {};
      if (run([{ signal: { kind: 'compact_boundary', detail } }], 'compaction')) {
        const address = rec.lastMutations[0] ?? null;
        saveState({ ...s, compaction_pending: true, compaction_address: null });
        run([summaryEvent(address)], 'run event compact_summary');
      }
      return;
    }
    case 'UserPromptSubmit': {
      const prompt = strOrNull(value(p, 'prompt'));
      saveState({ ...state(), prompt_id: p.promptId ?? null, prompt });
      run(
        [
          event('prompt', [
            ['prompt_id', p.promptId ?? null],
            ['prompt', prompt],
          ]),
        ],
        'run event prompt',
      );
      return;
    }
    case 'SessionStart': {
      const source = strOrNull(value(p, 'source'));
      const s = state();
      const items: ObservedItem[] = [];
      // A compaction PreCompact did not record (its hook missing or failed) is chained here, trigger unknown.
      if (source === 'compact' && !s.compaction_pending)
        items.push({ signal: { kind: 'compact_boundary', detail: {} } });
      const model = value(p, 'model');
      items.push(
        event('session_start', [
          ['source', source],
          ...(typeof model === 'string' ? [['model', model] as [string, JsonValue]] : []),
        ]),
      );
      const chained = source === 'compact' && !s.compaction_pending;
      if (
        run(items, chained ? 'compaction and run event session_start' : 'run event session_start') &&
        source === 'compact'
      )
        saveState({
          ...s,
          compaction_pending: false,
          // PostCompact may come after this: its summary names the compaction chained here.
          ...(chained ? { compaction_address: rec.lastMutations[0] ?? null } : {}),
        });
      return;
    }
    case 'PreCompact': {
      const trigger = value(p, 'trigger');
      const detail: JsonObject = typeof trigger === 'string' ? { trigger } : {};
      if (run([{ signal: { kind: 'compact_boundary', detail } }], 'compaction'))
        saveState({ ...state(), compaction_pending: true, compaction_address: rec.lastMutations[0] ?? null });
      return;
    }
    case 'Stop':
      run(
        [
          event('stop', [
            ['prompt_id', p.promptId ?? null],
            ['last_assistant_message', strOrNull(value(p, 'last_assistant_message'))],
          ]),
        ],
        'run event stop',
      );
      return;
    case 'SessionEnd':
      run([event('session_end', [['reason', strOrNull(value(p, 'reason'))]])], 'run event session_end');
      return;
    default:
      // Other events (PreToolUse, Notification, ...) carry nothing stepchain records.
      return;
  }
}
