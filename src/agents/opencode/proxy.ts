import { isJsonObject, parse, type JsonObject, type JsonValue } from '../../canonical';
import { InputError } from '../../errors';
import { GENERIC_RULES } from '../../proxy/normalise';
import { ANTHROPIC_API, envSetting, GEMINI_API, OPENAI_API } from '../../proxy/providers';
import type { ProtocolName } from '../../proxy/protocols/types';
import type { AgentProxy } from '../types';

/** opencode reads inline configuration from OPENCODE_CONFIG_CONTENT (merged last); the user's own is kept, the base URLs set. */
function opencodeConfig(base: (p: ProtocolName) => string, env: NodeJS.ProcessEnv): string {
  let config: JsonObject = {};
  const own = envSetting(env, 'OPENCODE_CONFIG_CONTENT');
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

export const opencodeProxy: AgentProxy = {
  adapter: 'proxy-opencode',
  protocols: ['anthropic-messages', 'openai-responses', 'openai-chat', 'gemini'],
  defaultUpstream: (p) =>
    p === 'anthropic-messages' ? `${ANTHROPIC_API}/v1` : p === 'gemini' ? `${GEMINI_API}/v1beta` : OPENAI_API,
  childEnv: (base, env) => ({ OPENCODE_CONFIG_CONTENT: opencodeConfig(base, env) }),
  normalise: GENERIC_RULES,
  baseUrlSource: 'documented',
};
