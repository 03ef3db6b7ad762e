/**
 * The hook an agent waits for on every tool call (npm run bench): one
 * PostToolUse-like hook call, a whole process as the agent runs it, when the
 * session already has 1, 100 and 10,000 steps, in a 2,000-file git work tree,
 * with everything a long session has accumulated at that point: the journal,
 * one snapshot ref per step, one audit entry per step, and a transcript of
 * ~5 KB per step (50 MB at 10,000).
 *
 * Measured interleaved (one of each per round, medians), in the same run:
 * a bare Node start (`node -e 0`, the floor the target is set against:
 * at most 2.5x), the full hook (snapshot + audit), the hook without snapshot
 * and audit, and the peer: the Python reference writer appending the same step
 * (it reads the chain to its tip). Then the same call in-process (no Node start).
 *
 * One row per agent and size: AGENTS below lists each agent's hook (its
 * `stepchain hook <name>` arguments and one payload); an agent added to the
 * hook registry adds its entry here.
 *
 *   BENCH_HOOK_STEPS=1,100,10000 BENCH_HOOK_RUNS=9 BENCH_HOOK_FILES=2000 BENCH_HOOK_AGENTS=claude
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
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
const runs = Number(process.env.BENCH_HOOK_RUNS ?? 9);
const files = Number(process.env.BENCH_HOOK_FILES ?? 2000);
const KEY = 'ab'.repeat(32);

/** One agent's hook: how it is run, the journal its tool calls go to, and one tool call's payload. */
interface AgentHook {
  name: string;
  args: string[];
  agentId: string;
  payload(root: string, transcript: string, i: number): Buffer;
  /** The same call in-process, without snapshot or audit (undefined: not measured). */
  inProcess?(bytes: Buffer): void;
}

const SID = '0b0b0b0b-1111-4222-8333-444444444444';
const AGENTS: AgentHook[] = [
  {
    name: 'claude',
    args: ['hook', 'claude'],
    agentId: `claude-${SID}`,
    payload: (root, transcript, i) =>
      Buffer.from(
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
      ),
    inProcess: (bytes) => {
      const r = handleClaudeHook(bytes, { env: { STEPCHAIN_AUDIT: 'off' }, snapshot: false });
      if (r.errors.length > 0) throw new Error(r.errors.join('; '));
    },
  },
];
const only = process.env.BENCH_HOOK_AGENTS?.split(',');

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

/** A project whose session already has `steps` steps and all that comes with them. */
function setup(agent: AgentHook, steps: number): { root: string; transcript: string; keyFile: string } {
  const root = path.join(work, `${agent.name}-s${steps}`);
  const id = agent.agentId;
  rmSync(root, { recursive: true, force: true });
  const old = Date.now() / 1000 - 3600;
  // `files` small source files in directories of 100, committed; .sdd/ ignored.
  for (let i = 0; i < files; i++) {
    const d = path.join(root, 'src', `pkg${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(d, { recursive: true });
    writeFileSync(path.join(d, `mod${i}.py`), `def f${i}(x):\n    return x\n`);
    // Older than the index git writes next, as a checkout's files are: not "racily clean" (which would make every
    // `git add` re-read all of them, a cost of this set-up, not of the hook).
    utimesSync(path.join(d, `mod${i}.py`), old, old);
  }
  writeFileSync(path.join(root, '.gitignore'), '.sdd/\n');
  git(root, ['init', '-q', '-b', 'main']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'bench']);
  // The journal.
  const j = Journal.open(journalDir(root, id), { durability: 'none' });
  const batch = 1000;
  for (let done = 0; done < steps; done += batch) {
    const k = Math.min(batch, steps - done);
    j.appendMany(
      Array.from({ length: k }, (_, i) => ({
        input: agent.payload(root, '', done + i),
        model: 'bench-model',
        prompt: 'Refactor the modules.',
        tool_call: { id: `toolu_${done + i}`, name: 'Edit', input: { file_path: 'src/mod0.py' } },
        tool_result: { ok: true },
      })),
    );
  }
  // One snapshot ref per step (all at HEAD: the count is what matters here).
  const head = git(root, ['rev-parse', 'HEAD']);
  const refs = Array.from({ length: steps }, (_, i) => `create refs/stepchain/snapshots/${id}/${i} ${head}\n`);
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
      actor: id,
      resource_type: 'journal',
      resource_id: id,
      details: { agent: id, seq: i, step_hash: '0'.repeat(64) },
      prev_hmac: prev,
    };
    prev = computeAuditHmac(Buffer.from(KEY), prev, entry);
    lines.push(encode({ ...entry, hmac: prev }, { separators: 'pretty' }));
  }
  if (lines.length > 0) writeFileSync(path.join(auditDir, dayFileName(now)), lines.join('\n') + '\n');
  // The transcript: ~5 KB per step.
  const transcript = path.join(work, `transcript-${agent.name}-${steps}.jsonl`);
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

function spawnTimed(cmd: string, args: string[], input: Buffer | string, env: NodeJS.ProcessEnv): number {
  return time(() => {
    const r = spawnSync(cmd, args, { input, env: { ...process.env, ...env }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  });
}

console.log(
  `\n# Each agent's hook: one tool call at ${sizes.map((s) => s.toLocaleString('en')).join(' / ')} steps, ` +
    `${files.toLocaleString('en')}-file work tree (whole processes, interleaved, median of ${runs})`,
);
console.log(
  '| agent | steps so far | `node -e 0` | hook (snapshot + audit) | hook / `node -e 0` (target <= 2.5x) | hook, no snapshot or audit | in-process, no snapshot or audit | Python peer append | hook / peer |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const agent of AGENTS.filter((a) => only === undefined || only.includes(a.name))) {
  for (const steps of sizes) {
    const { root, transcript, keyFile } = setup(agent, steps);
    const env = { STEPCHAIN_AUDIT_KEY_PATH: keyFile };
    let i = steps;
    const hook = (e: NodeJS.ProcessEnv, extra: string[] = []): number =>
      spawnTimed(process.execPath, [cli, ...agent.args, ...extra], agent.payload(root, transcript, i++), e);
    const step = `${JSON.stringify({ model: 'bench-model', prompt: 'p', tool_call: { id: 'x' }, tool_result: { ok: true } })}\n`;
    const peerAppend = (): number => spawnTimed('python3', [peer, 'write', journalFile(root, agent.agentId)], step, {});
    const bareNode = (): number => spawnTimed(process.execPath, ['-e', '0'], '', {});
    hook(env); // warm the page cache and git's stat cache
    const t = { node: [] as number[], full: [] as number[], bare: [] as number[], py: [] as number[] };
    for (let r = 0; r < runs; r++) {
      t.node.push(bareNode());
      t.full.push(hook(env));
      t.bare.push(hook({ STEPCHAIN_AUDIT: 'off' }, ['--no-snapshot']));
      t.py.push(peerAppend());
    }
    const inproc =
      agent.inProcess === undefined
        ? undefined
        : median(
            Array.from({ length: runs }, () => time(() => agent.inProcess!(agent.payload(root, transcript, i++)))),
          );
    const [node, full, bare, py] = [median(t.node), median(t.full), median(t.bare), median(t.py)];
    console.log(
      `| ${agent.name} | ${steps.toLocaleString('en')} | ${node.toFixed(0)} ms | ${full.toFixed(0)} ms | ${(full / node).toFixed(2)}x | ${bare.toFixed(0)} ms | ${inproc === undefined ? '-' : `${inproc.toFixed(1)} ms`} | ${py.toFixed(0)} ms | ${(full / py).toFixed(2)}x |`,
    );
  }
}
if (process.env.BENCH_HOOK_KEEP !== '1') rmSync(work, { recursive: true, force: true });
