import { PATHS_RULE, regexRule, type NormaliseRule } from '../../proxy/normalise';
import { envSetting, OPENAI_API } from '../../proxy/providers';
import type { AgentProxy } from '../types';

/** Codex (not measured here; from its request shape): the prompt cache key is the session id. */
export const CODEX_RULES: readonly NormaliseRule[] = [
  regexRule('prompt_cache_key (the session id)', /^[\s\S]*$/, '<session>', /^prompt_cache_key$/),
  PATHS_RULE,
  regexRule(
    '<current_date> in the environment context',
    /<current_date>[^<]*<\/current_date>/g,
    '<current_date><date></current_date>',
  ),
];

/** Codex's built-in "openai" provider takes its base URL from OPENAI_BASE_URL (or `openai_base_url` in config.toml). */
export const codexProxy: AgentProxy = {
  adapter: 'proxy-codex',
  protocols: ['openai-responses', 'openai-chat'],
  defaultUpstream: (_p, env) => envSetting(env, 'OPENAI_BASE_URL') ?? OPENAI_API,
  childEnv: (base) => ({ OPENAI_BASE_URL: base('openai-responses') }),
  normalise: CODEX_RULES,
  baseUrlSource: 'documented',
};
