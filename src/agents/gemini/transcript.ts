import { closeSync } from 'node:fs';
import path from 'node:path';
import type { JsonValue } from '../../canonical';
import { MAX_NESTING } from '../../canonical/limits';
import { openRegularFile } from '../../util/nofollow';
import { linesContaining, quotedNeedle, tailWindow, verbatimNeedle } from '../tail-scan';
import { windowLinesFor, type LineTags } from '../window-index';
import { geminiDir } from './home';

/**
 * Reading Gemini CLI's session file (`<gemini dir>/tmp/<project>/chats/session-<time>-<id>.jsonl`, 0.61): one JSON
 * object per line; a model turn is a record `{"id", "type": "gemini", "model", "toolCalls": [{"id", "name",
 * "args", "result", "status", ...}]}`, written again (same `id`) as its tool calls complete, after their AfterTool
 * hooks ran; `{"$set": ...}` lines patch the session's metadata. The format is Gemini CLI's and undocumented: only
 * the tool calls' `id`, `name`, `args` and the record's `model` are read, and a line that does not parse is skipped.
 */

/** How much of the end of the file is read (a session's recent turns; the cost does not grow with the session). */
export const TRANSCRIPT_WINDOW = 16 << 20;

export interface TranscriptCall {
  id: string;
  name: string;
  args: JsonValue;
  model: string | null;
}

/**
 * The transcript path of a payload when it is where this environment's Gemini CLI keeps sessions
 * (`<gemini dir>/tmp/<one segment>/chats/<file>.jsonl`); undefined for any other path: a payload never names a
 * file to read.
 */
export function sessionTranscript(transcriptPath: string, env: NodeJS.ProcessEnv): string | undefined {
  const p = path.resolve(transcriptPath);
  const chats = path.dirname(p);
  const project = path.dirname(chats);
  if (path.basename(chats) !== 'chats' || !p.endsWith('.jsonl')) return undefined;
  if (path.dirname(project) !== path.join(geminiDir(env), 'tmp')) return undefined;
  const name = path.basename(project);
  return name === '.' || name === '..' || name === '' ? undefined : p;
}

function record(line: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The calls of `lines` in the order they were first written, each once, with its last details (see below). */
function callsOf(lines: Iterable<string>, only?: ReadonlySet<string>): Map<string, TranscriptCall> {
  const calls = new Map<string, TranscriptCall>();
  for (const line of lines) {
    if (!line.includes('"toolCalls"')) continue;
    const r = record(line);
    if (r === undefined || r.type !== 'gemini' || !Array.isArray(r.toolCalls)) continue;
    const model = typeof r.model === 'string' ? r.model : null;
    for (const c of r.toolCalls as unknown[]) {
      if (typeof c !== 'object' || c === null) continue;
      const { id, name, args } = c as Record<string, unknown>;
      if (typeof id !== 'string' || typeof name !== 'string' || (only !== undefined && !only.has(id))) continue;
      calls.set(id, { id, name, args: (args ?? null) as JsonValue, model });
    }
  }
  return calls;
}

const utf8 = (lines: Buffer[]): string[] => lines.map((l) => l.toString('utf8'));

/**
 * The tool calls of the transcript's last `window` bytes, in the order they were first written, each once (a
 * record written again replaces its calls' details, not their place). Never through a link or a FIFO.
 *
 * `wanted`: what the caller looks for, each a call's args (or, when those have no verbatim bytes, its name). A long
 * session's transcript is megabytes of calls: then only lines holding a wanted value's longest verbatim run
 * (`verbatimNeedle`) are parsed, and the ids they name are followed through every line naming them (a record written
 * again), so each call returned is exactly what reading every line says of it; calls holding none of the wanted
 * values may be left out. A wanted value without verbatim bytes, or an id without: every line is read.
 */
export function transcriptCalls(
  file: string,
  window = TRANSCRIPT_WINDOW,
  wanted?: readonly { args: unknown; name: string }[],
): TranscriptCall[] {
  const opened = openRegularFile(file);
  if (opened === undefined) return [];
  let buf: Buffer;
  try {
    buf = tailWindow(opened.fd, opened.size, window);
  } finally {
    closeSync(opened.fd);
  }
  const every = (): TranscriptCall[] => [...callsOf(buf.toString('utf8').split('\n')).values()];
  if (wanted === undefined) return every();
  const needles = wanted.map((w) => verbatimNeedle(w.args) ?? verbatimNeedle(w.name));
  if (!needles.every((n) => n !== undefined)) return every();
  const candidates = callsOf(utf8(linesContaining(buf, needles)));
  const ids = [...candidates.keys()].map(quotedNeedle);
  if (!ids.every((n) => n !== undefined)) return every();
  return [...callsOf(utf8(linesContaining(buf, ids)), new Set(candidates.keys())).values()];
}

/**
 * Plain JSON (for comparing a payload's tool input with the transcript's args): keys sorted. Undefined for a value
 * nested deeper than any JSON stepchain reads (MAX_NESTING: a payload never is), so a hostile record's args never
 * run the walk out of stack (that call then pairs with no payload).
 */
export function plain(v: unknown, depth = 0): string | undefined {
  if (typeof v !== 'object' || v === null) return JSON.stringify(v) ?? 'null';
  if (depth >= MAX_NESTING) return undefined;
  const parts: string[] = [];
  const isArray = Array.isArray(v);
  for (const k of isArray ? v.keys() : Object.keys(v).sort()) {
    const item = plain((v as Record<string | number, unknown>)[k], depth + 1);
    if (item === undefined) return undefined;
    parts.push(isArray ? item : `${JSON.stringify(k)}:${item}`);
  }
  return isArray ? `[${parts.join(',')}]` : `{${parts.join(',')}}`;
}

/** What pairs a tool call with a hook payload: its tool's name and its arguments as plain JSON (undefined: none). */
export function callKey(name: string, args: unknown): string | undefined {
  const p = plain(args);
  return p === undefined ? undefined : `${name}\0${p}`;
}

/** A call with its `callKey`. */
export interface KeyedCall extends TranscriptCall {
  key: string;
}

/** A line's tags for the index (src/agents/window-index.ts): each call's id and `callKey`. */
const callTags: LineTags = (line) =>
  [...callsOf([line]).values()].flatMap((c): [string, string][] => {
    const key = callKey(c.name, c.args);
    return key === undefined ? [] : [[c.id, key]];
  });

/**
 * The tool calls of the transcript's last `window` bytes whose `callKey` is one of `keys`, in the order they were
 * first written, each once with its last details: what reading every line gives (`transcriptCalls(file, window)`,
 * those of the keys), reading only what Gemini CLI appended since the session's index was written. Never through a
 * link or a FIFO.
 */
export function keyedTranscriptCalls(
  file: string,
  keys: readonly string[],
  index: { file: string; key: Uint8Array | undefined },
  window = TRANSCRIPT_WINDOW,
): KeyedCall[] {
  const want = new Set(keys);
  const lines = windowLinesFor(file, window, callTags, index, keys) ?? [];
  return [...callsOf(lines).values()].flatMap((c) => {
    const key = callKey(c.name, c.args);
    return key !== undefined && want.has(key) ? [{ ...c, key }] : [];
  });
}
