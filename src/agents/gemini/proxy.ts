import { GENERIC_RULES } from '../../proxy/normalise';
import { envSetting, GEMINI_API } from '../../proxy/providers';
import type { AgentProxy } from '../types';

/** Gemini CLI's API-key client takes its base URL from GOOGLE_GEMINI_BASE_URL. */
export const geminiProxy: AgentProxy = {
  adapter: 'proxy-gemini',
  protocols: ['gemini'],
  defaultUpstream: (_p, env) => envSetting(env, 'GOOGLE_GEMINI_BASE_URL') ?? GEMINI_API,
  childEnv: (base) => ({ GOOGLE_GEMINI_BASE_URL: base('gemini') }),
  normalise: GENERIC_RULES,
  baseUrlSource: 'documented',
};
