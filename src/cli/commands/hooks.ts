import type { Command } from '../command';
import { hookClaudeCommand } from './hook-claude';

/**
 * Every agent's hook command (`stepchain hook <agent>`), the registry both doors
 * share: the CLI lists these among its commands (./index.ts), and the hook entry
 * (../hook-entry.ts), which an agent starts on every tool call, dispatches
 * `hook <agent>` through it without loading the rest of the CLI. An agent's hook
 * is added here, and only here. A hook command's module imports what recording
 * needs and nothing of the rest of the CLI: everything it imports is compiled on
 * each of the agent's tool calls.
 */
export const hookCommands: Command[] = [hookClaudeCommand];
