import path from 'node:path';
import { InputError } from '../../errors';
import { PATHS_RULE, regexRule, valueRule, type NormaliseRule } from '../../proxy/normalise';
import { OPENAI_API } from '../../proxy/providers';
import { oneHeader, sessionJournal, type HookSession, type SessionRequest } from '../hook-session';
import type { AgentProxy } from '../types';
import { scanToml, tomlBasicString, tomlStringValue } from './toml';
import { codexConfigFile, readConfigText } from './trust';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/**
 * Codex 0.171.0 (`exec`), measured by diffing the raw requests of runs in two directories and a linked worktree, with a
 * provider of the user's and with the built-in `openai` one.
 */
export const CODEX_RULES: readonly NormaliseRule[] = [
  regexRule('prompt_cache_key (the thread id)', /^[\s\S]*$/, '<session>', /^prompt_cache_key$/),
  regexRule(
    'client_metadata, every value (thread, session, turn and window ids, the installation id, and the turn metadata: the workspace path, its git commit and changes, the start time)',
    /^[\s\S]*$/,
    '<client_metadata>',
    /^client_metadata(\.|\[|$)/,
  ),
  regexRule(
    'input item ids Codex makes from a UUID (msg_<uuid>, fco_<uuid>)',
    new RegExp(`^([a-z]+_)${UUID}$`),
    '$1<id>',
    /^input\[\d+\]\.id$/,
  ),
  valueRule(
    "input items' internal_chat_message_metadata_passthrough turn_id and create_time (the built-in openai provider)",
    /^input\[\d+\]\.internal_chat_message_metadata_passthrough\.(turn_id|create_time)$/,
    '<volatile>',
  ),
  PATHS_RULE,
  regexRule(
    '<current_date> in the environment context',
    /<current_date>[^<]*<\/current_date>/g,
    '<current_date><date></current_date>',
  ),
  regexRule(
    'exec_command output: its "Chunk ID:" and "Wall time:" lines',
    /^(Chunk ID: )[0-9a-f]+$|^(Wall time: )[0-9.]+ seconds$/gm,
    '$1$2<volatile>',
    /^input\[\d+\]\.output$/,
  ),
];

/** The model provider `config.toml` selects and the base URL it gives that provider (undefined: none given). */
export interface CodexProvider {
  /** `model_provider` (default `openai`, Codex's built-in provider). */
  id: string;
  baseUrl: string | undefined;
}

/**
 * What Codex 0.171.0 reads for its model calls' base URL (measured): `openai_base_url` for the built-in `openai`
 * provider (the environment's `OPENAI_BASE_URL` is not read: its requests went to api.openai.com), and
 * `model_providers.<id>.base_url` for a provider of the user's. Profiles are not read.
 */
export function codexProvider(env: NodeJS.ProcessEnv): CodexProvider {
  const file = codexConfigFile(env);
  const text = readConfigText(file);
  if (text === null) return { id: 'openai', baseUrl: undefined };
  const values = new Map<string, string | undefined>();
  let table: string[] = [];
  for (const st of scanToml(text, file)) {
    if (st.kind === 'table' || st.kind === 'array-table') table = st.kind === 'table' ? st.keys : ['[]'];
    else if (st.kind === 'keyval')
      values.set(JSON.stringify([...table, ...st.keys]), tomlStringValue(text.slice(st.valueStart, st.valueEnd)));
  }
  const at = (...keys: string[]): string | undefined => values.get(JSON.stringify(keys));
  if (values.has(JSON.stringify(['model_provider'])) && at('model_provider') === undefined)
    throw new InputError(`${file}: model_provider is not a string`);
  const id = at('model_provider') ?? 'openai';
  return { id, baseUrl: id === 'openai' ? at('openai_base_url') : at('model_providers', id, 'base_url') };
}

/**
 * `-c <key>=<value>`: a dotted key path and a TOML string. Codex 0.171.0 splits the key at its first `=` and then
 * at every `.`, quotes or not (measured: `-c 'model_providers."my.proxy".base_url=...'` fails with "model_providers.
 * \"my: provider name must not be empty"), so a key that is not bare cannot be addressed: refused, naming the file.
 */
function configOverride(keys: string[], value: string, file: string): string[] {
  const odd = keys.find((k) => !/^[A-Za-z0-9_-]+$/.test(k));
  if (odd !== undefined)
    throw new InputError(
      `${file}: the model provider ${JSON.stringify(odd)} cannot be given the proxy's base URL (Codex's -c splits its key at every "." and "="; only A-Z a-z 0-9 _ - can be named)`,
    );
  return ['-c', `${keys.join('.')}=${tomlBasicString(value)}`];
}

/**
 * The hook journal of a Codex request (measured with 0.171.0, `exec`: every model request carries the headers
 * `session-id` and `thread-id`, both the session id its hooks get as `session_id`): `codex-<session-id>`. A request
 * whose `thread-id` differs (another thread of the session, as a subagent's may be: not measured) is not linked.
 */
export function codexHookSession(request: SessionRequest): HookSession | undefined {
  const sid = oneHeader(request.headers, 'session-id');
  const thread = request.headers['thread-id'];
  if (thread !== undefined && thread !== sid) return undefined;
  return sessionJournal('codex', sid);
}

/**
 * Codex has no environment setting for its base URL (0.171.0, measured): the proxy's goes on the command line, as
 * a `-c` override right after the `codex` executable, for the provider config.toml selects.
 */
export const codexProxy: AgentProxy = {
  adapter: 'proxy-codex',
  protocols: ['openai-responses', 'openai-chat'],
  defaultUpstream: (_p, env) => {
    const provider = codexProvider(env);
    if (provider.baseUrl !== undefined) return provider.baseUrl;
    if (provider.id === 'openai') return OPENAI_API;
    throw new InputError(
      `${codexConfigFile(env)}: the model provider ${JSON.stringify(provider.id)} has no base_url; give --upstream`,
    );
  },
  // Not read by Codex 0.171.0 for its model calls (measured), but by clients built on OpenAI's SDKs that stand in
  // for it or run under it.
  childEnv: (base) => ({ OPENAI_BASE_URL: base('openai-responses') }),
  childCommand: (command, base, env) => {
    if (path.basename(command[0] ?? '') !== 'codex') return undefined;
    const { id } = codexProvider(env);
    const keys = id === 'openai' ? ['openai_base_url'] : ['model_providers', id, 'base_url'];
    return [command[0]!, ...configOverride(keys, base('openai-responses'), codexConfigFile(env)), ...command.slice(1)];
  },
  normalise: CODEX_RULES,
  baseUrlSource: 'measured',
  hookSession: codexHookSession,
};
