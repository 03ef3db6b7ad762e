/**
 * `stepchain hook claude` as the journal grows (npm run bench): the cost of one
 * PostToolUse hook call (a whole process, as Claude Code runs it) when the
 * session already has 1, 100 and 10,000 steps, with everything a long session
 * has accumulated at that point: the journal, one snapshot ref per step, one
 * audit entry per step, and a transcript of ~5 KB per step (50 MB at 10,000).
 *
 * Columns: the full hook (snapshot + audit), the hook without snapshot and
 * audit, the same call in-process (no Node start), and the peer: the Python
 * reference writer appending the same step (it reads the chain to its tip).
 *
 *   BENCH_HOOK_STEPS=1,100,10000 BENCH_HOOK_RUNS=7
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { auditTimestamp, computeAuditHmac, dayFileName, GENESIS_HMAC, nowMicros } from '../src/audit';
import { encode, type JsonObject } from '../src/canonical';
import { handleClaudeHook } from '../src/claude';
import { Journal, journalDir, journalFile } from '../src/journal';

const repo = path.resolve(__dirname, '..');
const work = path.join(repo, '.bench', 'claude-hook');
const cli = path.join(repo, 'dist', 'cli.js');
const peer = path.join(repo, 'test', 'python', 'stepchain_ref.py');
const sizes = (process.env.BENCH_HOOK_STEPS ?? '1,100,10000').split(',').map(Number);
const runs = Number(process.env.BENCH_HOOK_RUNS ?? 7);
const SID = '0b0b0b0b-1111-4222-8333-444444444444';
const AGENT = `claude-${SID}`;
const KEY = 'ab'.repeat(32);

const git = (cwd: string, args: string[], input?: string): string =>
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@stepchain.invalid', ...args], {
    cwd,
    input,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  }).trim();

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function payload(root: string, transcript: string, i: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      session_id: SID,
      transcript_path: transcript,
      cwd: root,
      prompt_id: 'p',
      hook_event_name: 'PostToolUse',
      tool_name: 'Edit',
      tool_input: { file_path: path.join(root, 'src', 'mod0.py'), old_string: 'x', new_string: `x${i}` },
      tool_response: { filePath: path.join(root, 'src', 'mod0.py'), structuredPatch: [] },
      tool_use_id: `toolu_bench_${i}`,
      duration_ms: 3,
    }),
  );
}

/** A project whose Claude session already has `steps` steps and all that comes with them. */
function setup(steps: number): { root: string; transcript: string; keyFile: string } {
  const root = path.join(work, `s${steps}`);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(path.join(root, 'src'), { recursive: true });
  for (let i = 0; i < 200; i++) writeFileSync(path.join(root, 'src', `mod${i}.py`), `def f${i}(x):\n    return x\n`);
  writeFileSync(path.join(root, '.gitignore'), '.sdd/\n');
  git(root, ['init', '-q', '-b', 'main']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'bench']);
  // The journal.
  const j = Journal.open(journalDir(root, AGENT), { durability: 'none' });
  const batch = 1000;
  for (let done = 0; done < steps; done += batch) {
    const k = Math.min(batch, steps - done);
    j.appendMany(
      Array.from({ length: k }, (_, i) => ({
        input: payload(root, '', done + i),
        model: 'claude-bench',
        prompt: 'Refactor the modules.',
        tool_call: { id: `toolu_${done + i}`, name: 'Edit', input: { file_path: 'src/mod0.py' } },
        tool_result: { ok: true },
      })),
    );
  }
  // One snapshot ref per step (all at HEAD: the count is what matters here).
  const head = git(root, ['rev-parse', 'HEAD']);
  const refs = Array.from({ length: steps }, (_, i) => `create refs/stepchain/snapshots/${AGENT}/${i} ${head}\n`);
  for (let i = 0; i < refs.length; i += 5000) git(root, ['update-ref', '--stdin'], refs.slice(i, i + 5000).join(''));
  // One audit entry per step, today.
  const keyFile = path.join(work, 'audit.key');
  writeFileSync(keyFile, KEY, { mode: 0o600 });
  const auditDir = path.join(root, '.sdd', 'audit');
  mkdirSync(auditDir, { recursive: true });
  const now = nowMicros();
  let prev = GENESIS_HMAC;
  const lines: string[] = [];
  for (let i = 0; i < steps; i++) {
    const entry: JsonObject = {
      timestamp: auditTimestamp(now),
      event_type: 'replay.step',
      actor: AGENT,
      resource_type: 'journal',
      resource_id: AGENT,
      details: { agent: AGENT, seq: i, step_hash: '0'.repeat(64) },
      prev_hmac: prev,
    };
    prev = computeAuditHmac(Buffer.from(KEY), prev, entry);
    lines.push(encode({ ...entry, hmac: prev }, { separators: 'pretty' }));
  }
  if (lines.length > 0) writeFileSync(path.join(auditDir, dayFileName(now)), lines.join('\n') + '\n');
  // The transcript: ~5 KB per step, the tool call of the next step at its end.
  const transcript = path.join(work, `transcript-${steps}.jsonl`);
  const filler = JSON.stringify({ type: 'attachment', sessionId: SID, content: 'x'.repeat(5000) });
  writeFileSync(transcript, '');
  for (let i = 0; i < steps; i += 1000) appendFileSync(transcript, `${filler}\n`.repeat(Math.min(1000, steps - i)));
  return { root, transcript, keyFile };
}

function time(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function hookProcess(
  root: string,
  transcript: string,
  i: number,
  env: NodeJS.ProcessEnv,
  extra: string[] = [],
): number {
  return time(() => {
    const r = spawnSync(process.execPath, [cli, 'hook', 'claude', ...extra], {
      input: payload(root, transcript, i),
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`hook failed (${r.status}): ${r.stderr}`);
  });
}

console.log(`\n# Claude Code hook: one PostToolUse call at 1, 100 and 10,000 steps (median of ${runs})`);
console.log(
  '| steps so far | hook (snapshot + audit) | hook, no snapshot or audit | in-process, no snapshot or audit | Python peer append | hook / peer |',
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const steps of sizes) {
  const { root, transcript, keyFile } = setup(steps);
  const env = { STEPCHAIN_AUDIT_KEY_PATH: keyFile };
  let i = steps;
  hookProcess(root, transcript, i++, env); // warm the page cache and git's stat cache
  const full = median(Array.from({ length: runs }, () => hookProcess(root, transcript, i++, env)));
  const bare = median(
    Array.from({ length: runs }, () =>
      hookProcess(root, transcript, i++, { STEPCHAIN_AUDIT: 'off' }, ['--no-snapshot']),
    ),
  );
  const inproc = median(
    Array.from({ length: runs }, () =>
      time(() => {
        const r = handleClaudeHook(payload(root, transcript, i++), {
          env: { STEPCHAIN_AUDIT: 'off' },
          snapshot: false,
        });
        if (r.errors.length > 0) throw new Error(r.errors.join('; '));
      }),
    ),
  );
  const step = `${JSON.stringify({ model: 'claude-bench', prompt: 'p', tool_call: { id: 'x' }, tool_result: { ok: true } })}\n`;
  const py = median(
    Array.from({ length: runs }, () =>
      time(() => {
        const r = spawnSync('python3', [peer, 'write', journalFile(root, AGENT)], { input: step });
        if (r.status !== 0) throw new Error(`peer failed: ${r.stderr}`);
      }),
    ),
  );
  console.log(
    `| ${steps.toLocaleString('en')} | ${full.toFixed(0)} ms | ${bare.toFixed(0)} ms | ${inproc.toFixed(1)} ms | ${py.toFixed(0)} ms | ${(full / py).toFixed(2)}x |`,
  );
}
rmSync(work, { recursive: true, force: true });
