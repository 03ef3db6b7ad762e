import { forkClaudeSession } from '../../claude/resume';
import { InputError } from '../../errors';
import { forkJsonDocument } from '../../forks';
import { sanitize } from '../../replay/text';
import type { ParsedArgs } from '../args';
import { intArg, rootOf } from '../common';
import type { CommandIO } from '../io';

export const forkCommandResume =
  'With --resume (a session recorded by `stepchain hook claude`), also a Claude Code conversation that ends right ' +
  'after step N and the command that resumes it.';

/** `stepchain fork <session> --from-step N --resume`. */
export async function runForkResume(args: ParsedArgs, io: CommandIO, session: string): Promise<number> {
  const step = args.values.get('from-step');
  if (step === undefined) throw new InputError('fork --resume: give --from-step N (the step to resume after)');
  const label = args.values.get('label');
  const r = await forkClaudeSession({
    root: rootOf(args, io),
    agent: session,
    fromStep: intArg(step, '--from-step'),
    env: io.env,
    ...(label === undefined ? {} : { label }),
  });
  for (const w of [...r.fork.warnings, ...r.warnings]) io.err(`stepchain: warning: ${sanitize(w)}`);
  if (args.flags.has('json')) {
    io.json({
      ...forkJsonDocument(r.fork),
      claude_session_id: r.plan.sessionId,
      claude_transcript: r.plan.transcript,
      resumes_after_tool_use_id: r.plan.toolUseId,
      resume_command: r.command,
    });
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
  io.out(
    sanitize(
      `  transcript ${r.plan.transcript} (lines 1..${r.plan.cut.line} of the session, ending with the result of ${r.plan.toolUseId})`,
    ),
  );
  io.out(
    'resume the conversation (its next step is recorded as step ' +
      `${(f.from_step ?? 0) + 1} of ${f.fork_session_id}):`,
  );
  io.out(`  ${r.command}`);
  return 0;
}
