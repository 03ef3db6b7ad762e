import path from 'node:path';
import { isJsonObject, JsonParseError, parseBytes, type JsonObject, type JsonValue } from '../../canonical';
import { InputError } from '../../errors';
import type { StepInput } from '../../journal';
import { isSafeId } from '../../util/ids';
import { runEvent, runPayloadFrame, SessionRecorder } from '../kit';
import type { HookOptions, HookOutcome } from '../types';

/**
 * `stepchain hook opencode`: one payload of stepchain's OpenCode plugin (`./plugin.ts` says what it sends).
 * - `tool.execute.after` / `tool.error`: one step of `opencode-<session_id>` (the call id, tool and arguments as
 *   OpenCode reports them; the result as reported, `exit_code` added from `metadata.exit`);
 * - `chat.message`: a `prompt` run event; `session.created`: `session_start` (the `opencode` adapter observed);
 *   `session.compacted`: a compaction; `session.idle`: `stop`; `session.error`: `error`; `process.exit` (the plugin's,
 *   for a session still active when OpenCode exits: `opencode run` exits before its plugins hear `session.idle`):
 *   `stop`, its `on` saying so.
 * Never throws.
 */
export const OPENCODE_ADAPTER = 'opencode';

export const OPENCODE_EVENTS = [
  'chat.message',
  'tool.execute.after',
  'tool.error',
  'session.created',
  'session.compacted',
  'session.idle',
  'session.error',
  'process.exit',
] as const;

export function opencodeAgentId(sessionId: string): string {
  return `opencode-${sessionId}`;
}

interface Payload {
  event: string;
  sessionId: string;
  directory: string;
  raw: JsonObject;
  bytes: Uint8Array;
}

function parsePayload(bytes: Uint8Array): Payload {
  if (bytes.length === 0) throw new InputError('<stdin>: no hook payload (empty input)');
  let v: JsonValue;
  try {
    v = parseBytes(bytes);
  } catch (e) {
    const why = e instanceof JsonParseError ? e.message : 'too large or too deeply nested';
    throw new InputError(`<stdin>: hook payload is not JSON: ${why}`);
  }
  if (!isJsonObject(v)) throw new InputError('<stdin>: hook payload is not a JSON object');
  const event = v.hook_event_name;
  if (typeof event !== 'string' || event === '') throw new InputError('<stdin>: hook payload has no hook_event_name');
  const sid = v.session_id;
  if (typeof sid !== 'string' || sid === '') throw new InputError('<stdin>: hook payload has no session_id');
  if (!isSafeId(opencodeAgentId(sid))) throw new InputError(`<stdin>: unsafe session_id ${JSON.stringify(sid)}`);
  const dir = v.directory;
  if (typeof dir !== 'string' || !path.isAbsolute(dir) || dir.includes('\0'))
    throw new InputError('<stdin>: hook payload has no absolute directory');
  return { event, sessionId: sid, directory: path.resolve(dir), raw: v, bytes };
}

function str(v: JsonValue | undefined): string | null {
  return typeof v === 'string' ? v : null;
}

function obj(v: JsonValue | undefined): JsonObject | undefined {
  return isJsonObject(v ?? null) ? (v as JsonObject) : undefined;
}

/** The step of a tool call. */
export function opencodeToolStep(p: Payload): StepInput {
  const r = p.raw;
  let result: JsonValue;
  if (p.event === 'tool.error') result = { error: r.error ?? null };
  else {
    const output = obj(r.output);
    const exit = obj(output?.metadata)?.exit;
    result =
      output !== undefined && typeof exit === 'number' && Number.isSafeInteger(exit)
        ? { ...output, exit_code: exit }
        : (r.output ?? null);
  }
  return {
    input: p.bytes,
    tool_call: { id: str(r.call_id), input: r.args ?? null, name: str(r.tool) },
    tool_result: result,
    prompt: str(r.prompt),
    model: str(r.model),
  };
}

export function handleOpenCodeHook(bytes: Uint8Array, options: HookOptions): HookOutcome {
  return runPayloadFrame(
    bytes,
    options,
    { agent: 'opencode', parse: parsePayload, startDir: (p) => p.directory },
    handle,
  );
}

function handle(p: Payload, root: string, agent: string, options: HookOptions, out: HookOutcome): void {
  const rec = new SessionRecorder(root, agent, OPENCODE_ADAPTER, options, out);
  const props = obj(p.raw.properties) ?? {};
  switch (p.event) {
    case 'tool.execute.after':
    case 'tool.error':
      rec.step(opencodeToolStep(p));
      return;
    case 'chat.message':
      rec.run(
        [
          runEvent('prompt', [
            ['prompt', str(p.raw.prompt)],
            ['model', str(p.raw.model)],
          ]),
        ],
        'run event prompt',
      );
      return;
    case 'session.created':
      rec.run([runEvent('session_start', [['version', str(obj(props.info)?.version)]])], 'run event session_start');
      return;
    case 'session.compacted':
      rec.run([{ signal: { kind: 'compact_boundary', detail: {} } }], 'compaction');
      return;
    case 'session.idle':
      rec.run([runEvent('stop', [])], 'run event stop');
      return;
    case 'process.exit':
      rec.run([runEvent('stop', [['on', 'process.exit']])], 'run event stop');
      return;
    case 'session.error':
      rec.run([runEvent('error', [['error', props.error ?? null]])], 'run event error');
      return;
    default:
      return;
  }
}
