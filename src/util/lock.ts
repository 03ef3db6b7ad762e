import { randomBytes } from 'node:crypto';
import { linkSync, lstatSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { IntegrityError, InputError, isOsError, osCause, osError } from '../errors';
import { cleanDeadTemps, tempPath } from './fs';
import { PRIVATE_FILE_MODE } from './modes';
import { processCommand, processStartMs, sameProcessAlive, selfIdentity } from './proc';
import { readRegularFile, refuseLinkedStoreDirs } from './nofollow';
import { pausePoint } from './pause';
import { monotonicMs, sleepMs } from './time';

/**
 * An exclusive lock held as a file naming its holder, created whole: the
 * content is written to a private temporary file first and hard-linked into
 * place (link(2) fails if the name exists), so no one ever sees a lock file
 * without its holder in it. The content is one line:
 *
 *   <pid> <host> <nonce> start=<start ticks> boot=<boot id> lease=<ms>
 *
 * (the first three words are what earlier releases wrote and read). Node has
 * no flock(2), so a lock whose holder is gone must be recognised and broken,
 * or a writer killed mid-append would block every later one:
 * - same host: the holder is gone when its pid is not running, or runs a
 *   process that started at another time (pid reuse: the start time from
 *   /proc/<pid>/stat is recorded), or the machine rebooted since (boot id);
 * - another host (a shared file system): the holder refreshes the lock file's
 *   mtime while it works (its lease); a lock not refreshed for a lease, as
 *   measured on the waiter's own clock (so clock skew does not matter), or
 *   whose mtime is older than lease + 60 s, is stale.
 * Breaking is done by one waiter at a time (`breakStale`: it holds `<lock>.break`,
 * made as the lock is), which removes the lock only while it is still the one
 * judged stale. Whoever held the lock removes what dead processes left in its
 * directory (their temporary files: see `cleanDeadTemps`) once it has released
 * it, never while it holds it.
 */
export interface LockOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
  /** How long this holder's lock stays valid for other hosts without a refresh (default 20 s). */
  leaseMs?: number;
}

/** A held lock: call it to release. */
export interface LockHandle {
  (): void;
  readonly file: string;
  /** Renews the lease when a quarter of it has passed (cheap to call often). */
  refresh(): void;
  /** Renews the lease on a timer until released (for work that awaits). */
  heartbeat(): void;
  /** Throws unless the lock is still ours (call before writing). */
  assertHeld(): void;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 30_000;

/** The lock timeout an environment asks for (`STEPCHAIN_LOCK_TIMEOUT_MS`), else undefined (the default). */
export function lockTimeoutFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const v = env.STEPCHAIN_LOCK_TIMEOUT_MS;
  return v !== undefined && /^[0-9]{1,9}$/.test(v.trim()) ? Number(v.trim()) : undefined;
}
export const DEFAULT_LEASE_MS = 20_000;
/** Clock skew tolerated between hosts before an old mtime alone makes a lease expired. */
const CLOCK_SLACK_MS = 60_000;

/** A lock file's holder, as written (fields after the first three are optional). */
export interface LockHolder {
  raw: string;
  pid: number;
  host: string;
  start?: string;
  boot?: string;
  leaseMs?: number;
}

export function parseHolder(raw: string): LockHolder | undefined {
  const words = raw.trim().split(' ');
  const pid = Number(words[0]);
  if (!/^[0-9]+$/.test(words[0] ?? '') || !Number.isSafeInteger(pid) || pid <= 0 || words[1] === undefined)
    return undefined;
  const h: LockHolder = { raw, pid, host: words[1] };
  for (const w of words.slice(3)) {
    const eq = w.indexOf('=');
    const k = w.slice(0, eq);
    const v = w.slice(eq + 1);
    if (k === 'start' && /^[0-9]+$/.test(v)) h.start = v;
    else if (k === 'boot' && v !== '') h.boot = v;
    else if (k === 'lease' && /^[0-9]+$/.test(v)) h.leaseMs = Number(v);
  }
  return h;
}

/** A lock's bytes are a line of text: anything longer is not a lock. */
const MAX_LOCK_BYTES = 4096;

/**
 * The lock's content and mtime; undefined when there is none (released
 * meanwhile). Anything but a regular file in its place (a link, a FIFO, a
 * directory) is refused, naming it: it would never be released.
 */
function readLock(file: string): { raw: string; mtimeMs: number } | undefined {
  const bytes = readRegularFile(file, { maxBytes: MAX_LOCK_BYTES });
  if (bytes === undefined) return undefined;
  try {
    return { raw: bytes.toString('utf8'), mtimeMs: lstatSync(file).mtimeMs };
  } catch {
    return undefined;
  }
}

function readOwner(file: string): string | undefined {
  try {
    return readRegularFile(file, { maxBytes: MAX_LOCK_BYTES })?.toString('utf8');
  } catch {
    return undefined;
  }
}

/** Why a lock is stale, or undefined while its holder may still be working. */
function staleness(
  seen: { raw: string; mtimeMs: number },
  firstSeen: number,
  now: number,
): { stale: string } | { live: LockHolder | undefined; lease?: number } {
  const h = parseHolder(seen.raw);
  if (h === undefined) {
    // Not ours (we create lock files whole): stale once it has been there a while.
    return Date.now() - seen.mtimeMs > 10_000 ? { stale: 'the lock names no holder' } : { live: undefined };
  }
  if (h.host === selfIdentity().host) {
    return sameProcessAlive(h.pid, h.start, h.boot, seen.mtimeMs)
      ? { live: h }
      : { stale: `its holder (pid ${h.pid}) is gone` };
  }
  const lease = h.leaseMs ?? DEFAULT_LEASE_MS;
  if (Date.now() - seen.mtimeMs > lease + CLOCK_SLACK_MS) return { stale: `the lease of host ${h.host} expired` };
  if (now - firstSeen >= lease) return { stale: `host ${h.host} stopped refreshing its lease` };
  return { live: h, lease };
}

function describeHolder(h: LockHolder | undefined, seen: { mtimeMs: number } | undefined): string {
  if (h === undefined) return 'an unknown writer (the lock file names no process)';
  const age =
    seen === undefined ? '' : `, lock taken or renewed ${((Date.now() - seen.mtimeMs) / 1000).toFixed(1)} s ago`;
  if (h.host !== selfIdentity().host) return `pid ${h.pid} on host ${h.host}${age}`;
  const cmd = processCommand(h.pid);
  const began = processStartMs(h.pid);
  const since = began === undefined ? '' : `, running for ${((Date.now() - began) / 1000).toFixed(0)} s`;
  return `pid ${h.pid} on this host${cmd === undefined ? '' : ` (${cmd})`}${since}${age}`;
}

function timeoutError(file: string, h: LockHolder | undefined, seen: { mtimeMs: number } | undefined, ms: number) {
  const holder = describeHolder(h, seen);
  const remedy =
    h === undefined
      ? `if no stepchain process is using it, remove the lock: rm ${file}`
      : h.host === selfIdentity().host
        ? `wait for it to finish, or stop it if it is stuck (kill ${h.pid}); if that process is not stepchain, remove the lock: rm ${file}`
        : `it is still renewing its lease: wait for that writer on ${h.host} to finish or stop it there; if it is gone the lease expires on its own, or remove the lock: rm ${file}`;
  return new IntegrityError(`${file}: locked by ${holder}; gave up after ${ms} ms. Remedy: ${remedy}`);
}

export function acquireLock(file: string, options: LockOptions = {}): LockHandle {
  return takeLock(file, options, true)!;
}

/**
 * acquireLock without waiting for a live holder: the lock, or undefined while one holds it (or another waiter is
 * breaking it, and will hold it). A stale lock is broken first, by the same rules and by one taker at a time, so of
 * several that find it stale one takes it; the release removes only this taker's own lock, as acquireLock's does.
 */
export function tryLock(file: string, options: Pick<LockOptions, 'leaseMs'> = {}): LockHandle | undefined {
  return takeLock(file, options, false);
}

/**
 * How often tryLock looks again at a lock that was released or broken as it looked (breaking a stale lock and a
 * stale breaker's file takes two): past it, the lock is taken as held by whoever keeps changing it.
 */
const TRY_LOOKS = 8;

function takeLock(file: string, options: LockOptions, wait: boolean): LockHandle | undefined {
  const timeout = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const lease = options.leaseMs ?? DEFAULT_LEASE_MS;
  let deadline = monotonicMs() + timeout;
  const id = selfIdentity();
  const me =
    `${id.pid} ${id.host} ${randomBytes(6).toString('hex')}` +
    `${id.start === undefined ? '' : ` start=${id.start}`}${id.boot === undefined ? '' : ` boot=${id.boot}`} lease=${lease}`;
  let delay = 1;
  refuseLinkedStoreDirs(path.dirname(file));
  const tmp = tempPath(file);
  try {
    writeFileSync(tmp, me, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* never created */
    }
    if (isOsError(e)) throw osError(e, file, 'cannot take the lock');
    throw e;
  }
  const firstSeen = new Map<string, number>();
  const holderSeen = new Map<string, number>();
  let looks = 0;
  let quick = 0;
  try {
    // Every way round reaches the deadline (or, for tryLock, the count of looks): a way that did not (a stale lock
    // whose removal failed, judged stale again at once) spun without end.
    for (;;) {
      if (!wait && looks++ === TRY_LOOKS) return undefined;
      if (tryLink(tmp, file)) {
        removeQuietly(tmp);
        return handle(file, me, lease);
      }
      const seen = readLock(file);
      const now = monotonicMs();
      let live: { live: LockHolder | undefined; lease?: number } | undefined;
      if (seen !== undefined) {
        if (!holderSeen.has(seen.raw)) holderSeen.set(seen.raw, now);
        const s = staleness(seen, seenSince(firstSeen, seen, now), now);
        // A stale lock is broken by one waiter at a time: while another is at it, this one waits for it as for a holder.
        live = 'stale' in s ? breakStale(file, seen, s.stale, tmp, me, firstSeen) : s;
      }
      if (live === undefined) {
        // Released or broken as we looked: look again at once, a few times in a row; past that, as for a holder.
        if (!wait || quick++ < TRY_LOOKS) continue;
        if (now > deadline)
          throw new IntegrityError(
            `${file}: the lock kept changing as this writer looked; gave up after ${timeout} ms. Remedy: if no stepchain process is using it, remove the lock: rm ${file}`,
          );
      } else {
        quick = 0;
        if (!wait) return undefined;
        // A holder on another host gets one full lease of watching (from when we first saw it) before we give up.
        if (live.lease !== undefined) deadline = Math.max(deadline, holderSeen.get(seen!.raw)! + live.lease + 50);
        if (now > deadline) throw timeoutError(file, live.live, seen, timeout);
      }
      sleepMs(delay);
      delay = Math.min(delay * 2, 50);
    }
  } finally {
    removeQuietly(tmp);
  }
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    /* already gone */
  }
}

/**
 * Removes the stale lock (or breaker's file) `file`, judged stale because `why`. Gone already is fine (another waiter
 * broke it); any other failure (the directory is not writable by this user, a sticky directory and another user's
 * lock, a read-only file system) is refused at once, naming it: waiting would not change it, and judging it stale
 * again and again spun without end.
 */
function removeStale(file: string, why: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if (!isOsError(e)) throw e;
    if (e.code === 'ENOENT') return;
    throw new InputError(
      `${file}: cannot remove this stale lock (${why}): ${osCause(e, file)}. Remedy: remove it as a user who may: rm ${file}`,
    );
  }
}

function tryLink(tmp: string, file: string): boolean {
  try {
    linkSync(tmp, file);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'ENOENT')
      throw new InputError(`${file}: cannot take the lock: its directory ${path.dirname(file)} no longer exists`);
    if (isOsError(e)) throw osError(e, file, 'cannot take the lock');
    throw e;
  }
}

function handle(file: string, me: string, lease: number): LockHandle {
  let renewed = monotonicMs();
  let timer: NodeJS.Timeout | undefined;
  let released = false;
  const renew = (): void => {
    if (released || readOwner(file) !== me) return;
    const t = new Date();
    try {
      utimesSync(file, t, t);
      renewed = monotonicMs();
    } catch {
      /* the next refresh tries again */
    }
  };
  const release = (): void => {
    if (released) return;
    released = true;
    if (timer !== undefined) clearInterval(timer);
    // Only our own lock is removed (one taken over after our lease ran out is left to its holder).
    if (readOwner(file) === me) removeQuietly(file);
    // What dead writers left is removed once the lock is released, never while it is held: every waiter has a
    // staging file here, and judging each (a /proc read) under the lock made a hold grow with the queue behind it
    // (50 hooks of one session at once on a loaded machine held it seconds each, and half of them gave up after
    // 30 s: lost steps). Once per lock, at release: what died while this one waited is gone too.
    pausePoint('lock:clean-temps');
    cleanDeadTemps(path.dirname(file));
  };
  return Object.assign(release, {
    file,
    refresh(): void {
      if (monotonicMs() - renewed >= lease / 4) renew();
    },
    heartbeat(): void {
      if (timer !== undefined || released) return;
      timer = setInterval(renew, Math.max(50, Math.floor(lease / 4)));
      timer.unref();
    },
    assertHeld(): void {
      if (released || readOwner(file) !== me) {
        throw new IntegrityError(
          `${file}: this writer's lock was taken over (its lease expired while it worked); nothing was written`,
        );
      }
    },
  });
}

/** When this waiter first saw the lock `seen` as it is now (a renewal, a new mtime, restarts a lease). */
function seenSince(firstSeen: Map<string, number>, seen: { raw: string; mtimeMs: number }, now: number): number {
  const key = `${seen.mtimeMs} ${seen.raw}`;
  if (!firstSeen.has(key)) firstSeen.set(key, now);
  return firstSeen.get(key)!;
}

/**
 * Removes the lock `file`, judged stale as `seen`, unless another waiter is breaking it: that one then (its
 * `<file>.break` is there), undefined when this one did or the lock is another by now. The breaker's file is this
 * waiter's staging file (`tmp`, holding `me`) linked into place, as a lock is taken, and the lock is removed only
 * while it is still the one judged (its content, with its nonce, and its mtime). Breaking by moving the lock aside,
 * checking it and putting back a lock taken meanwhile left a moment with no lock file at all: a third waiter took
 * the lock then, and the one whose lock had been moved aside held it too. A breaker's file whose holder is gone
 * (killed between its two steps) is judged as a lock is, and removed.
 */
function breakStale(
  file: string,
  seen: { raw: string; mtimeMs: number },
  why: string,
  tmp: string,
  me: string,
  firstSeen: Map<string, number>,
): { live: LockHolder | undefined; lease?: number } | undefined {
  const breaker = `${file}.break`;
  if (!tryLink(tmp, breaker)) {
    const other = readLock(breaker);
    if (other === undefined) return undefined; // that breaker is done: look again
    if (other.raw === me) {
      removeQuietly(breaker); // this waiter's own, left by a removal that failed: never waited for
      return undefined;
    }
    const now = monotonicMs();
    const s = staleness(other, seenSince(firstSeen, other, now), now);
    if (!('stale' in s)) return s;
    if (readOwner(breaker) === other.raw) removeStale(breaker, `a waiter breaking ${path.basename(file)}: ${s.stale}`);
    return undefined;
  }
  try {
    pausePoint('lock:break');
    const now = readLock(file);
    if (now !== undefined && now.raw === seen.raw && now.mtimeMs === seen.mtimeMs) removeStale(file, why);
  } finally {
    if (readOwner(breaker) === me) removeQuietly(breaker);
  }
  return undefined;
}

/** Who holds a lock, when a live holder does (undefined: free, or stale and breakable). */
export function liveLockHolder(file: string): string | undefined {
  const seen = readLock(file);
  if (seen === undefined) return undefined;
  const now = monotonicMs();
  const s = staleness(seen, now, now);
  return 'stale' in s ? undefined : describeHolder(s.live, seen);
}
