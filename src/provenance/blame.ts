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

/** The file's lines at one point of the timeline and, for each, the step that last wrote it. */
interface State {
  lines: readonly string[];
  origins: readonly (BlameOrigin | null)[];
}

/** `state` carried onto `lines`: kept lines keep their origin, the rest get `origin`. */
function carry(state: State, lines: readonly string[], origin: BlameOrigin | null): State {
  const map = matchLines(state.lines, lines);
  const origins = new Array<BlameOrigin | null>(lines.length);
  for (let j = 0; j < lines.length; j++) origins[j] = map[j]! >= 0 ? state.origins[map[j]!]! : origin;
  return { lines, origins };
}

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
  let state: State = { lines: [], origins: [] };
  let next = 0;
  const empties = (): void => {
    for (; next < changes.length && changes[next]!.oid === undefined; next++)
      state = carry(state, [], changes[next]!.origin);
  };
  const reads = changes.flatMap((c) => (c.oid === undefined ? [] : [c.oid]));
  await eachBlob(repo.top, reads, (_, content) => {
    empties();
    state = carry(state, splitLines(content?.toString('utf8') ?? ''), changes[next++]!.origin);
  });
  empties();
  state = carry(state, splitLines(bytes.toString('utf8')), null);
  const lines = state.lines.map((text, i) => ({ line: i + 1, text, origin: state.origins[i]! }));
  const recorded = lines.filter((l) => l.origin !== null).length;
  return { path: rel, lines, recorded, unrecorded: lines.length - recorded, warnings };
}
