import { spawnSync } from 'node:child_process';
// The cache of the agents the tests run (test/agents/install.mjs; the test sequencer installs them first).
import { agentBinaryPath } from '../agents/install.mjs';

export type AgentName = 'claude' | 'codex' | 'gemini' | 'copilot' | 'opencode';

/**
 * The executable of a pinned agent (test/agents/versions.json). A missing or broken one fails the test, saying
 * why: nothing is skipped.
 */
export function agentBinary(name: AgentName): string {
  const bin = agentBinaryPath(name) as string | Error;
  if (bin instanceof Error) throw bin;
  return bin;
}

/** `<agent> --version`, checked to run at all (a binary that does not start is named, with its output). */
export function agentVersion(name: AgentName, env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '' }): string {
  const bin = agentBinary(name);
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', env, timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${bin} --version failed (exit ${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout.trim();
}
