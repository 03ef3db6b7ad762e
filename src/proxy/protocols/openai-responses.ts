import { type JsonObject } from '../../canonical';
import { arrayAt, objectAt, objects, stringAt, valueAt } from '../json';
import type { Protocol, ProviderSignal, ToolResult } from './types';

/** Output item types that are the model asking for a tool (function_call, custom_tool_call, local_shell_call, ...). */
function isCall(item: JsonObject): boolean {
  const t = stringAt(item, 'type') ?? '';
  return t.endsWith('_call') && t !== 'web_search_call' && t !== 'file_search_call' && t !== 'image_generation_call';
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
