/**
 * The hook an agent waits for on every tool call (npm run bench), for every agent of the registry: one tool call,
 * a whole `stepchain hook <agent>` process as the agent (or OpenCode's plugin) runs it, when the session already
 * has 10,000 steps, in a 2,000-file git work tree, with everything a long session has accumulated by then: the
 * journal, one snapshot ref per step, one audit entry per step, and the agent's own session file (Claude Code's
 * transcript, Codex's rollout, Copilot's event log, Gemini CLI's chat file) at ~5 KB per step (50 MB at 10,000),
 * the call it reports written at its end, as the agent writes it before the hook runs.
 *
 * Claude Code's hook is measured twice: as set up, the refs loose, and after `git gc` (refs and objects packed, as
 * git's automatic gc leaves a repository a few thousand steps into a session): a ref is then looked up in
 * `packed-refs`, which each hook call reads only a few pages of.
 *
 * Measured interleaved (one of each per round, medians), in the same run: a bare Node start (`node -e 0`, the floor
 * the target is set against: at most 2.5x), the full hook (snapshot + audit), the hook without snapshot and audit,
 * and the peer: the Python reference writer appending the same step (it reads the chain to its tip). Then the same
 * call in-process (no Node start), without snapshot or audit.
 *
 * Gemini CLI's AfterTool payload names no call id: the hook keeps it pending, and the next hook call (PreCompress,
 * before the next model call) appends the step once the chat file names the call. Its row is that PreCompress
 * call; the AfterTool call before it has a row of its own.
 *
 * BENCH_HOOK_BASELINE=<an earlier bin> adds a column: that bin's full hook, interleaved with this one's.
 *
 *   BENCH_HOOK_STEPS=10000 BENCH_HOOK_RUNS=9 BENCH_HOOK_FILES=2000 BENCH_HOOK_AGENTS=claude,codex BENCH_HOOK_KEEP=1
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AGENTS, agentNamed } from '../src/agents';
import { auditTimestamp, computeAuditHmac, dayFileName, GENESIS_HMAC, nowMicros } from '../src/audit';
import { encode, type JsonObject } from '../src/canonical';
import { Journal, journalDir, journalFile } from '../src/journal';
import { PYTHON } from './util';
import { recordFigure } from './targets.cjs';

const repo = path.resolve(__dirname, '..');
const work = path.join(repo, '.bench', 'agent-hooks');
const cli = path.join(repo, 'dist', 'cli.js');
const peer = path.join(repo, 'test', 'python', 'stepchain_ref.py');
const sizes = (process.env.BENCH_HOOK_STEPS ?? '10000').split(',').map(Number);
const runs = Number(process.env.BENCH_HOOK_RUNS ?? 9);
const files = Number(process.env.BENCH_HOOK_FILES ?? 2000);
const only = process.env.BENCH_HOOK_AGENTS?.split(',');
const baseline = process.env.BENCH_HOOK_BASELINE;
// A state directory of the bench's own (the journals' checkpoint key, the audit log's tip mirrors, the hook's code
// cache), for the set-up and every hook alike: the mirrors of an earlier run's logs at the same paths would be
// taken for a rollback of the ones this run writes anew.
rmSync(work, { recursive: true, force: true });
process.env.XDG_STATE_HOME = path.join(work, 'state');
const KEY = 'ab'.repeat(32);
const SID = '0b0b0b0b-1111-4222-8333-444444444444';
/** About 5 KB of an agent's session file per step. */
const FILLER = 'x'.repeat(5000);

/** Where one agent's session is recorded in the bench: the project, the agent's home, its session file. */
interface Session {
  root: string;
  home: string;
  /** The agent's own file that grows with the session (undefined: the agent keeps none the hook reads). */
  log: string | undefined;
}

/** One hook process of a tool call: its arguments after `hook <agent>` are the caller's; the payload is its stdin. */
interface HookCall {
  payload: Buffer;
  /** What the agent writes before it runs this hook (the call in its session file). */
  before?: () => void;
}

/** One agent's generator of realistic payloads. */
interface AgentBench {
  name: string;
  /** The session's journal id. */
  journal: string;
  /**
   * The environment the agent gives its hooks (where it keeps its sessions, its project directory). HOME stays the
   * user's: the journal's checkpoint key and git's identity are there, as they are for a real session.
   */
  env(s: Session): Record<string, string>;
  /** The agent's session file under `home` (undefined: none). */
  log(home: string, root: string): string | undefined;
  /** One line of the session file for an earlier call `i` (the filler a long session has). */
  history(i: number): string;
  /** The hook calls of tool call `i`: every one is a process; the last appends the step. */
  calls(s: Session, i: number): HookCall[];
  /** The event a session's first hook call carries (its start): what the hook's code cache is first written by. */
  start: string;
}

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
const appendLine = (file: string | undefined, v: unknown) => {
  if (file !== undefined) appendFileSync(file, `${JSON.stringify(v)}\n`);
};

const BENCHES: Record<string, AgentBench> = {
  claude: {
    name: 'claude',
    start: 'SessionStart',
    journal: `claude-${SID}`,
    env: (s) => ({ CLAUDE_CONFIG_DIR: path.join(s.home, '.claude'), CLAUDE_PROJECT_DIR: s.root }),
    log: (home, root) => path.join(home, '.claude', 'projects', root.replace(/[^A-Za-z0-9]/g, '-'), `${SID}.jsonl`),
    history: (i) => JSON.stringify({ type: 'attachment', sessionId: SID, uuid: `u${i}`, content: FILLER }),
    calls: (s, i) => {
      const id = `toolu_bench_${i}`;
      const input = { file_path: path.join(s.root, 'src', 'pkg0', 'mod0.py'), old_string: 'x', new_string: `x${i}` };
      return [
        {
          before: () =>
            appendLine(s.log, {
              type: 'assistant',
              sessionId: SID,
              message: { model: 'claude-bench', content: [{ type: 'tool_use', id, name: 'Edit', input }] },
            }),
          payload: json({
            session_id: SID,
            transcript_path: s.log,
            cwd: s.root,
            prompt_id: 'p',
            hook_event_name: 'PostToolUse',
            tool_name: 'Edit',
            tool_input: input,
            tool_response: { filePath: input.file_path, structuredPatch: [] },
            tool_use_id: id,
            duration_ms: 3,
          }),
        },
      ];
    },
  },
  codex: {
    name: 'codex',
    start: 'SessionStart',
    journal: `codex-${SID}`,
    env: (s) => ({ CODEX_HOME: path.join(s.home, '.codex') }),
    log: (home) =>
      path.join(home, '.codex', 'sessions', '2026', '12', '03', `rollout-2026-12-03T10-00-00-${SID}.jsonl`),
    history: (i) =>
      JSON.stringify({
        type: 'response_item',
        payload: { type: 'function_call_output', call_id: `call_old_${i}`, output: FILLER },
      }),
    calls: (s, i) => {
      const id = `call_bench_${i}`;
      const input = { command: 'ls src' };
      return [
        {
          before: () => {
            appendLine(s.log, {
              type: 'response_item',
              payload: { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls src"}', call_id: id },
            });
            appendLine(s.log, {
              type: 'event_msg',
              payload: { type: 'item_completed', item: { id, type: 'command_execution', exit_code: 0 } },
            });
          },
          payload: json({
            session_id: SID,
            transcript_path: s.log,
            cwd: s.root,
            hook_event_name: 'PostToolUse',
            model: 'gpt-bench',
            turn_id: 't1',
            tool_name: 'Bash',
            tool_input: input,
            tool_response: 'pkg0\npkg1\n',
            tool_use_id: id,
          }),
        },
      ];
    },
  },
  gemini: {
    name: 'gemini',
    start: 'SessionStart',
    journal: `gemini-${SID}`,
    env: (s) => ({ GEMINI_CLI_HOME: s.home, GEMINI_PROJECT_DIR: s.root }),
    log: (home) =>
      path.join(home, '.gemini', 'tmp', 'bench', 'chats', `session-2026-12-03T10-00-${SID.slice(0, 8)}.jsonl`),
    history: (i) =>
      JSON.stringify({
        id: `m${i}`,
        type: 'gemini',
        model: 'gemini-bench',
        content: FILLER,
        toolCalls: [{ id: `old_${i}`, name: 'run_shell_command', args: { command: `echo ${i}` }, status: 'success' }],
      }),
    calls: (s, i) => {
      const id = `run_shell_command_bench_${i}`;
      const args = { command: `echo bench ${i}` };
      const base = { session_id: SID, transcript_path: s.log, cwd: s.root, timestamp: '2026-12-03T10:00:00.000Z' };
      return [
        {
          payload: json({
            ...base,
            hook_event_name: 'AfterTool',
            tool_name: 'run_shell_command',
            tool_input: args,
            tool_response: { llmContent: `bench ${i}`, returnDisplay: `bench ${i}` },
          }),
        },
        {
          // Gemini CLI writes the call to its chat file after the AfterTool hooks ran, before the next model call.
          before: () =>
            appendLine(s.log, {
              id: `m_bench_${i}`,
              type: 'gemini',
              model: 'gemini-bench',
              content: '',
              toolCalls: [{ id, name: 'run_shell_command', args, status: 'success' }],
            }),
          payload: json({ ...base, hook_event_name: 'PreCompress', trigger: 'auto' }),
        },
      ];
    },
  },
  copilot: {
    name: 'copilot',
    start: 'SessionStart',
    journal: `copilot-${SID}`,
    env: (s) => ({ COPILOT_HOME: path.join(s.home, '.copilot'), COPILOT_PROJECT_DIR: s.root }),
    log: (home) => path.join(home, '.copilot', 'session-state', SID, 'events.jsonl'),
    history: (i) =>
      JSON.stringify({
        type: 'tool.execution_complete',
        data: { toolCallId: `old_${i}`, success: true, result: { content: FILLER } },
      }),
    calls: (s, i) => {
      const command = `echo bench ${i}`;
      return [
        {
          before: () =>
            appendLine(s.log, {
              type: 'tool.execution_start',
              data: { toolCallId: `call_bench_${i}`, toolName: 'bash', arguments: { command }, model: 'copilot-bench' },
            }),
          payload: json({
            hook_event_name: 'PostToolUse',
            session_id: SID,
            cwd: s.root,
            tool_name: 'Bash',
            tool_input: { command },
            tool_result: {
              result_type: 'success',
              text_result_for_llm: `bench ${i}\n<shellId: 0 completed with exit code 0>`,
            },
          }),
        },
      ];
    },
  },
  opencode: {
    name: 'opencode',
    start: 'session.created',
    journal: `opencode-${SID}`,
    env: () => ({}),
    log: () => undefined,
    history: () => '',
    calls: (s, i) => [
      {
        payload: json({
          hook_event_name: 'tool.execute.after',
          session_id: SID,
          directory: s.root,
          call_id: `call_bench_${i}`,
          tool: 'bash',
          args: { command: `echo bench ${i}` },
          output: { title: 'echo', output: `bench ${i}\n`, metadata: { exit: 0, output: `bench ${i}\n` } },
          prompt: 'Refactor the modules.',
          model: 'opencode-bench',
        }),
      },
    ],
  },
};

const git = (cwd: string, args: string[], input?: string): string =>
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@stepchain.invalid', ...args], {
    cwd,
    input,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  }).trim();

/** Microseconds to make, write and remove a file in `dir`: the median of 21. */
function creationMicros(dir: string): number {
  const ts: number[] = [];
  for (let k = 0; k < 21; k++) {
    const f = path.join(dir, `bench-settle-${process.pid}-${k}`);
    const t = process.hrtime.bigint();
    writeFileSync(f, 'x', { flag: 'wx' });
    ts.push(Number(process.hrtime.bigint() - t) / 1e3);
    rmSync(f);
  }
  return median(ts);
}

/**
 * Waits until making a file in `dir` has cost what it costs in a fresh directory beside the bench's work for 8 s in
 * a row (at most 3 minutes): the seconds waited, and the slowest cost seen (us). On a file system mounted with online
 * discard (this VM's ext4: `discard`), freeing many files (git's gc pruning thousands of loose objects and refs)
 * makes every file made in their block group wait on the discards, which start with the journal's next commit (a
 * few seconds later) and last a minute or more. Measured after `git gc` of the 2,000-file project: 16 us a file at
 * once, 650-930 us from 5 to 25 s, ~120 us until 70 s, 17 us after. A hook call makes ~15 files: the gc row
 * measured that minute (~7 ms a call more), not the state git's gc leaves a session in the rest of the time.
 */
function settle(dir: string): { seconds: number; worst: number } {
  const fresh = mkdtempSync(path.join(work, 'settle-'));
  const t0 = Date.now();
  let calm = 0;
  let worst = 0;
  try {
    while (calm < 8 && Date.now() - t0 < 180_000) {
      const here = creationMicros(dir);
      worst = Math.max(worst, here);
      calm = here <= 2 * creationMicros(fresh) + 5 ? calm + 1 : 0;
      spawnSync('sleep', ['1']);
    }
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
  return { seconds: (Date.now() - t0) / 1000, worst };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** A project whose session already has `steps` steps and all that comes with them. */
function setup(agent: AgentBench, steps: number, gc: boolean): Session {
  const base = path.join(work, `${agent.name}-s${steps}${gc ? '-gc' : ''}`);
  const root = path.join(base, 'project');
  const home = path.join(base, 'home');
  const id = agent.journal;
  rmSync(base, { recursive: true, force: true });
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
  git(root, ['config', 'user.name', 'Bench']);
  git(root, ['config', 'user.email', 'bench@stepchain.invalid']);
  // No automatic gc: past ~6,700 loose objects (BENCH_HOOK_FILES=50000) the commit below starts one in the background,
  // which packed the repository while it was measured and made the explicit `git gc` fail ("gc is already running").
  git(root, ['config', 'gc.auto', '0']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'bench']);
  const session: Session = { root, home, log: agent.log(home, root) };
  // The journal: earlier calls of the same shape.
  const j = Journal.open(journalDir(root, id), { durability: 'none' });
  const batch = 1000;
  for (let done = 0; done < steps; done += batch) {
    const k = Math.min(batch, steps - done);
    j.appendMany(
      Array.from({ length: k }, (_, i) => {
        const payload = agent.calls(session, done + i).at(-1)!.payload;
        return {
          input: payload,
          model: 'bench-model',
          prompt: 'Refactor the modules.',
          tool_call: { id: `call_${done + i}`, name: 'Bash', input: { command: 'ls' } },
          tool_result: { ok: true },
        };
      }),
    );
  }
  // One snapshot ref per step (all at HEAD: the count is what matters here).
  const head = git(root, ['rev-parse', 'HEAD']);
  const refs = Array.from({ length: steps }, (_, i) => `create refs/stepchain/snapshots/${id}/${i} ${head}\n`);
  for (let i = 0; i < refs.length; i += 5000) git(root, ['update-ref', '--stdin'], refs.slice(i, i + 5000).join(''));
  // What git's automatic gc leaves (it runs once a few thousand loose objects pile up, ~2 a step): refs and objects
  // packed, which every lookup of a ref then searches.
  if (gc) git(root, ['gc', '-q']);
  // One audit entry per step, today.
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
  // The agent's session file: ~5 KB per earlier step.
  if (session.log !== undefined) {
    mkdirSync(path.dirname(session.log), { recursive: true });
    writeFileSync(session.log, '');
    for (let i = 0; i < steps; i += 1000) {
      const n = Math.min(1000, steps - i);
      appendFileSync(session.log, Array.from({ length: n }, (_, k) => `${agent.history(i + k)}\n`).join(''));
    }
  }
  return session;
}

function time(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** What the last process printed on stderr (a hook's warnings: the bench's payloads should cause none). */
let lastStderr = '';

function spawnTimed(cmd: string, args: string[], input: Buffer | string, env: NodeJS.ProcessEnv): number {
  return time(() => {
    const r = spawnSync(cmd, args, { input, env: { ...process.env, ...env }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    lastStderr = r.stderr;
  });
}

const fmt = (ms: number): string => `${ms.toFixed(0)} ms`;

console.log(
  `\n# Each agent's hook: one tool call at ${sizes.map((s) => s.toLocaleString('en')).join(' / ')} steps, ` +
    `${files.toLocaleString('en')}-file work tree (whole processes, interleaved, median of ${runs})`,
);
console.log(
  `| agent | steps so far | \`node -e 0\` | hook (snapshot + audit) | hook / \`node -e 0\` (target <= 2.5x) |${baseline === undefined ? '' : ' the baseline bin (snapshot + audit) |'} hook, no snapshot or audit | in-process, no snapshot or audit | Python peer append | hook / peer |`,
);
console.log(`| --- | --- | --- | --- | --- |${baseline === undefined ? '' : ' --- |'} --- | --- | --- | --- |`);
const names = AGENTS.map((a) => a.name).filter((n) => only === undefined || only.includes(n));
for (const name of names) {
  const agent = BENCHES[name];
  if (agent === undefined) throw new Error(`bench/bench-agent-hooks.ts: no payloads for the agent ${name}; add them`);
  // Claude Code's hook also after git's gc (the state a long session's repository is in most of the time).
  const variants = sizes.flatMap((steps) => (name === 'claude' ? [false, true] : [false]).map((gc) => ({ steps, gc })));
  for (const { steps, gc } of variants) {
    const s = setup(agent, steps, gc);
    const settled = settle(path.join(s.root, '.git'));
    if (settled.worst > 50)
      console.error(
        `(${name}${gc ? ' after git gc' : ''}: making a file in its .git took up to ${settled.worst.toFixed(0)} us; measured once that settled, ${settled.seconds.toFixed(0)} s later)`,
      );
    const keyFile = path.join(work, 'audit.key');
    writeFileSync(keyFile, KEY, { mode: 0o600 });
    const env = { ...agent.env(s), STEPCHAIN_AUDIT_KEY_PATH: keyFile };
    const bareEnv = { ...agent.env(s), STEPCHAIN_AUDIT: 'off' };
    let i = steps;
    /** One tool call as processes; the time of each hook call. */
    const toolCall = (e: NodeJS.ProcessEnv, extra: string[], bin = cli): number[] =>
      agent.calls(s, i++).map((c) => {
        c.before?.();
        return spawnTimed(process.execPath, [bin, 'hook', name, ...extra], c.payload, e);
      });
    const step = `${JSON.stringify({ model: 'bench-model', prompt: 'p', tool_call: { id: 'x' }, tool_result: { ok: true } })}\n`;
    const peerAppend = (): number => spawnTimed(PYTHON, [peer, 'write', journalFile(s.root, agent.journal)], step, {});
    const bareNode = (): number => spawnTimed(process.execPath, ['-e', '0'], '', {});
    // A session's first hook call is its start, not a tool call: the code cache holds what the calls so far ran.
    const root = { cwd: s.root, directory: s.root, source: 'startup', transcript_path: s.log };
    spawnTimed(
      process.execPath,
      [cli, 'hook', name],
      json({ hook_event_name: agent.start, session_id: SID, ...root }),
      env,
    );
    if (baseline !== undefined)
      spawnTimed(
        process.execPath,
        [baseline, 'hook', name],
        json({ hook_event_name: agent.start, session_id: SID, ...root }),
        env,
      );
    toolCall(env, []); // warm the page cache and git's stat cache
    if (lastStderr !== '') console.log(`(${name}: the hook said: ${lastStderr.trim()})`);
    const t = { node: [] as number[], full: [] as number[][], bare: [] as number[][], py: [] as number[] };
    const before: number[][] = [];
    if (baseline !== undefined) toolCall(env, [], baseline);
    for (let r = 0; r < runs; r++) {
      t.node.push(bareNode());
      t.full.push(toolCall(env, []));
      if (baseline !== undefined) before.push(toolCall(env, [], baseline));
      // After gc only the full hook: a step recorded without a snapshot in between would make the next one compare
      // with HEAD's commit, packed by the gc (a `git diff-tree`), which a session recording every step never does.
      if (gc) continue;
      t.bare.push(toolCall(bareEnv, ['--no-snapshot']));
      t.py.push(peerAppend());
      // The peer's row is one the journal's checkpoint does not cover: the next writer re-verifies the chain from
      // the start (a cost of this bench, not of a session, where only stepchain appends). An untimed call settles it.
      toolCall(bareEnv, ['--no-snapshot']);
    }
    const integration = agentNamed(name)!;
    const inproc = median(
      Array.from({ length: gc ? 0 : runs }, () =>
        time(() => {
          for (const c of agent.calls(s, i++)) {
            c.before?.();
            const out = integration.hook(c.payload, { env: { ...process.env, ...bareEnv }, snapshot: false });
            if (out.errors.length > 0) throw new Error(out.errors.join('; '));
          }
        }),
      ),
    );
    const node = median(t.node);
    const py = median(t.py);
    const calls = t.full[0]!.length;
    for (let k = 0; k < calls; k++) {
      const full = median(t.full.map((x) => x[k]!));
      const was = baseline === undefined ? '' : ` ${fmt(median(before.map((x) => x[k]!)))} |`;
      const bare = median(t.bare.map((x) => x[k]!));
      const last = k === calls - 1 && !gc;
      const label =
        (calls === 1
          ? name
          : last
            ? `${name} (the call that appends the step)`
            : `${name} (call ${k + 1} of ${calls}: kept pending)`) + (gc ? ', after git gc' : '');
      recordFigure('hook-vs-node', steps === 10000 ? label : `${label} at ${steps} steps`, full / node);
      console.log(
        `| ${label} | ${steps.toLocaleString('en')} | ${fmt(node)} | ${fmt(full)} | ${(full / node).toFixed(2)}x |${was} ${gc ? '-' : fmt(bare)} | ${last ? `${inproc.toFixed(1)} ms` : '-'} | ${last ? fmt(py) : '-'} | ${last ? `${(full / py).toFixed(2)}x` : '-'} |`,
      );
    }
  }
}
if (process.env.BENCH_HOOK_KEEP !== '1') rmSync(work, { recursive: true, force: true });
