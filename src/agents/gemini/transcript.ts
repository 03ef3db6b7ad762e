import { closeSync } from 'node:fs';
import path from 'node:path';
import type { JsonValue } from '../../canonical';
import { readRange } from '../../util/fs';
import { openRegularFile } from '../../util/nofollow';
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

/**
 * The tool calls of the transcript's last `window` bytes, in the order they were first written, each once (a
 * record written again replaces its calls' details, not their place). Never through a link or a FIFO.
 */
export function transcriptCalls(file: string, window = TRANSCRIPT_WINDOW): TranscriptCall[] {
  const opened = openRegularFile(file);
  if (opened === undefined) return [];
  let text: string;
  try {
    const start = Math.max(0, opened.size - window);
    text = readRange(opened.fd, start, opened.size - start).toString('utf8');
    // A window that starts mid-line drops that line.
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
  } finally {
    closeSync(opened.fd);
  }
  const calls = new Map<string, TranscriptCall>();
  for (const line of text.split('\n')) {
    if (!line.includes('"toolCalls"')) continue;
    const r = record(line);
    if (r === undefined || r.type !== 'gemini' || !Array.isArray(r.toolCalls)) continue;
    const model = typeof r.model === 'string' ? r.model : null;
    for (const c of r.toolCalls as unknown[]) {
      if (typeof c !== 'object' || c === null) continue;
      const { id, name, args } = c as Record<string, unknown>;
      if (typeof id !== 'string' || typeof name !== 'string') continue;
      calls.set(id, { id, name, args: (args ?? null) as JsonValue, model });
    }
  }
  return [...calls.values()];
}
