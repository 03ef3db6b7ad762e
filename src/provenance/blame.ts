import { readdirSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors';
import { blobIds, eachBlob } from '../git/commits';
import { repoInfo } from '../git/repo';
import { listSnapshots } from '../git/snapshot';
import { journalFile, journalsDir } from '../journal/layout';
import { UnverifiedJournalError, VerifiedSteps } from '../journal/read';
import { isSafeId } from '../util/ids';
import { pausePoint } from '../util/pause';
import { readRegularFile } from '../util/nofollow';
import { matchLines, splitLines } from './line-match';

/**
 * `stepchain blame FILE` (docs/provenance.md, "Locally"): each line of a file
 * in the work tree with the recorded step that last wrote it, like `git blame`
 * over the recorded steps. The versions come from the per-step snapshot
 * commits of every verified journal of the project (a step counts only when
 * its snapshot names the step_hash the verified journal holds at its seq), in
 * one timeline by the rows' ts: a step wrote the lines its snapshot added to the
 * file relative to the snapshot before it, of any agent (the first: the commit
 * it was built on). Lines from before the first step and lines added after the
 * last are `unrecorded`; an edit between two steps counts as the later step's
 * (the limit the recording has, docs/provenance.md).
 */
export interface BlameOrigin {
  agent: string;
  seq: number;
  step_hash: string;
}

export interface BlameLine {
  /** 1-based. */
  line: number;
  text: string;
  /** The step that last wrote the line, or null (unrecorded). */
  origin: BlameOrigin | null;
}

export interface BlameResult {
  /** The file's path in the repository (relative to its top, `/`-separated). */
  path: string;
  lines: BlameLine[];
  recorded: number;
  unrecorded: number;
  /** Journals that do not verify (their steps count for nothing), one line each. */
  warnings: string[];
}

/**
 * The file at one point of the timeline: its bytes, its lines and, for each, the step that last wrote it. The
 * arrays are the timeline's own: each version is carried onto them in place (`carry`).
 */
export interface State {
  bytes: Buffer;
  lines: string[];
  origins: (BlameOrigin | null)[];
}

const NL = 0x0a;

/** How many line breaks `buf` holds in [from, to). */
function breaks(buf: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = buf.indexOf(NL, from); i >= 0 && i < to; i = buf.indexOf(NL, i + 1)) n++;
  return n;
}

/** The longest `n` up to `max` for which `same(n)` (true of 0, and of every n below one it is true of). */
function longest(max: number, same: (n: number) => boolean): number {
  let lo = 0;
  let hi = max;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (same(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The lines of `now`, given the bytes `was`: the `kept` whole lines both start with and the `last` whole lines both
 * end with are those of `was` (equal bytes up to a line break are equal text: UTF-8
 * decoding starts afresh at a line break), and only the lines `between` are decoded and split.
 */
function lineDelta(was: Buffer, now: Buffer): { kept: number; last: number; between: string[] } {
  const n = Math.min(was.length, now.length);
  const p = longest(n, (k) => was.compare(now, 0, k, 0, k) === 0);
  const head = p === 0 ? 0 : was.lastIndexOf(NL, p - 1) + 1; // bytes of the whole lines both start with
  const s = longest(n - head, (k) => was.compare(now, now.length - k, now.length, was.length - k, was.length) === 0);
  const starts = (b: Buffer, k: number): boolean => k === b.length || b[b.length - k - 1] === NL;
  let tail = s; // bytes of the whole lines both end with
  if (!(starts(was, s) && starts(now, s))) {
    const q = was.indexOf(NL, was.length - s);
    tail = q < 0 ? 0 : was.length - q - 1;
  }
  const kept = breaks(was, 0, head);
  const last = tail === 0 ? 0 : breaks(was, was.length - tail, was.length) + (was[was.length - 1] === NL ? 0 : 1);
  return { kept, last, between: splitLines(now.toString('utf8', head, now.length - tail)) };
}

/** `splitLines` of `now` as text, from `lineDelta`: equal strings to the whole file's split. */
export function linesOf(was: Buffer, lines: readonly string[], now: Buffer): string[] {
  const { kept, last, between } = lineDelta(was, now);
  return [...lines.slice(0, kept), ...between, ...lines.slice(lines.length - last)];
}

/**
 * `state` carried onto the bytes `now`: kept lines keep their origin, the rest get `origin`. The lines kept are
 * matched as `matchLines` matches the two versions whole (the same common prefix and suffix, then the same longest
 * common subsequence of the lines between), but only the lines between are looked at or moved: the arrays are
 * edited in place. Copying a 100,000-line file's lines and origins whole for each version was most of blame's time.
 */
export function carry(state: State, now: Buffer, origin: BlameOrigin | null): State {
  const { lines, origins } = state;
  const { kept, last, between } = lineDelta(state.bytes, now);
  const size = kept + between.length + last;
  // Line i of the new version: the first `kept` and last `last` are the same strings as the old version's.
  const at = (i: number): string =>
    i < kept ? lines[i]! : i < kept + between.length ? between[i - kept]! : lines[lines.length - size + i]!;
  // matchLines' common prefix and suffix, from where the two versions are known to share their lines.
  let pre = kept;
  while (pre < lines.length && pre < size && lines[pre] === at(pre)) pre++;
  let suf = Math.min(last, lines.length - pre, size - pre);
  while (suf < lines.length - pre && suf < size - pre && lines[lines.length - 1 - suf] === at(size - 1 - suf)) suf++;
  // Between them the two versions' first lines differ and their last lines differ (or one side is empty), so
  // matchLines of the two middles strips nothing more: its map is the whole versions' map, moved by `pre`.
  const oldMiddle = lines.slice(pre, lines.length - suf);
  const newMiddle: string[] = [];
  for (let i = pre; i < size - suf; i++) newMiddle.push(at(i));
  const map = matchLines(oldMiddle, newMiddle);
  const newOrigins = newMiddle.map((_, j) => (map[j]! >= 0 ? origins[pre + map[j]!]! : origin));
  return {
    bytes: now,
    lines: replaced(lines, pre, oldMiddle.length, newMiddle),
    origins: replaced(origins, pre, oldMiddle.length, newOrigins),
  };
}

/** `items` in place of `count` elements of `list` from `at`: in place, or as a new array for a huge middle. */
function replaced<T>(list: T[], at: number, count: number, items: T[]): T[] {
  // splice takes its items as arguments: a middle of hundreds of thousands would overflow the stack.
  if (items.length > 10_000) return list.slice(0, at).concat(items, list.slice(at + count));
  list.splice(at, count, ...items);
  return list;
}

const EMPTY = Buffer.alloc(0);

export async function blameFile(
  root: string,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<BlameResult> {
  const repo = repoInfo(root, env);
  if (repo === undefined) throw new InputError(`${root} is not in a git work tree: blame reads the per-step snapshots`);
  const abs = path.resolve(file);
  const rel = path.relative(repo.top, abs).split(path.sep).join('/');
  if (rel === '' || rel.startsWith('../') || rel === '..' || path.isAbsolute(rel))
    throw new InputError(`${file}: not a file of the work tree ${repo.top}`);
  if (/[\n\r]/.test(rel)) throw new InputError(`${file}: a path holding a line break cannot be looked up`);
  const bytes = readRegularFile(abs);
  if (bytes === undefined) throw new InputError(`${file}: no such regular file (a link is never followed)`);

  const warnings: string[] = [];
  const steps: { origin: BlameOrigin; ts: number; commit: string }[] = [];
  let agents: string[];
  try {
    agents = readdirSync(journalsDir(root)).filter(isSafeId).sort();
  } catch {
    agents = []; // no journals yet
  }
  for (const agent of agents) {
    const snaps = listSnapshots(root, agent, env);
    if (snaps.size === 0) continue;
    // Verified where it lies, then read a block at a time: memory does not follow the journal's size.
    let j: VerifiedSteps;
    try {
      j = VerifiedSteps.open(journalFile(root, agent), { env });
    } catch (e) {
      if (e instanceof UnverifiedJournalError)
        warnings.push(`journal ${agent} does not verify: its steps count for nothing`);
      continue; // or no journal file in the directory
    }
    // Verified, no row read yet (a test changes the journal here).
    pausePoint('blame:verified', env);
    for (const m of j.marks()) {
      const s = snaps.get(m.seq);
      if (s === undefined || s.step_hash !== m.step_hash) continue;
      steps.push({
        origin: { agent, seq: m.seq, step_hash: m.step_hash },
        ts: Number.isFinite(m.ts) ? m.ts : 0,
        commit: s.commit,
      });
    }
  }
  // One timeline of the work tree: every agent's snapshots by time (then agent, then seq).
  steps.sort((a, b) =>
    a.ts !== b.ts
      ? a.ts - b.ts
      : a.origin.agent !== b.origin.agent
        ? a.origin.agent < b.origin.agent
          ? -1
          : 1
        : a.origin.seq - b.origin.seq,
  );
  // What each snapshot holds at the path, by blob id (nothing of the contents read yet): the timeline's changes are
  // where the id differs from the one before (the same id is the same lines: nothing to carry), a missing path
  // (or one that names no file: a directory, a submodule) counting as empty. The first: the commit the first step
  // was built on.
  const start = steps[0] === undefined ? [] : [`${steps[0].commit}^:${rel}`];
  const ids = await blobIds(repo.top, [...start, ...steps.map((s) => `${s.commit}:${rel}`)]);
  let prev = start.length === 0 ? undefined : ids[0]?.oid;
  const changes: { oid: string | undefined; origin: BlameOrigin | null }[] = [{ oid: prev, origin: null }];
  for (const [i, s] of steps.entries()) {
    const oid = ids[i + start.length]?.oid;
    if (oid === prev) continue;
    changes.push({ oid, origin: s.origin });
    prev = oid;
  }
  // Each step wrote what its snapshot holds that the snapshot before it (of any agent) did not: the contents of
  // the changes are read in order, one blob at a time, and carried as they come.
  let state: State = { bytes: EMPTY, lines: [], origins: [] };
  let next = 0;
  const empties = (): void => {
    for (; next < changes.length && changes[next]!.oid === undefined; next++)
      state = carry(state, EMPTY, changes[next]!.origin);
  };
  const reads = changes.flatMap((c) => (c.oid === undefined ? [] : [c.oid]));
  await eachBlob(repo.top, reads, (_, content) => {
    empties();
    state = carry(state, content ?? EMPTY, changes[next++]!.origin);
  });
  empties();
  state = carry(state, bytes, null);
  const lines = state.lines.map((text, i) => ({ line: i + 1, text, origin: state.origins[i]! }));
  const recorded = lines.filter((l) => l.origin !== null).length;
  return { path: rel, lines, recorded, unrecorded: lines.length - recorded, warnings };
}
