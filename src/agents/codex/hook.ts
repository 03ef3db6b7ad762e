import type { JsonObject, JsonValue } from '../../canonical';
import type { StepInput } from '../../journal';
import type { ObservedItem } from '../../runs';
import { value, field, strOrNull, type HookPayload } from '../claude/payload';
import { errorLine, runEvent, runHookFrame, SessionRecorder } from '../kit';
import { readAgentSessionState, writeAgentSessionState, type SessionState } from '../state';
import type { HookOptions, HookOutcome } from '../types';
import { exitCodeOf, rolloutRelPath } from './rollout';

/**
 * `stepchain hook codex`: one Codex hook payload (Claude Code's schema: `session_id`, `hook_event_name`, `cwd`,
 * `transcript_path`, `turn_id`, `model`, and the event's own fields) in, what it means recorded (docs/agents.md):
 * - PostToolUse: one step of the journal `codex-<session_id>`: `tool_call` {id, input, name} as Codex reports
 *   them, `tool_result` {exit_code, response} (`response` the payload's `tool_response` unaltered, `exit_code`
 *   from the rollout, null when unknown), the prompt of the turn, the model the payload names;
 * - SessionStart: the run journal `codex-<session_id>` (adapter `codex`, observed) and a `session_start` event;
 * - PreCompact, PostCompact, SessionStart with source `compact`: one `compact_boundary` provider-state mutation
 *   per compaction, whichever of them is recorded first;
 * - UserPromptSubmit, Stop, SessionEnd: run events (`prompt`, `stop`, `session_end`).
 * It never throws: failures are lines of the outcome, and whatever could be recorded is.
 */
export const CODEX = 'codex';
export const CODEX_ADAPTER = 'codex';

/** The events stepchain records; `init codex` installs a hook for each. */
export const CODEX_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PostToolUse',
  'PreCompact',
  'PostCompact',
  'Stop',
  'SessionEnd',
] as const;

export function codexAgentId(sessionId: string): string {
  return `${CODEX}-${sessionId}`;
}

/** The journal step of a tool call (docs/agents.md, "Codex"). */
export function codexToolStep(
  p: HookPayload,
  state: SessionState,
  env: NodeJS.ProcessEnv,
  warn?: (message: string) => void,
): StepInput {
  const callId = field(p, 'tool_use_id');
  const call: JsonObject = {
    id: callId ?? null,
    input: value(p, 'tool_input') ?? null,
    name: strOrNull(value(p, 'tool_name')),
  };
  // Read only where this environment's Codex keeps the session: a payload never names a file to read.
  const rel = p.transcriptPath === undefined ? undefined : rolloutRelPath(p.transcriptPath, p.sessionId, env);
  const exit = rel !== undefined && callId !== undefined ? exitCodeOf(rel, callId, env, warn) : undefined;
  const result: JsonObject = { exit_code: exit ?? null, response: value(p, 'tool_response') ?? null };
  const turn = field(p, 'turn_id');
  const prompt = state.prompt !== null && (turn === undefined || state.prompt_id === turn) ? state.prompt : null;
  const model = field(p, 'model');
  return { input: p.bytes, tool_call: call, tool_result: result, prompt, model: model ?? null };
}

/** Handles one payload. Never throws. */
export function handleCodexHook(bytes: Uint8Array, options: HookOptions): HookOutcome {
  return runHookFrame(bytes, options, { agent: CODEX }, (p, root, _journal, o, out) => handle(p, root, o, out));
}

function handle(p: HookPayload, root: string, options: HookOptions, out: HookOutcome): void {
  const state = (): SessionState => {
    const r = readAgentSessionState(root, CODEX, p.sessionId);
    if (r.warning !== undefined) out.warnings.push(r.warning);
    return r.state;
  };
  const saveState = (s: SessionState): void => {
    try {
      writeAgentSessionState(root, CODEX, p.sessionId, s);
    } catch (e) {
      out.warnings.push(`session state not saved: ${errorLine(e)}`);
    }
  };
  const rec = new SessionRecorder(root, codexAgentId(p.sessionId), CODEX_ADAPTER, options, out);
  const turn = field(p, 'turn_id') ?? null;
  const compaction = (trigger: JsonValue | undefined): ObservedItem => ({
    signal: { kind: 'compact_boundary', detail: typeof trigger === 'string' ? { trigger } : {} },
  });

  switch (p.event) {
    case 'PostToolUse':
      rec.step(codexToolStep(p, state(), options.env, (w) => out.warnings.push(w)));
      return;
    case 'UserPromptSubmit': {
      const prompt = strOrNull(value(p, 'prompt'));
      saveState({ ...state(), prompt_id: turn, prompt });
      rec.run(
        [
          runEvent('prompt', [
            ['turn_id', turn],
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
      // A compaction neither PreCompact nor PostCompact recorded (their hooks missing or failed) is chained here.
      const unrecorded = source === 'compact' && !s.compaction_pending;
      if (unrecorded) items.push(compaction(undefined));
      const model = value(p, 'model');
      items.push(
        runEvent('session_start', [
          ['source', source],
          ...(typeof model === 'string' ? [['model', model] as [string, JsonValue]] : []),
        ]),
      );
      const ok = rec.run(items, unrecorded ? 'compaction and run event session_start' : 'run event session_start');
      if (ok && source === 'compact' && s.compaction_pending) saveState({ ...s, compaction_pending: false });
      return;
    }
    case 'PreCompact':
    case 'PostCompact': {
      // Codex fires PreCompact, PostCompact, then SessionStart(compact): the first one recorded chains the compaction.
      const s = state();
      if (s.compaction_pending && p.event === 'PostCompact') return;
      if (rec.run([compaction(value(p, 'trigger'))], 'compaction')) saveState({ ...s, compaction_pending: true });
      return;
    }
    case 'Stop':
      rec.run(
        [
          runEvent('stop', [
            ['turn_id', turn],
            ['last_assistant_message', strOrNull(value(p, 'last_assistant_message'))],
          ]),
        ],
        'run event stop',
      );
      return;
    case 'SessionEnd':
      rec.run([runEvent('session_end', [['reason', strOrNull(value(p, 'reason'))]])], 'run event session_end');
      return;
    default:
      // Other events (PreToolUse, PermissionRequest, ...) carry nothing stepchain records.
      return;
  }
}
