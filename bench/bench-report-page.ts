/**
 * The report page on a large journal (npm run bench): `stepchain report` of a 10,000-step journal (a whole process),
 * then the page opened in headless Chromium (test/helpers/chromium.ts finds it: CHROMIUM_PATH, the system's, or the
 * @sparticuz/chromium devDependency), timed from the navigation to the page's verdict (`data-verify-state="done"`),
 * and the verification alone (from `running` to `done`, in the page's own clock). Medians of BENCH_PAGE_RUNS loads.
 *
 *   node -r ./test/helpers/swc-register.js bench/bench-report-page.ts   (BENCH_PAGE_STEPS=10000 BENCH_PAGE_RUNS=7)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchBrowser } from '../test/helpers/report-browser';
import { writeSyntheticJournal } from '../test/helpers/journal-rows';

const repo = path.resolve(__dirname, '..');
const work = path.join(repo, '.bench', 'report-page');
const cli = path.join(repo, 'dist', 'cli.js');
const steps = Number(process.env.BENCH_PAGE_STEPS ?? 10_000);
const runs = Number(process.env.BENCH_PAGE_RUNS ?? 7);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  rmSync(work, { recursive: true, force: true });
  const journal = path.join(work, 'big', '000000.jsonl');
  mkdirSync(path.dirname(journal), { recursive: true });
  // Rows shaped like an agent's: a prompt of varying length, a tool call and its result, a float timestamp.
  writeSyntheticJournal(journal, steps, (seq) => ({
    model: 'model-x',
    prompt: `step ${seq}: ${'lorem ipsum '.repeat(seq % 7)}`,
    tool_call: { name: seq % 3 === 0 ? 'run' : 'read_file', args: { i: seq, path: `src/mod${seq % 50}.ts` } },
    tool_result: { ok: seq % 5 !== 0, output: 'x'.repeat(200 + (seq % 300)) },
    ts: 1_700_000_000 + seq / 10,
  }));
  const out = path.join(work, 'report.html');
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [cli, 'report', journal, '-o', out], { encoding: 'utf8' });
  const generate = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`stepchain report failed (${r.status}): ${r.stderr}`);
  const browser = await launchBrowser();
  const load: number[] = [];
  const verify: number[] = [];
  try {
    await browser.context.addInitScript(() => {
      const w = window as unknown as { __stepchainBench: Record<string, number> };
      w.__stepchainBench = {};
      new MutationObserver(() => {
        const s = document.documentElement?.getAttribute('data-verify-state');
        if (s && w.__stepchainBench[s] === undefined) w.__stepchainBench[s] = performance.now();
      }).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-verify-state'] });
    });
    for (let k = 0; k < runs; k++) {
      const page = await browser.context.newPage();
      const t = process.hrtime.bigint();
      await page.goto(pathToFileURL(out).href);
      await page.waitForSelector('html[data-verify-state="done"]', { timeout: 300_000 });
      load.push(Number(process.hrtime.bigint() - t) / 1e6);
      const marks = await page.evaluate(
        () => (window as unknown as { __stepchainBench: Record<string, number> }).__stepchainBench,
      );
      verify.push(marks.done! - marks.running!);
      if ((await page.getAttribute('html', 'data-verified')) !== 'true') throw new Error('the page did not verify');
      await page.close();
    }
  } finally {
    await browser.close();
  }
  console.log(
    `\n# The report page: ${steps.toLocaleString('en')} steps in headless Chromium (median of ${runs} loads)`,
  );
  console.log('| journal | page | `stepchain report` | navigation to verdict | verification in the page |');
  console.log('| --- | --- | --- | --- | --- |');
  console.log(
    `| ${(statSync(journal).size / 1e6).toFixed(1)} MB | ${(statSync(out).size / 1e6).toFixed(1)} MB | ${generate.toFixed(0)} ms | ` +
      `${median(load).toFixed(0)} ms | ${median(verify).toFixed(0)} ms |`,
  );
  if (process.env.BENCH_PAGE_KEEP !== '1') rmSync(work, { recursive: true, force: true });
}

void main().catch((e: unknown) => {
  console.error(`bench-report-page: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
