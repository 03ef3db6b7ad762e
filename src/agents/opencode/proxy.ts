import { isJsonObject, parse, type JsonObject, type JsonValue } from '../../canonical';
import { InputError } from '../../errors';
import { PATHS_RULE, regexRule, type NormaliseRule } from '../../proxy/normalise';
import { ANTHROPIC_API, envSetting, GEMINI_API, OPENAI_API } from '../../proxy/providers';
import type { ProtocolName } from '../../proxy/protocols/types';
import { oneHeader, sessionJournal } from '../hook-session';
import type { AgentProxy } from '../types';
import { opencodeProviders } from './config';

/**
 * OpenCode 1.18.33 (`run`, a custom `@ai-sdk/openai-compatible` provider), measured by diffing the raw requests of
 * runs in two directories and in a fork worktree: the directories in its `<env>` block and the date there. Its
 * session id travels in headers only (`x-session-id`, `x-session-affinity`), which a replay does not compare.
 */
export const OPENCODE_RULES: readonly NormaliseRule[] = [
  PATHS_RULE,
  regexRule(
    "the date in the <env> block: Today's date: Thu Dec 03 2026",
    /Today's date: [A-Z][a-z]{2} [A-Z][a-z]{2} \d{2} \d{4}/g,
    "Today's date: <date>",
  ),
];

/** The public API of each protocol, as OpenCode's SDKs address it. */
const PUBLIC: Readonly<Record<ProtocolName, string>> = {
  'anthropic-messages': `${ANTHROPIC_API}/v1`,
  'openai-responses': OPENAI_API,
  'openai-chat': OPENAI_API,
  gemini: `${GEMINI_API}/v1beta`,
};

/**
 * Where OpenCode sends the requests of each provider of one protocol (distinct URLs, each with the providers going
 * there): its configured base URL, else the protocol's public API (a built-in provider, or an SDK's own default).
 * Every one of these providers is pointed at the proxy, which has one upstream per protocol: counting only the
 * configured URLs sent a built-in provider's requests, with the user's key, to the base URL a repository's
 * `opencode.json` gave a provider of its own.
 */
function providerUpstreams(protocol: ProtocolName, env: NodeJS.ProcessEnv, cwd: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of opencodeProviders(cwd, env)) {
    if (p.protocol !== protocol) continue;
    const own = p.baseURL?.trim().replace(/\/+$/, '');
    const url = own === undefined || own === '' ? PUBLIC[protocol] : own;
    out.set(url, [...(out.get(url) ?? []), p.id]);
  }
  return out;
}

/** The user's OPENCODE_CONFIG_CONTENT, kept (the proxy's base URLs are added to it). */
function ownInlineConfig(env: NodeJS.ProcessEnv): JsonObject {
  const own = envSetting(env, 'OPENCODE_CONFIG_CONTENT');
  if (own === undefined) return {};
  let v: JsonValue;
  try {
    v = parse(own);
  } catch {
    throw new InputError('OPENCODE_CONFIG_CONTENT is set but is not JSON; record cannot add the proxy to it');
  }
  if (!isJsonObject(v)) throw new InputError('OPENCODE_CONFIG_CONTENT is set but is not a JSON object');
  return v;
}

/**
 * OpenCode reads inline configuration from OPENCODE_CONFIG_CONTENT, merged over its files: every provider whose
 * protocol the proxy reads (the built-in anthropic, openai and google, and each configured one whose `npm` is an AI
 * SDK package of a known protocol) gets the proxy as its `options.baseURL`; the rest of its options stay as they are.
 */
function opencodeConfig(base: (p: ProtocolName) => string, env: NodeJS.ProcessEnv, cwd: string): string {
  const config = ownInlineConfig(env);
  const providers: JsonObject = isJsonObject(config.provider) ? { ...config.provider } : {};
  for (const p of opencodeProviders(cwd, env)) {
    if (p.protocol === undefined) continue;
    const had = providers[p.id];
    const entry: JsonObject = isJsonObject(had) ? { ...had } : {};
    entry.options = { ...(isJsonObject(entry.options) ? entry.options : {}), baseURL: base(p.protocol) };
    providers[p.id] = entry;
  }
  return JSON.stringify({ ...config, provider: providers });
}

/**
 * OpenCode's model calls go to each provider's `options.baseURL`, set through OPENCODE_CONFIG_CONTENT (measured with
 * 1.18.33 and a custom openai-compatible provider: every call, the title request too, a streamed
 * `POST <base>/chat/completions`). Without --upstream, a protocol's upstream is the base URL the configuration gives
 * its providers, else the public API.
 */
export const opencodeProxy: AgentProxy = {
  adapter: 'proxy-opencode',
  protocols: ['openai-chat', 'anthropic-messages', 'openai-responses', 'gemini'],
  defaultUpstream: (p, env, cwd = process.cwd()) => {
    const urls = providerUpstreams(p, env, cwd);
    if (urls.size > 1) {
      const each = [...urls].map(([url, ids]) => `${ids.join(', ')}: ${url}`).join('; ');
      throw new InputError(
        `OpenCode's configuration gives its ${p} providers different base URLs (${[...urls.keys()].join(', ')}); the proxy has one upstream per protocol and would send every one's requests (and keys) there (${each}): give --upstream`,
      );
    }
    return [...urls.keys()][0] ?? PUBLIC[p];
  },
  childEnv: (base, env, cwd = process.cwd()) => ({ OPENCODE_CONFIG_CONTENT: opencodeConfig(base, env, cwd) }),
  normalise: OPENCODE_RULES,
  baseUrlSource: 'measured',
  // Measured with 1.18.33: every model request names its session in `x-session-id` (a subagent's, its own), the
  // session its plugin's events name: `opencode-<x-session-id>`.
  hookSession: (request) => sessionJournal('opencode', oneHeader(request.headers, 'x-session-id')),
};
