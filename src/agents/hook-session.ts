import type { IncomingHttpHeaders } from 'node:http';
import type { JsonObject } from '../canonical';
import { isSafeId } from '../util/ids';

/**
 * Which hook session a model request belongs to, so that `stepchain record` can link each hook step to the exchange
 * that asked for its tool call (docs/record.md "Hook steps and the exchange behind them"). Each agent's proxy part
 * says how its requests name their session (`AgentProxy.hookSession`), measured with its pinned binary:
 * - `{ journal }`: the request names it (a header, a field of the body): the hook journal `<agent>-<session id>`;
 * - `{ single: true }`: the requests name no session: the one hook session of this agent that ran under the
 *   recording, known by the token `record` gives its child (`RECORDING_ENV`), which the agent's hooks inherit and
 *   record in their `session_start` event. None or several such sessions: nothing is linked.
 * Undefined: this request's tool calls are not linked (a header missing, repeated, or not a safe journal id).
 */
export type HookSession = { journal: string } | { single: true };

/** What an agent's `hookSession` reads of a request: its headers, and its body when it is a JSON object. */
export interface SessionRequest {
  headers: IncomingHttpHeaders;
  body: JsonObject | undefined;
}

/**
 * The environment variable `record` (and `fork --replay`) sets for the agent it runs: a fresh random token, which
 * hooks of agents whose requests name no session record in their `session_start` run event (`recording`).
 */
export const RECORDING_ENV = 'STEPCHAIN_RECORDING';

/** The token of the recording this hook runs under, when it is one `record` made (32 hex digits), else undefined. */
export function recordingToken(env: NodeJS.ProcessEnv): string | undefined {
  const t = env[RECORDING_ENV];
  return t !== undefined && /^[0-9a-f]{32}$/.test(t) ? t : undefined;
}

/** A header given exactly once and not empty, else undefined (a repeated header names no one session). */
export function oneHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The hook journal `<agent>-<session id>`, when that is a safe journal id. */
export function sessionJournal(agent: string, sessionId: string | undefined): HookSession | undefined {
  if (sessionId === undefined) return undefined;
  const journal = `${agent}-${sessionId}`;
  return isSafeId(journal) ? { journal } : undefined;
}
