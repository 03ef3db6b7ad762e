import { InputError } from '../../errors';
import { AGENT_NAMES, recordAgent, type ProxiedRunResult } from '../../proxy';
import type { ParsedArgs } from '../args';
import type { Command } from '../command';
import type { CommandIO } from '../io';
import { JSON_OPTION, ROOT_OPTION, rootOf, writeOptions } from '../common';

/** The command after `--` (nothing else may stand as a positional). */
export function commandAfterTerminator(args: ParsedArgs, before: number, name: string): string[] {
  const rest = args.afterTerminator ?? [];
  if (args.positionals.length - rest.length !== before)
    throw new InputError(
      `${name}: the command to run goes after -- (e.g. \`stepchain ${name} ... -- claude -p "fix it"\`)`,
    );
  if (rest.length === 0) throw new InputError(`${name}: no command to run after --`);
  return rest;
}

/** What record and fork --replay print of a proxied run (human), and its JSON fields. */
export function describeProxiedRun(r: ProxiedRunResult): Record<string, unknown> {
  return {
    exit_code: r.exitCode,
    steps: r.steps.map((s) => ({ seq: s.seq, step_hash: s.step_hash, protocol: s.protocol, tool_calls: s.tool_calls })),
    mutations: r.mutations,
    hook_links: r.links.linked,
    unlinked_tool_calls: r.links.unlinked,
    forwarded: r.counts.forwarded,
    replayed: r.counts.replayed,
    unrecorded: r.counts.unrecorded,
    refused_upgrades: r.counts.refusedUpgrades,
    upstreams: r.upstreams,
    recording_failure: r.recordingFailure ?? null,
  };
}

export function reportProxiedRun(io: CommandIO, r: ProxiedRunResult, journal: string): void {
  const n = r.steps.length;
  io.err(
    `stepchain: ${n} exchange${n === 1 ? '' : 's'} recorded in ${journal}` +
      (n > 0 ? ` (steps ${r.steps[0]!.seq}..${r.steps.at(-1)!.seq})` : '') +
      (r.counts.replayed > 0 ? `, ${r.counts.replayed} answered from the recording` : '') +
      (r.counts.refusedUpgrades > 0
        ? `, ${r.counts.refusedUpgrades} protocol upgrade${r.counts.refusedUpgrades === 1 ? '' : 's'} refused (HTTP/1.1 only)`
        : '') +
      (r.mutations.length > 0
        ? `, ${r.mutations.length} provider-side mutation${r.mutations.length === 1 ? '' : 's'} pinned`
        : '') +
      (r.links.linked > 0
        ? `, ${r.links.linked} tool call${r.links.linked === 1 ? '' : 's'} linked to ${r.links.linked === 1 ? 'its hook step' : 'their hook steps'}`
        : ''),
  );
  if (r.recordingFailure !== undefined) io.err(`stepchain: error: ${r.recordingFailure}`);
}

export const recordCommand: Command = {
  name: ['record'],
  usage: `--agent ${AGENT_NAMES.join('|')} --journal ID [--upstream URL] [--root DIR] [--json] -- <command> [args...]`,
  summary:
    'Run an agent with its model calls through a recording proxy on 127.0.0.1: every exchange (the exact request and response bytes) is a step of the journal ID.',
  description:
    "The agent's base URL is pointed at the proxy for the command's process only (docs/record.md lists each agent's setting); " +
    'the proxy forwards each request to the upstream and streams the response back as it arrives. ' +
    'Each exchange becomes one step: the input blob is the exact request body, the response bytes are a blob of the step, model, prompt, tool_call and tool_result are read from them. ' +
    'Credentials (authorization and API-key headers, cookies, key= query parameters) are never recorded. ' +
    'Compactions and context edits the provider reports are pinned in the run journal ID as provider_state_mutation entries. ' +
    'The files the run starts from are snapshotted first, for `stepchain fork ID --from-step N --replay`. ' +
    "The exit code is the command's; with --json the command's standard output goes to standard error and one JSON document is printed at the end.",
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    agent: {
      kind: 'value',
      value: 'NAME',
      description: `The agent the command runs: ${AGENT_NAMES.join(', ')} (required).`,
    },
    journal: {
      kind: 'value',
      value: 'ID',
      description: 'The new journal (and run journal) the exchanges are recorded in (required; must not exist).',
    },
    upstream: {
      kind: 'value',
      value: 'URL',
      description:
        "Where requests go (http or https base URL). Default: the agent's own base-URL setting in the environment, else the provider's public API.",
    },
  },
  examples: [
    {
      run: 'stepchain record --agent claude --journal fix-1 -- claude -p "fix the failing test"',
      what: 'record every model call of a Claude Code run',
    },
    {
      run: 'stepchain record --agent codex --journal c-1 --upstream https://api.openai.com/v1 -- codex exec "add tests"',
      what: 'a Codex run',
    },
  ],
  exitCodes: {
    0: 'the command exited 0 and every exchange was recorded',
    1: 'recording failed (the command exited 0), or the command exited 1; or a fault of record itself (the command and everything it started killed, what was recorded kept)',
    2: 'usage or input error (unknown agent, existing journal or run journal, no command), or the command exited 2',
  },
  async run(args, io) {
    const command = commandAfterTerminator(args, 0, 'record');
    const agent = args.values.get('agent');
    const journal = args.values.get('journal');
    if (agent === undefined) throw new InputError('record: --agent is required');
    if (journal === undefined) throw new InputError('record: --journal is required');
    const json = args.flags.has('json');
    const upstream = args.values.get('upstream');
    const r = await recordAgent({
      agent,
      journalId: journal,
      root: rootOf(args, io, { create: true }),
      ...(upstream === undefined ? {} : { upstream }),
      command,
      cwd: io.cwd,
      ...writeOptions(io),
      stdio: json ? ['inherit', 2, 'inherit'] : 'inherit',
      onWarning: (w) => io.err(`stepchain: warning: ${w}`),
      lastResort: { command: 'record', say: (line) => io.err(line) },
    });
    const code = r.recordingFailure !== undefined && r.exitCode === 0 ? 1 : r.exitCode;
    if (json) {
      io.json({
        ok: code === 0,
        journal: r.run_id,
        journal_file: r.journal_file,
        start_snapshot: r.start_snapshot,
        ...describeProxiedRun(r),
      });
    } else reportProxiedRun(io, r, r.journal_file);
    return code;
  },
};
