import { chmodSync, lstatSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { encode, isJsonObject, parseBytes, type JsonObject, type JsonValue } from '../../canonical';
import { ensureDir } from '../../util/fs';
import { readRegularFile } from '../../util/nofollow';
import { runtimeDir } from '../../journal';
import { assertSafeId } from '../../util/ids';

/**
 * What one hook call leaves for the next ones of the same session: the prompt
 * in progress (a PostToolUse payload names its `prompt_id` but not the text)
 * and whether a compaction was already chained at PreCompact. A small file
 * per session, `<root>/.sdd/runtime/claude/<session_id>.json` (0600, in a 0700
 * directory: it holds the raw prompts), replaced atomically; it is a cache, never the record (the run journal is).
 */
export interface SessionState {
  prompt_id: string | null;
  prompt: string | null;
  /** Set when PreCompact chained the compaction, until SessionStart(source=compact) sees it. */
  compaction_pending: boolean;
}

export const EMPTY_STATE: SessionState = { prompt_id: null, prompt: null, compaction_pending: false };

export function claudeStateDir(root: string): string {
  return path.join(runtimeDir(root), 'claude');
}

export function sessionStateFile(root: string, sessionId: string): string {
  return path.join(claudeStateDir(root), `${assertSafeId(sessionId, 'session id')}.json`);
}

/** The session's state; the empty state when there is none or it does not read (a cache: never fatal). */
export function readSessionState(root: string, sessionId: string): { state: SessionState; warning?: string } {
  const file = sessionStateFile(root, sessionId);
  let bytes: Buffer | undefined;
  try {
    // Never through a link, never a FIFO (the hook would hang and the step be lost).
    bytes = readRegularFile(file);
  } catch (e) {
    return { state: EMPTY_STATE, warning: `${e instanceof Error ? e.message : String(e)}; ignored` };
  }
  if (bytes === undefined) return { state: EMPTY_STATE };
  let v: JsonValue;
  try {
    v = parseBytes(bytes);
  } catch {
    return { state: EMPTY_STATE, warning: `${file}: not JSON; ignored` };
  }
  if (!isJsonObject(v)) return { state: EMPTY_STATE, warning: `${file}: not a JSON object; ignored` };
  return {
    state: {
      prompt_id: typeof v.prompt_id === 'string' ? v.prompt_id : null,
      prompt: typeof v.prompt === 'string' ? v.prompt : null,
      compaction_pending: v.compaction_pending === true,
    },
  };
}

/** Replaces the session's state (write to a fresh temporary name, then rename). */
export function writeSessionState(root: string, sessionId: string, state: SessionState): void {
  const file = sessionStateFile(root, sessionId);
  const dir = path.dirname(file);
  // Never through a link (src/util/nofollow.ts). The prompts are as private as the journals they lead to: the file
  // 0600, its directory 0700.
  ensureDir(path.dirname(dir));
  ensureDir(dir, 0o700);
  if ((lstatSync(dir).mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
  const doc: JsonObject = {
    session_id: sessionId,
    prompt_id: state.prompt_id,
    prompt: state.prompt,
    compaction_pending: state.compaction_pending,
  };
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, `${encode(doc)}\n`, { flag: 'wx', mode: 0o600 });
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
