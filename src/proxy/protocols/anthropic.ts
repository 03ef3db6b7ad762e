import { canonical, isJsonObject, parse, type JsonObject, type JsonValue } from '../../canonical';
import { arrayAt, objectAt, objects, stringAt, valueAt } from '../json';
import type { Protocol, ProviderSignal, RequestView, ToolResult } from './types';

/** Claude Code's compaction instruction (2.1.x: "...summary of the conversation so far", "...of this conversation"). */
const COMPACTION_PROMPT =
  /Your task is to create a detailed summary of (the|this|the RECENT portion of the) conversation/;

/**
 * The blocks that ask the agent to run a tool. Not `server_tool_use` (web search, code execution) or `mcp_tool_use`
 * (the MCP connector): the provider runs those itself and puts their results (`*_tool_result`) in the same response,
 * so no request of the agent's ever answers them, and a step waiting for that answer held back every step after it
 * (their appends and snapshots) to the end of the run.
 */
const TOOL_USE_TYPES = new Set(['tool_use']);

function lastUserText(body: JsonObject): string {
  const msgs = objects(arrayAt(body, 'messages'));
  const last = msgs.at(-1);
  if (last === undefined || stringAt(last, 'role') !== 'user') return '';
  const content = valueAt(last, 'content');
  if (typeof content === 'string') return content;
  return objects(Array.isArray(content) ? content : [])
    .map((b) => stringAt(b, 'text') ?? '')
    .join('\n');
}

function parsedInput(text: string): JsonValue {
  if (text === '') return {};
  try {
    return parse(text);
  } catch {
    return text; // kept as sent: a partial stream's arguments
  }
}

/** Anthropic Messages (`POST /v1/messages`), streamed or not. */
export const anthropicMessages: Protocol = {
  name: 'anthropic-messages',
  matches: (p) => /\/v1\/messages$/.test(p),
  model: (req) => valueAt(req.body, 'model') ?? null,
  conversation: (req) => valueAt(req.body, 'messages') ?? null,
  toolResults(req) {
    const out: ToolResult[] = [];
    for (const m of objects(arrayAt(req.body, 'messages'))) {
      if (stringAt(m, 'role') !== 'user') continue;
      for (const b of objects(arrayAt(m, 'content'))) {
        if (!/tool_result$/.test(stringAt(b, 'type') ?? '')) continue;
        out.push({ id: stringAt(b, 'tool_use_id') ?? null, name: null, value: b });
      }
    }
    return out;
  },
  toolCalls(payloads, streamed) {
    if (!streamed) {
      return objects(payloads.flatMap((p) => arrayAt(p, 'content')))
        .filter((b) => TOOL_USE_TYPES.has(stringAt(b, 'type') ?? ''))
        .map((b) => ({
          id: valueAt(b, 'id') ?? null,
          name: valueAt(b, 'name') ?? null,
          input: valueAt(b, 'input') ?? {},
        }));
    }
    const open = new Map<string, { id: JsonValue; name: JsonValue; json: string }>();
    const order: string[] = [];
    for (const e of payloads) {
      const type = stringAt(e, 'type');
      const index = String(valueAt(e, 'index'));
      if (type === 'content_block_start') {
        const b = objectAt(e, 'content_block');
        if (b === undefined || !TOOL_USE_TYPES.has(stringAt(b, 'type') ?? '')) continue;
        const start = valueAt(b, 'input');
        const json = isJsonObject(start) && Object.keys(start).length > 0 ? canonical(start) : '';
        open.set(index, { id: valueAt(b, 'id') ?? null, name: valueAt(b, 'name') ?? null, json });
        order.push(index);
      } else if (type === 'content_block_delta') {
        const d = objectAt(e, 'delta');
        const call = open.get(index);
        if (call !== undefined && stringAt(d, 'type') === 'input_json_delta')
          call.json += stringAt(d, 'partial_json') ?? '';
      }
    }
    return order.map((i) => {
      const c = open.get(i)!;
      return { id: c.id, name: c.name, input: parsedInput(c.json) };
    });
  },
  signals(req: RequestView, payloads) {
    const out: ProviderSignal[] = [];
    if (COMPACTION_PROMPT.test(lastUserText(req.body))) out.push({ kind: 'compaction', detail: { source: 'request' } });
    for (const e of payloads) {
      // A server-side compaction block, streamed (content_block_start) or whole (content).
      const blocks = [objectAt(e, 'content_block'), ...objects(arrayAt(e, 'content'))];
      const message = objectAt(e, 'message');
      if (message !== undefined) blocks.push(...objects(arrayAt(message, 'content')));
      for (const b of blocks)
        if (b !== undefined && stringAt(b, 'type') === 'compaction')
          out.push({ kind: 'compaction', detail: { source: 'response' } });
      // Context-management edits the response reports applied.
      for (const holder of [e, objectAt(e, 'delta'), message]) {
        const applied = arrayAt(objectAt(holder, 'context_management'), 'applied_edits');
        if (applied.length > 0) out.push({ kind: 'context_management', detail: { applied_edits: applied } });
      }
    }
    return out;
  },
};
