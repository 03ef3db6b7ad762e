import { tornTailOption, type TornTailMoved } from '../util/chain-file';
import type { StdioOptions } from 'node:child_process';
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { JsonValue } from '../canonical';
import { InputError, IntegrityError } from '../errors';
import { createFork, type ForkResult } from '../forks/fork';
import { differingPathsSync } from '../git/diff';
import { gitSync } from '../git/exec';
import { journalKey, listSnapshots, takeSnapshot } from '../git/snapshot';
import { requireRepo } from '../git/repo';
import { Cas, casDir, journalDir, journalFile, VerifiedSteps } from '../journal';
import { readRunJournalFile, runJournalFile } from '../runs';
import { assertSafeId } from '../util/ids';
import { agentSpec } from './agents';
import { recordedExchange, Replayer } from './replay';
import type { LastResort } from './last-resort';
import { resolveUpstreams, runProxied, type ProxiedRunResult } from './run';
import { readStartCommit, startRef } from './start';
import { someOf } from '../util/words';
import { isObjectId } from '../git/object-id';

/**
 * `stepchain fork ID --from-step N --replay -- <command>`: a fork worktree
 * holding the files the recorded run started from, the agent run there
 * through the proxy, its requests 0..N answered from the recording (each must
 * match its recorded request once normalised) and the rest forwarded live.
 * A request that does not match stops it: nothing is sent upstream and the
 * agent's process tree is ended (`divergence` says where).
 */
export interface ForkReplayOptions {
  root: string;
  journalId: string;
  fromStep: number;
  upstream?: string;
  command: string[];
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
  label?: string;
  forkId?: string;
  onWarning(line: string): void;
  /** Told whenever a torn tail of a journal the recording writes is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
  /** In the CLI's own process: a fault outside every guard kills the agent and exits with one line (last-resort.ts). */
  lastResort?: LastResort;
}

export interface ForkReplayResult extends ProxiedRunResult {
  fork: ForkResult;
  /** Where the fork's files at step N differ from the recording's (paths), or null when not checked. */
  files_at_step: { checked: boolean; differing: string[] };
}

interface StartEvent {
  agent: string;
  cwd: string;
  root: string;
  start_snapshot: string | null;
  /** Where the event is: `<run journal>:<line>`. */
  where: string;
}

/** The recording's `proxy.start` event (its first), from the verified run journal. */
function startEvent(root: string, id: string): StartEvent {
  const file = runJournalFile(root, id);
  const run = readRunJournalFile(file);
  if (!run.chain_ok) throw new IntegrityError(`${file}: the run journal does not verify; refusing to replay from it`);
  const e = run.entries.find((x) => x.row.event === 'proxy.start');
  if (e === undefined)
    throw new InputError(`${file}: no proxy.start event: ${id} was not recorded by \`stepchain record\``);
  const get = (k: string): JsonValue | undefined => e.row.payload.get(k);
  const agent = get('agent');
  const cwd = get('cwd');
  const recRoot = get('root');
  const snap = get('start_snapshot');
  if (typeof agent !== 'string' || typeof cwd !== 'string' || typeof recRoot !== 'string')
    throw new IntegrityError(`${file}:${e.line}: the proxy.start event lacks its agent, cwd or root`);
  if (snap !== null && (typeof snap !== 'string' || !isObjectId(snap)))
    throw new IntegrityError(`${file}:${e.line}: the proxy.start event's start_snapshot is not a commit id`);
  return { agent, cwd, root: recRoot, start_snapshot: snap, where: `${file}:${e.line}` };
}

/**
 * The directory the agent runs in: the recorded one's place under the recorded root, in the fork. The recording
 * names it and the start snapshot's files (restored in the fork) may hold a link on its way: a directory that
 * resolves outside the fork (or is none) is refused, or a recording would choose where the agent runs.
 */
function agentDirectory(start: StartEvent, worktree: string): string {
  const rel = path.relative(start.root, start.cwd);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return worktree;
  const cwd = path.join(worktree, rel);
  let real: string | undefined;
  try {
    real = realpathSync(cwd);
  } catch {
    real = undefined;
  }
  const top = realpathSync(worktree);
  if (real !== undefined && (real === top || real.startsWith(top + path.sep)) && statSync(real).isDirectory())
    return cwd; // as joined: the paths the replay normalises are the fork's as named, not resolved
  throw new IntegrityError(
    `${start.where}: the recorded working directory ${rel} is not a directory inside the fork (it leads to ${real ?? 'nothing'}); refusing to run the agent (the fork stays at ${worktree})`,
  );
}

export async function forkReplay(o: ForkReplayOptions): Promise<ForkReplayResult> {
  const root = path.resolve(o.root);
  const id = assertSafeId(o.journalId, 'journal id');
  const file = journalFile(root, id);
  // Verified where it lies, steps 0..N read back a block at a time (never every row parsed and held).
  const parent = VerifiedSteps.open(file);
  if (!Number.isSafeInteger(o.fromStep) || o.fromStep < 0)
    throw new InputError(`--from-step: expected a non-negative integer`);
  if (o.fromStep >= parent.length)
    throw new InputError(`${file}: step ${o.fromStep} is out of range (the journal has ${parent.length} steps)`);
  const start = startEvent(root, id);
  const spec = agentSpec(start.agent);
  const cas = new Cas(casDir(root), false);
  resolveUpstreams(spec, o.upstream, o.env, start.cwd); // refused before anything is written
  const recorded = parent.slice(0, o.fromStep + 1).map((e) => recordedExchange(e, cas, file));
  const stepHash = parent.at(o.fromStep)!.row.step_hash;
  // The start ref must still hold the commit the run journal names (a moved ref is not the run's files).
  const startCommit = readStartCommit(root, id, o.env);
  if (start.start_snapshot !== null && startCommit !== start.start_snapshot)
    throw new IntegrityError(
      `${id}: the start snapshot ${start.start_snapshot} recorded in the run journal is ${startCommit === undefined ? 'gone' : `not what its ref holds (${startCommit})`}`,
    );
  if (start.start_snapshot === null)
    o.onWarning(`${id} has no start snapshot: the fork starts from the current commit`);

  const fork = await createFork({
    root,
    sessionId: id,
    fromStep: o.fromStep,
    env: o.env,
    ...(o.label === undefined ? {} : { label: o.label }),
    ...tornTailOption(o),
    ...(o.forkId === undefined ? {} : { forkId: o.forkId }),
    ...(start.start_snapshot === null ? {} : { restoreCommit: start.start_snapshot }),
  });
  for (const w of fork.warnings) o.onWarning(w);
  const worktree = fork.fork_worktree;
  const cwd = agentDirectory(start, worktree);
  const replayer = new Replayer(recorded, spec.normalise, { paths: [start.cwd, start.root, cwd, worktree] });

  const files = { checked: false, differing: [] as string[] };
  const stepSnap = listSnapshots(root, id, o.env).get(o.fromStep);
  const checkFiles = (): void => {
    // At the first live request the agent has run the tools of steps 0..N: its files should be step N's.
    if (stepSnap === undefined || stepSnap.step_hash !== stepHash) return;
    try {
      const key = journalKey(worktree, requireRepo(worktree, o.env));
      const snap = takeSnapshot({
        root: worktree,
        agentId: fork.fork_session_id,
        seq: o.fromStep,
        stepHash: '0'.repeat(64),
        env: o.env,
        ref: `refs/stepchain/snapshots/${fork.fork_session_id}/${key}/replayed-${o.fromStep}`,
        message: `stepchain snapshot: ${fork.fork_session_id} files after the replay of steps 0..${o.fromStep}\n`,
      });
      if (snap === undefined) return;
      files.checked = true;
      files.differing = differingPathsSync(worktree, stepSnap.commit, snap.commit, { env: o.env });
      if (files.differing.length > 0)
        o.onWarning(
          `after the replay of steps 0..${o.fromStep} the fork's files differ from the recording's at step ${o.fromStep}: ${someOf(files.differing)}`,
        );
    } catch (e) {
      o.onWarning(
        `the fork's files at step ${o.fromStep} could not be checked: ${(e as Error).message.split('\n')[0]}`,
      );
    }
  };

  const forkId = fork.fork_session_id;
  // The fork started from the same files: its own start ref says so, so a replay of the fork finds them too.
  const forkStart = start.start_snapshot ?? undefined;
  const forkStartRef = forkStart === undefined ? undefined : startRef(worktree, forkId, o.env);
  if (forkStart !== undefined && forkStartRef !== undefined)
    gitSync(worktree, ['update-ref', forkStartRef, forkStart], { env: o.env });
  const r = await runProxied({
    agent: spec,
    ...(o.upstream === undefined ? {} : { upstream: o.upstream }),
    root: worktree,
    journalDir: journalDir(worktree, forkId),
    journalId: forkId,
    firstSeq: o.fromStep + 1,
    command: o.command,
    cwd,
    env: o.env,
    stdio: o.stdio,
    replayer,
    onLive: checkFiles,
    onWarning: o.onWarning,
    ...tornTailOption(o),
    ...(o.lastResort === undefined ? {} : { lastResort: o.lastResort }),
    startEvent: {
      cwd,
      root: worktree,
      start_snapshot: forkStart ?? null,
      start_ref: forkStartRef ?? null,
      replay_of: id,
      replayed_steps: o.fromStep + 1,
    },
  });
  return { ...r, fork, files_at_step: files };
}
