import { InputError } from '../../errors';
import { PATHS_RULE, regexRule, type NormaliseRule } from '../../proxy/normalise';
import { ANTHROPIC_API, envSetting, OPENAI_API } from '../../proxy/providers';
import type { ProtocolName } from '../../proxy/protocols/types';
import path from 'node:path';
import { sessionJournal, type HookSession, type SessionRequest } from '../hook-session';
import type { AgentProxy } from '../types';
import { copilotHome } from './home';

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

/** The text of a Chat Completions message's content: a string, or its text parts joined. */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.map((p: unknown) =>
    typeof p === 'object' && p !== null && typeof (p as { text?: unknown }).text === 'string'
      ? (p as { text: string }).text
      : '',
  );
  return texts.join('');
}

const SESSION_FOLDER = '\nSession folder: ';

/**
 * The hook journal of a Copilot request (measured with 1.0.102: no header names the session; the system message,
 * first of `messages`, says `Session folder: <copilot home>/session-state/<session id>` in its `<session_context>`):
 * `copilot-<session id>`, when the system message says it exactly once and the folder is in this environment's
 * Copilot home (`$COPILOT_HOME`, else `~/.copilot`), as the hooks read it. Anything else is not linked.
 */
export function copilotHookSession(request: SessionRequest, env: NodeJS.ProcessEnv): HookSession | undefined {
  const messages = request.body?.messages;
  const first: unknown = Array.isArray(messages) ? messages[0] : undefined;
  if (typeof first !== 'object' || first === null || (first as { role?: unknown }).role !== 'system') return undefined;
  const text = contentText((first as { content?: unknown }).content);
  if (text === undefined) return undefined;
  const at = text.indexOf(SESSION_FOLDER);
  if (at < 0 || text.indexOf(SESSION_FOLDER, at + 1) >= 0) return undefined;
  const start = at + SESSION_FOLDER.length;
  const end = text.indexOf('\n', start);
  const folder = text.slice(start, end < 0 ? text.length : end);
  const stateDir = path.join(copilotHome(env), 'session-state');
  if (path.dirname(folder) !== stateDir) return undefined;
  return sessionJournal('copilot', path.basename(folder));
}

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
  hookSession: copilotHookSession,
};
