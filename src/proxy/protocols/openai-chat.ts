import { parse, type JsonObject, type JsonValue } from '../../canonical';
import { arrayAt, objectAt, objects, stringAt, valueAt } from '../json';
import type { Protocol, ToolResult } from './types';

function args(text: string): JsonValue {
  try {
    return parse(text);
  } catch {
    return text;
  }
}

/** OpenAI Chat Completions (`POST .../chat/completions`), streamed (`chat.completion.chunk`) or not. */
export const openaiChat: Protocol = {
  name: 'openai-chat',
  matches: (p) => /\/chat\/completions$/.test(p),
  model: (req) => valueAt(req.body, 'model') ?? null,
  conversation: (req) => valueAt(req.body, 'messages') ?? null,
  toolResults(req) {
    const out: ToolResult[] = [];
    for (const m of objects(arrayAt(req.body, 'messages')))
      if (stringAt(m, 'role') === 'tool') out.push({ id: stringAt(m, 'tool_call_id') ?? null, name: null, value: m });
    return out;
  },
  toolCalls(payloads, streamed) {
    if (!streamed) {
      const out: JsonObject[] = [];
      for (const p of payloads)
        for (const c of objects(arrayAt(p, 'choices')))
          for (const t of objects(arrayAt(objectAt(c, 'message'), 'tool_calls'))) {
            const f = objectAt(t, 'function');
            out.push({
              id: valueAt(t, 'id') ?? null,
              name: valueAt(f, 'name') ?? null,
              arguments: args(stringAt(f, 'arguments') ?? ''),
            });
          }
      return out;
    }
    // Deltas by (choice, tool index): the id and name come once, the arguments in pieces.
    const calls = new Map<string, { id: JsonValue; name: string; args: string }>();
    for (const p of payloads)
      for (const c of objects(arrayAt(p, 'choices')))
        for (const t of objects(arrayAt(objectAt(c, 'delta'), 'tool_calls'))) {
          const key = `${String(valueAt(c, 'index'))}/${String(valueAt(t, 'index'))}`;
          const call = calls.get(key) ?? { id: null, name: '', args: '' };
          const f = objectAt(t, 'function');
          const id = valueAt(t, 'id');
          if (id !== undefined && id !== null) call.id = id;
          call.name += stringAt(f, 'name') ?? '';
          call.args += stringAt(f, 'arguments') ?? '';
          calls.set(key, call);
        }
    return [...calls.values()].map((c) => ({ id: c.id, name: c.name, arguments: args(c.args) }));
  },
  signals: () => [],
};
