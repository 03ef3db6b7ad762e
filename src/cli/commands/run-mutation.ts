import path from 'node:path';
import { recordMutation, type MutationInput, type MutationResult } from '../../runs';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import type { CommandIO } from '../io';
import { intArg, JSON_OPTION, ROOT_OPTION, rootOf, writeOptions } from '../common';
import { jsonObjectOption, required } from './run-common';

/** Prints what a mutation-recording command did (shared with `run ingest`). */
export function reportMutations(io: CommandIO, r: MutationResult): void {
  for (const m of r.mutations) {
    io.out(
      `  [${m.row.index}] ${m.mutation.kind} step ${m.mutation.step_index} ${m.content_address}${m.mutation.flagged ? '  FLAGGED' : ''}`,
    );
  }
  if (r.deterministic !== undefined && r.mutations.length > 0) {
    io.err(
      `stepchain: warning: ${r.deterministic} is set (deterministic mode): ${r.mutations.length} mutation(s) recorded flagged; \`run verify\` fails closed on them`,
    );
  }
}

export const runMutationCommand: Command = {
  name: ['run', 'mutation'],
  usage: '<run> --agent ID --kind KIND [--detail JSON] [--step-index N] [--key FILE] [--root DIR] [--json]',
  summary:
    'Chain one provider-side context mutation into a run journal (content-addressed; flagged in deterministic mode).',
  description:
    'The mutation is content-addressed (kind, before and after digests, step) and mirrored into the audit chain. ' +
    'In deterministic mode (STEPCHAIN_DETERMINISTIC_SEED or STEPCHAIN_REPLAY_RUN_ID set) it is recorded flagged, and ' +
    '`run verify` then fails closed.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    agent: { kind: 'value', value: 'ID', description: 'The agent it happened to (required).' },
    kind: { kind: 'value', value: 'KIND', description: 'The mutation kind (required), e.g. compact_boundary.' },
    detail: {
      kind: 'value',
      value: 'JSON',
      description: 'What the provider reported, a JSON object (pre_*/before_* fields form the before digest).',
    },
    'step-index': { kind: 'value', value: 'N', description: 'The step it happened at.' },
    key: { kind: 'value', value: 'FILE', description: 'The audit key file (default from the environment).' },
  },
  examples: [
    {
      run: 'stepchain run mutation run-42 --agent coder --kind compact_boundary --detail \'{"pre_tokens":90000}\' --step-index 7',
      what: 'pin a context compaction',
    },
  ],
  exitCodes: {
    0: 'recorded',
    1: 'the run journal does not verify (nothing written)',
    2: 'usage or input error',
  },
  run(args, io) {
    const [run] = expectPositionals(args, ['run'], 'run mutation');
    const input: MutationInput = {
      agentId: required(args, 'agent', 'run mutation'),
      kind: required(args, 'kind', 'run mutation'),
    };
    const detail = jsonObjectOption(args, 'detail', false);
    if (detail !== undefined) input.detail = detail;
    const step = args.values.get('step-index');
    if (step !== undefined) input.stepIndex = intArg(step, '--step-index');
    const key = args.values.get('key');
    const r = recordMutation(
      rootOf(args, io, { create: true }),
      run!,
      input,
      key === undefined ? writeOptions(io) : { ...writeOptions(io), keyPath: path.resolve(io.cwd, key) },
    );
    const m = r.mutations[0]!;
    if (args.flags.has('json')) {
      io.json({
        file: r.file,
        run,
        agent: input.agentId,
        index: m.row.index,
        kind: m.mutation.kind,
        step_index: m.mutation.step_index,
        before_digest: m.mutation.before_digest,
        after_digest: m.mutation.after_digest,
        content_address: m.content_address,
        flagged: m.mutation.flagged,
        journal_head: m.row.event_hash,
        warnings: r.warnings,
      });
      if (r.deterministic !== undefined)
        io.err(`stepchain: warning: ${r.deterministic} is set: mutation recorded flagged`);
    } else {
      io.out(`recorded provider_state_mutation in ${r.file}`);
      reportMutations(io, r);
      io.out(`  journal head ${m.row.event_hash}`);
    }
    for (const w of r.warnings) io.err(`stepchain: warning: ${w}`);
    return 0;
  },
};
