import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { planClaudeSettings, writeClaudeSettings } from '../../claude/settings';
import { sanitize } from '../../replay/text';
import { expectPositionals } from '../args';
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

/**
 * What the operator should know before relying on the hooks: the default command needs
 * `stepchain` on the PATH, and Claude Code reads a project's settings only when started in
 * the directory holding them (docs/claude.md).
 */
function installWarnings(command: string | undefined, file: string, root: string, io: CommandIO): string[] {
  const out: string[] = [];
  if (command === undefined && !onPath('stepchain', io.env))
    out.push(
      'no `stepchain` on this PATH: Claude Code could not run the hook and nothing would be recorded; ' +
        'install it on the PATH (npm install -g stepchain) or give --command "npx stepchain hook claude"',
    );
  const projectSettings = path.join(root, '.claude', 'settings.json');
  if (file === projectSettings && path.resolve(io.cwd) !== root)
    out.push(`Claude Code reads ${projectSettings} only when started in ${root}: start \`claude\` there`);
  return out;
}

export const initClaudeCommand: Command = {
  name: ['init', 'claude'],
  usage: '[--settings FILE] [--remove] [--command CMD] [--dry-run] [--root DIR] [--json]',
  summary:
    "Install stepchain's Claude Code hooks into .claude/settings.json (or --settings FILE), keeping every other " +
    'setting; idempotent; prints the diff. --remove takes them out again.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    settings: {
      kind: 'value',
      value: 'FILE',
      description: 'The settings file to change (default <root>/.claude/settings.json; created when missing).',
    },
    remove: { kind: 'flag', description: "Take stepchain's hook entries out again, leaving everything else." },
    command: {
      kind: 'value',
      value: 'CMD',
      description:
        'The command the hooks run (default `stepchain hook claude`: `stepchain` must then be on the PATH Claude Code ' +
        'gives its hooks; e.g. --command "npx stepchain hook claude" when it is not).',
    },
    'dry-run': { kind: 'flag', description: 'Print the diff without writing.' },
  },
  description:
    'Merges one hook entry per event stepchain records (PostToolUse, PostToolUseFailure, SessionStart, ' +
    'UserPromptSubmit, PreCompact, Stop, SessionEnd) into the settings, keeping every other hook and setting, their ' +
    'order and layout. Only an entry that runs exactly the hook command for every tool (matcher omitted, "", "*" or ' +
    '".*") counts as installed; an entry that looks like stepchain\'s but could not record everything is repaired, ' +
    'and the diff and a line per entry say why. Running it twice changes nothing. A malformed or symlinked settings ' +
    'file is refused.',
  examples: [
    { run: 'stepchain init claude', what: 'start recording every Claude Code session in this project' },
    { run: 'stepchain init claude --remove', what: 'stop recording' },
  ],
  exitCodes: {
    0: 'installed, removed, or already so',
    1: 'refused (a symlinked settings file)',
    2: 'usage or input error (malformed settings, naming the line)',
  },
  run(args, io) {
    expectPositionals(args, [], 'init claude');
    const root = rootOf(args, io);
    const settings = args.values.get('settings');
    const file = settings === undefined ? path.join(root, '.claude', 'settings.json') : path.resolve(io.cwd, settings);
    const remove = args.flags.has('remove');
    const command = args.values.get('command');
    const plan = planClaudeSettings(file, { ...(command === undefined ? {} : { command }), remove });
    const dry = args.flags.has('dry-run');
    if (!dry) writeClaudeSettings(plan);
    const warnings = remove ? [] : [...plan.warnings, ...installWarnings(command, plan.file, root, io)];
    for (const w of warnings) io.err(`stepchain: init claude: warning: ${sanitize(w)}`);
    if (args.flags.has('json')) {
      io.json({
        file: plan.file,
        changed: plan.changed,
        written: plan.changed && !dry,
        removed: remove,
        events: plan.events,
        updated: plan.updated,
        repaired: plan.repaired,
        findings: plan.findings,
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
      if (!dry) io.out('Claude Code sessions started in this project are now recorded (journal claude-<session_id>).');
    }
    return 0;
  },
};
