import { constants } from 'node:buffer';
import { closeSync, existsSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { isJsonObject } from '../canonical';
import { InputError, IntegrityError } from '../errors';
import { createFork, type ForkResult } from '../forks/fork';
import { readSessionFile, sessionFile, worktreesDir } from '../forks/names';
import { removeFork } from '../forks/remove';
import { Cas, casDir } from '../journal';
import { sha256Hex } from '../util/hash';
import { openRegularFile, readRegularFile } from '../util/nofollow';

/**
 * What every agent's `fork --resume` shares: the step's raw hook payload (what names the agent's transcript and
 * the call to cut after), and a fork whose conversation is placed right after it is created, or the fork removed
 * again when placing it fails, so nothing is left behind.
 */

/** The step's raw hook payload, from the CAS of the root or of the projects it was forked from. */
export function payloadBlob(root: string, agent: string, digest: string, step: number, hookWord: string): Buffer {
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
  options: { root: string; agent: string; fromStep: number; label?: string; env: NodeJS.ProcessEnv },
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
