import { killTree } from './tree-kill';

/**
 * What `record` and `fork --replay` do, in the CLI's own process, when the recorder fails outside every guard (an
 * uncaught exception or an unhandled rejection in a socket's or a stream's event): Node's default printed a stack
 * trace and exited, and the agent, whose model calls go to the proxy that just died, was left running with
 * everything it had started. Only for a process stepchain owns: a library caller's process keeps its own handlers.
 */
export interface LastResort {
  /** The command the line names (`record`, `fork --replay`). */
  command: string;
  /** Prints the line (the CLI's stderr). */
  say(line: string): void;
}

/** How long the recorded exchanges are given to be written once the agent is killed, before exiting anyway. */
const SETTLE_MS = 15_000;

export interface AgentGuard {
  /** The fault that fired, if one did. */
  readonly fault: string | undefined;
  /**
   * Called once the proxy and the recorder are closed (their appends done): after a fault, says the line and exits
   * 1; otherwise takes the handlers off again.
   */
  finish(recorded: number): void;
}

/**
 * Handlers for the agent's lifetime: a fault kills the agent's process tree (killTree: each group a descendant
 * leads, too) at once, so it stops where the recording stops; the run's normal end then closes the proxy and the
 * recorder, which appends what was already recorded, and `finish` exits with one line, no stack trace. Should that
 * end not come (what failed holds it), the line is said and the process exits after SETTLE_MS anyway.
 */
export function guardAgent(
  lastResort: LastResort | undefined,
  agentPid: () => number | undefined,
  journal: string,
  /** The recorder: its steps so far are what the line counts when the run's end does not come. */
  recorder: { readonly steps: readonly unknown[] },
): AgentGuard {
  let fault: string | undefined;
  let pid: number | undefined;
  const line = (n: number): string =>
    `stepchain: ${lastResort!.command}: internal error (${fault}); the agent${pid === undefined ? '' : ` (pid ${pid})`} ` +
    `and everything it started were killed; ${n} exchange${n === 1 ? '' : 's'} recorded before it ${n === 1 ? 'is' : 'are'} kept in ${journal}`;
  const exit = (n: number): never => {
    lastResort!.say(line(n));
    process.exit(1);
  };
  const onFault =
    (kind: string) =>
    (e: unknown): void => {
      if (fault !== undefined) return; // the first one is the one said; the rest follow from it
      const text = e instanceof Error ? e.message : String(e);
      fault = `${kind}: ${text.split('\n')[0]!.slice(0, 300)}`;
      process.exitCode = 1;
      pid = agentPid();
      if (pid !== undefined) killTree(pid);
      setTimeout(() => exit(recorder.steps.length), SETTLE_MS);
    };
  const uncaught = onFault('uncaught exception');
  const rejected = onFault('unhandled rejection');
  if (lastResort !== undefined) {
    process.on('uncaughtException', uncaught);
    process.on('unhandledRejection', rejected);
  }
  return {
    get fault() {
      return fault;
    },
    finish(recorded: number): void {
      if (lastResort === undefined) return;
      if (fault !== undefined) exit(recorded);
      process.removeListener('uncaughtException', uncaught);
      process.removeListener('unhandledRejection', rejected);
    },
  };
}
