/**
 * The cost of one recorded tool call for the agents recorded through a hook process (npm run bench): one whole
 * `stepchain hook <agent>` process, as the agent (or OpenCode's plugin) runs it, against the floor of any Node
 * hook, `node -e 0`. Copilot's hook also finds the call id in the session's event log (here one open call, as
 * at PostToolUse); both take the worktree snapshot (and, without it, `--no-snapshot`).
 *
 *   BENCH_AGENT_HOOK_RUNS=7
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const repo = path.resolve(__dirname, '..');
const work = path.join(repo, '.bench', 'agent-hooks');
const cli = path.join(repo, 'dist', 'cli.js');
const runs = Number(process.env.BENCH_AGENT_HOOK_RUNS ?? 7);
const SID = '0b6c1c5e-2f1c-4a7e-9d55-5a1f1c2b3d4e';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

rmSync(work, { recursive: true, force: true });
const root = path.join(work, 'project');
const home = path.join(work, 'home');
mkdirSync(root, { recursive: true });
for (let i = 0; i < 200; i++) writeFileSync(path.join(root, `mod${i}.py`), `def f${i}(x):\n    return x\n`);
writeFileSync(path.join(root, '.gitignore'), '.sdd/\n');
const git = (args: string[]) =>
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@stepchain.invalid', ...args], { cwd: root });
git(['init', '-q', '-b', 'main']);
git(['add', '-A']);
git(['commit', '-q', '-m', 'bench']);
const log = path.join(home, '.copilot', 'session-state', SID, 'events.jsonl');
mkdirSync(path.dirname(log), { recursive: true });
const env = { ...process.env, HOME: home, COPILOT_PROJECT_DIR: root, STEPCHAIN_AUDIT: 'off' };

function time(args: string[], input = ''): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: root, env, input });
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr.toString()}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

function copilot(i: number, extra: string[]): number {
  const command = `echo ${extra.length}-${i}`;
  appendFileSync(
    log,
    `${JSON.stringify({ type: 'tool.execution_start', data: { toolCallId: `c${extra.length}-${i}`, toolName: 'bash', arguments: { command }, model: 'm' } })}\n`,
  );
  const payload = {
    hook_event_name: 'PostToolUse',
    session_id: SID,
    cwd: root,
    tool_name: 'Bash',
    tool_input: { command },
    tool_result: { result_type: 'success', text_result_for_llm: 'x\n<shellId: 0 completed with exit code 0>' },
  };
  return time([cli, 'hook', 'copilot', ...extra], JSON.stringify(payload));
}

function opencode(i: number, extra: string[]): number {
  const payload = {
    hook_event_name: 'tool.execute.after',
    session_id: 'ses_bench',
    directory: root,
    call_id: `call_${extra.length}_${i}`,
    tool: 'bash',
    args: { command: 'echo' },
    output: { title: 'echo', output: '\n', metadata: { exit: 0, output: '\n', truncated: false } },
    prompt: 'p',
    model: 'm',
  };
  return time([cli, 'hook', 'opencode', ...extra], JSON.stringify(payload));
}

const rows: [string, number][] = [];
const measure = (name: string, f: (i: number) => number) =>
  rows.push([name, median(Array.from({ length: runs }, (_, i) => f(i)))]);
measure('node -e 0', () => time(['-e', '0']));
measure('hook copilot', (i) => copilot(i, []));
measure('hook copilot --no-snapshot', (i) => copilot(i, ['--no-snapshot']));
measure('hook opencode', (i) => opencode(i, []));
measure('hook opencode --no-snapshot', (i) => opencode(i, ['--no-snapshot']));
const floor = rows[0]![1];
console.log(`\nagent hooks: one tool call, a whole process (median of ${runs})`);
for (const [name, ms] of rows)
  console.log(`  ${name.padEnd(30)} ${ms.toFixed(0).padStart(6)} ms  x${(ms / floor).toFixed(1)}`);
