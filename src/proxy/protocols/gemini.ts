import { arrayAt, objectAt, objects, stringAt, valueAt } from '../json';
import type { Protocol, ToolResult } from './types';

const CALL = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/**
 * Gemini generateContent / streamGenerateContent (`alt=sse`, or a JSON array).
 * Function responses may carry no id, or one the client made up for a call
 * that had none (Gemini CLI: `<tool>_<epoch ms>_<n>`): those are matched by
 * name, and only the ones after the model's last turn count (earlier turns
 * hold older results).
 */
export const gemini: Protocol = {
  name: 'gemini',
  matches: (p) => CALL.test(p),
  model: (req) => {
    const m = CALL.exec(req.pathname)?.[1];
    return m === undefined ? null : decodeURIComponent(m);
  },
  conversation: (req) => valueAt(req.body, 'contents') ?? null,
  toolResults(req) {
    const contents = objects(arrayAt(req.body, 'contents'));
    let lastModel = -1;
    contents.forEach((c, i) => {
      if (stringAt(c, 'role') === 'model') lastModel = i;
    });
    const out: ToolResult[] = [];
    contents.forEach((c, i) => {
      for (const part of objects(arrayAt(c, 'parts'))) {
        const fr = objectAt(part, 'functionResponse');
        if (fr === undefined) continue;
        const id = stringAt(fr, 'id') ?? null;
        if (id === null && i < lastModel) continue;
        // After the model's last turn: this turn's results, which answer its calls by name when those had no id.
        out.push({ id, name: stringAt(fr, 'name') ?? null, value: part, byName: i > lastModel });
      }
    });
    return out;
  },
  toolCalls(payloads) {
    return objects(
      payloads
        .flatMap((p) => arrayAt(p, 'candidates'))
        .flatMap((c) => arrayAt(objectAt(c, 'content'), 'parts'))
        .map((part) => valueAt(part, 'functionCall') ?? null),
    ).map((f) => ({ id: valueAt(f, 'id') ?? null, name: valueAt(f, 'name') ?? null, args: valueAt(f, 'args') ?? {} }));
  },
  signals: () => [],
};
