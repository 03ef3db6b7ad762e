import { tornTailOption, type TornTailMoved } from '../util/chain-file';
import type { StdioOptions } from 'node:child_process';
import path from 'node:path';
import { InputError } from '../errors';
import { journalDir, journalFile } from '../journal';
import { runJournalFile } from '../runs/layout';
import { pathKind } from '../util/fs';
import { assertSafeId } from '../util/ids';
import { agentSpec } from './agents';
import type { LastResort } from './last-resort';
import { resolveUpstreams, runProxied, type ProxiedRunResult } from './run';
import { takeStartSnapshot } from './start';

export interface RecordAgentOptions {
  agent: string;
  journalId: string;
  root: string;
  upstream?: string;
  command: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
  onWarning(line: string): void;
  /** Told whenever a torn tail of a journal the recording writes is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
  /** In the CLI's own process: a fault outside every guard kills the agent and exits with one line (last-resort.ts). */
  lastResort?: LastResort;
}

export interface RecordAgentResult extends ProxiedRunResult {
  journal_file: string;
  run_id: string;
  start_snapshot: string | null;
}

/**
 * `stepchain record`: a new journal of an agent's model exchanges. The
 * journal must not exist yet (its seqs are the exchanges' indices, which a
 * replay names); the files the run starts from are snapshotted first.
 */
export async function recordAgent(o: RecordAgentOptions): Promise<RecordAgentResult> {
  const spec = agentSpec(o.agent);
  const id = assertSafeId(o.journalId, 'journal id');
  const file = journalFile(o.root, id);
  const kind = pathKind(file);
  if (kind !== undefined)
    throw new InputError(
      `${file}: the journal ${id} exists already; record starts a new one (choose another --journal)`,
    );
  // A recording that made no exchange leaves no journal but its run journal (its proxy.start names the start
  // snapshot, which fork --replay checks against the ref): a second recording under the id would add another
  // proxy.start and move the ref, and the first one would no longer replay.
  const runFile = runJournalFile(o.root, id);
  if (pathKind(runFile) !== undefined)
    throw new InputError(
      `${runFile}: the run journal ${id} exists already (an earlier recording, or run events, under this id); record starts a new one (choose another --journal)`,
    );
  if (o.command.length === 0) throw new InputError('record: no command to run (give it after --)');
  resolveUpstreams(spec, o.upstream, o.env, o.cwd); // refused before anything is written
  let start: { ref: string; commit: string } | undefined;
  try {
    start = takeStartSnapshot(o.root, id, o.env);
  } catch (e) {
    o.onWarning(
      `the start snapshot failed (${(e as Error).message.split('\n')[0]}); a replay of this run cannot restore its files`,
    );
  }
  if (start === undefined)
    o.onWarning(
      `${o.root}: no start snapshot (not a git work tree): a replay of this run starts from the current commit`,
    );
  const r = await runProxied({
    agent: spec,
    ...(o.upstream === undefined ? {} : { upstream: o.upstream }),
    root: o.root,
    journalDir: journalDir(o.root, id),
    journalId: id,
    firstSeq: 0,
    command: o.command,
    cwd: o.cwd,
    env: o.env,
    stdio: o.stdio,
    onWarning: o.onWarning,
    ...tornTailOption(o),
    ...(o.lastResort === undefined ? {} : { lastResort: o.lastResort }),
    startEvent: {
      cwd: path.resolve(o.cwd),
      root: path.resolve(o.root),
      start_snapshot: start?.commit ?? null,
      start_ref: start?.ref ?? null,
    },
  });
  return { ...r, journal_file: file, run_id: id, start_snapshot: start?.commit ?? null };
}
