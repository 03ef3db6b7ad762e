import path from 'node:path';
import { isJsonObject, JsonParseError, parseBytes, type JsonObject, type JsonValue } from '../../canonical';
import { InputError } from '../../errors';
import { isSafeId } from '../../util/ids';

/**
 * One hook payload of Claude Code's schema (Claude Code's, Codex's), as the hook command reads it on stdin: a
 * JSON object with `hook_event_name`, `session_id`, `transcript_path` and `cwd`, plus the event's own fields
 * (docs/claude.md, docs/agents.md list the ones stepchain reads). The payload comes from the agent's side, so
 * every field is checked before it is used, and the session id becomes a path only once validated.
 */
export interface HookPayload {
  /** `hook_event_name`, e.g. `PostToolUse`. */
  event: string;
  sessionId: string;
  /** Absolute path of the session's transcript, when given. */
  transcriptPath: string | undefined;
  /** The agent's working directory (absolute). */
  cwd: string;
  /** `prompt_id` of the prompt in progress, when given. */
  promptId: string | undefined;
  /** The whole payload, parsed losslessly. */
  raw: JsonObject;
  /** The bytes as read (stored as the step's input blob). */
  bytes: Uint8Array;
}

/** The per-step journal (and run journal) id of a Claude Code session. */
export function claudeAgentId(sessionId: string): string {
  return `claude-${sessionId}`;
}

function str(obj: JsonObject, key: string): string | undefined {
  const v = obj[key];
  return typeof v === 'string' ? v : undefined;
}

/** A string field of the payload, or undefined. */
export function field(p: HookPayload, key: string): string | undefined {
  return str(p.raw, key);
}

/** Any field of the payload (undefined when absent). */
export function value(p: HookPayload, key: string): JsonValue | undefined {
  return Object.prototype.hasOwnProperty.call(p.raw, key) ? p.raw[key] : undefined;
}

/** A field's value when it is a string, else null (absent, or of another type: recorded as unknown). */
export function strOrNull(v: JsonValue | undefined): string | null {
  return typeof v === 'string' ? v : null;
}

/** The result a failed tool call records (`PostToolUseFailure`): its error, and whether the user interrupted it. */
export function failureResult(p: HookPayload): JsonObject {
  const failure: JsonObject = { error: value(p, 'error') ?? null };
  const interrupt = value(p, 'is_interrupt');
  if (typeof interrupt === 'boolean') failure.is_interrupt = interrupt;
  return failure;
}

/**
 * Parses and checks one hook payload whose session is recorded as `<agent>-<session_id>`. Throws InputError with
 * one line naming what is wrong; a session id that is not safe as a path is refused, never mapped.
 */
export function parseHookPayload(bytes: Uint8Array, source = '<stdin>', agent = 'claude'): HookPayload {
  if (bytes.length === 0) throw new InputError(`${source}: no hook payload (empty input)`);
  let v: JsonValue;
  try {
    v = parseBytes(bytes);
  } catch (e) {
    const why = e instanceof JsonParseError ? e.message : 'too large or too deeply nested';
    throw new InputError(`${source}: hook payload is not JSON: ${why}`);
  }
  if (!isJsonObject(v)) throw new InputError(`${source}: hook payload is not a JSON object`);
  const event = str(v, 'hook_event_name');
  if (event === undefined || event === '') throw new InputError(`${source}: hook payload has no hook_event_name`);
  const sessionId = str(v, 'session_id');
  if (sessionId === undefined || sessionId === '') throw new InputError(`${source}: hook payload has no session_id`);
  // `<agent>-<session_id>` becomes a directory name and a git ref component.
  if (!isSafeId(`${agent}-${sessionId}`) || sessionId.startsWith('.') || sessionId.includes('..'))
    throw new InputError(`${source}: unsafe session_id ${JSON.stringify(sessionId)}`);
  const cwd = str(v, 'cwd');
  if (cwd === undefined || !path.isAbsolute(cwd) || cwd.includes('\0'))
    throw new InputError(`${source}: hook payload has no absolute cwd`);
  const transcriptPath = str(v, 'transcript_path');
  if (transcriptPath !== undefined && (!path.isAbsolute(transcriptPath) || transcriptPath.includes('\0')))
    throw new InputError(`${source}: transcript_path is not an absolute path`);
  const promptId = str(v, 'prompt_id');
  return {
    event,
    sessionId,
    transcriptPath,
    cwd: path.resolve(cwd),
    promptId: promptId === '' ? undefined : promptId,
    raw: v,
    bytes,
  };
}
