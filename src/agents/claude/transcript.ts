import { closeSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { readRange } from '../../util/fs';
import { openRegularFile, type OpenedFile } from '../../util/nofollow';

/**
 * Reading Claude Code's own session files (`<config>/projects/<dir>/<session_id>.jsonl`,
 * docs/claude.md "Transcripts"): one JSON object per line, conversation entries
 * chained by `uuid`/`parentUuid`, each carrying the `sessionId`. The format is
 * Claude Code's, not ours, and undocumented: everything here is checked on the
 * real binary in the test suite, and anything unexpected is a refusal, not a guess.
 */

/** Longest directory name Claude Code derives from a path without adding a hash of its own. */
export const MAX_PROJECT_DIR_NAME = 200;

/**
 * The directory name under `<config>/projects/` Claude Code uses for a working
 * directory: every character other than an ASCII letter or digit becomes `-`
 * (`/tmp/a_b.c` -> `-tmp-a-b-c`). Undefined where stepchain cannot be sure of
 * the name: a path with non-ASCII or control characters, or a name longer than
 * 200 characters (Claude Code then shortens it and appends a hash).
 */
export function projectDirName(dir: string): string | undefined {
  if (!/^[\x20-\x7e]*$/.test(dir)) return undefined;
  const name = dir.replace(/[^A-Za-z0-9]/g, '-');
  return name.length <= MAX_PROJECT_DIR_NAME ? name : undefined;
}

/** How far back from the end the hook looks for the assistant entry of a tool call. */
export const TAIL_WINDOW = 4 << 20;
const CHUNK = 64 << 10;

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an entry is an assistant message with a `tool_use` block of this id. */
function assistantModelFor(entry: Record<string, unknown>, toolUseId: string): string | undefined {
  if (entry.type !== 'assistant') return undefined;
  const msg = entry.message as Record<string, unknown> | undefined;
  if (typeof msg !== 'object' || msg === null || !Array.isArray(msg.content)) return undefined;
  const has = (msg.content as unknown[]).some(
    (b) =>
      typeof b === 'object' &&
      b !== null &&
      (b as Record<string, unknown>).type === 'tool_use' &&
      (b as Record<string, unknown>).id === toolUseId,
  );
  return has && typeof msg.model === 'string' ? msg.model : undefined;
}

/**
 * The model that asked for a tool call, from the transcript's last few MiB
 * (read backwards, so the cost does not grow with the session). Undefined when
 * it is not there: Claude Code writes its transcript asynchronously, so the
 * entry may not be written yet when the hook runs, and a model is never guessed.
 */
export function modelOfToolUse(
  transcriptPath: string,
  toolUseId: string,
  window = TAIL_WINDOW,
  onProblem?: (message: string) => void,
): string | undefined {
  let opened: OpenedFile | undefined;
  try {
    // Never through a link, never blocking on a FIFO (the hook would hang and its step be lost).
    opened = openRegularFile(transcriptPath);
  } catch (e) {
    onProblem?.(
      `the transcript is not read, so the step names no model: ${e instanceof Error ? e.message : String(e)}`,
    );
    return undefined;
  }
  if (opened === undefined) return undefined;
  const fd = opened.fd;
  try {
    const st = { size: opened.size };
    const needle = Buffer.from(JSON.stringify(toolUseId));
    const stop = Math.max(0, st.size - window);
    let end = st.size;
    let carry = Buffer.alloc(0); // a line whose beginning is further back
    while (end > stop) {
      const start = Math.max(stop, end - CHUNK);
      const buf = Buffer.concat([readRange(fd, start, end - start), carry]);
      // The first piece may be the tail of a line that starts before `start`: it waits for the rest.
      const first = start > 0 ? buf.indexOf(0x0a) : -1;
      if (start > 0 && first < 0) {
        carry = buf;
        end = start;
        continue;
      }
      carry = start > 0 ? buf.subarray(0, first) : Buffer.alloc(0);
      const whole = buf.subarray(first + 1);
      // Most chunks do not mention the call at all: only those that do are split into lines.
      for (let at = whole.lastIndexOf(needle); at >= 0;) {
        const lineStart = whole.lastIndexOf(0x0a, at) + 1;
        let lineEnd = whole.indexOf(0x0a, at);
        if (lineEnd < 0) lineEnd = whole.length;
        const entry = parseLine(whole.subarray(lineStart, lineEnd).toString('utf8'));
        const model = entry === undefined ? undefined : assistantModelFor(entry, toolUseId);
        if (model !== undefined) return model;
        at = lineStart === 0 ? -1 : whole.lastIndexOf(needle, lineStart - 1);
      }
      end = start;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The projects directory and session of a transcript path laid out as Claude Code lays it out. */
export function transcriptLayout(
  transcriptPath: string,
  sessionId: string,
): { projectsDir: string; dirName: string } | undefined {
  if (path.basename(transcriptPath) !== `${sessionId}.jsonl`) return undefined;
  const dir = path.dirname(transcriptPath);
  const projectsDir = path.dirname(dir);
  if (path.basename(projectsDir) !== 'projects') return undefined;
  return { projectsDir, dirName: path.basename(dir) };
}

/**
 * Claude Code's config directory in this environment: `$CLAUDE_CONFIG_DIR`,
 * else `~/.claude`. Only the environment decides it, never a recorded path:
 * the directory's settings.json hooks run when Claude Code is started with it.
 */
export function claudeConfigDir(env: NodeJS.ProcessEnv): string {
  return path.resolve(env.CLAUDE_CONFIG_DIR || path.join(env.HOME || homedir(), '.claude'));
}

/** Where Claude Code keeps a session's transcript in this environment, `<dir>` left open. */
export function expectedTranscriptPath(env: NodeJS.ProcessEnv, sessionId: string, dirName = '<dir>'): string {
  return path.join(claudeConfigDir(env), 'projects', dirName, `${sessionId}.jsonl`);
}

/**
 * The `<dir>` of a transcript path (a hook payload's `transcript_path`) when it
 * is exactly where this environment's Claude Code keeps the session,
 * `<config>/projects/<dir>/<session_id>.jsonl`; undefined for any other path.
 */
export function sessionTranscriptDir(
  transcriptPath: string,
  sessionId: string,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const layout = transcriptLayout(path.resolve(transcriptPath), sessionId);
  if (layout === undefined || layout.dirName === '..' || layout.dirName === '.') return undefined;
  return layout.projectsDir === path.join(claudeConfigDir(env), 'projects') ? layout.dirName : undefined;
}
