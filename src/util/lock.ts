import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { IntegrityError } from '../errors';

/**
 * An exclusive lock held as a file created with O_EXCL, holding `pid host nonce`.
 *
 * Node has no flock(2). A lock whose owner process is gone (same host, pid no
 * longer alive) is stale: a writer killed mid-append must never block the next
 * one. Breaking is done by renaming the stale file to a unique name and checking
 * it is still the stale one, so two breakers cannot both win, and a lock taken
 * in between is put back.
 */
export interface LockOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepMs(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function isStale(owner: string): boolean {
  const [pid, host] = owner.split(' ');
  const n = Number(pid);
  if (!Number.isInteger(n) || n <= 0) return true; // torn lock file: its writer died mid-write
  return host === hostname() && !isAlive(n);
}

export function acquireLock(file: string, options: LockOptions = {}): () => void {
  const timeout = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeout;
  const me = `${process.pid} ${hostname()} ${Math.random().toString(36).slice(2)}`;
  let delay = 1;
  for (;;) {
    try {
      const fd = openSync(file, 'wx', 0o644);
      try {
        writeSync(fd, me);
      } finally {
        closeSync(fd);
      }
      return () => {
        // Only remove the lock if it is still ours.
        if (readOwner(file) === me) {
          try {
            unlinkSync(file);
          } catch {
            /* already gone */
          }
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const owner = readOwner(file);
    if (owner !== undefined && isStale(owner)) {
      breakStale(file, owner);
      continue;
    }
    if (Date.now() > deadline) {
      throw new IntegrityError(
        `${file}: locked by another writer (${owner?.split(' ').slice(0, 2).join(' on ') ?? 'unknown'}) for over ${timeout} ms`,
      );
    }
    sleepMs(delay);
    delay = Math.min(delay * 2, 50);
  }
}

function breakStale(file: string, owner: string): void {
  const aside = `${file}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(file, aside);
  } catch {
    return; // someone else broke or released it
  }
  const taken = readOwner(aside);
  if (taken === owner) {
    unlinkSync(aside);
    return;
  }
  // We moved a lock that was taken after we looked: put it back unless another was made.
  try {
    renameSync(aside, file);
  } catch {
    /* lost race; the lock file was replaced and the holder keeps its claim */
  }
}
