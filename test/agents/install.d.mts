export const AGENT_VERSIONS: Record<string, { package: string; version: string; bin: string }>;
export function agentCacheDir(env?: NodeJS.ProcessEnv): string;
export function agentBinaryPath(name: string, env?: NodeJS.ProcessEnv): string | Error;
export function installAgent(name: string, env?: NodeJS.ProcessEnv): string;
