import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { PRIVATE_FILE_MODE } from '../util/modes';
import { readRegularFile } from '../util/nofollow';
import { pausePoint } from '../util/pause';
import { hostTag, sameProcessAlive, selfIdentity, selfToken } from '../util/proc';
import { monotonicMs, sleepMs } from '../util/time';
import { refAbsent } from './loose';

/**
 * The order of concurrent steps' snapshots. A step's changes are told against the previous step's snapshot
 * (src/provenance/record.ts). Two processes recording steps N and N+1 of one journal at once (an agent's parallel
 * tool calls each run a hook) finish their snapshots in whichever order their `git add`s end: N+1 finished first
 * found no snapshot of N and was told against the commit the run started from, claiming every change of the
 * session again. So each step's writer leaves a marker from before its append until its snapshot and changes are
 * written, and a step whose previous snapshot is not there yet waits while that step's writer is alive and at work.
 *
 * A marker is `stepchain-step-<pid>-<start>-<host>-<n>` (the process's token, as the snapshot's temporary index
 * directories are named), in the git dir of the work tree the journal's project is in (where those directories are:
 * every writer of one journal has that git dir, the journal's snapshot refs being per work tree and project,
 * src/git/snapshot.ts journalKey). It holds the journal's snapshot refs' directory
 * (`refs/stepchain/snapshots/<agent>/<key>`, which tells apart the journals of one agent id in two projects of one
 * repository) and `\n` until the append gave the step its seq, then `<that directory> <seq>\n`.
 *
 * A killed writer's marker is removed by the next snapshot taken in that git dir (`cleanDeadStepMarkers`, from the
 * listing that removes the killed writers' temporary index directories) and by a step that looks for a writer.
 */
const PREFIX = 'stepchain-step-';
const NAME = /^stepchain-step-([0-9]+)-([0-9]+|x)-([0-9a-f]{8})-[0-9]+$/;
/** A marker holds a ref directory (safe ids) and a seq: far below this. */
const MAX_MARKER_BYTES = 4096;
/** A marker that cannot be judged by its pid (another host's, a name not of this form) is removed at this age. */
const FOREIGN_MARKER_MAX_AGE_MS = 3600_000;

let made = 0;

/** One step's marker, from before its append until its changes are written. */
export class StepMarker {
  private constructor(
    private readonly file: string,
    private readonly journal: string,
  ) {}

  /**
   * Leaves the marker of a step about to be appended to the journal whose snapshot refs are under `refDir`, in the
   * git dir `gitDir` (undefined when it cannot be written: a read-only git dir; the step is then recorded as before,
   * without the order).
   */
  static open(gitDir: string, refDir: string): StepMarker | undefined {
    const file = path.join(gitDir, `${PREFIX}${selfToken()}-${made++}`);
    try {
      // O_EXCL: never through a link another put there, never over another's marker.
      const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, PRIVATE_FILE_MODE);
      try {
        writeSync(fd, `${refDir}\n`);
      } finally {
        closeSync(fd);
      }
      return new StepMarker(file, refDir);
    } catch {
      return undefined;
    }
  }

  /** The step's seq, once the append gave it one. */
  appended(seq: number): void {
    pausePoint('marker:before-seq');
    try {
      // Written over the first line, never truncated first: a marker read meanwhile holds either line (an empty one,
      // read between a truncation and the write, named no journal, and the step after this one was told against the
      // start commit).
      const fd = openSync(this.file, constants.O_WRONLY | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0));
      try {
        // Only the regular file of one name it made: one put in its place (a hard link to a file of the user's) is
        // left as it is, and the marker counts as gone.
        const st = fstatSync(fd);
        if (!st.isFile() || st.nlink !== 1) return;
        writeSync(fd, `${this.journal} ${seq}\n`, 0);
      } finally {
        closeSync(fd);
      }
    } catch {
      /* gone: the steps after this one no longer wait for it */
    }
  }

  /** The step's snapshot and changes are written (or will not be). */
  done(): void {
    try {
      unlinkSync(this.file);
    } catch {
      /* gone already */
    }
  }
}

/**
 * Waits, at most `timeoutMs`, while the snapshot of step `seq - 1` of the journal whose snapshot refs are under
 * `journal` (ref `previousRef`, in the common git dir
 * `commonDir`) is not there and another live process is at work on it: one whose marker in `gitDir` names that
 * step, or a step of that journal not appended yet (its seq unknown; it is then a step after this one, which the wait
 * outlasts). `witness` is a ref this process just wrote (refAbsent's plain case). A marker of this process is never
 * waited for: a process orders its own steps (DeferredSnapshots). Returns at once when the previous snapshot is there.
 */
export function waitForPreviousSnapshot(
  gitDir: string,
  commonDir: string,
  journal: string,
  seq: number,
  previousRef: string,
  witness: string,
  timeoutMs: number,
): void {
  if (seq === 0) return;
  const deadline = monotonicMs() + timeoutMs;
  let pause = 2;
  while (refAbsent(commonDir, previousRef, witness) && someoneAtWork(gitDir, journal, seq - 1)) {
    if (monotonicMs() >= deadline) return;
    sleepMs(pause);
    pause = Math.min(pause * 2, 25);
  }
}

/**
 * Removes `name` in `gitDir` when it is a marker whose writer is gone: a process of this host no longer running
 * (killed: nothing comes of it), or one that cannot be judged by its pid once it is an hour old. Whether it was
 * removed (or is gone).
 */
function removedIfDead(gitDir: string, name: string): boolean {
  const file = path.join(gitDir, name);
  const m = NAME.exec(name);
  let dead: boolean;
  try {
    const st = lstatSync(file);
    if (st.isDirectory()) return false; // no marker of ours: left alone
    const me = selfIdentity();
    if (m === null || m[3] !== hostTag(me.host)) dead = Date.now() - st.mtimeMs > FOREIGN_MARKER_MAX_AGE_MS;
    else {
      const pid = Number(m[1]);
      const start = m[2] === 'x' ? undefined : m[2];
      dead = !(pid === me.pid && start === me.start) && !sameProcessAlive(pid, start, undefined, st.mtimeMs);
    }
  } catch {
    return true; // gone meanwhile
  }
  if (!dead) return false;
  try {
    unlinkSync(file);
  } catch {
    /* gone meanwhile */
  }
  return true;
}

/**
 * Removes the markers killed writers left in `gitDir` (`names`: its entries, already read, as the snapshot's
 * cleaning of its temporary index directories has them). Returns the names removed.
 */
export function cleanDeadStepMarkers(gitDir: string, names: readonly string[]): string[] {
  return names.filter((n) => n.startsWith(PREFIX) && removedIfDead(gitDir, n));
}

/** Whether a live process other than this one is recording step `seq` of `journal` (or a step not yet appended). */
function someoneAtWork(gitDir: string, journal: string, seq: number): boolean {
  let names: string[];
  try {
    names = readdirSync(gitDir).filter((n) => n.startsWith(PREFIX));
  } catch {
    return false;
  }
  const me = selfIdentity();
  const here = hostTag(me.host);
  for (const name of names) {
    const m = NAME.exec(name);
    // Another host's process cannot be judged by its pid: not waited for.
    if (m === null || m[3] !== here) continue;
    const pid = Number(m[1]);
    const start = m[2] === 'x' ? undefined : m[2];
    if (pid === me.pid && start === me.start) continue;
    if (removedIfDead(gitDir, name)) continue;
    let text: string;
    try {
      const bytes = readRegularFile(path.join(gitDir, name), { maxBytes: MAX_MARKER_BYTES });
      if (bytes === undefined) continue;
      text = bytes.toString('utf8');
    } catch {
      continue; // a link, a FIFO, too large: no marker of ours
    }
    const [dir, at] = text.trimEnd().split(' ');
    if (dir === journal && (at === undefined || Number(at) === seq)) return true;
  }
  return false;
}
