import { InputError } from '../../errors';
import { forkReplay } from '../../proxy';
import type { ParsedArgs } from '../args';
import type { CommandIO } from '../io';
import { intArg, rootOf, writeOptions } from '../common';
import { commandAfterTerminator, describeProxiedRun, reportProxiedRun } from './record';

export const forkCommandReplay =
  'With --replay (a journal made by `stepchain record`): the fork starts from the files the run started with, and <command> runs there through the proxy, requests 0..N answered from the recording and the rest sent to --upstream.';

/** `stepchain fork ID --from-step N --replay [--upstream URL] [--json] -- <command>`. */
export async function runForkReplay(args: ParsedArgs, io: CommandIO): Promise<number> {
  const command = commandAfterTerminator(args, 1, 'fork');
  const session = args.positionals[0];
  if (session === undefined) throw new InputError('fork: missing <session> (see `stepchain fork --help`)');
  const step = args.values.get('from-step');
  if (step === undefined) throw new InputError('fork: --replay needs --from-step N');
  if (args.flags.has('resume')) throw new InputError('fork: --replay and --resume do not go together');
  const json = args.flags.has('json');
  const upstream = args.values.get('upstream');
  const label = args.values.get('label');
  const r = await forkReplay({
    root: rootOf(args, io, { create: true }),
    journalId: session,
    fromStep: intArg(step, '--from-step'),
    ...(upstream === undefined ? {} : { upstream }),
    ...(label === undefined ? {} : { label }),
    command,
    ...writeOptions(io),
    stdio: json ? ['inherit', 2, 'inherit'] : 'inherit',
    onWarning: (w) => io.err(`stepchain: warning: ${w}`),
    lastResort: { command: 'fork --replay', say: (line) => io.err(line) },
  });
  const d = r.divergence;
  const why =
    d === undefined
      ? undefined
      : d.unanswerable !== undefined
        ? `exchange ${d.exchange}: its recorded response cannot be answered: ${d.unanswerable}; nothing was sent upstream and the agent was stopped`
        : `exchange ${d.exchange}: the replayed request differs from the recorded one at ${d.field} (recorded ${d.recorded}, replayed ${d.replayed}); nothing was sent upstream and the agent was stopped`;
  const code = d !== undefined ? 1 : r.recordingFailure !== undefined && r.exitCode === 0 ? 1 : r.exitCode;
  if (json) {
    io.json({
      ok: code === 0,
      fork_session_id: r.fork.fork_session_id,
      fork_worktree: r.fork.fork_worktree,
      fork_branch: r.fork.fork_branch,
      journal_path: r.fork.journal_path,
      parent_session_id: r.fork.parent_session_id,
      from_step: r.fork.from_step,
      divergence:
        d === undefined
          ? null
          : {
              exchange: d.exchange,
              field: d.field,
              recorded: d.recorded,
              replayed: d.replayed,
              ...(d.unanswerable === undefined ? {} : { unanswerable: d.unanswerable }),
            },
      files_at_step: r.files_at_step,
      ...describeProxiedRun(r),
    });
    if (why !== undefined) io.err(`stepchain: ${why}`);
    return code;
  }
  io.err(
    `stepchain: forked ${session} at step ${r.fork.from_step} as ${r.fork.fork_session_id} (${r.fork.fork_worktree})`,
  );
  reportProxiedRun(io, r, r.fork.journal_path ?? r.fork.fork_worktree);
  if (why !== undefined) io.err(`stepchain: ${why}`);
  return code;
}
