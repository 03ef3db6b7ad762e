// The speed targets (issue 25) in one place, the figures each benchmark measures against them, and the summary
// `npm run bench` prints at its end: whether each target held in this run, on every subject it was measured on (every
// row shape, every agent, both receipts), with the worst one named. A benchmark run alone prints its own table and
// records nothing (STEPCHAIN_BENCH_RESULTS unset). CommonJS, so the .ts benchmarks (loaded through swc as CommonJS)
// and the .mjs ones take the same module.
const { appendFileSync, existsSync, readFileSync } = require('node:fs');

/** Each target: what is measured, which way is better, and the bound a figure must reach. */
const TARGETS = {
  'verify-vs-python': {
    what: '`verify` of each row shape: times faster than the Python peer',
    better: 'higher',
    bound: 8,
    unit: 'x',
  },
  'verify-vs-floor': {
    what: '`verify`, each row shape: times `openssl dgst -sha256` of the same file',
    better: 'lower',
    bound: 2.5,
    unit: 'x',
  },
  'hook-vs-node': {
    what: "each agent's hook call (snapshot + audit): times a bare `node -e 0`",
    better: 'lower',
    bound: 2.5,
    unit: 'x',
  },
  'receipt-vs-python': {
    what: '`receipt verify`: times faster than the Python way (tarfile + the reference walk)',
    better: 'higher',
    bound: 8,
    unit: 'x',
  },
  'receipt-peak-rss': {
    what: '`receipt verify`: peak RSS',
    better: 'lower',
    bound: 160,
    unit: ' MB',
  },
};

/**
 * Records one figure of this run against a target (nothing when no summary is being gathered). The subject names
 * what was measured (a row shape, an agent, a receipt), with its size when it is not the benchmark's default.
 */
function recordFigure(target, subject, value) {
  if (!(target in TARGETS)) throw new Error(`bench/targets.cjs: no target named ${target}`);
  if (!Number.isFinite(value)) throw new Error(`bench/targets.cjs: ${target} of ${subject} is not a number: ${value}`);
  const file = process.env.STEPCHAIN_BENCH_RESULTS;
  if (file) appendFileSync(file, `${JSON.stringify({ target, subject, value })}\n`);
}

const meets = (t, v) => (t.better === 'higher' ? v >= t.bound : v <= t.bound);
const show = (t, v) => `${v.toFixed(t.unit === 'x' ? 2 : 0)}${t.unit}`;

/** The summary's lines: one row a target, from the figures recorded in `file`. */
function summary(file) {
  const figures = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
  const lines = ['| target | bound | worst in this run | every figure | held |', '| --- | --- | --- | --- | --- |'];
  for (const [name, t] of Object.entries(TARGETS)) {
    const mine = figures.filter((f) => f.target === name);
    const bound = `${t.better === 'higher' ? '>=' : '<='} ${t.bound}${t.unit}`;
    if (mine.length === 0) {
      lines.push(`| ${t.what} | ${bound} | not measured | - | not measured |`);
      continue;
    }
    const worst = mine.reduce((a, b) => ((t.better === 'higher' ? b.value < a.value : b.value > a.value) ? b : a));
    const missed = mine.filter((f) => !meets(t, f.value));
    const every = mine.map((f) => `${f.subject} ${show(t, f.value)}`).join(', ');
    const held =
      missed.length === 0
        ? `yes (${mine.length} of ${mine.length})`
        : `**no** (${mine.length - missed.length} of ${mine.length})`;
    lines.push(`| ${t.what} | ${bound} | ${worst.subject} ${show(t, worst.value)} | ${every} | ${held} |`);
  }
  lines.push(
    '',
    "The suite's target (a fresh clone's `npm test` under 4 minutes on a 2-core machine) is not measured here: " +
      '`.ci/run` prints its figure.',
  );
  return lines;
}

module.exports = { TARGETS, recordFigure, summary };
