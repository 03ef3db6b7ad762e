import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
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

/** The PATH of an agent's offline run: `binDir` (where a `stepchain` bin is) first, then node's, then the system's. */
export function agentPath(binDir?: string): string {
  return [binDir, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin']
    .filter((p) => p !== undefined)
    .join(':');
}

/**
 * `env` with TMPDIR inside its HOME (`<HOME>/.tmp`, made) when it names a HOME and no TMPDIR. The agents' runs are
 * given an environment of their own, not the runner's, so without this their temporary files (Gemini CLI's error
 * reports, an agent's scratch files) went to /tmp and stayed there after the suite; inside HOME they go with the test's
 * temporary directory.
 */
export function withAgentTmp(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.HOME === undefined || env.TMPDIR !== undefined) return env;
  const tmp = path.join(env.HOME, '.tmp');
  mkdirSync(tmp, { recursive: true });
  return { ...env, TMPDIR: tmp };
}

/** A headless run of an agent against a scripted server on `baseUrl`, offline, in `cwd`, with its own `home`. */
export interface ScriptedRunOptions {
  cwd: string;
  home: string;
  baseUrl: string;
  prompt: string;
  model?: string;
  /** Put first on PATH (where a `stepchain` bin is). */
  binDir?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** What an agent's headless run printed: its exit code, its output, and the JSON event lines of stdout. */
export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
  events: Record<string, unknown>[];
}

/** Runs an agent to its end (killed after `timeoutMs`), collecting its output and its JSON event lines. */
export function runAgentProcess(
  binary: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<AgentRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, {
      cwd: options.cwd,
      env: withAgentTmp(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const events: Record<string, unknown>[] = [];
      for (const line of stdout.split('\n')) {
        if (line.trim() === '') continue;
        try {
          const e = JSON.parse(line) as unknown;
          if (typeof e === 'object' && e !== null && !Array.isArray(e)) events.push(e as Record<string, unknown>);
        } catch {
          /* not an event line */
        }
      }
      resolve({ code, stdout, stderr, events });
    });
  });
}
