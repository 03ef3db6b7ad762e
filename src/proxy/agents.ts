import { isJsonObject, parse, type JsonObject, type JsonValue } from '../canonical';
import { InputError } from '../errors';
import { CLAUDE_RULES, CODEX_RULES, GENERIC_RULES, type NormaliseRule } from './normalise';
import type { ProtocolName } from './protocols';

/**
 * Per agent: how its model calls are pointed at the proxy (for the child
 * process only), where they go by default, and what a replay normalises.
 *
 * One table for every agent the proxy records. The agent integrations under
 * src/agents/<name>/ (hooks) are being written beside this; when they land,
 * each row here belongs with its agent's integration (a later merge).
 *
 * The child's base URL is the proxy's origin plus the upstream's own path
 * (`https://api.openai.com/v1` upstream: `http://127.0.0.1:<port>/v1`), so the
 * request path the agent sends is the path the upstream expects.
 */
export const AGENT_NAMES = ['claude', 'codex', 'gemini', 'copilot', 'opencode'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

export interface AgentSpec {
  name: AgentName;
  /** The run journal's adapter name for its capability. */
  adapter: string;
  /** The protocols its model calls speak, the first the main one. */
  protocols: ProtocolName[];
  /** The upstream of each protocol when no --upstream is given: the agent's own setting in the environment, else the public API. */
  defaultUpstream(protocol: ProtocolName, env: NodeJS.ProcessEnv): string;
  /** The environment the child gets on top of its own (the base URL for each protocol given). */
  childEnv(base: (protocol: ProtocolName) => string, env: NodeJS.ProcessEnv): Record<string, string>;
  /** What a replay normalises before comparing a request with its recording (docs/record.md). */
  normalise: readonly NormaliseRule[];
  /** How sure we are of the base-URL setting: measured with the real binary, or taken from its documentation. */
  baseUrlSource: 'measured' | 'documented';
}

const ANTHROPIC = 'https://api.anthropic.com';
const OPENAI = 'https://api.openai.com/v1';
const GEMINI = 'https://generativelanguage.googleapis.com';

function nonEmpty(v: string | undefined): string | undefined {
  return v !== undefined && v.trim() !== '' ? v.trim() : undefined;
}

/** opencode reads inline configuration from OPENCODE_CONFIG_CONTENT (merged last); the user's own is kept, the base URLs set. */
function opencodeConfig(base: (p: ProtocolName) => string, env: NodeJS.ProcessEnv): string {
  let config: JsonObject = {};
  const own = nonEmpty(env.OPENCODE_CONFIG_CONTENT);
  if (own !== undefined) {
    let v: JsonValue;
    try {
      v = parse(own);
    } catch {
      throw new InputError('OPENCODE_CONFIG_CONTENT is set but is not JSON; record cannot add the proxy to it');
    }
    if (!isJsonObject(v)) throw new InputError('OPENCODE_CONFIG_CONTENT is set but is not a JSON object');
    config = v;
  }
  const providers: JsonObject = isJsonObject(config.provider) ? { ...config.provider } : {};
  const withBase = (id: string, url: string): void => {
    const p = isJsonObject(providers[id]) ? { ...(providers[id] as JsonObject) } : {};
    const options = isJsonObject(p.options) ? { ...(p.options as JsonObject) } : {};
    options.baseURL = url;
    p.options = options;
    providers[id] = p;
  };
  withBase('anthropic', base('anthropic-messages'));
  withBase('openai', base('openai-responses'));
  withBase('google', base('gemini'));
  return JSON.stringify({ ...config, provider: providers });
}

export const AGENTS: Record<AgentName, AgentSpec> = {
  claude: {
    name: 'claude',
    adapter: 'proxy-claude',
    protocols: ['anthropic-messages'],
    defaultUpstream: (_p, env) => nonEmpty(env.ANTHROPIC_BASE_URL) ?? ANTHROPIC,
    childEnv: (base) => ({ ANTHROPIC_BASE_URL: base('anthropic-messages') }),
    normalise: CLAUDE_RULES,
    baseUrlSource: 'measured',
  },
  codex: {
    name: 'codex',
    adapter: 'proxy-codex',
    protocols: ['openai-responses', 'openai-chat'],
    // Codex's built-in "openai" provider takes its base URL from OPENAI_BASE_URL (or `openai_base_url` in config.toml).
    defaultUpstream: (_p, env) => nonEmpty(env.OPENAI_BASE_URL) ?? OPENAI,
    childEnv: (base) => ({ OPENAI_BASE_URL: base('openai-responses') }),
    normalise: CODEX_RULES,
    baseUrlSource: 'documented',
  },
  gemini: {
    name: 'gemini',
    adapter: 'proxy-gemini',
    protocols: ['gemini'],
    defaultUpstream: (_p, env) => nonEmpty(env.GOOGLE_GEMINI_BASE_URL) ?? GEMINI,
    childEnv: (base) => ({ GOOGLE_GEMINI_BASE_URL: base('gemini') }),
    normalise: GENERIC_RULES,
    baseUrlSource: 'documented',
  },
  copilot: {
    name: 'copilot',
    adapter: 'proxy-copilot',
    protocols: ['openai-chat', 'openai-responses', 'anthropic-messages'],
    // Copilot CLI's bring-your-own-key provider: COPILOT_PROVIDER_BASE_URL, of the type COPILOT_PROVIDER_TYPE (openai by default).
    defaultUpstream: (p, env) =>
      nonEmpty(env.COPILOT_PROVIDER_BASE_URL) ?? (p === 'anthropic-messages' ? ANTHROPIC : OPENAI),
    childEnv: (base, env) => ({
      COPILOT_PROVIDER_BASE_URL: base(
        (env.COPILOT_PROVIDER_TYPE ?? '').toLowerCase() === 'anthropic' ? 'anthropic-messages' : 'openai-chat',
      ),
    }),
    normalise: GENERIC_RULES,
    baseUrlSource: 'documented',
  },
  opencode: {
    name: 'opencode',
    adapter: 'proxy-opencode',
    protocols: ['anthropic-messages', 'openai-responses', 'openai-chat', 'gemini'],
    defaultUpstream: (p) =>
      p === 'anthropic-messages' ? `${ANTHROPIC}/v1` : p === 'gemini' ? `${GEMINI}/v1beta` : OPENAI,
    childEnv: (base, env) => ({ OPENCODE_CONFIG_CONTENT: opencodeConfig(base, env) }),
    normalise: GENERIC_RULES,
    baseUrlSource: 'documented',
  },
};

export function agentSpec(name: string): AgentSpec {
  if (!(AGENT_NAMES as readonly string[]).includes(name))
    throw new InputError(`--agent: expected one of ${AGENT_NAMES.join(', ')}, got ${JSON.stringify(name)}`);
  return AGENTS[name as AgentName];
}
