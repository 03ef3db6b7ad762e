import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import type { AgentIntegration } from '../../agents';
import { sanitize } from '../../replay/text';
import { expectPositionals, type ParsedArgs } from '../args';
import type { Command } from '../command';
import type { CommandIO } from '../io';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';

/** Whether an executable named `name` is on `env.PATH` (what a hook's shell would find). */
function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, name);
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      /* not here */
    }
  }
  return false;
}

/** `init <agent>` for one agent: the project's hook file merged (and the agent's trust where it keeps one). */
export function initCommandFor(agent: AgentIntegration): Command {
  const word = `init ${agent.name}`;
  return {
    name: ['init', agent.name],
    usage: `[--settings FILE] [--remove] [--command CMD] [--dry-run] [--root DIR] [--json]`,
    summary:
      `Install stepchain's ${agent.title} hooks into ${agent.configFile} (or --settings FILE), keeping every other ` +
      'setting; idempotent; prints the diff. --remove takes them out again.',
    options: {
      ...ROOT_OPTION,
      ...JSON_OPTION,
      settings: {
        kind: 'value',
        value: 'FILE',
        description: `The file to change (default <root>/${agent.configFile}; created when missing).`,
      },
      remove: { kind: 'flag', description: "Take stepchain's hook entries out again, leaving everything else." },
      command: {
        kind: 'value',
        value: 'CMD',
        description:
          `The command the hooks run (default \`stepchain hook ${agent.name}\`: \`stepchain\` must then be on the PATH ` +
          `${agent.title} gives its hooks; e.g. --command "npx stepchain hook ${agent.name}" when it is not).`,
      },
      'dry-run': { kind: 'flag', description: 'Print the diff without writing.' },
    },
    examples: [
      { run: `stepchain ${word}`, what: `start recording every ${agent.title} session in this project` },
      { run: `stepchain ${word} --remove`, what: 'stop recording' },
    ],
    exitCodes: {
      0: 'installed, removed, or already so',
      1: 'refused (a symlinked settings file)',
      2: 'usage or input error (malformed settings, naming the line)',
    },
    run: (args, io) => runInit(agent, args, io),
  };
}

function runInit(agent: AgentIntegration, args: ParsedArgs, io: CommandIO): number {
  const word = `init ${agent.name}`;
  expectPositionals(args, [], word);
  const root = rootOf(args, io);
  const settings = args.values.get('settings');
  const remove = args.flags.has('remove');
  const command = args.values.get('command');
  const plan = agent.planInit({
    root,
    cwd: io.cwd,
    env: io.env,
    remove,
    ...(command === undefined ? {} : { command }),
    ...(settings === undefined ? {} : { file: path.resolve(io.cwd, settings) }),
  });
  const dry = args.flags.has('dry-run');
  if (!dry) plan.write();
  const warnings = remove ? [] : [...plan.warnings, ...pathWarnings(agent, command, io)];
  for (const w of warnings) io.err(`stepchain: ${word}: warning: ${sanitize(w)}`);
  if (args.flags.has('json')) {
    io.json({
      agent: agent.name,
      file: plan.file,
      files: plan.changes.map((c) => c.file),
      changed: plan.changed,
      written: plan.changed && !dry,
      removed: remove,
      events: plan.events,
      updated: plan.updated,
      repaired: plan.repaired,
      findings: plan.findings,
      notes: plan.notes,
      diff: plan.diff,
      warnings,
    });
    return 0;
  }
  const shown = sanitize(path.relative(io.cwd, plan.file) || plan.file);
  if (!plan.changed) {
    io.out(
      remove
        ? `${shown}: no stepchain hooks to remove; unchanged`
        : `${shown}: stepchain's hooks are already installed; unchanged`,
    );
    return 0;
  }
  for (const line of plan.diff) io.out(sanitize(line));
  const verb = dry ? 'would be' : 'were';
  if (remove) io.out(`stepchain's hooks ${verb} removed from ${shown} (${plan.events.join(', ')})`);
  else {
    if (plan.events.length > 0) io.out(`stepchain's hooks ${verb} added to ${shown} for ${plan.events.join(', ')}`);
    if (plan.updated.length > 0)
      io.out(`the hook command of stepchain's entries ${verb} updated for ${plan.updated.join(', ')}`);
    if (plan.repaired.length > 0)
      io.out(
        `stepchain's entries ${verb} repaired for ${plan.repaired.join(', ')} (they could not record every occurrence)`,
      );
    for (const f of plan.findings) io.out(sanitize(`  ${f}`));
  }
  for (const n of plan.notes) io.out(sanitize(dry ? `(would be) ${n}` : n));
  if (!dry && !remove)
    io.out(`${agent.title} sessions started in this project are now recorded (journal ${agent.name}-<session_id>).`);
  return 0;
}

/** The default hook command needs `stepchain` on the PATH the agent gives its hooks. */
function pathWarnings(agent: AgentIntegration, command: string | undefined, io: CommandIO): string[] {
  if (command !== undefined || onPath('stepchain', io.env)) return [];
  return [
    `no \`stepchain\` on this PATH: ${agent.title} could not run the hook and nothing would be recorded; ` +
      `install it on the PATH (npm install -g stepchain) or give --command "npx stepchain hook ${agent.name}"`,
  ];
}
