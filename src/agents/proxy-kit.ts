import type { NormaliseRule } from '../proxy/normalise';
import type { ProtocolName } from '../proxy/protocols/types';
import { envSetting } from '../proxy/providers';
import type { AgentProxy } from './types';

/**
 * The proxy of an agent whose model calls speak one protocol to a base URL set by one environment variable (Claude
 * Code's `ANTHROPIC_BASE_URL`, Gemini CLI's `GOOGLE_GEMINI_BASE_URL`): the child gets the proxy's URL in that
 * variable; the default upstream is the variable's own value, else the public API.
 */
export function baseUrlVarProxy(o: {
  agent: string;
  protocol: ProtocolName;
  variable: string;
  api: string;
  normalise: readonly NormaliseRule[];
  baseUrlSource: AgentProxy['baseUrlSource'];
  hookSession?: AgentProxy['hookSession'];
}): AgentProxy {
  return {
    adapter: `proxy-${o.agent}`,
    protocols: [o.protocol],
    defaultUpstream: (_p, env) => envSetting(env, o.variable) ?? o.api,
    childEnv: (base) => ({ [o.variable]: base(o.protocol) }),
    normalise: o.normalise,
    baseUrlSource: o.baseUrlSource,
    ...(o.hookSession === undefined ? {} : { hookSession: o.hookSession }),
  };
}
