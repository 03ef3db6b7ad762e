import { GENERIC_RULES } from '../../proxy/normalise';
import { ANTHROPIC_API, envSetting, OPENAI_API } from '../../proxy/providers';
import type { AgentProxy } from '../types';

/** Copilot CLI's bring-your-own-key provider: COPILOT_PROVIDER_BASE_URL, of the type COPILOT_PROVIDER_TYPE (openai by default). */
export const copilotProxy: AgentProxy = {
  adapter: 'proxy-copilot',
  protocols: ['openai-chat', 'openai-responses', 'anthropic-messages'],
  defaultUpstream: (p, env) =>
    envSetting(env, 'COPILOT_PROVIDER_BASE_URL') ?? (p === 'anthropic-messages' ? ANTHROPIC_API : OPENAI_API),
  childEnv: (base, env) => ({
    COPILOT_PROVIDER_BASE_URL: base(
      (env.COPILOT_PROVIDER_TYPE ?? '').toLowerCase() === 'anthropic' ? 'anthropic-messages' : 'openai-chat',
    ),
  }),
  normalise: GENERIC_RULES,
  baseUrlSource: 'documented',
};
