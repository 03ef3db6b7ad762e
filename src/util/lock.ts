import { linkSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { IntegrityError } from '../errors';

/**
 * An exclusive lock held as a file holding `pid host nonce`, created whole: the
 * content is written to a private temporary file first and hard-linked into
 * place (link(2) fails if the name exists), so no one ever sees a lock file
 * without its owner in it.
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

function isStale(file: string, owner: string): boolean {
  const [pid, host] = owner.split(' ');
  const n = Number(pid);
  if (!Number.isInteger(n) || n <= 0) {
    // Not ours (we create lock files whole): stale once it has been there a while.
    try {
      return Date.now() - statSync(file).mtimeMs > 10_000;
    } catch {
      return false;
    }
  }
  return host === hostname() && !isAlive(n);
}

export function acquireLock(file: string, options: LockOptions = {}): () => void {
  const timeout = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeout;
  const me = `${process.pid} ${hostname()} ${Math.random().toString(36).slice(2)}`;
  let delay = 1;
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, me, { mode: 0o644 });
  try {
    for (;;) {
      if (tryLink(tmp, file)) return releaser(file, me);
      const owner = readOwner(file);
      if (owner !== undefined && isStale(file, owner)) {
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
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
  }
}

function tryLink(tmp: string, file: string): boolean {
  try {
    linkSync(tmp, file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

function releaser(file: string, me: string): () => void {
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
    linkSync(aside, file);
  } catch {
    /* lost race: another lock was made meanwhile */
  }
  try {
    unlinkSync(aside);
  } catch {
    /* already gone */
  }
}
