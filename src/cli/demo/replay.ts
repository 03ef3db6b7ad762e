import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { JOURNAL_FILE, journalDir, journalFile } from '../../journal';
import type { DemoContext } from './context';
import { SAMPLE_AGENT } from './sample';

/** The journal of a fork made by an earlier section (the newest), if any. */
function forkJournal(root: string): { id: string; file: string } | undefined {
  const dir = path.join(root, '.sdd', 'worktrees');
  if (!existsSync(dir)) return undefined;
  for (const id of readdirSync(dir).sort().reverse()) {
    const file = path.join(dir, id, '.sdd', 'runtime', 'journal', id, JOURNAL_FILE);
    if (existsSync(file)) return { id, file };
  }
  return undefined;
}

/** The operator's replay surface: the run as a table, one step in full, and where two runs part. */
export async function demoReplay(ctx: DemoContext): Promise<void> {
  ctx.section('Replay: the run as a table of steps (verified first)');
  await ctx.run(['replay', SAMPLE_AGENT]);

  ctx.section('One step in full: fields, blobs with sizes and previews, what changed since the step before');
  await ctx.run(['show', SAMPLE_AGENT, '2']);

  ctx.section('Where two runs part: the first divergence, field by field');
  const rel = (f: string): string => path.relative(ctx.root, f);
  let other = forkJournal(ctx.root);
  const fork = other?.id;
  if (other === undefined) {
    // No fork in this demo: a copy of the first three steps that then does something else.
    const id = `${SAMPLE_AGENT}-alt`;
    const lines = readFileSync(journalFile(ctx.root, SAMPLE_AGENT), 'utf8').split('\n').slice(0, 3);
    mkdirSync(journalDir(ctx.root, id), { recursive: true });
    writeFileSync(journalFile(ctx.root, id), `${lines.join('\n')}\n`);
    const r = await ctx.run(
      [
        'append',
        id,
        '--model',
        'claude-3-7-sonnet-20250219',
        '--prompt',
        'Skip the tests.',
        '--tool-result',
        '{"ok":true}',
      ],
      { quiet: true },
    );
    if (r.code !== 0) throw new Error(`demo: append to the copy failed: ${r.stderr}`);
    other = { id, file: journalFile(ctx.root, id) };
  }
  ctx.say(`The sample run against ${other.id} (exit 1: they diverge):`);
  await ctx.run(['diff', SAMPLE_AGENT, rel(path.dirname(other.file))]);
  ctx.say('and a run against itself (exit 0):');
  await ctx.run(['diff', SAMPLE_AGENT, rel(journalFile(ctx.root, SAMPLE_AGENT))]);

  const published = path.join(ctx.root, '.sdd', 'demo-receipts', 'published.receipt.tar');
  if (existsSync(published)) {
    ctx.section('Replay of a published receipt: verified, redacted fields shown as <<redacted>>');
    const key = path.join(path.dirname(published), 'verify.pem');
    await ctx.run(['replay', rel(published), '--limit', '3', ...(existsSync(key) ? ['--public-key', rel(key)] : [])]);
  }

  ctx.epilogue.push(
    `stepchain replay ${SAMPLE_AGENT}                      # walk the run on a terminal: n/p, g/G, seq+Enter, /search, Enter, f, q`,
    `stepchain show ${SAMPLE_AGENT} 3 --json               # one step, as stored, with its blobs`,
    `stepchain diff ${SAMPLE_AGENT} ${other.id} --json   # where two runs part (a fork is found by its id)`,
    // Last: the commands above read the fork.
    ...(fork === undefined ? [] : [`stepchain fork rm ${fork} --force   # remove the fork`]),
  );
}
