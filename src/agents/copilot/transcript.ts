import { closeSync } from 'node:fs';
import { canonical, CanonicalEncodeError, parse, type JsonValue } from '../../canonical';
import { openRegularFile } from '../../util/nofollow';
import { linesContaining, quotedNeedle, tailWindow, verbatimNeedle } from '../tail-scan';
import { windowLinesFor, type LineTags } from '../window-index';

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

/** One line of the log as an event with a string `data.toolCallId`, or undefined. */
function callEvent(line: string): { type: JsonValue; data: Record<string, JsonValue> } | undefined {
  let v: JsonValue;
  try {
    v = parse(line);
  } catch {
    return undefined; // a torn last line, or not an entry
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Map) return undefined;
  const e = v as Record<string, JsonValue>;
  const data = e.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data) || data instanceof Map) return undefined;
  const d = data as Record<string, JsonValue>;
  return typeof d.toolCallId === 'string' ? { type: e.type, data: d } : undefined;
}

/** `canonical(v)`, or undefined when `v` has no canonical encoding. */
function canonicalOrNone(v: JsonValue): string | undefined {
  try {
    return canonical(v);
  } catch (e) {
    if (e instanceof CanonicalEncodeError) return undefined;
    throw e;
  }
}

/** The started and the completed calls of the lines `lines` (every line of the log, or those a needle found). */
function callsOf(lines: Iterable<string>): { started: Started[]; completed: Set<string> } {
  const started: Started[] = [];
  const completed = new Set<string>();
  for (const line of lines) {
    const start = line.includes('"tool.execution_start"');
    if (!start && !line.includes('"tool.execution_complete"')) continue;
    const e = callEvent(line);
    if (e === undefined) continue;
    if (e.type === 'tool.execution_start' && e.data.arguments !== undefined) {
      const args = canonicalOrNone(e.data.arguments);
      // Arguments with no canonical form (NaN, an infinity): no payload's are those, so no call to match.
      if (args !== undefined)
        started.push({
          id: e.data.toolCallId as string,
          args,
          model: typeof e.data.model === 'string' ? e.data.model : undefined,
        });
    } else if (e.type === 'tool.execution_complete') {
      completed.add(e.data.toolCallId as string);
    }
  }
  return { started, completed };
}

/** The last `window` bytes of the log, whole lines (undefined: no such file). */
function readWindow(file: string, window: number): Buffer | undefined {
  const opened = openRegularFile(file);
  if (opened === undefined) return undefined;
  try {
    return tailWindow(opened.fd, opened.size, window);
  } finally {
    closeSync(opened.fd);
  }
}

const utf8 = (lines: Buffer[]): string[] => lines.map((l) => l.toString('utf8'));

/** The started and the completed calls in the last `window` bytes of the log (undefined: no such file). */
export function readCalls(
  file: string,
  window = LOG_WINDOW,
): { started: Started[]; completed: Set<string> } | undefined {
  const buf = readWindow(file, window);
  return buf === undefined ? undefined : callsOf(buf.toString('utf8').split('\n'));
}

/**
 * The calls in the last `window` bytes of the log that started with the arguments `want` (canonical) and have not
 * completed (undefined: no such file). A long session's log is megabytes of calls: only the lines that hold the
 * arguments' longest verbatim run (`verbatimNeedle`) can be their start, and only lines naming a candidate's id
 * can be its completion, so only those are parsed; arguments or ids without such bytes: every line is.
 */
export function openCalls(file: string, toolInput: JsonValue, window = LOG_WINDOW): Started[] | undefined {
  const want = canonical(toolInput);
  const buf = readWindow(file, window);
  if (buf === undefined) return undefined;
  const needle = verbatimNeedle(toolInput);
  const every = (): string[] => buf.toString('utf8').split('\n');
  const started = callsOf(needle === undefined ? every() : utf8(linesContaining(buf, [needle]))).started.filter(
    (s) => s.args === want,
  );
  if (started.length === 0) return [];
  // An id written as itself is found as its quoted bytes; any other, on every line.
  const idNeedles = started.map((s) => quotedNeedle(s.id));
  const completed = callsOf(
    idNeedles.every((n) => n !== undefined) ? utf8(linesContaining(buf, idNeedles)) : every(),
  ).completed;
  return started.filter((s) => !completed.has(s.id));
}

/** A line's tags for the index (src/agents/window-index.ts): a start's id and arguments (canonical); an end's id. */
const eventTags: LineTags = (line) => {
  const { started, completed } = callsOf([line]);
  return [
    ...started.map((s): [string, string] => [s.id, s.args]),
    ...[...completed].map((c): [string, string] => [c, '']),
  ];
};

/** Where a hook keeps what it read of the log (src/agents/window-index.ts), and the key that authenticates it. */
export interface LogIndex {
  file: string;
  key: Uint8Array | undefined;
}

/**
 * `openCalls`: the same calls, reading only what Copilot appended to the log since the index was written.
 * Undefined: no such file.
 */
export function indexedOpenCalls(
  file: string,
  toolInput: JsonValue,
  index: LogIndex,
  window = LOG_WINDOW,
): Started[] | undefined {
  const want = canonical(toolInput);
  const lines = windowLinesFor(file, window, eventTags, index, [want]);
  if (lines === undefined) return undefined;
  const { started, completed } = callsOf(lines);
  return started.filter((s) => s.args === want && !completed.has(s.id));
}

/**
 * The call a PostToolUse payload reports (see above), looking again every `pauseMs` up to `tries` times while
 * there is no single open call with those arguments. With `index`, only what Copilot appended since the last
 * look is read (the same calls: test/agents.window-index.test.ts).
 */
export function findOpenCall(
  file: string,
  toolInput: JsonValue,
  options: { tries?: number; pauseMs?: number; window?: number; index?: LogIndex } = {},
): { match: CallMatch } | { problem: string } {
  const tries = options.tries ?? 40;
  const index = options.index;
  const look = (): Started[] | undefined =>
    index === undefined
      ? openCalls(file, toolInput, options.window)
      : indexedOpenCalls(file, toolInput, index, options.window);
  let last = '';
  for (let i = 0; i < tries; i++) {
    if (i > 0) sleepMs(options.pauseMs ?? 50);
    let open: Started[] | undefined;
    try {
      open = look();
    } catch (e) {
      return { problem: `${(e as Error).message.split('\n')[0]}` };
    }
    if (open === undefined) {
      last = `${file} does not exist`;
      continue;
    }
    const ids = [...new Set(open.map((s) => s.id))];
    if (ids.length === 1) return { match: { id: ids[0]!, model: open[0]!.model } };
    last =
      ids.length === 0
        ? `no open call with these arguments in ${file}`
        : `${ids.length} open calls with these arguments in ${file} (${ids.join(', ')})`;
  }
  return { problem: last };
}
