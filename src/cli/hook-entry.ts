import { hookCommands } from './commands/hooks';
import { runWholeCommandLine } from './small-entry';

export { codeCachePath } from './code-path';

/**
 * The hook entry: the program `dist/cli.js` runs for `stepchain hook <agent>`,
 * which an agent starts (and waits for) on every tool call. It holds the hook
 * commands (./commands/hooks.ts) and what they import, not the whole CLI, so a
 * call compiles a fraction of the bundle. It takes only a command line it can
 * run exactly as the CLI would (a registered agent, options that parse, no
 * help; ./small-entry.ts); for any other the launcher runs the whole CLI.
 */
export function runHook(argv: string[]): boolean {
  const command = hookCommands.find((c) => c.name.length === 2 && c.name.every((w, i) => argv[i] === w));
  if (command === undefined) return false;
  return runWholeCommandLine(command, argv.slice(2));
}
