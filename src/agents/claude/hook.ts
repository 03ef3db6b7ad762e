import path from 'node:path';
import type { JsonObject, JsonValue } from '../../canonical';
import type { StepInput } from '../../journal';
import { CLAUDE_ADAPTER, type ObservedItem } from '../../runs';
import { emptyOutcome, errorLine, runEvent, SessionRecorder } from '../kit';
import type { HookOptions, HookOutcome } from '../types';
import { claudeAgentId, field, parseHookPayload, value, type HookPayload } from './payload';
import { claudeProjectRoot } from './root';
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
  'PreCompact',
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
  const model =
    p.transcriptPath !== undefined &&
    toolUseId !== undefined &&
    sessionTranscriptDir(p.transcriptPath, p.sessionId, env) !== undefined
      ? modelOfToolUse(path.resolve(p.transcriptPath), toolUseId, undefined, warn)
      : undefined;
  return { input: p.bytes, tool_call: call, tool_result: result, prompt, model: model ?? null };
}

/** Handles one payload. Never throws. */
export function handleClaudeHook(bytes: Uint8Array, options: HookOptions): HookOutcome {
  const out = emptyOutcome();
  let p: HookPayload;
  try {
    p = parseHookPayload(bytes);
  } catch (e) {
    out.errors.push(errorLine(e));
    return out;
  }
  out.event = p.event;
  let root: string;
  try {
    // Claude Code names the directory it was started in (whose settings ran this hook) in the hook's
    // environment; the payload's cwd, which follows the agent's `cd`, decides only for other callers.
    const started = options.env.CLAUDE_PROJECT_DIR;
    root = options.root ?? claudeProjectRoot(started !== undefined && path.isAbsolute(started) ? started : p.cwd);
  } catch (e) {
    out.errors.push(`${p.event}: ${errorLine(e)}`);
    return out;
  }
  const agent = claudeAgentId(p.sessionId);
  out.root = root;
  out.agent = agent;
  try {
    handle(p, root, agent, options, out);
  } catch (e) {
    out.errors.push(`${p.event}: ${errorLine(e)}`);
  }
  return out;
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

  switch (p.event) {
    case 'PostToolUse':
    case 'PostToolUseFailure': {
      // A transcript that cannot be read (a link, a FIFO) costs the step its model, never the step.
      const step = toolStep(p, state(), env, (w) => out.warnings.push(w));
      rec.step(step);
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
      if (
        run(
          items,
          source === 'compact' && !s.compaction_pending
            ? 'compaction and run event session_start'
            : 'run event session_start',
        ) &&
        source === 'compact'
      )
        saveState({ ...s, compaction_pending: false });
      return;
    }
    case 'PreCompact': {
      const trigger = value(p, 'trigger');
      const detail: JsonObject = typeof trigger === 'string' ? { trigger } : {};
      if (run([{ signal: { kind: 'compact_boundary', detail } }], 'compaction'))
        saveState({ ...state(), compaction_pending: true });
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
