import { chmodSync, lstatSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { encode, isJsonObject, parseBytes, type JsonObject, type JsonValue } from '../canonical';
import { ensureDir, removeFile } from '../util/fs';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../util/modes';
import { readRegularFile } from '../util/nofollow';
import { runtimeDir } from '../journal';
import { assertSafeId } from '../util/ids';

/**
 * What one hook call leaves for the next ones of the same session, for every agent: the prompt in progress (a
 * tool payload names its prompt's id, `prompt_id` or `turn_id`, but not the text) and whether a compaction was
 * already chained. A small file per session, `<root>/.sdd/runtime/<agent>/<session_id>.json` (0600, in a 0700
 * directory: it holds the raw prompts), replaced atomically; it is a cache, never the record (the run journal is).
 */
export interface SessionState {
  prompt_id: string | null;
  prompt: string | null;
  /** Set when a compaction was chained before the agent's last word on it (SessionStart with source compact). */
  compaction_pending: boolean;
  /** The content address of the compaction chained last, for a PostCompact summary to name. */
  compaction_address: string | null;
}

export const EMPTY_STATE: SessionState = {
  prompt_id: null,
  prompt: null,
  compaction_pending: false,
  compaction_address: null,
};

/** `<root>/.sdd/runtime/<agent>`. */
export function agentStateDir(root: string, agent: string): string {
  return path.join(runtimeDir(root), assertSafeId(agent, 'agent name'));
}

export function agentSessionStateFile(root: string, agent: string, sessionId: string): string {
  return path.join(agentStateDir(root, agent), `${assertSafeId(sessionId, 'session id')}.json`);
}

/**
 * Far more than a session's state (a few ids and counters, well under 1 KB): a larger file in its place is not one
 * the hook wrote, and is ignored with a warning naming it rather than held.
 */
const MAX_STATE_BYTES = 1024 * 1024;

/** The session's state; the empty state when there is none or it does not read (a cache: never fatal). */
export function readAgentSessionState(
  root: string,
  agent: string,
  sessionId: string,
): { state: SessionState; warning?: string } {
  const file = agentSessionStateFile(root, agent, sessionId);
  let bytes: Buffer | undefined;
  try {
    // Never through a link, never a FIFO (the hook would hang and the step be lost), never more than a state holds.
    bytes = readRegularFile(file, { maxBytes: MAX_STATE_BYTES });
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
      compaction_address: typeof v.compaction_address === 'string' ? v.compaction_address : null,
    },
  };
}

/** Replaces the session's state (write to a fresh temporary name, then rename). */
export function writeAgentSessionState(root: string, agent: string, sessionId: string, state: SessionState): void {
  const file = agentSessionStateFile(root, agent, sessionId);
  const dir = path.dirname(file);
  // Never through a link (src/util/nofollow.ts). The prompts are as private as the journals they lead to: the file
  // 0600, its directory 0700.
  ensureDir(path.dirname(dir));
  ensureDir(dir, PRIVATE_DIR_MODE);
  if ((lstatSync(dir).mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(dir, PRIVATE_DIR_MODE);
  const doc: JsonObject = {
    session_id: sessionId,
    prompt_id: state.prompt_id,
    prompt: state.prompt,
    compaction_pending: state.compaction_pending,
    compaction_address: state.compaction_address,
  };
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, `${encode(doc)}\n`, { flag: 'wx', mode: PRIVATE_FILE_MODE });
    renameSync(tmp, file);
  } catch (e) {
    removeFile(tmp);
    throw e;
  }
}
