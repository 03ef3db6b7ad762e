import path from 'node:path';
import { ingestClaudeStreamBlocks } from '../../runs';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, openInputBlocks, ROOT_OPTION, rootOf, writeOptions } from '../common';
import { required } from './run-common';
import { reportMutations } from './run-mutation';
import { pluralWord } from '../../util/words';

export const runIngestCommand: Command = {
  name: ['run', 'ingest'],
  usage: '<run> --agent ID --claude-stream FILE|- [--key FILE] [--root DIR] [--json]',
  summary:
    'Read a Claude Code stream-json transcript: record the adapter as observed and chain every context-mutation signal.',
  description:
    'Each compaction or context-mutation signal in the transcript becomes a provider_state_mutation row; the claude ' +
    'adapter is recorded as observed (once per run).',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    agent: { kind: 'value', value: 'ID', description: 'The agent the transcript belongs to (required).' },
    'claude-stream': {
      kind: 'value',
      value: 'FILE|-',
      stdin: true,
      description:
        'The `claude -p --output-format stream-json` transcript (required), read a line at a time (a line of at most ' +
        '536,870,888 bytes); `-` reads stdin.',
    },
    key: { kind: 'value', value: 'FILE', description: 'The audit key file (default from the environment).' },
  },
  examples: [
    {
      run: 'claude -p "fix it" --output-format stream-json --verbose | stepchain run ingest run-42 --agent coder --claude-stream -',
      what: 'ingest a live transcript',
    },
  ],
  exitCodes: {
    0: 'ingested',
    1: 'the run journal does not verify (nothing written)',
    2: 'usage or input error (unreadable transcript)',
  },
  run(args, io) {
    const [run] = expectPositionals(args, ['run'], 'run ingest');
    const agent = required(args, 'agent', 'run ingest');
    const source = required(args, 'claude-stream', 'run ingest');
    // Opened first (a missing file is refused before the root is looked at); read as the ingest parses it.
    const input = openInputBlocks(source, io, 'transcript');
    let r: ReturnType<typeof ingestClaudeStreamBlocks>;
    try {
      const key = args.values.get('key');
      r = ingestClaudeStreamBlocks(
        rootOf(args, io, { create: true }),
        run!,
        agent,
        input.blocks,
        source === '-' ? '<stdin>' : source,
        key === undefined ? writeOptions(io) : { ...writeOptions(io), keyPath: path.resolve(io.cwd, key) },
      );
    } finally {
      input.close();
    }
    const head = r.mutations.at(-1)?.row.event_hash ?? r.capabilityRow?.event_hash ?? null;
    if (args.flags.has('json')) {
      io.json({
        file: r.file,
        run,
        agent,
        events: r.transcript.events,
        capability_recorded: r.capabilityRow !== undefined,
        mutations: r.mutations.map((m) => ({
          index: m.row.index,
          kind: m.mutation.kind,
          step_index: m.mutation.step_index,
          content_address: m.content_address,
          flagged: m.mutation.flagged,
        })),
        journal_head: head,
        warnings: r.warnings,
      });
      if (r.deterministic !== undefined && r.mutations.length > 0)
        io.err(`stepchain: warning: ${r.deterministic} is set: mutations recorded flagged`);
    } else {
      io.out(
        `ingested ${r.transcript.events} stream-json events into ${r.file}: claude ${r.capabilityRow === undefined ? 'already recorded as observed' : 'recorded as observed'}, ` +
          `${r.mutations.length} context ${pluralWord(r.mutations.length, 'mutation')}`,
      );
      reportMutations(io, r);
      if (head !== null) io.out(`  journal head ${head}`);
    }
    for (const w of r.warnings) io.err(`stepchain: warning: ${w}`);
    return 0;
  },
};
