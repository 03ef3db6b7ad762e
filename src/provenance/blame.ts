import { readdirSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors';
import { readBlobs } from '../git/commits';
import { repoInfo } from '../git/repo';
import { listSnapshots } from '../git/snapshot';
import { journalFile, journalsDir } from '../journal/layout';
import { readJournalFile } from '../journal/verify';
import { isSafeId } from '../util/ids';
import { readRegularFile } from '../util/nofollow';
import { matchLines, splitLines } from './line-match';

/**
 * `stepchain blame FILE` (docs/provenance.md, "Locally"): each line of a file
 * in the work tree with the recorded step that last wrote it, like `git blame`
 * over the recorded steps. The versions come from the per-step snapshot
 * commits of every verified journal of the project (a step counts only when
 * its snapshot names the step_hash the verified journal holds at its seq): a
 * step wrote the lines its snapshot added to the file relative to the snapshot
 * before it (the first step: the commit it was built on). Lines that appear
 * between steps (a person's edits, an unrecorded run) and lines no step wrote
 * are `unrecorded`.
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

interface Version {
  origin: BlameOrigin;
  ts: number;
  before: string;
  after: string;
}

type State = { text: string; origin: BlameOrigin | null }[];

/** `state` carried onto `text`: kept lines keep their origin, the rest get `origin`. */
function carry(state: State, text: string, origin: BlameOrigin | null): State {
  const lines = splitLines(text);
  const map = matchLines(
    state.map((s) => s.text),
    lines,
  );
  return lines.map((t, j) => (map[j]! >= 0 ? state[map[j]!]! : { text: t, origin }));
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
  const steps: { origin: BlameOrigin; ts: number; after: string; before: string }[] = [];
  let agents: string[];
  try {
    agents = readdirSync(journalsDir(root)).filter(isSafeId).sort();
  } catch {
    agents = []; // no journals yet
  }
  for (const agent of agents) {
    const snaps = listSnapshots(root, agent, env);
    if (snaps.size === 0) continue;
    let j;
    try {
      j = readJournalFile(journalFile(root, agent));
    } catch {
      continue; // no journal file in the directory
    }
    if (!j.ok) {
      warnings.push(`journal ${agent} does not verify: its steps count for nothing`);
      continue;
    }
    for (const { row } of j.entries) {
      const s = snaps.get(row.seq);
      if (s === undefined || s.step_hash !== row.step_hash) continue;
      const prev = snaps.get(row.seq - 1);
      const prevOk = prev !== undefined && prev.step_hash === j.entries[row.seq - 1]?.row.step_hash;
      steps.push({
        origin: { agent, seq: row.seq, step_hash: row.step_hash },
        ts: Number.isFinite(row.ts) ? row.ts : 0,
        after: `${s.commit}:${rel}`,
        before: prevOk ? `${prev.commit}:${rel}` : `${s.commit}^:${rel}`,
      });
    }
  }
  const blobs = await readBlobs(
    repo.top,
    steps.flatMap((s) => [s.before, s.after]),
  );
  const text = (name: string): string => blobs.get(name)?.toString('utf8') ?? '';
  const versions: Version[] = [];
  for (const s of steps) {
    const before = blobs.get(s.before);
    const after = blobs.get(s.after);
    if (before === after || (before !== undefined && after !== undefined && before.equals(after))) continue;
    versions.push({ origin: s.origin, ts: s.ts, before: text(s.before), after: text(s.after) });
  }
  versions.sort((a, b) =>
    a.ts !== b.ts
      ? a.ts - b.ts
      : a.origin.agent !== b.origin.agent
        ? a.origin.agent < b.origin.agent
          ? -1
          : 1
        : a.origin.seq - b.origin.seq,
  );
  let state: State = [];
  for (const v of versions) {
    state = carry(state, v.before, null); // what changed between steps is nobody's recorded step
    state = carry(state, v.after, v.origin);
  }
  state = carry(state, bytes.toString('utf8'), null);
  const lines = state.map((s, i) => ({ line: i + 1, text: s.text, origin: s.origin }));
  const recorded = lines.filter((l) => l.origin !== null).length;
  return { path: rel, lines, recorded, unrecorded: lines.length - recorded, warnings };
}
