import { closeSync } from 'node:fs';
import path from 'node:path';
import { lstatUnder, openRegularFile, type OpenedFile } from '../../util/nofollow';
import { findInTail, TAIL_WINDOW } from '../tail-scan';
import { codexHome } from './trust';

/**
 * Codex's own record of a session, its rollout: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<session_id>.jsonl`,
 * one JSON object per line (`session_meta`, `turn_context`, `response_item` with `function_call` and
 * `function_call_output` items, `event_msg` with `item_completed` ...). The format is Codex's, not ours, and
 * undocumented: what is read here is checked on the real binary in the test suite, and anything unexpected is
 * a refusal or an unknown, never a guess. A hook payload names the rollout (`transcript_path`), but only a path
 * where this environment's Codex keeps the session is read, never through a link.
 */

const DATE_PARTS = [/^\d{4}$/, /^\d{2}$/, /^\d{2}$/];

/**
 * The path of `transcriptPath` relative to `$CODEX_HOME` when it is laid out as Codex lays out the rollout of
 * `sessionId` (`sessions/YYYY/MM/DD/rollout-*-<session_id>.jsonl`), else undefined.
 */
export function rolloutRelPath(transcriptPath: string, sessionId: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!path.isAbsolute(transcriptPath)) return undefined;
  const rel = path.relative(codexHome(env), path.resolve(transcriptPath));
  const parts = rel.split(path.sep);
  if (parts.length !== 5 || parts[0] !== 'sessions') return undefined;
  if (!DATE_PARTS.every((re, i) => re.test(parts[i + 1]!))) return undefined;
  const name = parts[4]!;
  return name.startsWith('rollout-') && name.endsWith(`-${sessionId}.jsonl`) ? parts.join('/') : undefined;
}

/** Opens the rollout at `rel` under `$CODEX_HOME`, refusing a link anywhere on the way (undefined: missing). */
export function openRollout(rel: string, env: NodeJS.ProcessEnv): OpenedFile | undefined {
  const home = codexHome(env);
  const st = lstatUnder(home, rel);
  if (st.kind === 'symlink') throw new Error(`${path.join(home, st.at)}: is a symbolic link; refusing to follow it`);
  if (st.kind === 'missing') return undefined;
  if (st.kind !== 'file') throw new Error(`${path.join(home, rel)}: not a regular file`);
  return openRegularFile(path.join(home, rel));
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

const EXITED = /^Process exited with code (-?\d+)$/m;

/**
 * The exit code of tool call `callId` as the rollout records it: the `exit_code` of the `item_completed` event
 * of the command (written before the PostToolUse hook runs), else the `Process exited with code N` line of the
 * call's `function_call_output`. Undefined when neither is there (a tool that is not a command, or not written yet).
 */
export function exitCodeInEntry(entry: Record<string, unknown>, callId: string): number | undefined {
  const payload = obj(entry.payload);
  if (payload === undefined) return undefined;
  if (entry.type === 'event_msg' && payload.type === 'item_completed') {
    const item = obj(payload.item);
    const code = item?.exit_code;
    if (item?.id === callId && typeof code === 'number' && Number.isSafeInteger(code)) return code;
  }
  if (entry.type === 'response_item' && payload.type === 'function_call_output' && payload.call_id === callId) {
    const m = typeof payload.output === 'string' ? EXITED.exec(payload.output) : null;
    // Digits past 2^53 would be recorded as another number than the one written: no exit code rather than that.
    const code = m === null ? NaN : Number(m[1]);
    if (Number.isSafeInteger(code)) return code;
  }
  return undefined;
}

/** The exit code of `callId` from the rollout's last few MiB (see exitCodeInEntry). */
export function exitCodeOf(
  rel: string,
  callId: string,
  env: NodeJS.ProcessEnv,
  onProblem?: (message: string) => void,
  window = TAIL_WINDOW,
): number | undefined {
  let opened: OpenedFile | undefined;
  try {
    opened = openRollout(rel, env);
  } catch (e) {
    onProblem?.(`the rollout is not read, so the step has no exit code: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
  if (opened === undefined) return undefined;
  try {
    return findInTail(opened.fd, opened.size, JSON.stringify(callId), (e) => exitCodeInEntry(e, callId), window);
  } catch {
    return undefined;
  } finally {
    closeSync(opened.fd);
  }
}
