import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { DemoContext } from './context';
import { SAMPLE_AGENT } from './sample';

/**
 * The reviewer's view: one self-contained HTML file per run that re-verifies the
 * chain in the browser. The tampered copy made by the journal section gets one too.
 */
export async function demoReport(ctx: DemoContext): Promise<void> {
  ctx.section('An offline HTML report for the pull request: it re-verifies the chain in the browser');
  const dir = path.join(ctx.root, '.sdd', 'report');
  mkdirSync(dir, { recursive: true });
  const rel = (f: string): string => path.relative(ctx.root, path.join(dir, f));
  const r = await ctx.run(['report', SAMPLE_AGENT, '-o', rel(`${SAMPLE_AGENT}.html`)]);
  if (r.code !== 0) throw new Error(`demo: report failed: ${r.stderr}`);
  ctx.say(
    "No network, no external script: the journal's bytes, the bundled blobs and the verifier are all in the file.",
  );

  const tampered = path.join(ctx.root, '.sdd', 'tampered-copy');
  if (existsSync(path.join(tampered, '000000.jsonl'))) {
    ctx.say(
      'The tampered copy gets a report too: it is written (that is the point), says TAMPERED with the line, and exits 1:',
    );
    await ctx.run(['report', path.relative(ctx.root, tampered), '-o', rel('tampered.html')]);
  }
  ctx.epilogue.push(
    `open ${rel(`${SAMPLE_AGENT}.html`)}    # the HTML report (xdg-open on Linux): verifies in the browser, ←/→ to walk`,
    `open ${rel('tampered.html')}           # the tampered copy's report: red, first fault at line 4`,
  );
}
