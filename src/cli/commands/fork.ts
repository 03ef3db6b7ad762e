import { createFork, forkJsonDocument } from '../../forks';
import { forkCommandResume, runForkResume } from './fork-resume';
import { forkCommandReplay, runForkReplay } from './fork-replay';
import { InputError } from '../../errors';
import type { Command } from '../command';
import { expectPositionals } from '../args';
import { intArg, JSON_OPTION, ROOT_OPTION, rootOf, writeOptions } from '../common';

export const forkCommand: Command = {
  name: ['fork'],
  usage:
    '<session> [--from-step N [--resume | --replay [--upstream URL] -- <command> [args...]]] [--label L] [--root DIR] [--json]',
  summary:
    'Fork a recorded run into a sibling git worktree (.sdd/worktrees/<fork_id>, branch fork/<branch>/<fork_id>): ' +
    'with --from-step, the verified prefix [0..N] and the files of step N. ' +
    forkCommandResume +
    ' ' +
    forkCommandReplay,
  description:
    '<session> is an agent id with a journal (or a session file) in this project. The parent journal must verify first. ' +
    'The fork gets the journal prefix [0..N] and, when step N has a snapshot, exactly the files the agent had at step N. ' +
    'Nothing is left behind when a step fails. Remove a fork with `stepchain fork rm`.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    'from-step': {
      kind: 'value',
      value: 'N',
      description:
        'Fork at step N (0-based): the prefix [0..N] and the files of step N. Without it: a session-level fork.',
    },
    label: { kind: 'value', value: 'L', description: 'A label, kept in the fork block and used in the fork id.' },
    resume: {
      kind: 'flag',
      description:
        'With --from-step, for a Claude Code session recorded by `stepchain hook claude`: also a conversation that ends right after step N, and the `claude --resume` command to carry on.',
    },
    replay: {
      kind: 'flag',
      description:
        'With --from-step, for a journal made by `stepchain record`: run the command after -- in the fork through the proxy; requests 0..N are answered from the recording (each must match its recorded request once normalised, else exit 1 naming the exchange), the rest go to --upstream.',
    },
    upstream: {
      kind: 'value',
      value: 'URL',
      description: "With --replay: where requests after step N go (default: the agent's, as for `stepchain record`).",
    },
  },
  examples: [
    {
      run: 'stepchain fork agent-1 --from-step 3 --label "try another fix"',
      what: 'a worktree with the files of step 3',
    },
    {
      run: 'stepchain fork fix-1 --from-step 2 --replay -- claude -p "fix the failing test"',
      what: 'rerun a recorded agent: steps 0..2 from the recording, then live',
    },
    {
      run: 'stepchain fork claude-<session_id> --from-step 3 --resume',
      what: 'fork a Claude Code session and resume it',
    },
    { run: 'stepchain forks', what: 'list the forks as a tree' },
  ],
  exitCodes: {
    0: 'forked',
    1: 'the parent journal does not verify, the worktree exists, or git failed (nothing left behind); with --replay: a replayed request differs from its recording (exchange <index>)',
    2: 'usage or input error (not a git repository, unknown session, step out of range)',
  },
  async run(args, io) {
    if (args.flags.has('replay')) return runForkReplay(args, io);
    if (args.values.has('upstream')) throw new InputError('fork: --upstream goes with --replay');
    const [session] = expectPositionals(args, ['session'], 'fork');
    const step = args.values.get('from-step');
    const label = args.values.get('label');
    if (label !== undefined && label.trim() === '') throw new InputError('--label: empty label');
    if (args.flags.has('resume')) return runForkResume(args, io, session!);
    const r = await createFork({
      root: rootOf(args, io, { create: true }),
      sessionId: session!,
      ...(step === undefined ? {} : { fromStep: intArg(step, '--from-step') }),
      ...(label === undefined ? {} : { label }),
      ...writeOptions(io),
    });
    for (const w of r.warnings) io.err(`stepchain: warning: ${w}`);
    if (args.flags.has('json')) {
      io.json(forkJsonDocument(r));
      return 0;
    }
    io.out(
      `forked ${r.parent_session_id}${r.from_step === null ? ' (session-level)' : ` at step ${r.from_step}`} as ${r.fork_session_id}`,
    );
    io.out(`  branch    ${r.fork_branch}`);
    io.out(`  worktree  ${r.fork_worktree}`);
    io.out(
      `  commit    ${r.fork_commit}${r.restored_from_snapshot ? ` (the files of step ${r.from_step})` : " (the parent's current commit)"}`,
    );
    if (r.parent_step_hash !== null) io.out(`  parent step_hash ${r.parent_step_hash}`);
    if (r.journal_path !== null) io.out(`  journal   ${r.journal_path}`);
    io.out(`  session   ${r.snapshot_path}`);
    if (r.journal_path !== null)
      io.out(`continue it: stepchain append ${r.fork_session_id} --root ${r.fork_worktree} ...`);
    return 0;
  },
};
