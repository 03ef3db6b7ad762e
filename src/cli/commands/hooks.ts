import { AGENT_HOOKS } from '../../agents/hooks';
import type { Command } from '../command';
import { hookCommandFor } from './hook-agent';

/**
 * Every agent's hook command (`stepchain hook <agent>`), one per integration of the
 * agents' registry (src/agents/registry.ts), made from the agents' hooks alone
 * (src/agents/hooks.ts: not the integrations, whose init, resume and proxy a hook
 * call never runs). Both doors share this list: the CLI lists these among its
 * commands (./index.ts), and the hook entry (../hook-entry.ts), which an agent
 * starts on every tool call, dispatches `hook <agent>` through it without loading
 * the rest of the CLI. A hook command's module imports what recording needs and
 * nothing of the rest of the CLI: everything it imports is loaded on each of the
 * agent's tool calls.
 */
export const hookCommands: Command[] = AGENT_HOOKS.map(hookCommandFor);
