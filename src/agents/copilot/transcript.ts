import { closeSync } from 'node:fs';
import { canonical, parse, type JsonValue } from '../../canonical';
import { readRange } from '../../util/fs';
import { openRegularFile } from '../../util/nofollow';

/**
 * Copilot CLI's hook payloads name no tool-call id; its session event log does (`events.jsonl`, one JSON object
 * per line, checked on the pinned binary): `tool.execution_start` {toolCallId, toolName, arguments, model} is
 * written when a tool starts, `tool.execution_complete` {toolCallId, shellExecution.exitCode, ...} only after
 * the PostToolUse hooks have run. The log is flushed about every 100 ms, so a hook may look before the start
 * of its own call is there: it looks again, a bounded number of times.
 *
 * The call of a PostToolUse payload is the one call that has started, has not completed, and whose arguments are
 * the payload's `tool_input` (canonically equal). None or more than one (two identical calls running at once):
 * no id, never a guess.
 */
export interface CallMatch {
  id: string;
  /** The model that asked for the call, as the log names it. */
  model: string | undefined;
}

/** How far back from the end the log is read (a session's recent calls are at its end). */
export const LOG_WINDOW = 8 << 20;

interface Started {
  id: string;
  args: string;
  model: string | undefined;
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The started and the completed calls in the last `window` bytes of the log (undefined: no such file). */
export function readCalls(
  file: string,
  window = LOG_WINDOW,
): { started: Started[]; completed: Set<string> } | undefined {
  const opened = openRegularFile(file);
  if (opened === undefined) return undefined;
  let text: string;
  try {
    const from = Math.max(0, opened.size - window);
    text = readRange(opened.fd, from, opened.size - from).toString('utf8');
    if (from > 0) text = text.slice(text.indexOf('\n') + 1); // the first line is cut
  } finally {
    closeSync(opened.fd);
  }
  const started: Started[] = [];
  const completed = new Set<string>();
  for (const line of text.split('\n')) {
    const start = line.includes('"tool.execution_start"');
    if (!start && !line.includes('"tool.execution_complete"')) continue;
    let v: JsonValue;
    try {
      v = parse(line);
    } catch {
      continue; // a torn last line, or not an entry
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) continue;
    const e = v as Record<string, JsonValue>;
    const data = e.data;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) continue;
    const d = data as Record<string, JsonValue>;
    if (typeof d.toolCallId !== 'string') continue;
    if (e.type === 'tool.execution_start' && d.arguments !== undefined) {
      started.push({
        id: d.toolCallId,
        args: canonical(d.arguments),
        model: typeof d.model === 'string' ? d.model : undefined,
      });
    } else if (e.type === 'tool.execution_complete') {
      completed.add(d.toolCallId);
    }
  }
  return { started, completed };
}

/**
 * The call a PostToolUse payload reports (see above), looking again every `pauseMs` up to `tries` times while
 * there is no single open call with those arguments.
 */
export function findOpenCall(
  file: string,
  toolInput: JsonValue,
  options: { tries?: number; pauseMs?: number; window?: number } = {},
): { match: CallMatch } | { problem: string } {
  const want = canonical(toolInput);
  const tries = options.tries ?? 40;
  let last = '';
  for (let i = 0; i < tries; i++) {
    if (i > 0) sleepMs(options.pauseMs ?? 50);
    let calls: ReturnType<typeof readCalls>;
    try {
      calls = readCalls(file, options.window);
    } catch (e) {
      return { problem: `${(e as Error).message.split('\n')[0]}` };
    }
    if (calls === undefined) {
      last = `${file} does not exist`;
      continue;
    }
    const open = calls.started.filter((s) => s.args === want && !calls.completed.has(s.id));
    const ids = [...new Set(open.map((s) => s.id))];
    if (ids.length === 1) return { match: { id: ids[0]!, model: open[0]!.model } };
    last =
      ids.length === 0
        ? `no open call with these arguments in ${file}`
        : `${ids.length} open calls with these arguments in ${file} (${ids.join(', ')})`;
  }
  return { problem: last };
}
