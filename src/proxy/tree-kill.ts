import { readdirSync, readFileSync } from 'node:fs';

/** Parent pid and process group of a live process, from /proc (Linux), or undefined. */
function statOf(pid: number): { ppid: number; pgrp: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), pgrp: Number(f[2]) };
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root` (children first found, then theirs), from /proc. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const n of names) {
    if (!/^[0-9]+$/.test(n)) continue;
    const s = statOf(Number(n));
    if (s === undefined) continue;
    const list = children.get(s.ppid) ?? [];
    list.push(Number(n));
    children.set(s.ppid, list);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const c of children.get(queue.shift()!) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    /* gone already */
  }
}

/**
 * Ends a process and everything it started: the tree is read from /proc and
 * stopped first (SIGSTOP, so nothing forks meanwhile), then killed; a
 * descendant that leads its own process group has the whole group killed (an
 * agent's tool shell started `detached`). Repeated until nothing is left, at
 * most a few rounds. Off Linux only the process itself and its group are killed.
 */
export function killTree(pid: number): void {
  for (let round = 0; round < 5; round++) {
    const all = [pid, ...descendants(pid)].filter((p) => statOf(p) !== undefined || p === pid);
    for (const p of all) kill(p, 'SIGSTOP');
    for (const p of all) {
      const s = statOf(p);
      if (s !== undefined && s.pgrp === p && p !== process.pid) kill(-p, 'SIGKILL');
      kill(p, 'SIGKILL');
    }
    if (descendants(pid).length === 0) return;
  }
}
