import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  Journal,
  journalDir,
  journalFile,
  readVerifiedJournal,
  runtimeDir,
  type JournalOptions,
  type StepRow,
} from '../../journal';
import { cleanDeadTemps, ensureDir, pathKind, removeFile, tempPath } from '../../util/fs';
import { sha256Hex } from '../../util/hash';
import { assertSafeId } from '../../util/ids';
import { tryLock } from '../../util/lock';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../util/modes';
import { readRegularFile } from '../../util/nofollow';
import { pausePoint } from '../../util/pause';

/**
 * What one Gemini CLI hook call leaves for the next ones of the same session, under
 * `<root>/.sdd/runtime/gemini/<session_id>/` (0700: it holds raw payloads and prompts):
 * - `pending/<time>-<pid>-<random>.json`: an AfterTool payload, byte for byte, until the transcript names its call
 *   id (Gemini CLI writes the call to its session file only after the AfterTool hooks ran), one file each, created
 *   whole (a temporary name, then a rename), so parallel tool calls never contend;
 * - `prompt`: the prompt in progress (BeforeAgent), for the steps it leads to;
 * - `flush.lock`: held by the hook call that turns pending payloads into steps (src/util/lock.ts: its holder named,
 *   broken once that holder is gone);
 * - `transcript.v2.index`, `journal.v2.index`: the calls of the session's transcript and journal read so far
 *   (src/agents/window-index.ts).
 * A cache, never the record: the journals are.
 */

export function sessionDir(root: string, sessionId: string): string {
  return path.join(runtimeDir(root), 'gemini', assertSafeId(sessionId, 'session id'));
}

function privateDir(dir: string): void {
  ensureDir(path.dirname(path.dirname(dir)));
  ensureDir(path.dirname(dir), PRIVATE_DIR_MODE);
  ensureDir(dir, PRIVATE_DIR_MODE);
  if ((lstatSync(dir).mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(dir, PRIVATE_DIR_MODE);
}

/** The temporary name earlier releases gave these files (`<file>.<pid>.<random>.tmp`): a dead writer's is removed too. */
const OLD_TEMP = /\.([0-9]+)\.[0-9a-f]{8}\.tmp$/;

/**
 * Writes `file` whole: a temporary file named by the project's one rule (`tempPath`: its writer's pid, start time
 * and host), renamed into place. What writers killed in between left in the directory is removed first: under any
 * other name (each payload's file is new, so a writer of the same name never came again) it stayed for good.
 */
function writeWhole(file: string, bytes: Uint8Array): void {
  cleanDeadTemps(path.dirname(file), [OLD_TEMP], (n) => n.endsWith('.tmp'));
  const tmp = tempPath(file);
  try {
    writeFileSync(tmp, bytes, { flag: 'wx', mode: PRIVATE_FILE_MODE });
    pausePoint('gemini:pending-staged');
    renameSync(tmp, file);
  } catch (e) {
    removeFile(tmp);
    throw e;
  }
}

/** Keeps an AfterTool payload until its call id is known. */
export function addPending(root: string, sessionId: string, bytes: Uint8Array): string {
  const dir = path.join(sessionDir(root, sessionId), 'pending');
  privateDir(path.dirname(dir));
  privateDir(dir);
  // Names sort in creation order (a parallel batch's order is the transcript's, not this one).
  const t = process.hrtime.bigint().toString().padStart(24, '0');
  const name = `${Date.now().toString().padStart(15, '0')}-${t}-${process.pid}-${randomBytes(4).toString('hex')}.json`;
  const file = path.join(dir, name);
  writeWhole(file, bytes);
  return file;
}

export interface Pending {
  file: string;
  bytes: Buffer;
}

/**
 * A pending file is one hook payload as the hook read it, never more than MAX_PAYLOAD_BYTES (128 MiB,
 * src/cli/commands/hook-agent.ts): a larger one was not written by the hook, and is skipped unread.
 */
const MAX_PENDING_BYTES = 128 * 1024 * 1024;
/** The saved prompt: the bound of `append --prompt-file` (INPUT_BOUNDS.prompt), past which it is not used. */
const MAX_PROMPT_BYTES = 64 * 1024 * 1024;

/** The pending payloads, oldest first; files that do not read (a link, a FIFO, too large) are skipped. */
export function listPending(root: string, sessionId: string): Pending[] {
  const dir = path.join(sessionDir(root, sessionId), 'pending');
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  } catch {
    return [];
  }
  const out: Pending[] = [];
  for (const name of names.sort()) {
    const file = path.join(dir, name);
    try {
      const bytes = readRegularFile(file, { maxBytes: MAX_PENDING_BYTES });
      if (bytes !== undefined) out.push({ file, bytes });
    } catch {
      /* not a regular file: never read through */
    }
  }
  return out;
}

/**
 * Whether a payload may be pending: a look at the names only (a listing that fails: none). Most hook calls have
 * nothing to pair (an AfterTool's look before it keeps its own call, a PreCompress after a model turn without tools):
 * they then take no flush lock (its file made, linked and removed, its holder's identity read from /proc, its
 * directories checked: ~3 ms of an AfterTool call's CPU, measured). The names are never acted on: a flush takes the
 * lock, checks the directories and lists the payloads again (`listPending`).
 */
export function anyPending(root: string, sessionId: string): boolean {
  let names: string[];
  try {
    names = readdirSync(path.join(sessionDir(root, sessionId), 'pending'));
  } catch {
    return false;
  }
  return names.some((n) => !n.startsWith('.') && (n.endsWith('.json') || RECORDING.test(n)));
}

/**
 * A pending payload whose step is being appended is renamed `<name>.<seq>.recording` first, `seq` the row its step
 * is about to be (told under the journal's lock, before the row is written: `JournalOptions.beforeWrite`), and
 * removed once the step is in. A flush killed between the append and the removal (Gemini CLI stops a hook that
 * outlives its timeout) used to leave the payload pending: the next flush found its call already in the journal and
 * left it, and the session's last flush recorded it again, id null. The mark says which row would be its step, so
 * whoever finds the mark (`settleRecordings`) knows, not guesses: two byte-identical payloads (parallel calls alike,
 * in the same millisecond) are still two calls.
 */
const RECORDING = /^(.+\.json)\.([0-9]{1,15})\.recording$/;

/** The marks a pending payload goes through while its step is appended (`markRecording`). */
export interface RecordingMark {
  /** Renames the payload to the mark of row `seq` (again, for a second attempt: it is where the last one left it). */
  to(seq: number): void;
  /** The step is in: the mark goes. */
  done(): void;
  /** The step is not in: the payload is pending again, as it was. */
  undo(): void;
}

export function markRecording(p: Pending, env: NodeJS.ProcessEnv = process.env): RecordingMark {
  let at = p.file;
  return {
    to(seq) {
      const next = `${p.file}.${seq}.recording`;
      if (next === at) return;
      renameSync(at, next);
      at = next;
      pausePoint('gemini:step-marked', env);
    },
    done() {
      removeFile(at);
    },
    undo() {
      if (at !== p.file) renameSync(at, p.file);
      at = p.file;
    },
  };
}

/**
 * The marks a killed flush left, settled before a flush lists what is pending (under the flush lock): a mark whose
 * row is in the journal (`seq` there, its input_hash the payload's SHA-256) is removed, its step appended; any other
 * is pending again. The journal is read only when a mark it reads is there (a kill's leftovers: rare), and verified:
 * one that does not verify leaves the marks as they are (the flush fails, and says why).
 */
export function settleRecordings(
  root: string,
  sessionId: string,
  journal: string,
  options: Pick<JournalOptions, 'env' | 'onTornTail'> = {},
): void {
  const dir = path.join(sessionDir(root, sessionId), 'pending');
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => RECORDING.test(n) && readableMark(path.join(dir, n)));
  } catch {
    return;
  }
  // A mark left unread (a link, a FIFO, past the bound) stays, and every later hook call finds it: the journal is
  // not read for it (a verified read of the whole journal: ~0.5 s of each call at 10,000 steps, measured).
  if (names.length === 0) return;
  const rows = journalRows(root, journal, options);
  for (const name of names) {
    const [, pending, seq] = RECORDING.exec(name)!;
    const file = path.join(dir, name);
    let bytes: Buffer | undefined;
    try {
      bytes = readRegularFile(file, { maxBytes: MAX_PENDING_BYTES });
    } catch {
      continue; // not a regular file (a link, a FIFO): never read through, left as listPending leaves one
    }
    if (bytes === undefined) continue;
    const row = rows[Number(seq)];
    if (row !== undefined && row.input_hash === sha256Hex(bytes)) removeFile(file);
    else renameSync(file, path.join(dir, pending!));
  }
}

/** Whether a mark is one `settleRecordings` reads: a regular file (lstat: never a link's target) within the bound. */
function readableMark(file: string): boolean {
  const st = lstatSync(file, { throwIfNoEntry: false });
  return st !== undefined && st.isFile() && st.size <= MAX_PENDING_BYTES;
}

/**
 * The rows of a journal (none: no journal yet), its chain verified: a fault throws. Established first as an append
 * establishes it, under its lock: a torn tail (a flush killed while its row was written) is moved aside, its row not
 * in. Read as it lay, the torn tail failed the verification, and with it every flush of the session from then on.
 */
function journalRows(root: string, agentId: string, options: Pick<JournalOptions, 'env' | 'onTornTail'>): StepRow[] {
  const file = journalFile(root, agentId);
  if (pathKind(file) === undefined) return [];
  Journal.open(journalDir(root, agentId), options);
  return readVerifiedJournal(file).entries.map((e) => e.row);
}

export function transcriptIndexFile(root: string, sessionId: string): string {
  return path.join(sessionDir(root, sessionId), 'transcript.v2.index');
}

export function journalIndexFile(root: string, sessionId: string): string {
  return path.join(sessionDir(root, sessionId), 'journal.v2.index');
}

export function writePrompt(root: string, sessionId: string, prompt: string): void {
  const dir = sessionDir(root, sessionId);
  privateDir(dir);
  writeWhole(path.join(dir, 'prompt'), Buffer.from(prompt, 'utf8'));
}

export function readPrompt(root: string, sessionId: string): string | null {
  try {
    const b = readRegularFile(path.join(sessionDir(root, sessionId), 'prompt'), { maxBytes: MAX_PROMPT_BYTES });
    return b === undefined ? null : b.toString('utf8');
  } catch {
    return null;
  }
}

/**
 * Takes the session's flush lock without waiting (src/util/lock.ts, `tryLock`): the function that releases it (it
 * never throws, and removes only this call's own lock), or undefined when another hook call holds it: that one
 * records what is pending, and what it does not yet pair stays for the next call. A lock whose holder is gone (a hook
 * killed by Gemini CLI's timeout) is broken at once, by one call of those that find it so; one whose holder is alive
 * is never broken, however long it has held it.
 */
export function takeFlushLock(root: string, sessionId: string): (() => void) | undefined {
  const dir = sessionDir(root, sessionId);
  privateDir(dir);
  return tryLock(path.join(dir, 'flush.lock'));
}
