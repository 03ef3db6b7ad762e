import type { IncomingHttpHeaders } from 'node:http';
import { canonical, canonicalOfRead, isJsonObject, parse, type JsonObject, type JsonValue } from '../canonical';
import { sha256Hex } from '../util/hash';
import { recordableHeaders, recordablePath } from './credentials';
import { stringAt } from './json';
import { responsePayloads } from './payloads';
import type { Protocol, ProviderSignal, RequestView, ToolResult } from './protocols';

/**
 * The most bytes of a request body, and of a response, the proxy holds (each exchange is held whole until it is
 * recorded): an agent or an upstream that sends without end must not take the machine's memory, and the recording
 * with it. Far above any provider's own limit on a request (tens of MB) and any model's answer. So no recorded
 * request or response is larger: a replay refuses a blob that is.
 */
export const MAX_MESSAGE_BYTES = 128 * 1024 * 1024;

/** The version tag of an exchange's record blob. */
export const EXCHANGE_FORMAT = 'stepchain-proxy-exchange/1';

/**
 * Past this many bytes of canonical JSON, a step's `prompt` is not the
 * conversation itself but a pointer to the input blob, which holds it whole
 * (the exact request body): a long session resends its whole conversation on
 * every call, and rows that repeat it would grow with the square of its length.
 */
export const PROMPT_CAP_BYTES = 256 * 1024;

/** One model call as the proxy saw it: the exact bytes both ways, and when they passed. */
export interface Exchange {
  protocol: Protocol;
  method: string;
  /** The request target as the agent sent it (credentials are removed when recorded). */
  target: string;
  requestHeaders: IncomingHttpHeaders;
  request: Buffer;
  status: number;
  responseHeaders: IncomingHttpHeaders;
  response: Buffer;
  /** False when the upstream or the agent ended the response early. */
  complete: boolean;
  /** Milliseconds from the request's arrival to the response's first byte and to its end. */
  firstByteMs: number | null;
  endMs: number;
  /** Where the response came from: the upstream, or the recording (a replayed exchange). */
  source: 'upstream' | 'recording';
}

/** What the recorder needs of an exchange once it is over. */
export interface ExchangeReading {
  view: RequestView | undefined;
  model: JsonValue;
  prompt: JsonValue;
  toolCalls: JsonObject[];
  signals: ProviderSignal[];
  /** Why the response was not read for its tool calls and signals (too large), if it was not. */
  unread?: string;
}

function header(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The request body as JSON, or undefined when it is not a JSON object. */
export function requestView(x: {
  target: string;
  requestHeaders: IncomingHttpHeaders;
  request: Buffer;
}): RequestView | undefined {
  let body: JsonValue;
  try {
    body = parse(x.request.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isJsonObject(body)) return undefined;
  const q = x.target.indexOf('?');
  return { body, pathname: q < 0 ? x.target : x.target.slice(0, q), headers: x.requestHeaders };
}

/** Codex marks a compaction request in a header: `x-codex-turn-metadata: {..."request_kind":"compaction"...}`. */
function headerSignals(headers: IncomingHttpHeaders): ProviderSignal[] {
  const meta = header(headers, 'x-codex-turn-metadata');
  if (meta === undefined) return [];
  try {
    const v = parse(meta);
    if (stringAt(v, 'request_kind') === 'compaction')
      return [{ kind: 'compaction', detail: { source: 'x-codex-turn-metadata' } }];
  } catch {
    /* not JSON: no signal */
  }
  return [];
}

/** `view`: the request as JSON when it was read already (undefined: read here; null: not a JSON object). */
export function readExchange(x: Exchange, parsed?: RequestView | null): ExchangeReading {
  const view = parsed === undefined ? requestView(x) : (parsed ?? undefined);
  const { streamed, payloads, unread } = responsePayloads(
    x.response,
    header(x.responseHeaders, 'content-type'),
    header(x.responseHeaders, 'content-encoding'),
  );
  const conversation = view === undefined ? null : x.protocol.conversation(view);
  // Measured as read (a NaN the request holds is measured, not thrown: whether the prompt can be written is the
  // recorder's check, field by field, so the response's tool calls are still read).
  const text = canonicalOfRead(conversation);
  const prompt: JsonValue =
    Buffer.byteLength(text, 'utf8') <= PROMPT_CAP_BYTES
      ? conversation
      : {
          in_input_blob: true,
          canonical_bytes: Buffer.byteLength(text, 'utf8'),
          canonical_sha256: sha256Hex(Buffer.from(text, 'utf8')),
        };
  return {
    view,
    model: view === undefined ? null : x.protocol.model(view),
    prompt,
    toolCalls: x.status < 300 ? x.protocol.toolCalls(payloads, streamed) : [],
    signals: view === undefined ? [] : [...headerSignals(x.requestHeaders), ...x.protocol.signals(view, payloads)],
    ...(unread === undefined ? {} : { unread }),
  };
}

/** The exchange's record blob (canonical JSON): everything but the bodies and the credentials. */
export function exchangeRecord(x: Exchange, agent: string): Buffer {
  const doc: JsonObject = {
    format: EXCHANGE_FORMAT,
    agent,
    protocol: x.protocol.name,
    method: x.method,
    path: recordablePath(x.target),
    request_headers: recordableHeaders(x.requestHeaders),
    request_sha256: sha256Hex(x.request),
    status: x.status,
    response_headers: recordableHeaders(x.responseHeaders),
    response_sha256: sha256Hex(x.response),
    response_bytes: x.response.length,
    complete: x.complete,
    source: x.source,
    first_byte_ms: x.firstByteMs,
    end_ms: x.endMs,
  };
  return Buffer.from(canonical(doc), 'utf8');
}

/** A tool call's id: `id` (Anthropic, Chat Completions, Gemini when given), `call_id` (Responses). */
function callId(c: JsonObject): string | undefined {
  const id = typeof c.call_id === 'string' ? c.call_id : c.id;
  return typeof id === 'string' ? id : undefined;
}

/** Tool results of a request that answer some of `calls` (by id; by name where the protocol gives no id). */
export function resultsFor(calls: JsonObject[], results: ToolResult[]): ToolResult[] {
  const ids = new Set(calls.map(callId).filter((id): id is string => id !== undefined));
  const names = new Set(
    calls
      .filter((c) => callId(c) === undefined)
      .map((c) => c.name)
      .filter((n): n is string => typeof n === 'string'),
  );
  return results.filter(
    (r) => (r.id !== null && ids.has(r.id)) || ((r.byName ?? r.id === null) && r.name !== null && names.has(r.name)),
  );
}
