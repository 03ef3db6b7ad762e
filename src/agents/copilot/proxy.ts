import { InputError } from '../../errors';
import { PATHS_RULE, regexRule, type NormaliseRule } from '../../proxy/normalise';
import { ANTHROPIC_API, envSetting, OPENAI_API } from '../../proxy/providers';
import type { ProtocolName } from '../../proxy/protocols/types';
import type { AgentProxy } from '../types';

/**
 * Copilot CLI 1.0.102 (`-p`, its bring-your-own-key provider), measured by diffing the raw requests of runs in two
 * directories and in a fork worktree: the directories in the environment block, the date and time it puts before
 * the user's prompt, and the session id in the session folder's path.
 */
export const COPILOT_RULES: readonly NormaliseRule[] = [
  PATHS_RULE,
  regexRule(
    'the date and time before the prompt: <current_datetime>...</current_datetime>',
    /<current_datetime>[^<]*<\/current_datetime>/g,
    '<current_datetime><now></current_datetime>',
  ),
  regexRule(
    'the session id in the session folder: .../session-state/<id>',
    /(\/session-state\/)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
    '$1<session>',
  ),
];

/** The protocol Copilot's custom provider speaks: its type, then its wire API (Chat Completions by default). */
function providerProtocol(env: NodeJS.ProcessEnv): ProtocolName {
  if ((envSetting(env, 'COPILOT_PROVIDER_TYPE') ?? '').toLowerCase() === 'anthropic') return 'anthropic-messages';
  return (envSetting(env, 'COPILOT_PROVIDER_WIRE_API') ?? '').toLowerCase() === 'responses'
    ? 'openai-responses'
    : 'openai-chat';
}

/**
 * Copilot CLI's custom provider: `COPILOT_PROVIDER_BASE_URL` (measured with 1.0.102, type openai: every turn a
 * streamed `POST <base>/chat/completions`, nothing else). Its WebSocket transport is not HTTP the proxy can record.
 */
export const copilotProxy: AgentProxy = {
  adapter: 'proxy-copilot',
  protocols: ['openai-chat', 'openai-responses', 'anthropic-messages'],
  refuse: (env) =>
    (envSetting(env, 'COPILOT_PROVIDER_TRANSPORT') ?? 'http').toLowerCase() !== 'http'
      ? `COPILOT_PROVIDER_TRANSPORT=${envSetting(env, 'COPILOT_PROVIDER_TRANSPORT')}: the proxy records HTTP requests only; unset it (or set it to http) to record this agent`
      : undefined,
  defaultUpstream: (p, env) => {
    const own = envSetting(env, 'COPILOT_PROVIDER_BASE_URL');
    if (own !== undefined) return own;
    // Setting the provider would turn a run on Copilot's own models into one on another provider: not a recording.
    if (p === providerProtocol(env))
      throw new InputError(
        "COPILOT_PROVIDER_BASE_URL is not set: Copilot then uses its GitHub-hosted models, which record does not redirect; record points Copilot's bring-your-own-key provider at the proxy: set COPILOT_PROVIDER_BASE_URL (and its key), or give --upstream",
      );
    return p === 'anthropic-messages' ? ANTHROPIC_API : OPENAI_API;
  },
  childEnv: (base, env) => ({ COPILOT_PROVIDER_BASE_URL: base(providerProtocol(env)) }),
  normalise: COPILOT_RULES,
  baseUrlSource: 'measured',
};
