import { canonicalOfRead, isJsonObject, type JsonValue } from '../canonical';

/**
 * What changed between two values, path by path: the one rule the terminal replay
 * (`stepChanges`) and the HTML report's "Changed" both use. Pure: it depends on the
 * canonical encoder only, so the report page bundles it as it is.
 */

/** One changed value between two steps; `path` is a field name, dotted into objects (`tool_call.args.cmd`). */
export interface FieldChange {
  path: string;
  kind: 'changed' | 'added' | 'removed';
  before?: JsonValue;
  after?: JsonValue;
}

/** Equal as Python would hash them (key order does not matter). */
export const same = (a: JsonValue, b: JsonValue): boolean => canonicalOfRead(a) === canonicalOfRead(b);

export function entriesOf(v: JsonValue): [string, JsonValue][] {
  return v instanceof Map ? [...v] : Object.entries(v as Record<string, JsonValue>);
}
export const isObj = (v: JsonValue): boolean => isJsonObject(v) || v instanceof Map;

function walk(pathName: string, a: JsonValue, b: JsonValue, depth: number, out: FieldChange[]): void {
  if (same(a, b)) return;
  if (depth < 4 && isObj(a) && isObj(b)) {
    const left = new Map(entriesOf(a));
    const right = new Map(entriesOf(b));
    for (const [k, v] of left) {
      const p = `${pathName}.${k}`;
      if (!right.has(k)) out.push({ path: p, kind: 'removed', before: v });
      else walk(p, v, right.get(k)!, depth + 1, out);
    }
    for (const [k, v] of right) if (!left.has(k)) out.push({ path: `${pathName}.${k}`, kind: 'added', after: v });
    return;
  }
  out.push({ path: pathName, kind: 'changed', before: a, after: b });
}

/** The changes from `a` to `b` under the name `pathName`, descending into objects (four levels). */
export function valueChanges(pathName: string, a: JsonValue, b: JsonValue): FieldChange[] {
  const out: FieldChange[] = [];
  walk(pathName, a, b, 0, out);
  return out;
}
