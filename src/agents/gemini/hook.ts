import { isJsonObject, type JsonObject, type JsonValue } from '../../canonical';
import { journalFile, readVerifiedJournal, type StepInput } from '../../journal';
import { tornTailOption } from '../../util/chain-file';
import { checkpointKey } from '../../util/checkpoint';
import { pathKind } from '../../util/fs';
import { pausePoint } from '../../util/pause';
import { field, parseHookPayload, strOrNull, value, type HookPayload } from '../claude/payload';
import { recordingToken } from '../hook-session';
import { errorLine, keptInCas, runEvent, runHookFrame, SessionRecorder } from '../kit';
import { windowLinesFor, type LineTags } from '../window-index';
import type { HookOptions, HookOutcome } from '../types';
import { shellExitCode } from './exit-code';
import {
  addPending,
  anyPending,
  listPending,
  markRecording,
  readPrompt,
  journalIndexFile,
  transcriptIndexFile,
  settleRecordings,
  takeFlushLock,
  writePrompt,
  type Pending,
} from './pending';
import { callKey, keyedTranscriptCalls, sessionTranscript, type KeyedCall, type TranscriptCall } from './transcript';

/**
 * `stepchain hook gemini`: one Gemini CLI (0.61) hook payload in, what it means recorded (docs/agents.md,
 * "Gemini CLI"). Its payloads have Claude Code's base fields (`session_id`, `transcript_path`, `cwd`,
 * `hook_event_name`), so they are read by the same checks.
 *
 * - AfterTool: the payload names no tool-call id, and Gemini CLI writes the call (with its id) to its session file
 *   only after the AfterTool hooks ran. So the payload is kept (pending), and the steps are appended by the next
 *   hook call that finds the calls in the transcript: PreCompress (it fires before every model call, hence after
 *   every tool batch), AfterAgent, SessionEnd. Each becomes one step of `gemini-<session_id>`, in the transcript's
 *   order, with the call's id and model from the transcript. At AfterAgent and SessionEnd, a payload still without
 *   a call in the transcript is recorded anyway, its id null: never lost.
 * - SessionStart, BeforeAgent, AfterAgent, SessionEnd: run events `session_start`, `prompt`, `stop`, `session_end`.
 * - PreCompress is not a compaction (it fires before every model call, whether or not the history is compressed):
 *   nothing of it is recorded. The adapter is recorded `declared-blind`.
 */
export const GEMINI_ADAPTER = 'gemini';

export function geminiAgentId(sessionId: string): string {
  return `gemini-${sessionId}`;
}

/** The step of an AfterTool payload, its call as the transcript names it (or unknown). */
export function geminiToolStep(p: HookPayload, call: TranscriptCall | undefined, prompt: string | null): StepInput {
  const name = strOrNull(value(p, 'tool_name'));
  const response = value(p, 'tool_response') ?? null;
  let result: JsonValue = response;
  // The exit code, where the shell tool's text gives it, in one added member (the rest unaltered).
  if (isJsonObject(response) && !Object.prototype.hasOwnProperty.call(response, 'exit_code')) {
    const withCode: JsonObject = { ...response };
    withCode.exit_code = shellExitCode(name ?? '', response);
    result = withCode;
  }
  return {
    input: p.bytes,
    tool_call: { id: call?.id ?? null, input: value(p, 'tool_input') ?? null, name },
    tool_result: result,
    prompt,
    model: call?.model ?? null,
  };
}

export function handleGeminiHook(bytes: Uint8Array, options: HookOptions): HookOutcome {
  return runHookFrame(bytes, options, { agent: 'gemini', projectDirVar: 'GEMINI_PROJECT_DIR' }, handle);
}

function handle(p: HookPayload, root: string, agent: string, options: HookOptions, out: HookOutcome): void {
  const { deferSnapshots: deferred, ...inLine } = options;
  const rec = new SessionRecorder(root, agent, GEMINI_ADAPTER, inLine, out, 'declared-blind');
  // Steps are recorded under the flush lock, and the lock is held until their snapshots and changes are written: a
  // step's changes are told against the previous step's snapshot, so a next hook call must not record a step before
  // it exists (it was told against the start commit, claiming every change of the session again). A flush after
  // which this call records nothing more (AfterTool, PreCompress: the step an agent waits for) hands its snapshots
  // over to finish after the append (`deferSnapshots`), git's add running while the steps are appended, and releases
  // the lock once they are done; one followed by a run event (AfterAgent, SessionEnd) takes them in line, so that
  // the event comes after the steps' changes in the run journal, as it always has.
  // A flush that fails (a journal that does not verify, a runtime directory that is a link) is said, and the call
  // goes on: its own tool call is still kept pending (AfterTool), its run event still recorded (AfterAgent,
  // SessionEnd); they were dropped with the failure.
  const flush = (final: boolean, handOver: boolean, early = false, own?: string): void => {
    try {
      flushLocked(final, handOver, early, own);
    } catch (e) {
      out.errors.push(`${p.event}: ${errorLine(e)}`);
    }
  };
  const flushLocked = (final: boolean, handOver: boolean, early: boolean, own: string | undefined): void => {
    // Nothing pending: nothing to record, and no lock to take (a call that finds one later takes it then).
    if (!anyPending(root, p.sessionId)) return;
    const release = takeFlushLock(root, p.sessionId);
    if (release === undefined) {
      out.warnings.push('another hook call is recording the pending tool calls');
      return;
    }
    pausePoint('gemini:flush-locked', options.env);
    // Told to take no snapshots, none is handed over, and none is started early: a snapshot begun and then dropped
    // still ran git's add of the whole work tree and left its blobs in the repository.
    const later = handOver && options.snapshot !== false ? deferred : undefined;
    const recorder =
      later === undefined ? rec : new SessionRecorder(root, agent, GEMINI_ADAPTER, options, out, 'declared-blind');
    const before = out.recorded.length;
    try {
      // Before the next model call the transcript names the pending calls: their step's snapshot starts before the
      // transcript and the journal are read to pair them (a snapshot no step takes is dropped).
      const startEarly = early && later !== undefined ? () => later.startEarly(root, options.env) : undefined;
      flushPending(p, root, options, recorder, { final, startEarly, own });
    } finally {
      // Held on only while a step it recorded is being snapshot.
      if (later === undefined || out.recorded.length === before) release();
      else later.after(release);
    }
  };
  switch (p.event) {
    case 'AfterTool': {
      // This call's payload is kept first, then the earlier batches are recorded (their calls are in the transcript
      // by now) while it waits for its id: kept after them, it was lost when the call was killed while it recorded
      // them (Gemini CLI stops a hook past its timeout). The flush leaves it out, so it is paired as before: never
      // with an earlier call of the same arguments that has no payload of its own. Whether anything earlier is
      // pending is looked at before it is kept: a call with nothing earlier to record takes no flush lock.
      const earlier = anyPending(root, p.sessionId);
      let own: string | undefined;
      try {
        own = addPending(root, p.sessionId, p.bytes);
      } catch (e) {
        // Not lost: the payload is kept where a step's would be, and named.
        out.errors.push(`${p.event}: tool call not kept pending: ${errorLine(e)}${keptInCas(root, p.bytes)}`);
      }
      if (earlier) flush(false, true, false, own);
      if (own !== undefined)
        out.recorded.push('tool call pending (its id is in the transcript once the call is written)');
      return;
    }
    case 'PreCompress':
      flush(false, true, true);
      return;
    case 'BeforeAgent': {
      const prompt = strOrNull(value(p, 'prompt'));
      if (prompt !== null) writePrompt(root, p.sessionId, prompt);
      rec.run([runEvent('prompt', [['prompt', prompt]])], 'run event prompt');
      return;
    }
    case 'AfterAgent':
      flush(true, false);
      rec.run(
        [
          runEvent('stop', [
            ['prompt', strOrNull(value(p, 'prompt'))],
            ['last_assistant_message', strOrNull(value(p, 'prompt_response'))],
          ]),
        ],
        'run event stop',
      );
      return;
    case 'SessionStart': {
      // Under `stepchain record`, the recording's token: its exchanges are linked to this session's steps when it
      // is the only one that ran under it (Gemini CLI's requests name no session; docs/record.md).
      const token = recordingToken(options.env);
      const fields: [string, JsonValue][] = [['source', strOrNull(value(p, 'source'))]];
      if (token !== undefined) fields.push(['recording', token]);
      rec.run([runEvent('session_start', fields)], 'run event session_start');
      return;
    }
    case 'SessionEnd':
      flush(true, false);
      rec.run([runEvent('session_end', [['reason', strOrNull(value(p, 'reason'))]])], 'run event session_end');
      return;
    default:
      return;
  }
}

/** The ids of the tool calls the session's journal already holds, read step by step (the chain verified). */
function allRecordedIds(file: string): Set<string> {
  const ids = new Set<string>();
  for (const e of readVerifiedJournal(file).entries) {
    const call = e.row.tool_call;
    if (isJsonObject(call) && typeof call.id === 'string') ids.add(call.id);
  }
  return ids;
}

/** An id JSON writes one way only: printable ASCII with nothing a writer may escape. */
const PLAIN_ID = /^[\x20-\x7e]*$/;
const ESCAPABLE = /["\\/]/;

/** The id of a journal line's tool call, when it is one (a torn or foreign line: none). */
function rowCallId(line: string): string | undefined {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return undefined; // a torn line: not a step
  }
  const call = typeof row === 'object' && row !== null ? (row as Record<string, unknown>).tool_call : undefined;
  const id = typeof call === 'object' && call !== null ? (call as Record<string, unknown>).id : undefined;
  return typeof id === 'string' ? id : undefined;
}

/** A journal line's tag for the index (src/agents/window-index.ts): its call's id, looked up by itself. */
const rowTags: LineTags = (line) => {
  const id = rowCallId(line);
  return id === undefined ? [] : [[id, id]];
};

/**
 * Which of `ids` the session's journal already holds as a tool call's id. Plain ids: the lines naming one, found
 * through the session's index of the journal (only the steps appended since the last look are read: at 10,000
 * steps, reading the journal was a third of a hook call). Any other id: the journal is read step by step.
 */
function recordedIds(
  root: string,
  sessionId: string,
  agent: string,
  ids: readonly string[],
  key: Uint8Array | undefined,
): Set<string> {
  const file = journalFile(root, agent);
  if (ids.length === 0 || pathKind(file) !== 'file') return new Set();
  if (!ids.every((id) => PLAIN_ID.test(id) && !ESCAPABLE.test(id))) {
    const all = allRecordedIds(file);
    return new Set(ids.filter((id) => all.has(id)));
  }
  const index = { file: journalIndexFile(root, sessionId), key };
  const lines = windowLinesFor(file, Number.MAX_SAFE_INTEGER, rowTags, index, ids) ?? [];
  const wanted = new Set(ids);
  return new Set(lines.map(rowCallId).filter((id): id is string => id !== undefined && wanted.has(id)));
}

function parsedPending(p: Pending): HookPayload | undefined {
  try {
    return parseHookPayload(p.bytes, p.file);
  } catch {
    return undefined;
  }
}

/**
 * Appends a step for every pending AfterTool payload whose call the transcript names, in the transcript's order,
 * matched by tool name and arguments to the oldest such payload; with `final`, the unmatched ones too (id null).
 */
function flushPending(
  p: HookPayload,
  root: string,
  options: HookOptions,
  rec: SessionRecorder,
  how: { final: boolean; startEarly: (() => void) | undefined; own: string | undefined },
): void {
  const { final, startEarly, own } = how;
  // What a flush killed mid-step left: settled first (its step appended, or its payload pending again).
  settleRecordings(root, p.sessionId, rec.journal, { env: options.env, ...tornTailOption(options) });
  // An AfterTool's own payload (`own`) waits for its call, which the transcript names only after the hooks ran.
  const pending = listPending(root, p.sessionId).filter((f) => f.file !== own);
  if (pending.length === 0) return;
  startEarly?.();
  const prompt = readPrompt(root, p.sessionId);
  const waiting = pending.map((f) => ({ f, payload: parsedPending(f) }));
  for (const w of waiting)
    if (w.payload === undefined) {
      rec.out.errors.push(`${w.f.file}: not a Gemini CLI hook payload; left where it is`);
    }
  const file = p.transcriptPath === undefined ? undefined : sessionTranscript(p.transcriptPath, options.env);
  const open = waiting.filter((w) => w.payload !== undefined);
  const inputOf = (q: HookPayload): unknown => {
    try {
      return (JSON.parse(Buffer.from(q.bytes).toString('utf8')) as Record<string, unknown>).tool_input ?? null;
    } catch {
      return null; // parsed losslessly already: cannot fail here
    }
  };
  const key = (q: HookPayload): string | undefined => callKey(field(q, 'tool_name') ?? '', inputOf(q));
  // Only a call some pending payload could be matched to is looked for (in the transcript, then the journal).
  const keys = [...new Set(open.map((w) => key(w.payload!)))].filter((k): k is string => k !== undefined);
  let calls: KeyedCall[] = [];
  if (file === undefined)
    rec.out.warnings.push('the transcript is not where Gemini CLI keeps sessions here: no call ids');
  else {
    try {
      const index = { file: transcriptIndexFile(root, p.sessionId), key: checkpointKey(options.env) };
      calls = keyedTranscriptCalls(file, keys, index);
    } catch (e) {
      rec.out.warnings.push(`the transcript is not read, so the steps name no call id: ${errorLine(e)}`);
    }
  }
  const seen = recordedIds(
    root,
    p.sessionId,
    rec.journal,
    calls.map((c) => c.id),
    checkpointKey(options.env),
  );
  for (const call of calls) {
    if (seen.has(call.id)) continue;
    const at = open.findIndex((w) => key(w.payload!) === call.key);
    if (at < 0) continue;
    const [w] = open.splice(at, 1);
    recordPending(rec, w!.f, geminiToolStep(w!.payload!, call, prompt), options.env);
    seen.add(call.id);
  }
  if (!final) return;
  for (const w of open) {
    rec.out.warnings.push(
      `${w.f.file}: no call in the transcript for this ${field(w.payload!, 'tool_name') ?? 'tool'} call; recorded with id null`,
    );
    recordPending(rec, w.f, geminiToolStep(w.payload!, undefined, prompt), options.env);
  }
}

/** Appends a pending payload's step, the payload marked while it is (./pending.ts `markRecording`), then dropped. */
function recordPending(rec: SessionRecorder, f: Pending, step: StepInput, env: NodeJS.ProcessEnv | undefined): void {
  const mark = markRecording(f, env);
  if (!rec.step(step, undefined, (rows) => mark.to(rows[0]!.seq))) {
    mark.undo();
    return;
  }
  pausePoint('gemini:step-appended', env);
  mark.done();
}
