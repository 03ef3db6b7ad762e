import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectDirName } from '../../agents/claude/transcript';
import type { DemoContext } from './context';
import { DEMO_SESSION_FILES, DEMO_SESSION_ID, demoHooks, demoTranscript } from './claude-session';

/**
 * Claude Code, recorded with no code from the user (docs/claude.md): install
 * the hooks, a session's hook events through `stepchain hook claude`, verify
 * and replay what they recorded, then fork at the failing test run and get the
 * command that resumes the conversation there.
 *
 * The demo feeds a recorded payload sequence (src/demo/claude-session.ts)
 * instead of running the claude binary: it must run without the network, from
 * an install without devDependencies, in well under a second. The real binary
 * runs in the test suite (test/claude.*.test.ts).
 */
export async function demoClaude(ctx: DemoContext): Promise<void> {
  const agent = `claude-${DEMO_SESSION_ID}`;
  // Claude Code's own directory for this demo (CLAUDE_CONFIG_DIR), kept inside the temporary project.
  const config = path.join(ctx.root, '.sdd', 'claude-config');
  const dirName = projectDirName(ctx.root);
  if (dirName === undefined) {
    ctx.section('Claude Code hooks');
    ctx.say(`(skipped: Claude Code's session directory name for ${ctx.root} cannot be derived safely)`);
    return;
  }
  const transcript = path.join(config, 'projects', dirName, `${DEMO_SESSION_ID}.jsonl`);
  // Claude Code runs its hooks with its own environment; `fork --resume` finds the session from it, never from
  // the path a recorded payload names.
  const claudeEnv = { CLAUDE_CONFIG_DIR: config };

  ctx.section('Claude Code: one command installs the hooks');
  const init = await ctx.run(['init', 'claude'], { quiet: true });
  if (init.code !== 0) throw new Error(`demo: init claude failed: ${init.stderr}`);
  const out = init.stdout.trimEnd().split('\n');
  const diff = out.filter((l) => /^(---|\+\+\+|@@|[-+ ])/.test(l));
  ctx.say('$ stepchain init claude');
  for (const l of diff.slice(0, 16)) ctx.say(`  ${l}`);
  ctx.say(`  ... (${diff.length - 16} more lines of the diff)`);
  for (const l of out.slice(diff.length)) ctx.say(`  ${l}`);
  const again = await ctx.run(['init', 'claude']);
  if (again.code !== 0) throw new Error(`demo: init claude (again) failed: ${again.stderr}`);

  ctx.section('A Claude Code session, recorded by its hooks');
  ctx.say('Claude Code pipes each hook event as JSON into `stepchain hook claude`. These are the events of a');
  ctx.say('session (Claude Code 2.1.328) that runs a failing test, fixes mean(), runs it again, and is compacted:');
  for (const [f, content] of Object.entries(DEMO_SESSION_FILES)) {
    mkdirSync(path.dirname(path.join(ctx.root, f)), { recursive: true });
    writeFileSync(path.join(ctx.root, f), content);
  }
  mkdirSync(path.dirname(transcript), { recursive: true });
  writeFileSync(transcript, demoTranscript(ctx.root));
  for (const h of demoHooks(ctx.root, transcript)) {
    for (const [f, content] of Object.entries(h.writes ?? {})) writeFileSync(path.join(ctx.root, f), content);
    const r = await ctx.run(['hook', 'claude'], {
      quiet: true,
      stdin: Buffer.from(JSON.stringify(h.payload)),
      env: claudeEnv,
    });
    if (r.code !== 0) throw new Error(`demo: hook claude (${h.label}) failed: ${r.stderr}`);
    ctx.say(`  ${h.label.padEnd(46)} exit ${r.code}`);
  }
  ctx.say(`Three tool calls, three steps of the journal ${agent}:`);
  await ctx.run(['verify', agent]);
  await ctx.run(['replay', agent]);
  ctx.say('Its run journal: the claude adapter observed from the start, the compaction pinned as a mutation:');
  await ctx.run(['run', 'verify', agent]);

  ctx.section('Fork at the failing test run, and resume the conversation there');
  const fork = await ctx.run(['fork', agent, '--from-step', '0', '--resume'], { quiet: true, env: claudeEnv });
  if (fork.code !== 0) throw new Error(`demo: fork --resume failed: ${fork.stderr}`);
  ctx.say(`$ stepchain fork ${agent} --from-step 0 --resume`);
  for (const l of fork.stdout.trimEnd().split('\n')) ctx.say(`  ${l}`);
  const worktree = /^ {2}worktree {3}(.+)$/m.exec(fork.stdout)?.[1];
  const copy = /^ {2}transcript (.+) \(lines/m.exec(fork.stdout)?.[1];
  if (worktree === undefined || copy === undefined) throw new Error('demo: fork --resume printed no worktree');
  ctx.say('src/stats.py in the fork (the files of step 0, before the fix):');
  ctx.say(
    `  ${readFileSync(path.join(worktree, 'src', 'stats.py'), 'utf8')
      .trimEnd()
      .split('\n')
      .join('\n  ')}`,
  );
  const last = JSON.parse(readFileSync(copy, 'utf8').trimEnd().split('\n').at(-1)!) as {
    message: { content: { tool_use_id: string; content: string }[] };
  };
  const res = last.message.content[0]!;
  ctx.say(`The copied conversation ends with the result of ${res.tool_use_id}:`);
  ctx.say(`  ${res.content.split('\n').join('\n  ')}`);
  ctx.say("Run the command above (with Claude Code installed) and the fork's next step is recorded as step 1 of");
  ctx.say('the fork, on top of the verified prefix.');
  ctx.epilogue.push(
    `stepchain replay ${agent}          # the recorded Claude Code session`,
    `stepchain run verify ${agent}      # its run journal, with the compaction`,
  );
}
