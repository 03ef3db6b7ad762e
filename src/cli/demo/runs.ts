import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { auditEnabled } from '../../audit/log';
import { makeContext, type DemoContext } from './context';
import { SAMPLE_AGENT } from './sample';

/** A short Claude Code `--output-format stream-json` session in which the provider compacts the context. */
const SESSION = 'd3m0-5e55-4a1d-9c0e-000000000001';
const TRANSCRIPT = [
  {
    type: 'system',
    subtype: 'init',
    session_id: SESSION,
    model: 'claude-sonnet-4-5-20250929',
    tools: ['Bash', 'Read', 'Edit'],
  },
  {
    type: 'assistant',
    session_id: SESSION,
    message: {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'pytest -q' } }],
    },
  },
  {
    type: 'user',
    session_id: SESSION,
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'FAILED tests/test_calc.py::test_add' }],
    },
  },
  {
    type: 'system',
    subtype: 'compact_boundary',
    session_id: SESSION,
    compact_metadata: { trigger: 'auto', pre_tokens: 167353 },
  },
  {
    type: 'assistant',
    session_id: SESSION,
    message: { role: 'assistant', content: [{ type: 'text', text: 'add() subtracts; fixing it.' }] },
  },
  { type: 'result', subtype: 'success', session_id: SESSION, num_turns: 2, result: 'Fixed add().' },
];

/**
 * Run journals (docs/format.md §5): a live run whose provider-side compaction is pinned
 * into the chain, a deterministic replay in which a compaction arrives anyway
 * (flagged: verify fails closed), a diff that attributes the divergence, and
 * the HMAC audit trail of everything the demo did.
 */
export async function demoRuns(ctx: DemoContext): Promise<void> {
  const inputs = path.join(ctx.root, '.sdd', 'demo-inputs');
  mkdirSync(inputs, { recursive: true });
  const transcript = path.join(inputs, 'claude-stream.jsonl');
  writeFileSync(transcript, TRANSCRIPT.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const rel = path.relative(ctx.root, transcript);
  const must = async (c: DemoContext, argv: string[], quiet = false): Promise<void> => {
    const r = await c.run(argv, { quiet });
    if (r.code !== 0) throw new Error(`demo: stepchain ${argv.join(' ')} failed: ${r.stderr}`);
  };

  ctx.section('Run journal: a live run pins a provider-side compaction into its chain');
  await must(ctx, [
    'run',
    'record',
    'live-run',
    '--event',
    'prompt',
    '--data',
    '{"text": "The test suite fails. Fix it."}',
  ]);
  ctx.say('Claude Code compacted the context mid-run; ingesting its stream-json transcript records the');
  ctx.say('adapter as able to observe that, and chains the compaction as a content-addressed entry:');
  await must(ctx, ['run', 'ingest', 'live-run', '--agent', SAMPLE_AGENT, '--claude-stream', rel]);
  await must(ctx, ['run', 'record', 'live-run', '--event', 'response', '--data', '{"text": "Fixed add()."}'], true);
  await ctx.run(['run', 'verify', 'live-run']);

  ctx.section('Deterministic replay: a compaction that arrives anyway is flagged, and verify fails closed');
  const replayEnv = { ...ctx.env, STEPCHAIN_REPLAY_RUN_ID: 'live-run' };
  const replay = makeContext(ctx.root, replayEnv, (s) => ctx.say(s.replace(/\n$/, '')), ctx.cli);
  ctx.say('With STEPCHAIN_REPLAY_RUN_ID=live-run (hermetic replay), the provider compacts again:');
  await must(
    replay,
    ['run', 'record', 'replay-run', '--event', 'prompt', '--data', '{"text": "The test suite fails. Fix it."}'],
    true,
  );
  await replay.run(['run', 'ingest', 'replay-run', '--agent', SAMPLE_AGENT, '--claude-stream', rel]);
  await must(
    replay,
    ['run', 'record', 'replay-run', '--event', 'response', '--data', '{"text": "Fixed add()."}'],
    true,
  );
  await replay.run(['run', 'verify', 'replay-run']);

  ctx.section('Diff: where a clean replay parts from the live run, and why');
  ctx.say('A replay in which the provider did not compact (its adapter saw nothing to report):');
  await must(
    replay,
    ['run', 'record', 'clean-replay', '--event', 'prompt', '--data', '{"text": "The test suite fails. Fix it."}'],
    true,
  );
  await must(replay, ['run', 'capability', 'clean-replay', '--adapter', 'claude', '--capability', 'observed'], true);
  await must(
    replay,
    ['run', 'record', 'clean-replay', '--event', 'response', '--data', '{"text": "Fixed add()."}'],
    true,
  );
  await ctx.run(['run', 'verify', 'clean-replay']);
  ctx.say('The divergence is attributed to the compaction, with its kind and journal index (exit 1):');
  await ctx.run(['run', 'diff', 'live-run', 'clean-replay']);
  await ctx.run(['run', 'diff', 'live-run', 'clean-replay', '--json']);

  ctx.epilogue.push(
    `stepchain run verify live-run --json               # chain, pinned mutations, capabilities`,
    `stepchain run diff live-run clean-replay          # where and why two runs part`,
  );

  ctx.section('Audit trail: everything this demo did, HMAC-chained outside the journals');
  if (!auditEnabled(ctx.env)) {
    ctx.say('(audit logging is off here: STEPCHAIN_AUDIT=off)');
    return;
  }
  ctx.say(`(key at ${ctx.env.STEPCHAIN_AUDIT_KEY_PATH}, created 0600 on first use)`);
  await ctx.run(['audit', 'verify']);
  await ctx.run(['audit', 'query']);
  await ctx.run(['audit', 'query', '--event-type', 'provider.state_mutation', '--json']);
  ctx.say("An edited copy of the audit log (the first entry's resource id changed) does not verify:");
  const copy = path.join(ctx.root, '.sdd', 'tampered-audit');
  cpSync(path.join(ctx.root, '.sdd', 'audit'), copy, { recursive: true });
  const day = readdirSync(copy)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()[0]!;
  const f = path.join(copy, day);
  writeFileSync(f, readFileSync(f, 'utf8').replace('"resource_id": "', '"resource_id": "edited-'));
  await ctx.run(['audit', 'verify', '--dir', path.relative(ctx.root, copy)]);
  // The walk-through exports the demo's audit key first (run.ts).
  ctx.epilogue.push('stepchain audit verify', 'stepchain audit query --event-type replay.step');
}
