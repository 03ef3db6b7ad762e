// Times the packaged Action (dist/index.js) on a large pull request: a base commit with
// JOURNALS per-step journals of STEPS steps each, and a PR branch appending APPEND steps to
// every one of them (so every base version is read and compared, and every chain is walked).
//
//   node scripts/bench-action.mjs [--journals 100] [--steps 1000] [--append 10] [--keep]
//
// Rows are generated here following docs/format.md §2 (canonical JSON of ASCII strings, sorted keys,
// a float ts) and the result is cross-checked with the built CLI's `verify`.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const action = path.join(root, 'dist', 'index.js');
const cli = path.join(root, 'dist', 'cli.js');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const JOURNALS = arg('journals', 100);
const STEPS = arg('steps', 1000);
const APPEND = arg('append', 10);
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

const dir = mkdtempSync(path.join(tmpdir(), 'stepchain-bench-action-'));
try {
  const repo = path.join(dir, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'bench');
  git(repo, 'config', 'user.email', 'bench@stepchain.invalid');
  git(repo, 'config', 'commit.gpgsign', 'false');
  let t = performance.now();
  const heads = [];
  let bytes = 0;
  for (let a = 0; a < JOURNALS; a++) {
    const agent = `agent-${String(a).padStart(3, '0')}`;
    const jdir = path.join(repo, '.sdd', 'runtime', 'journal', agent);
    mkdirSync(jdir, { recursive: true });
    const r = rows(agent, 0, STEPS, ZERO);
    writeFileSync(path.join(jdir, '000000.jsonl'), r.text);
    heads.push(r.head);
    bytes += r.text.length;
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  const base = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'checkout', '-q', '-b', 'pr');
  for (let a = 0; a < JOURNALS; a++) {
    const agent = `agent-${String(a).padStart(3, '0')}`;
    const r = rows(agent, STEPS, APPEND, heads[a]);
    appendFileSync(path.join(repo, '.sdd', 'runtime', 'journal', agent, '000000.jsonl'), r.text);
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'append');
  const head = git(repo, 'rev-parse', 'HEAD');
  const setup = performance.now() - t;

  // The generated rows are real rows: the CLI verifies one.
  const check = spawnSync(
    process.execPath,
    [cli, 'verify', path.join(repo, '.sdd/runtime/journal/agent-000/000000.jsonl')],
    { encoding: 'utf8' },
  );
  if (check.status !== 0) throw new Error(`generated journal does not verify: ${check.stdout}${check.stderr}`);

  const scratch = path.join(dir, 'scratch');
  mkdirSync(scratch);
  const event = path.join(scratch, 'event.json');
  writeFileSync(event, JSON.stringify({ pull_request: { number: 1, base: { sha: base }, head: { sha: head } } }));
  writeFileSync(path.join(scratch, 'output'), '');
  writeFileSync(path.join(scratch, 'summary.md'), '');
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (/^(GITHUB_|INPUT_|ACTIONS_|RUNNER_)/.test(k)) delete env[k];
  Object.assign(env, {
    GITHUB_WORKSPACE: repo,
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: event,
    GITHUB_OUTPUT: path.join(scratch, 'output'),
    GITHUB_STEP_SUMMARY: path.join(scratch, 'summary.md'),
    GITHUB_REPOSITORY: 'bench/bench',
    RUNNER_TEMP: scratch,
  });
  const times = [];
  let last;
  for (let i = 0; i < 3; i++) {
    t = performance.now();
    last = spawnSync(process.execPath, [action], { cwd: repo, env, encoding: 'utf8', maxBuffer: 1 << 28 });
    times.push(performance.now() - t);
    if (last.status !== 0)
      throw new Error(`the Action failed (${last.status}): ${last.stdout.slice(-2000)}${last.stderr}`);
  }
  const out = readFileSync(path.join(scratch, 'output'), 'utf8');
  const verified = /verified<<(\S+)\n(\d+)\n/.exec(out)?.[2];
  const reportFile = /report<<(\S+)\n(.+)\n/.exec(out)?.[2];
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  const appended = report.items.filter((i) => i.appendOnly === 'appended').length;
  if (Number(verified) !== JOURNALS || appended !== JOURNALS)
    throw new Error(`expected ${JOURNALS} verified and appended, got ${verified} / ${appended}`);
  const best = Math.min(...times);
  console.log(
    `bench-action: ${JOURNALS} journals x ${STEPS} steps (+${APPEND} appended each, ${(bytes / 1e6).toFixed(1)} MB at base): ` +
      `node dist/index.js ${times.map((x) => `${(x / 1000).toFixed(2)}s`).join(' / ')} (best ${(best / 1000).toFixed(2)}s; ` +
      `${Math.round((JOURNALS * (STEPS + APPEND)) / (best / 1000))} rows/s, append-only checked against the base); setup ${(setup / 1000).toFixed(1)}s`,
  );
} finally {
  if (keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
