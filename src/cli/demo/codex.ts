import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DemoContext } from './context';

/**
 * Codex CLI, recorded the same way (docs/agents.md, "Codex"): `init codex` installs the hooks and records their
 * trust where Codex keeps it, then a session's hook payloads (the shape Codex 0.171.0 sends, embedded here: no
 * binary, no network) go through `stepchain hook codex`, the exit codes coming from the session's rollout. Codex's
 * own directory is kept inside the demo's project (`.sdd/codex-home`), so nothing of the user's is touched.
 */
const SID = '01a23c97-383d-7131-9535-6ac509ff97f5';
const TURN = '01a23c97-385b-7423-b391-ef50ce11669a';
const PROMPT = 'Is there a TODO left in the README?';
const CALLS = [
  { id: 'call_ls', command: 'ls', output: 'README.md\nsrc\n', exit: 0 },
  { id: 'call_grep', command: 'grep -n TODO README.md', output: '', exit: 1 },
];

export async function demoCodex(ctx: DemoContext): Promise<void> {
  const home = path.join(ctx.root, '.sdd', 'codex-home');
  const env = { CODEX_HOME: home };
  const agent = `codex-${SID}`;

  ctx.section('Codex CLI: the hooks, and their trust where Codex keeps it');
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(home, 'config.toml'), `[projects.${JSON.stringify(ctx.root)}]\ntrust_level = "trusted"\n`);
  const init = await ctx.run(['init', 'codex', '--command', 'stepchain hook codex'], { quiet: true, env });
  if (init.code !== 0) throw new Error(`demo: init codex failed: ${init.stderr}`);
  ctx.say('$ stepchain init codex');
  const lines = init.stdout.trimEnd().split('\n');
  const config = lines.findIndex((l) => l.startsWith('--- ') && l.endsWith('config.toml'));
  for (const l of lines.slice(config, config + 8)) ctx.say(`  ${l}`);
  ctx.say('  ...');
  for (const l of lines.filter((l) => !/^(---|\+\+\+|@@|[-+ ])/.test(l))) ctx.say(`  ${l}`);

  ctx.section('A Codex session, recorded by its hooks');
  const day = path.join(home, 'sessions', '2026', '12', '03');
  const rollout = path.join(day, `rollout-2026-12-03T15-47-53-${SID}.jsonl`);
  mkdirSync(day, { recursive: true });
  const entry = (type: string, payload: Record<string, unknown>) => JSON.stringify({ type, payload });
  writeFileSync(
    rollout,
    [
      entry('session_meta', { id: SID, session_id: SID, cwd: ctx.root, cli_version: '0.171.0' }),
      entry('turn_context', { turn_id: TURN, cwd: ctx.root, model: 'gpt-5-codex' }),
      ...CALLS.flatMap((c) => [
        entry('response_item', {
          type: 'function_call',
          name: 'exec_command',
          arguments: JSON.stringify({ cmd: c.command }),
          call_id: c.id,
        }),
        entry('event_msg', { type: 'item_completed', item: { type: 'CommandExecution', id: c.id, exit_code: c.exit } }),
        entry('response_item', {
          type: 'function_call_output',
          call_id: c.id,
          output: `Process exited with code ${c.exit}\nOutput:\n${c.output}`,
        }),
      ]),
    ].join('\n') + '\n',
  );
  const base = { session_id: SID, transcript_path: rollout, cwd: ctx.root, model: 'gpt-5-codex' };
  const payloads: [string, Record<string, unknown>][] = [
    ['SessionStart (startup)', { ...base, hook_event_name: 'SessionStart', source: 'startup' }],
    ['UserPromptSubmit', { ...base, turn_id: TURN, hook_event_name: 'UserPromptSubmit', prompt: PROMPT }],
    ...CALLS.map(
      (c) =>
        [
          `PostToolUse  Bash ${c.command}`,
          {
            ...base,
            turn_id: TURN,
            hook_event_name: 'PostToolUse',
            tool_name: 'Bash',
            tool_input: { command: c.command },
            tool_response: c.output,
            tool_use_id: c.id,
          },
        ] as [string, Record<string, unknown>],
    ),
    ['Stop', { ...base, turn_id: TURN, hook_event_name: 'Stop', last_assistant_message: 'No TODO is left.' }],
  ];
  for (const [label, payload] of payloads) {
    const r = await ctx.run(['hook', 'codex'], { quiet: true, stdin: Buffer.from(JSON.stringify(payload)), env });
    if (r.code !== 0) throw new Error(`demo: hook codex (${label}) failed: ${r.stderr}`);
    ctx.say(`  ${label.padEnd(46)} exit ${r.code}`);
  }
  ctx.say(`Two tool calls, two steps of ${agent}; grep's exit code 1 comes from Codex's rollout:`);
  await ctx.run(['verify', agent]);
  await ctx.run(['show', agent, '1']);
  const fork = await ctx.run(['fork', agent, '--from-step', '0', '--resume'], { quiet: true, env });
  if (fork.code !== 0) throw new Error(`demo: fork codex --resume failed: ${fork.stderr}`);
  ctx.say(`$ stepchain fork ${agent} --from-step 0 --resume`);
  for (const l of fork.stdout.trimEnd().split('\n').slice(-2)) ctx.say(`  ${l}`);
  ctx.epilogue.push(`stepchain replay ${agent}   # the recorded Codex session`);
}
