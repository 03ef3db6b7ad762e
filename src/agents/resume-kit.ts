import { tornTailOption } from '../util/chain-file';
import { constants } from 'node:buffer';
import { closeSync, existsSync, fsyncSync, openSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { isJsonObject } from '../canonical';
import { InputError, IntegrityError, isOsError, osError } from '../errors';
import { createFork, type ForkResult } from '../forks/fork';
import { readSessionFile, sessionFile, worktreesDir } from '../forks/names';
import { removeFork } from '../forks/remove';
import { Cas, casDir, journalFile, VerifiedSteps, type StepRow } from '../journal';
import { fsyncDir, removeFile, writeAll } from '../util/fs';
import { sha256Hex } from '../util/hash';
import { openRegularFile, readRegularFile } from '../util/nofollow';
import { plural } from '../util/words';
import type { ResumeRequest } from './types';
import { field, parseHookPayload, type HookPayload } from './claude/payload';

/**
 * What every agent's `fork --resume` shares: the step's raw hook payload (what names the agent's transcript and
 * the call to cut after), and a fork whose conversation is placed right after it is created, or the fork removed
 * again when placing it fails, so nothing is left behind.
 */

/** Step `fromStep` of `agent`'s journal, to resume after: its row, the calls the journal records after it, its place. */
export interface ResumeStep {
  /** The journal file. */
  file: string;
  row: StepRow;
  /** The ids of the tool calls the journal records after the step: their answers must not be in the copy. */
  later: string[];
  /** `<journal>:<line>`, for messages. */
  where: string;
}

function resumeStep(root: string, agent: string, fromStep: number): ResumeStep {
  const file = journalFile(root, agent);
  if (!existsSync(file)) throw new InputError(`no journal for ${JSON.stringify(agent)} (looked for ${file})`);
  // Verified where it lies, its rows read back a block at a time (never every row parsed and held).
  const journal = VerifiedSteps.open(file);
  if (!Number.isSafeInteger(fromStep) || fromStep < 0 || fromStep >= journal.length)
    throw new InputError(
      `${file}: step ${fromStep} is out of range (the journal has ${plural(journal.length, 'step')})`,
    );
  const later: string[] = [];
  for (let seq = fromStep + 1; seq < journal.length; seq++) {
    const call = journal.at(seq)!.row.tool_call;
    const id = isJsonObject(call) ? call.id : undefined;
    if (typeof id === 'string') later.push(id);
  }
  return { file, row: journal.at(fromStep)!.row, later, where: `${file}:${fromStep + 1}` };
}

/** The agent whose hook recorded a journal resumed: its hook word, product name and tool-call events. */
export interface ResumeAgent {
  hook: string;
  title: string;
  toolEvents: readonly string[];
}

/**
 * Step `fromStep` of `agent`'s journal, the hook payload stored as its input (a tool call of the agent's own
 * session), and the call's id, which the payload and the step's recorded tool call must agree on. A journal another
 * writer made (`stepchain append`, a library caller, another agent's hook) is a usage error, not a broken record.
 */
export function toolCallStep(
  root: string,
  agent: string,
  fromStep: number,
  who: ResumeAgent,
): { step: ResumeStep; payload: HookPayload; callId: string } {
  const step = resumeStep(root, agent, fromStep);
  const notOurs = (why: string): InputError =>
    new InputError(
      `fork --resume: step ${fromStep} of ${agent} was not recorded by \`stepchain hook ${who.hook}\` ` +
        `(${why}); this journal is not a ${who.title} session: fork it without --resume`,
    );
  let blob: Buffer;
  try {
    blob = payloadBlob(root, agent, step.row.input_hash, fromStep, who.hook);
  } catch (e) {
    if (e instanceof IntegrityError && !agent.startsWith(`${who.hook}-`))
      throw notOurs(`no ${who.title} hook payload is stored for it`);
    throw e;
  }
  let p: HookPayload;
  try {
    p = parseHookPayload(blob, `${step.where}: input`, who.hook);
  } catch (e) {
    if (e instanceof InputError) throw notOurs(`its input is not a ${who.title} hook payload`);
    throw e;
  }
  if (!who.toolEvents.includes(p.event))
    throw new IntegrityError(`${step.where}: step ${fromStep} was recorded from a ${p.event} payload, not a tool call`);
  const callId = field(p, 'tool_use_id');
  const call = step.row.tool_call;
  if (callId === undefined || !isJsonObject(call) || call.id !== callId)
    throw new IntegrityError(
      `${step.where}: the step's tool call and its stored payload do not name the same tool_use_id`,
    );
  return { step, payload: p, callId };
}

/**
 * Writes the cut copy of a conversation as a new file (never over an existing one), durably, after `makeDir` made
 * its directory; a failure removes what was written and names the file (`what`: the fork's transcript, rollout).
 */
export function writeConversationCopy(target: string, bytes: Uint8Array, what: string, makeDir: () => void): void {
  let fd: number;
  try {
    makeDir();
    fd = openSync(target, 'wx', 0o600);
  } catch (e) {
    if (isOsError(e)) throw osError(e, target, `cannot create ${what}`);
    if (e instanceof InputError) throw new InputError(`cannot create ${what}: ${e.message}`);
    throw e;
  }
  try {
    writeAll(fd, bytes);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    removeFile(target);
    if (isOsError(e)) throw osError(e, target, 'cannot write');
    throw e;
  }
  closeSync(fd);
  fsyncDir(path.dirname(target));
}

/** The step's raw hook payload, from the CAS of the root or of the projects it was forked from. */
function payloadBlob(root: string, agent: string, digest: string, step: number, hookWord: string): Buffer {
  const tried: string[] = [];
  let dir: string | undefined = root;
  let id = agent;
  for (let depth = 0; dir !== undefined && depth < 32; depth++) {
    const cas = casDir(dir);
    tried.push(cas);
    const bytes = new Cas(cas).get(digest);
    if (bytes !== undefined && sha256Hex(bytes) === digest) return bytes;
    // A fork's prefix came from its parent, whose blobs stay in the parent's project.
    const session = readSessionFile(sessionFile(dir, id));
    const fork = session?.fork;
    if (!isJsonObject(fork) || typeof fork.parent_root !== 'string' || typeof fork.parent_session_id !== 'string')
      break;
    dir = fork.parent_root;
    id = fork.parent_session_id;
  }
  throw new IntegrityError(
    `step ${step} has no stored hook payload (input ${digest} is not in ${tried.join(' or ')}); ` +
      `only steps recorded by \`stepchain hook ${hookWord}\` can resume a conversation`,
  );
}

/**
 * Forks `agent` at `fromStep` as `forkId` (a worktree with the files of that step and the journal prefix, as
 * `createFork`), then runs `place` (which puts the conversation where the agent finds it and returns warnings).
 * If `place` throws, the fork is removed again and the error says so.
 */
export async function forkAndPlace(
  options: Pick<ResumeRequest, 'root' | 'agent' | 'fromStep' | 'label' | 'env' | 'onTornTail'>,
  forkId: string,
  place: () => string[],
): Promise<{ fork: ForkResult; warnings: string[] }> {
  const worktrees = worktreesDir(path.resolve(options.root));
  const hadWorktrees = existsSync(worktrees);
  const fork = await createFork({
    root: options.root,
    sessionId: options.agent,
    fromStep: options.fromStep,
    forkId,
    env: options.env,
    ...(options.label === undefined ? {} : { label: options.label }),
    ...tornTailOption(options),
  });
  try {
    return { fork, warnings: place() };
  } catch (e) {
    let undo = 'the fork was removed again';
    try {
      await removeFork(path.resolve(options.root), forkId, { force: true, tombstone: false, env: options.env });
      if (!hadWorktrees) {
        try {
          rmdirSync(worktrees); // only if still empty: a concurrent fork may be using it
        } catch {
          /* not empty */
        }
      }
    } catch (ue) {
      undo = `removing the fork failed too (${(ue as Error).message.split('\n')[0]}); remove it with \`stepchain fork rm ${forkId} --force\``;
    }
    throw new IntegrityError(`fork ${options.agent}: ${(e as Error).message}; ${undo}`);
  }
}

/**
 * The whole of a session's transcript, to cut a resumed conversation from (undefined: no such file). Never through
 * a link, never blocking on a FIFO; a transcript larger than the longest text JavaScript can hold is refused for
 * that reason, before it is read, rather than reported as something else once reading it has failed.
 */
export function readTranscriptWhole(file: string, what: string): Buffer | undefined {
  const opened = openRegularFile(file);
  if (opened === undefined) return undefined;
  const { fd, size } = opened;
  closeSync(fd);
  if (size > constants.MAX_STRING_LENGTH)
    throw new InputError(
      `${file}: the session's ${what} holds ${size} bytes; a conversation can be cut only from one of at most ` +
        `${constants.MAX_STRING_LENGTH} bytes (the longest text JavaScript holds)`,
    );
  return readRegularFile(file, { maxBytes: constants.MAX_STRING_LENGTH });
}
