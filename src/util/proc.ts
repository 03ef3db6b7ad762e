import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who a process is, robustly against pid reuse: its pid plus its start time
 * (field 22 of /proc/<pid>/stat, clock ticks since boot) and the boot id. A
 * pid that is alive but started at another time is another process. Where
 * /proc is missing (not Linux) the start time is unknown and only the pid's
 * liveness is checked.
 */

/** Start time of a process in clock ticks since boot, or undefined (gone, or no /proc). */
export function processStartTicks(pid: number): string | undefined {
  const start = statFields(pid)?.[19]; // field 22 overall; fields here start at field 3
  return start !== undefined && /^[0-9]+$/.test(start) ? start : undefined;
}

/** /proc/<pid>/stat from its third field on (the state), or undefined off Linux or once the process is gone. */
function statFields(pid: number): string[] | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

let cachedBoot: string | null | undefined;
/** The kernel's boot id (changes at every boot), or undefined off Linux. */
export function bootId(): string | undefined {
  if (cachedBoot === undefined) {
    try {
      cachedBoot = readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim() || null;
    } catch {
      cachedBoot = null;
    }
  }
  return cachedBoot ?? undefined;
}

let cachedBootMs: number | null | undefined;
/** When the system booted (unix ms, 1 s resolution), from /proc/stat. */
function bootTimeMs(): number | undefined {
  if (cachedBootMs === undefined) {
    try {
      const m = /^btime ([0-9]+)$/m.exec(readFileSync('/proc/stat', 'latin1'));
      cachedBootMs = m === null ? null : Number(m[1]) * 1000;
    } catch {
      cachedBootMs = null;
    }
  }
  return cachedBootMs ?? undefined;
}

/** Clock ticks per second for /proc start times (USER_HZ: 100 on every Linux ABI in use). */
const USER_HZ = 100;

/** When a process started (unix ms, within about a second), or undefined. */
export function processStartMs(pid: number): number | undefined {
  const ticks = processStartTicks(pid);
  const boot = bootTimeMs();
  if (ticks === undefined || boot === undefined) return undefined;
  return boot + (Number(ticks) * 1000) / USER_HZ;
}

/** Whether a pid names a live process (EPERM: alive, someone else's). */
export function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface ProcessIdentity {
  pid: number;
  host: string;
  /** Start ticks (undefined off Linux). */
  start: string | undefined;
  boot: string | undefined;
}

let self: ProcessIdentity | undefined;
export function selfIdentity(): ProcessIdentity {
  if (self === undefined || self.pid !== process.pid) {
    self = { pid: process.pid, host: hostname(), start: processStartTicks(process.pid), boot: bootId() };
  }
  return self;
}

/**
 * Whether the process that wrote a record (pid, and its start ticks and boot
 * id when recorded) is still running on this host. `since` (unix ms) is when
 * the record was last written: for a record without start ticks, a live pid
 * whose process started clearly after it is another process.
 */
export function sameProcessAlive(
  pid: number,
  start: string | undefined,
  boot: string | undefined,
  since?: number,
): boolean {
  const now = bootId();
  if (boot !== undefined && now !== undefined && boot !== now) return false; // written before a reboot
  if (!pidAlive(pid)) return false;
  // A zombie (killed or exited, not yet collected by its parent) answers kill(0) and keeps its start ticks, but runs
  // no more: a killed hook's snapshot directory was kept until its agent collected it.
  if (statFields(pid)?.[0] === 'Z') return false;
  const current = processStartTicks(pid);
  if (start !== undefined && current !== undefined) return current === start;
  if (start === undefined && since !== undefined) {
    const began = processStartMs(pid);
    // /proc/stat's btime has 1 s resolution: allow 2 s before calling it a different process.
    if (began !== undefined && began > since + 2000) return false;
  }
  return true;
}

/** The command line of a live process, for messages (best-effort, shortened). */
export function processCommand(pid: number): string | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    const clean = raw.replace(/[\x00-\x1f\x7f-\x9f]/g, '?');
    return clean.length > 80 ? `${clean.slice(0, 77)}...` : clean || undefined;
  } catch {
    return undefined;
  }
}

/** 8 hex digits naming a host (temporary file names carry it). */
export function hostTag(host: string): string {
  return createHash('sha256').update(host).digest('hex').slice(0, 8);
}

/** The token temporary files carry in their names: `<pid>-<start ticks or x>-<host tag>`. */
export function selfToken(): string {
  const me = selfIdentity();
  return `${me.pid}-${me.start ?? 'x'}-${hostTag(me.host)}`;
}
