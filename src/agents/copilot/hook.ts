import path from 'node:path';
import type { JsonObject, JsonValue } from '../../canonical';
import type { StepInput } from '../../journal';
import type { ObservedItem } from '../../runs';
import { failureResult, strOrNull, value, type HookPayload } from '../claude/payload';
import { readSessionState, writeSessionState } from '../claude/state';
import { errorLine, runEvent, runHookFrame, SessionRecorder } from '../kit';
import type { HookOptions, HookOutcome } from '../types';
import { sessionEventsFile } from './home';
import { assertSafeId } from '../../util/ids';
import { checkpointKey } from '../../util/checkpoint';
import { agentStateDir } from '../state';
import { findOpenCall, type LogIndex } from './transcript';

/**
 * `stepchain hook copilot`: one GitHub Copilot CLI hook payload in (docs/agents.md "Copilot CLI"). Copilot, given
 * hooks under Claude Code's PascalCase event names, sends Claude-style snake_case payloads (`hook_event_name`,
 * `session_id`, `cwd`, `tool_name`, `tool_input`, `tool_result`), checked on the pinned binary:
 * - PostToolUse / PostToolUseFailure: one step of `copilot-<session_id>`; the payload names no call id, so the
 *   id (and the model) come from the session's event log (`./transcript.ts`); the exit code of a shell command
 *   from the line Copilot appends to its output (`exitCodeOf`);
 * - SessionStart: the run journal, `copilot` observed, a `session_start` event;
 * - UserPromptSubmit (the prompt, kept for the steps that follow), PreCompact (a compaction), Stop, SessionEnd.
 * Never throws; a failure is a line of the outcome.
 */
export const COPILOT_ADAPTER = 'copilot';

export const COPILOT_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PostToolUse',
  'PostToolUseFailure',
  'PreCompact',
  'Stop',
  'SessionEnd',
] as const;

/** The journal id of a Copilot session. */
export function copilotAgentId(sessionId: string): string {
  return `copilot-${sessionId}`;
}

/**
 * The exit code Copilot reports for a shell command: the last non-empty line of the text it gives the model,
 * `<shellId: N completed with exit code K>` (or `<detached command with shellId: ...>`), which Copilot appends
 * after the command's output and reads back the same way; a sandbox note after it is passed over as Copilot does.
 * Undefined for anything else: a result without that line has no exit code the agent stands behind.
 */
export function exitCodeOf(text: string): number | undefined {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let i = lines.length - 1;
  const sandboxNote = (l: string) =>
    l.startsWith('<sandbox is active ') ||
    l.startsWith('<this failure may be caused by the active sandbox policy.') ||
    l.startsWith('<This command was retried outside the Copilot sandbox with user approval and still failed.');
  while (i >= 0 && (lines[i] === '' || sandboxNote(lines[i]!))) i--;
  const m = /^<(?:detached command with )?shellId: [^\r\n]+ completed with exit code (-?\d+)>[ \t]*$/.exec(
    lines[i] ?? '',
  );
  if (m === null) return undefined;
  const code = Number(m[1]);
  return Number.isSafeInteger(code) ? code : undefined;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Map);
}

/** The step of a tool call: the payload's result unaltered, with `exit_code` added when Copilot reports one. */
export function copilotToolStep(
  p: HookPayload,
  prompt: string | null,
  env: NodeJS.ProcessEnv,
  warn: (m: string) => void,
  lookup: { tries?: number; index?: LogIndex } = {},
): StepInput {
  const input = value(p, 'tool_input') ?? null;
  let id: string | null = null;
  let model: string | null = null;
  const log = sessionEventsFile(env, p.sessionId);
  if ('file' in log) {
    const found = findOpenCall(log.file, input, lookup);
    if ('match' in found) {
      id = found.match.id;
      model = found.match.model ?? null;
    } else warn(`the step names no call id: ${found.problem}`);
  } else warn(`the step names no call id: ${log.problem}`);
  let result: JsonValue;
  if (p.event === 'PostToolUseFailure') result = failureResult(p);
  else {
    const r = value(p, 'tool_result') ?? null;
    const text = isObject(r) ? r.text_result_for_llm : undefined;
    const code = typeof text === 'string' ? exitCodeOf(text) : undefined;
    result = isObject(r) && code !== undefined ? { ...r, exit_code: code } : r;
  }
  return {
    input: p.bytes,
    tool_call: { id, input, name: strOrNull(value(p, 'tool_name')) },
    tool_result: result,
    prompt,
    model,
  };
}

/**
 * Where the hook keeps what it read of a session's event log (src/agents/window-index.ts):
 * `<root>/.sdd/runtime/copilot/index/<session_id>.v2.index`.
 */
export function eventsIndexFile(root: string, sessionId: string): string {
  return path.join(agentStateDir(root, 'copilot'), 'index', `${assertSafeId(sessionId, 'session id')}.v2.index`);
}

/** Handles one payload. Never throws. */
export function handleCopilotHook(bytes: Uint8Array, options: HookOptions): HookOutcome {
  return runHookFrame(bytes, options, { agent: 'copilot', projectDirVar: 'COPILOT_PROJECT_DIR' }, handle);
}

function handle(p: HookPayload, root: string, agent: string, options: HookOptions, out: HookOutcome): void {
  const state = () => {
    const r = readSessionState(root, p.sessionId, 'copilot');
    if (r.warning !== undefined) out.warnings.push(r.warning);
    return r.state;
  };
  const rec = new SessionRecorder(root, agent, COPILOT_ADAPTER, options, out);
  const run = (items: ObservedItem[], what: string): boolean => rec.run(items, what);
  switch (p.event) {
    case 'PostToolUse':
    case 'PostToolUseFailure':
      rec.step(
        copilotToolStep(p, state().prompt, options.env, (w) => out.warnings.push(w), {
          index: { file: eventsIndexFile(root, p.sessionId), key: checkpointKey(options.env) },
        }),
      );
      return;
    case 'UserPromptSubmit': {
      const prompt = strOrNull(value(p, 'prompt'));
      try {
        writeSessionState(root, p.sessionId, { ...state(), prompt_id: null, prompt }, 'copilot');
      } catch (e) {
        out.warnings.push(`session state not saved: ${errorLine(e)}`);
      }
      run([runEvent('prompt', [['prompt', prompt]])], 'run event prompt');
      return;
    }
    case 'SessionStart':
      run([runEvent('session_start', [['source', strOrNull(value(p, 'source'))]])], 'run event session_start');
      return;
    case 'PreCompact': {
      const trigger = value(p, 'trigger');
      const detail: JsonObject = typeof trigger === 'string' ? { trigger } : {};
      run([{ signal: { kind: 'compact_boundary', detail } }], 'compaction');
      return;
    }
    case 'Stop':
      run([runEvent('stop', [['stop_reason', strOrNull(value(p, 'stop_reason'))]])], 'run event stop');
      return;
    case 'SessionEnd':
      run([runEvent('session_end', [['reason', strOrNull(value(p, 'reason'))]])], 'run event session_end');
      return;
    default:
      return;
  }
}
