import { AGENTS, agentOfJournal } from '../../agents/registry';
import { InputError } from '../../errors';
import { forkJsonDocument } from '../../forks';
import { sanitize } from '../../replay/text';
import type { ParsedArgs } from '../args';
import { intArg, rootOf, writeOptions } from '../common';
import type { CommandIO } from '../io';

export const forkCommandResume =
  'With --resume (a session recorded by `stepchain hook <agent>`), also a conversation of that agent that ends ' +
  'right after step N and the command that resumes it (docs/agents.md says which agents resume).';

/** `stepchain fork <session> --from-step N --resume`: the journal's agent, from its name, does the cut. */
export async function runForkResume(args: ParsedArgs, io: CommandIO, session: string): Promise<number> {
  const step = args.values.get('from-step');
  if (step === undefined) throw new InputError('fork --resume: give --from-step N (the step to resume after)');
  const agent = agentOfJournal(session);
  if (agent === undefined)
    throw new InputError(
      `fork --resume: ${session} is not an agent's session journal (${AGENTS.map((a) => `${a.name}-<session_id>`).join(', ')}); ` +
        'fork it without --resume',
    );
  if (!agent.resume.supported)
    throw new InputError(`fork --resume: ${agent.title} sessions are not resumed: ${agent.resume.reason}`);
  const label = args.values.get('label');
  const r = await agent.resume.fork({
    root: rootOf(args, io),
    agent: session,
    fromStep: intArg(step, '--from-step'),
    ...writeOptions(io),
    ...(label === undefined ? {} : { label }),
  });
  for (const w of [...r.fork.warnings, ...r.warnings]) io.err(`stepchain: warning: ${sanitize(w)}`);
  if (args.flags.has('json')) {
    io.json({ ...forkJsonDocument(r.fork), ...r.details, resume_command: r.command });
    return 0;
  }
  const f = r.fork;
  io.out(sanitize(`forked ${f.parent_session_id} at step ${f.from_step} as ${f.fork_session_id}`));
  io.out(sanitize(`  branch     ${f.fork_branch}`));
  io.out(sanitize(`  worktree   ${f.fork_worktree}`));
  io.out(
    sanitize(
      `  commit     ${f.fork_commit}${f.restored_from_snapshot ? ` (the files of step ${f.from_step})` : " (the parent's current commit)"}`,
    ),
  );
  if (f.journal_path !== null) io.out(sanitize(`  journal    ${f.journal_path} (steps 0..${f.from_step})`));
  for (const line of r.lines) io.out(sanitize(`  ${line}`));
  io.out(
    'resume the conversation (its next step is recorded as step ' +
      `${(f.from_step ?? 0) + 1} of ${f.fork_session_id}):`,
  );
  io.out(`  ${r.command}`);
  return 0;
}
