import { decodeUtf8, isJsonObject, JsonParseError, parse, type JsonObject, type JsonValue } from '../canonical';
import { InputError } from '../errors';
import { LineTooLongError, linesOf } from '../util/lines';

/** The adapter name recorded for Claude Code transcripts. */
export const CLAUDE_ADAPTER = 'claude';

/** One provider-side context-mutation signal found in a transcript. */
export interface MutationSignal {
  kind: string;
  detail: JsonObject;
  /** 1-based line of the transcript it came from. */
  line: number;
}

/** What a transcript held, its signals aside. */
export interface ClaudeStreamSummary {
  /** Events read (non-blank lines). */
  events: number;
  /** Assistant turns seen. */
  assistantTurns: number;
  sessionId: string | undefined;
}

export interface ClaudeTranscript extends ClaudeStreamSummary {
  signals: MutationSignal[];
}

function envelopeFree(ev: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(ev)) {
    if (k === 'type' || k === 'subtype' || k === 'session_id' || k === 'uuid' || k === 'parent_tool_use_id') continue;
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The mutation signals of one stream-json event, in order:
 * - `{"type":"system","subtype":"compact_boundary","compact_metadata":{...}}`
 *   and any other system event whose subtype ends in `_boundary`
 *   (e.g. `microcompact_boundary`): kind = the subtype, detail = its
 *   `<x>_metadata` object (the provider's report: `trigger`, `pre_tokens`, ...),
 *   else the event without its envelope (type, subtype, session_id, uuid);
 * - an assistant message whose `context_management.applied_edits` lists
 *   server-side context edits (e.g. cleared tool uses): one signal per edit,
 *   kind = the edit's `type`, detail = the edit.
 */
export function signalsOf(ev: JsonObject, line: number): MutationSignal[] {
  const out: MutationSignal[] = [];
  if (ev.type === 'system' && typeof ev.subtype === 'string' && ev.subtype.endsWith('_boundary')) {
    const meta = Object.entries(ev).find(([k, v]) => k.endsWith('_metadata') && isJsonObject(v));
    out.push({ kind: ev.subtype, detail: meta !== undefined ? (meta[1] as JsonObject) : envelopeFree(ev), line });
  }
  if (ev.type === 'assistant' && isJsonObject(ev.message)) {
    const cm: JsonValue | undefined = ev.message.context_management ?? ev.context_management;
    const edits = isJsonObject(cm) ? cm.applied_edits : undefined;
    if (Array.isArray(edits)) {
      for (const edit of edits) {
        if (!isJsonObject(edit)) continue;
        out.push({
          kind: typeof edit.type === 'string' && edit.type !== '' ? edit.type : 'context_edit',
          detail: edit,
          line,
        });
      }
    }
  }
  return out;
}

/**
 * Reads a Claude Code `--output-format stream-json` transcript: one JSON object
 * per line with a string `type`. Blank lines are skipped; anything else that is
 * not such an object is an InputError naming the file and line (nothing is
 * recorded from a transcript that does not read whole).
 */
export function readClaudeStream(bytes: Uint8Array, source: string): ClaudeTranscript {
  const signals: MutationSignal[] = [];
  return { ...scanClaudeStream([bytes], source, (s) => signals.push(s)), signals };
}

/**
 * readClaudeStream of a transcript that arrives in blocks (a file or a pipe read a block at a time: `claude -p |`),
 * a line at a time: each signal is handed to `signal` as its line is read, so memory holds one line of the
 * transcript (at most `maxLineBytes`: a longer one is refused, naming it), not the transcript. The first line that
 * does not read ends the read with its InputError; `signal` may have been called for the lines before it.
 */
export function scanClaudeStream(
  blocks: Iterable<Uint8Array>,
  source: string,
  signal: (s: MutationSignal) => void,
  maxLineBytes?: number,
): ClaudeStreamSummary {
  const result: ClaudeStreamSummary = { events: 0, assistantTurns: 0, sessionId: undefined };
  try {
    for (const { n, bytes } of linesOf(blocks, maxLineBytes)) {
      const ev = eventOf(bytes, n, source);
      if (ev === undefined) continue;
      result.events++;
      if (ev.type === 'assistant') result.assistantTurns++;
      if (result.sessionId === undefined && typeof ev.session_id === 'string') result.sessionId = ev.session_id;
      for (const s of signalsOf(ev, n)) signal(s);
    }
  } catch (e) {
    if (e instanceof LineTooLongError)
      throw new InputError(`${source}:${e.line}: not a stream-json event: line of ${e.message}`);
    throw e;
  }
  if (result.events === 0) throw new InputError(`${source}: transcript has no events`);
  return result;
}

/** The event on line `n` (its bytes, without the `\n`), or undefined for a blank line. */
function eventOf(bytes: Buffer, n: number, source: string): JsonObject | undefined {
  let text: string;
  try {
    text = decodeUtf8(bytes);
  } catch {
    throw new InputError(`${source}:${n}: transcript is not valid UTF-8`);
  }
  const raw = text.replace(/\r$/, '');
  if (raw.trim() === '') return undefined;
  let ev: JsonValue;
  try {
    ev = parse(raw);
  } catch (e) {
    const why = e instanceof JsonParseError ? e.message : 'too large or too deeply nested';
    throw new InputError(`${source}:${n}: not a stream-json event: ${why}`);
  }
  if (!isJsonObject(ev)) throw new InputError(`${source}:${n}: not a stream-json event: not a JSON object`);
  if (typeof ev.type !== 'string') throw new InputError(`${source}:${n}: not a stream-json event: no string "type"`);
  return ev;
}
