import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DemoContext } from './context';
import { SAMPLE_AGENT } from './sample';

interface ForkJson {
  fork_session_id: string;
  fork_worktree: string;
  fork_commit: string;
}

/**
 * Forks the sample run at step 1, before the agent fixed the bug at step 2: the
 * fork's worktree has the files of step 1 (restored from the per-step snapshot),
 * its journal is the parent's verified prefix, and it keeps recording on top.
 */
export async function demoFork(ctx: DemoContext): Promise<void> {
  ctx.section('Fork the run at step 1 into a sibling git worktree');
  ctx.say('Every append also stored the worktree as a commit under refs/stepchain/snapshots/<agent>/<seq>,');
  ctx.say('without touching the index, HEAD or the files. Fork at step 1, before the fix of step 2:');
  const r = await ctx.run(['fork', SAMPLE_AGENT, '--from-step', '1', '--label', 'try another fix', '--json']);
  if (r.code !== 0) throw new Error(`demo: fork failed: ${r.stderr}`);
  const fork = JSON.parse(r.stdout) as ForkJson;
  const calc = (dir: string): string => readFileSync(path.join(dir, 'src', 'calc.py'), 'utf8').trimEnd();
  ctx.say('src/calc.py in the fork (the files of step 1):');
  ctx.say(`  ${calc(fork.fork_worktree).split('\n').join('\n  ')}`);
  ctx.say('src/calc.py in the main tree (fixed at step 2):');
  ctx.say(`  ${calc(ctx.root).split('\n').join('\n  ')}`);

  ctx.section("The fork keeps recording: its journal continues the parent's prefix [0..1]");
  writeFileSync(path.join(fork.fork_worktree, 'src', 'calc.py'), 'def add(a, b):\n    return sum((a, b))\n');
  const a = await ctx.run(
    [
      'append',
      fork.fork_session_id,
      '--root',
      fork.fork_worktree,
      '--model',
      'claude-3-7-sonnet-20250219',
      '--prompt',
      'Try a different fix: use sum().',
      '--tool-call',
      '{"name":"edit_file","args":{"path":"src/calc.py"}}',
      '--tool-result',
      '{"ok":true}',
    ],
    { quiet: true },
  );
  if (a.code !== 0) throw new Error(`demo: append in the fork failed: ${a.stderr}`);
  ctx.say(`(${a.stdout.split('\n')[0]})`);
  await ctx.run(['verify', fork.fork_session_id, '--root', fork.fork_worktree]);

  ctx.section('Every fork of the repository, as a tree');
  await ctx.run(['forks']);
  ctx.epilogue.push(
    `stepchain forks                                   # the fork tree`,
    `cat ${path.relative(ctx.root, fork.fork_worktree)}/src/calc.py        # the fork's own files`,
  );
  // `fork rm` comes last in the list (the replay section's diff reads the fork): see src/demo/replay.ts.
}
