import type { IncomingHttpHeaders } from 'node:http';
import type { JsonObject, JsonValue } from '../../canonical';

export type ProtocolName = 'anthropic-messages' | 'openai-responses' | 'openai-chat' | 'gemini';

/** A tool result a request carries: the id (or, where the protocol has none, the tool name) it answers. */
export interface ToolResult {
  id: string | null;
  name: string | null;
  /** The block, message or part as the request holds it. */
  value: JsonValue;
  /**
   * Whether it may answer a call that has no id by the call's name (default: when it has no id itself). Gemini CLI
   * gives its own id to the response of a call the model gave none: such a result answers by name too.
   */
  byName?: boolean;
}

/** What one request says about itself. */
export interface RequestView {
  body: JsonObject;
  /** The path without the query string. */
  pathname: string;
  headers: IncomingHttpHeaders;
}

/** A provider-side state change one exchange reports: a compaction or a context-management edit. */
export interface ProviderSignal {
  kind: string;
  detail: JsonObject;
}

/**
 * One wire protocol: how to find the model, the conversation, the tool calls
 * a response asks for and the tool results a request carries, and the
 * provider-side mutations an exchange reports. Each reads untrusted JSON and
 * gives what it finds, never throwing on a shape it does not expect.
 */
export interface Protocol {
  name: ProtocolName;
  /** Whether a POST to this path (no query) is one of the protocol's model calls. */
  matches(pathname: string): boolean;
  model(req: RequestView): JsonValue;
  /** The conversation as sent (the step's `prompt`). */
  conversation(req: RequestView): JsonValue;
  toolResults(req: RequestView): ToolResult[];
  /** The tool calls of a response, from its parsed payloads (SSE `data:` documents, or the one JSON body). */
  toolCalls(payloads: JsonValue[], streamed: boolean): JsonObject[];
  /** Provider-side mutations this exchange is or reports (a compaction request, an applied context edit). */
  signals(req: RequestView, payloads: JsonValue[]): ProviderSignal[];
}
