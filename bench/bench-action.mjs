// Times the packaged Action (dist/index.js) on large pull requests: a base commit with
// JOURNALS per-step journals of STEPS steps each, and a PR branch appending APPEND steps to
// every one of them (so every base version is read and compared, and every chain is walked).
// By default two shapes on one job, 100 journals x 1,000 steps and 10,000 journals x 10 steps,
// then the 10,000-journal one split into SHARDS shards (shard-index/shard-count, each shard
// timed: the slowest is the wall time of a matrix). The floor beside each: git alone reading
// every base journal (`ls-tree` + one `cat-file --batch`).
//
//   node bench/bench-action.mjs [--journals N --steps S] [--append 10] [--shards 4] [--keep]
//
// Rows are generated here following docs/format.md §2 (canonical JSON of ASCII strings, sorted keys,
// a float ts) and the result is cross-checked with the built CLI's `verify`.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const action = path.join(root, 'dist', 'index.js');
const cli = path.join(root, 'dist', 'cli.js');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const APPEND = arg('append', 10);
const SHARDS = arg('shards', 4);
const SHAPES =
  arg('journals', 0) > 0
    ? [{ journals: arg('journals', 100), steps: arg('steps', 1000) }]
    : [
        { journals: 100, steps: 1000 },
        { journals: 10000, steps: 10 },
      ];
const keep = process.argv.includes('--keep');

if (!existsSync(action)) {
  console.error('bench-action: dist/index.js is missing: run `npm run build` first');
  process.exit(2);
}

const sha256 = (s) => createHash('sha256').update(s).digest('hex');
const ZERO = '0'.repeat(64);
/** canonical() for the flat objects built here: sorted keys, JSON.stringify values (ASCII only). */
const canon = (o) =>
  `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${o[k] instanceof Float ? o[k].text : JSON.stringify(o[k])}`)
    .join(',')}}`;
class Float {
  constructor(v) {
    this.text = Number.isInteger(v) ? `${v}.0` : String(v);
  }
}

function rows(agent, from, count, prev) {
  let out = '';
  for (let seq = from; seq < from + count; seq++) {
    const fields = {
      input_hash: sha256(`${agent} input ${seq}`),
      model: 'bench-model',
      prev_hash: prev,
      prompt: `step ${seq} of ${agent}: summarise the diff and decide the next tool call`,
      tool_call: `{"name":"shell","args":["git","diff","--stat","HEAD~${seq}"]}`,
      tool_result: `ok ${seq}: ${'x'.repeat(120)}`,
    };
    const step_hash = sha256(canon(fields));
    out += `${canon({ ...fields, blob_refs: [], seq, step_hash, ts: new Float(1_700_000_000.5 + seq) })}\n`;
    prev = step_hash;
  }
  return { text: out, head: prev };
}

const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 }).trim();
const secs = (ms) => `${(ms / 1000).toFixed(2)}s`;

/** A repository with the base journals on main and a PR branch appending to each. */
function makeRepo(dir, JOURNALS, STEPS) {
  const repo = path.join(dir, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'bench');
  git(repo, 'config', 'user.email', 'bench@stepchain.invalid');
  git(repo, 'config', 'commit.gpgsign', 'false');
  // No automatic gc: the 10,000-file commits set it off (a warning in the bench's output), and a gc left running in
  // the background would share the machine with the timed runs.
  git(repo, 'config', 'gc.auto', '0');
  const t = performance.now();
  const heads = [];
  let bytes = 0;
  const width = String(JOURNALS - 1).length;
  const name = (a) => `agent-${String(a).padStart(Math.max(3, width), '0')}`;
  for (let a = 0; a < JOURNALS; a++) {
    const jdir = path.join(repo, '.sdd', 'runtime', 'journal', name(a));
    mkdirSync(jdir, { recursive: true });
    const r = rows(name(a), 0, STEPS, ZERO);
    writeFileSync(path.join(jdir, '000000.jsonl'), r.text);
    heads.push(r.head);
    bytes += r.text.length;
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  const base = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'checkout', '-q', '-b', 'pr');
  for (let a = 0; a < JOURNALS; a++) {
    const r = rows(name(a), STEPS, APPEND, heads[a]);
    appendFileSync(path.join(repo, '.sdd', 'runtime', 'journal', name(a), '000000.jsonl'), r.text);
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'append');
  const head = git(repo, 'rev-parse', 'HEAD');
  // The generated rows are real rows: the CLI verifies one.
  const check = spawnSync(
    process.execPath,
    [cli, 'verify', path.join(repo, '.sdd/runtime/journal', name(0), '000000.jsonl')],
    {
      encoding: 'utf8',
    },
  );
  if (check.status !== 0) throw new Error(`generated journal does not verify: ${check.stdout}${check.stderr}`);
  return { repo, base, head, bytes, setup: performance.now() - t };
}

/** Runs the Action as a runner does; returns the wall time and the parsed report. */
function runAction(dir, repo, base, head, inputs, tag) {
  const scratch = path.join(dir, `scratch-${tag}`);
  mkdirSync(scratch, { recursive: true });
  const event = path.join(scratch, 'event.json');
  const fixture = readFileSync(path.join(root, 'test/fixtures/events/pull_request.json'), 'utf8');
  writeFileSync(event, fixture.replace(/__BASE__/g, base).replace(/__HEAD__/g, head));
  writeFileSync(path.join(scratch, 'output'), '');
  writeFileSync(path.join(scratch, 'summary.md'), '');
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (/^(GITHUB_|INPUT_|ACTIONS_|RUNNER_)/.test(k)) delete env[k];
  Object.assign(env, {
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: repo,
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: event,
    GITHUB_OUTPUT: path.join(scratch, 'output'),
    GITHUB_STEP_SUMMARY: path.join(scratch, 'summary.md'),
    GITHUB_REPOSITORY: 'bench/bench',
    RUNNER_TEMP: scratch,
  });
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  const t = performance.now();
  const r = spawnSync(process.execPath, [action], { cwd: repo, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`the Action failed (${r.status}): ${r.stdout.slice(-2000)}${r.stderr}`);
  const out = readFileSync(path.join(scratch, 'output'), 'utf8');
  const reportFile = /report<<(\S+)\n(.+)\n/.exec(out)?.[2];
  return { ms, report: JSON.parse(readFileSync(reportFile, 'utf8')) };
}

/** The floor: git alone listing the base's tree and reading every journal blob in one process. */
function gitFloor(repo, base) {
  const t = performance.now();
  const list = execFileSync('git', ['ls-tree', '-r', '--full-tree', base], {
    cwd: repo,
    maxBuffer: 1 << 30,
  }).toString();
  const oids = list
    .split('\n')
    .filter((l) => l.includes('.sdd/runtime/journal/'))
    .map((l) => l.split(/\s+/)[2])
    .join('\n');
  execFileSync('git', ['cat-file', '--batch'], { cwd: repo, input: `${oids}\n`, maxBuffer: 1 << 30 });
  return performance.now() - t;
}

for (const { journals: JOURNALS, steps: STEPS } of SHAPES) {
  const dir = mkdtempSync(path.join(tmpdir(), 'stepchain-bench-action-'));
  try {
    const { repo, base, head, bytes, setup } = makeRepo(dir, JOURNALS, STEPS);
    const times = [];
    let report;
    for (let i = 0; i < (JOURNALS >= 5000 ? 2 : 3); i++) {
      const r = runAction(dir, repo, base, head, {}, `one-${i}`);
      times.push(r.ms);
      report = r.report;
    }
    const appended = report.items.filter((i) => i.append_only === 'appended').length;
    if (report.verified !== JOURNALS || appended !== JOURNALS)
      throw new Error(`expected ${JOURNALS} verified and appended, got ${report.verified} / ${appended}`);
    const best = Math.min(...times);
    const floor = Math.min(gitFloor(repo, base), gitFloor(repo, base));
    console.log(
      `bench-action: ${JOURNALS} journals x ${STEPS} steps (+${APPEND} appended each, ${(bytes / 1e6).toFixed(1)} MB at base), one job: ` +
        `node dist/index.js ${times.map(secs).join(' / ')} (best ${secs(best)}; ${Math.round((JOURNALS * (STEPS + APPEND)) / (best / 1000))} rows/s); ` +
        `floor git ls-tree + cat-file --batch ${secs(floor)} (${(best / floor).toFixed(1)}x the floor); setup ${(setup / 1000).toFixed(1)}s`,
    );
    if (JOURNALS >= 1000 && SHARDS > 1) {
      const shardTimes = [];
      const seen = new Set();
      for (let i = 0; i < SHARDS; i++) {
        const r = runAction(
          dir,
          repo,
          base,
          head,
          { 'shard-index': String(i), 'shard-count': String(SHARDS) },
          `shard-${i}`,
        );
        shardTimes.push(r.ms);
        for (const item of r.report.items) seen.add(item.path);
      }
      if (seen.size !== JOURNALS) throw new Error(`the shards checked ${seen.size} journals, not ${JOURNALS}`);
      const slowest = Math.max(...shardTimes);
      console.log(
        `bench-action: the same in ${SHARDS} shards (a matrix of ${SHARDS} jobs): ${shardTimes.map(secs).join(' / ')}; ` +
          `the matrix's wall time is the slowest shard, ${secs(slowest)} (${(best / slowest).toFixed(1)}x faster than one job; ` +
          `${secs(shardTimes.reduce((a, b) => a + b, 0))} of runner time in all)`,
      );
    }
  } finally {
    if (keep) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
