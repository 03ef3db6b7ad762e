import path from 'node:path';
import { agentCacheDir } from '../agents/install.mjs';
import { agentBinary, agentPath, runAgentProcess, type AgentRun, type ScriptedRunOptions } from './agents';

export type CopilotRun = AgentRun;

export interface CopilotOptions extends ScriptedRunOptions {
  args?: string[];
}

/** The environment a headless Copilot run gets (offline, its own HOME, the scripted provider). */
export function copilotEnv(options: CopilotOptions): NodeJS.ProcessEnv {
  return {
    PATH: agentPath(options.binDir),
    HOME: options.home,
    COPILOT_PKG_CACHE_HOME: path.join(agentCacheDir(), 'copilot-pkg'),
    COPILOT_PROVIDER_BASE_URL: options.baseUrl,
    // Copilot masks its key wherever it appears in what it prints: a word no model name contains.
    COPILOT_PROVIDER_API_KEY: 'sk-local-scripted',
    COPILOT_MODEL: options.model ?? 'scripted-model',
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    ...options.env,
  };
}

/** `copilot -p <prompt> --allow-all --output-format json [args...]` (the binary first). */
export function copilotCommand(options: Pick<CopilotOptions, 'prompt' | 'args'>): string[] {
  return [
    agentBinary('copilot'),
    '-p',
    options.prompt,
    '--allow-all',
    '--output-format',
    'json',
    ...(options.args ?? []),
  ];
}

/**
 * Runs the pinned GitHub Copilot CLI, `copilot -p <prompt> --allow-all --output-format json`, against a scripted
 * Chat Completions server on 127.0.0.1, offline, with its own HOME. Its launcher unpacks ~235 MB of JavaScript
 * on the first run: COPILOT_PKG_CACHE_HOME points that at one folder beside the cached agents, so it happens once.
 */
export function runCopilot(options: CopilotOptions): Promise<CopilotRun> {
  const [binary, ...args] = copilotCommand(options);
  return runAgentProcess(binary!, args, {
    cwd: options.cwd,
    env: copilotEnv(options),
    timeoutMs: options.timeoutMs ?? 150_000,
  });
}
