import { type JsonObject } from '../../canonical';
import { arrayAt, objectAt, objects, stringAt, valueAt } from '../json';
import type { Protocol, ProviderSignal, ToolResult } from './types';

/**
 * The `*_call` output items the provider runs itself, their results in the same response: no request of the agent's
 * answers them (with a `*_call_output`), and a step waiting for that answer held back every step after it to the end.
 */
const PROVIDER_RUN = new Set([
  'web_search_call',
  'file_search_call',
  'image_generation_call',
  'code_interpreter_call',
  'mcp_call',
]);

/** Output item types that are the model asking the agent for a tool (function_call, custom_tool_call, local_shell_call, ...). */
function isCall(item: JsonObject): boolean {
  const t = stringAt(item, 'type') ?? '';
  return t.endsWith('_call') && !PROVIDER_RUN.has(t);
}

/** OpenAI Responses (`POST .../responses`, and Codex's `.../responses/compact`), streamed or not. */
export const openaiResponses: Protocol = {
  name: 'openai-responses',
  matches: (p) => /\/responses(\/compact)?$/.test(p),
  model: (req) => valueAt(req.body, 'model') ?? null,
  conversation: (req) => valueAt(req.body, 'input') ?? null,
  toolResults(req) {
    const out: ToolResult[] = [];
    for (const item of objects(arrayAt(req.body, 'input')))
      if ((stringAt(item, 'type') ?? '').endsWith('_call_output'))
        out.push({ id: stringAt(item, 'call_id') ?? null, name: null, value: item });
    return out;
  },
  toolCalls(payloads, streamed) {
    if (!streamed) return objects(payloads.flatMap((p) => arrayAt(p, 'output'))).filter(isCall);
    const done = objects(
      payloads
        .filter((e) => stringAt(e, 'type') === 'response.output_item.done')
        .map((e) => valueAt(e, 'item') ?? null),
    ).filter(isCall);
    if (done.length > 0) return done;
    const completed = payloads.find((e) => stringAt(e, 'type') === 'response.completed');
    return objects(arrayAt(objectAt(completed, 'response'), 'output')).filter(isCall);
  },
  signals(req, payloads) {
    const out: ProviderSignal[] = [];
    if (/\/responses\/compact$/.test(req.pathname)) out.push({ kind: 'compaction', detail: { source: 'endpoint' } });
    const items = [
      ...payloads.flatMap((p) => arrayAt(p, 'output')),
      ...payloads.map((e) => valueAt(e, 'item') ?? null),
    ];
    for (const item of objects(items))
      if (/^compaction/.test(stringAt(item, 'type') ?? ''))
        out.push({ kind: 'compaction', detail: { source: 'response' } });
    return out;
  },
};
