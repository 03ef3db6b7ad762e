import { existsSync } from 'node:fs';
import { InputError } from '../errors';
import { Cas, CAS_BATCH_FILES, casDir, journalFile, newCasBatch, VerifiedSteps } from '../journal';
import { sha256Hex } from '../util/hash';
import { listSnapshots, type SnapshotInfo } from '../git/snapshot';
import { plural } from '../util/words';

import type { JsonObject } from '../canonical';
import { readSessionFile, sessionFile } from './names';

/**
 * The parent side of a fork: its session file and verified journal, the prefix a fork is seeded with, and the
 * snapshots of that prefix (the fork's files and what it inherits).
 */

/** The snapshot of `seq` for a session, but only if it is the snapshot of *this* step (same step_hash). */
export function matchingSnapshot(
  snaps: Map<number, SnapshotInfo>,
  seq: number,
  stepHash: string,
): SnapshotInfo | undefined {
  const s = snaps.get(seq);
  return s !== undefined && s.step_hash === stepHash ? s : undefined;
}

/**
 * Gives the fork the blobs of the steps it inherits, so the fork is whole on its own (`show`, `export`,
 * `receipt verify --require-blobs` in the fork see them). Copied, never hard-linked: the fork's CAS lies in
 * a worktree an agent may write, and a hard link would let it rewrite the parent's blob in place. Each
 * blob is checked against its digest before it is stored. Returns the digests that could not be copied.
 */
export async function copyPrefixBlobs(root: string, worktree: string, digests: readonly string[]): Promise<string[]> {
  const from = new Cas(casDir(root), false);
  // No store, no blob: one look, not one per blob (a fork of 100,000 steps spent 2.6 s asking for each).
  if (from.missing()) return [...digests];
  const to = new Cas(casDir(worktree));
  const batch = newCasBatch();
  const missing: string[] = [];
  for (const d of digests) {
    const bytes = from.get(d);
    if (bytes === undefined || sha256Hex(bytes) !== d) missing.push(d);
    else to.put(bytes, batch);
    if (batch.files.length >= CAS_BATCH_FILES) await to.sync(batch);
  }
  await to.sync(batch);
  return missing;
}

/** What a fork takes from its parent session. */
export interface ParentSide {
  parentSession: JsonObject | undefined;
  /** The verified rows 0..N, each "\n"-terminated (what the fork's journal is seeded with). */
  prefix: Buffer | undefined;
  /** The step_hash of each step 0..N (what the prefix's snapshots are matched with). */
  prefixHashes: string[];
  /** The blob digests steps 0..N name, first occurrence, unique (what the fork's CAS is given). */
  prefixRefs: string[];
  parentStepHash: string | null;
}

const NEWLINE = 0x0a;

/**
 * The parent session: its session file, its journal (which must verify, fail-closed), the prefix to seed. The
 * journal is verified where it lies and steps 0..N read back once, a block at a time: a fork of a large journal
 * holds its prefix's bytes, never every row parsed (a 129 MB journal forked at step 50,000 took 839 MB).
 */
export function readParent(root: string, sessionId: string, fromStep: number | undefined): ParentSide {
  const parentJournal = journalFile(root, sessionId);
  const parentSessionFile = sessionFile(root, sessionId);
  const hasJournal = existsSync(parentJournal);
  const parentSession = readSessionFile(parentSessionFile);
  if (!hasJournal && parentSession === undefined) {
    throw new InputError(
      `no session ${JSON.stringify(sessionId)} under ${root} (looked for ${parentJournal} and ${parentSessionFile})`,
    );
  }
  if (fromStep !== undefined && !hasJournal)
    throw new InputError(
      `session ${JSON.stringify(sessionId)} has no journal (looked for ${parentJournal})`,
      'fromStep',
    );
  // The parent chain must verify (fail-closed), with or without --from-step.
  const parent = hasJournal ? VerifiedSteps.open(parentJournal) : undefined;
  const none = { parentSession, prefix: undefined, prefixHashes: [], prefixRefs: [], parentStepHash: null };
  if (fromStep === undefined) return none;
  const steps = parent!.length;
  if (fromStep >= steps) {
    throw new InputError(
      `${parentJournal}: step ${fromStep} is out of range (the journal has ${plural(steps, 'step')}${steps > 0 ? `, 0..${steps - 1}` : ''})`,
    );
  }
  // The verified rows' own bytes (so what is seeded is what was verified), each "\n"-terminated: into one buffer
  // as long as the file's lines up to step N (a row's bytes are its line without its ending, never longer), and one
  // byte more: the last line may have no newline in the file.
  const prefix = Buffer.allocUnsafe(parent!.span(fromStep).next + 1);
  let at = 0;
  const prefixHashes: string[] = [];
  const refs = new Set<string>();
  // A canonical row is taken as its line's text, never parsed (every row parsed was 4.9 s of a fork at step 99,990).
  for (const r of parent!.rewritable()) {
    if (r.seq > fromStep) break;
    const row = 'entry' in r ? r.entry.row : r;
    at += 'entry' in r ? r.entry.bytes.copy(prefix, at) : prefix.write(r.text, at, 'latin1');
    prefix[at++] = NEWLINE;
    prefixHashes.push(row.step_hash);
    for (const d of row.blob_refs) refs.add(d);
  }
  return {
    ...none,
    prefix: prefix.subarray(0, at),
    prefixHashes,
    prefixRefs: [...refs],
    parentStepHash: prefixHashes[fromStep]!,
  };
}

/** The snapshot the fork's files come from (said in `warnings` when there is none), and those of its prefix. */
export function prefixSnapshots(
  root: string,
  sessionId: string,
  fromStep: number | undefined,
  prefixHashes: readonly string[],
  env: NodeJS.ProcessEnv,
  warnings: string[],
  /** The commit the fork's files come from instead (a replay starts from the run's first files). */
  restoreCommit?: string,
): { restored: SnapshotInfo | undefined; copies: SnapshotInfo[] } {
  if (fromStep === undefined) return { restored: undefined, copies: [] };
  const snaps = listSnapshots(root, sessionId, env);
  const restored =
    restoreCommit !== undefined
      ? { ref: '', commit: restoreCommit, agent_id: sessionId, seq: -1, step_hash: '' }
      : matchingSnapshot(snaps, fromStep, prefixHashes[fromStep]!);
  if (restored === undefined) {
    warnings.push(
      snaps.has(fromStep)
        ? `the snapshot of step ${fromStep} does not match its step_hash; the fork starts at the parent's current commit`
        : `no worktree snapshot of step ${fromStep}; the fork starts at the parent's current commit`,
    );
  }
  // The fork inherits the snapshots of its prefix, so forks of forks restore them too.
  const copies: SnapshotInfo[] = [];
  for (let i = 0; i <= fromStep; i++) {
    const s = matchingSnapshot(snaps, i, prefixHashes[i]!);
    if (s !== undefined) copies.push(s);
  }
  return { restored, copies };
}
