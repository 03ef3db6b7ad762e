import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalFile } from '../../journal';
import type { DemoContext } from './context';
import { SAMPLE_AGENT, SAMPLE_STEPS } from './sample';

/** Records the sample run step by step, verifies it, then tampers with a copy. */
export async function demoJournal(ctx: DemoContext): Promise<void> {
  ctx.section('Record a run: one hash-chained journal row per step');
  for (const [i, step] of SAMPLE_STEPS.entries()) {
    for (const [file, content] of Object.entries(step.writes ?? {})) writeFileSync(path.join(ctx.root, file), content);
    const input = path.join(ctx.root, '.sdd', 'demo-inputs', `step-${i}.txt`);
    mkdirSync(path.dirname(input), { recursive: true });
    writeFileSync(input, `user turn ${i}: ${step.prompt}\n`);
    const argv = ['append', SAMPLE_AGENT, '--input', input, '--model', step.model, '--prompt', step.prompt];
    if (step.tool_call !== null) argv.push('--tool-call', JSON.stringify(step.tool_call));
    argv.push('--tool-result', JSON.stringify(step.tool_result));
    const r = await ctx.run(argv, { quiet: i > 0 });
    if (r.code !== 0) throw new Error(`demo: append failed: ${r.stderr}`);
    if (i > 0) ctx.say(`  step ${i}: ${step.prompt}`);
  }

  ctx.section('Verify the chain from genesis');
  await ctx.run(['verify', SAMPLE_AGENT]);

  ctx.section('Tamper with a copy: change one tool result, keep the stored hash');
  const original = journalFile(ctx.root, SAMPLE_AGENT);
  const tamperedDir = path.join(ctx.root, '.sdd', 'tampered-copy');
  mkdirSync(tamperedDir, { recursive: true });
  const tampered = path.join(tamperedDir, '000000.jsonl');
  copyFileSync(original, tampered);
  const lines = readFileSync(tampered, 'utf8').split('\n');
  lines[3] = lines[3]!.replace('1 passed in 0.01s', '9 passed in 0.01s');
  writeFileSync(tampered, lines.join('\n'));
  ctx.say('The copy claims 9 tests passed at step 3. The operator sees:');
  await ctx.run(['verify', tampered]);
  ctx.say('and appending to a tampered journal is refused (fail-closed):');
  await ctx.run(['append', tamperedDir, '--prompt', 'continue']);
}
