import { AGENTS as INTEGRATIONS } from '../agents/registry';
import type { AgentProxy } from '../agents/types';
import { InputError } from '../errors';

/**
 * The agents `stepchain record` runs: every integration in the registry with a `proxy` part
 * (src/agents/<name>/proxy.ts holds each agent's base-URL setting, upstreams and normalisation list).
 */
export interface AgentSpec extends AgentProxy {
  name: string;
}

export const AGENTS: readonly AgentSpec[] = INTEGRATIONS.flatMap((a) =>
  a.proxy === undefined ? [] : [{ ...a.proxy, name: a.name }],
);

export const AGENT_NAMES: readonly string[] = AGENTS.map((a) => a.name);

export function agentSpec(name: string): AgentSpec {
  const spec = AGENTS.find((a) => a.name === name);
  if (spec === undefined)
    throw new InputError(`--agent: expected one of ${AGENT_NAMES.join(', ')}, got ${JSON.stringify(name)}`);
  return spec;
}
