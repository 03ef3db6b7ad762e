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

/** The file at one point of the timeline: its bytes, its lines and, for each, the step that last wrote it. */
interface State {
  bytes: Buffer;
  lines: readonly string[];
  origins: readonly (BlameOrigin | null)[];
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
 * `splitLines` of `now` as text, given the bytes `was` whose lines are `lines`: the whole lines both start with and
 * both end with are taken from `lines` (equal bytes up to a line break are equal text: UTF-8 decoding starts afresh
 * at a line break), only the lines between are decoded and split. Equal strings to the whole file's split.
 */
export function linesOf(was: Buffer, lines: readonly string[], now: Buffer): string[] {
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
  // Filled in place: spreading slices of a 100,000-line file cost ~10 ms a version (11 of blame's 24 s over 1,000).
  const between = splitLines(now.toString('utf8', head, now.length - tail));
  const out = new Array<string>(kept + between.length + last);
  let j = 0;
  for (let i = 0; i < kept; i++) out[j++] = lines[i]!;
  for (const l of between) out[j++] = l;
  for (let i = lines.length - last; i < lines.length; i++) out[j++] = lines[i]!;
  return out;
}

/** `state` carried onto the bytes `now`: kept lines keep their origin, the rest get `origin`. */
function carry(state: State, now: Buffer, origin: BlameOrigin | null): State {
  const lines = linesOf(state.bytes, state.lines, now);
  const map = matchLines(state.lines, lines);
  const origins = new Array<BlameOrigin | null>(lines.length);
  for (let j = 0; j < lines.length; j++) origins[j] = map[j]! >= 0 ? state.origins[map[j]!]! : origin;
  return { bytes: now, lines, origins };
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
