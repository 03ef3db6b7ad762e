import { JsonFloat, setKey, type JsonObject, type JsonValue } from '../canonical';
import type { StepInput } from '../journal';

/**
 * An agent's payload may hold a number JSON cannot write: `1e999` reads as Infinity, and `NaN`/`Infinity` tokens are
 * read as the reference reads them, but a journal refuses them at write time (docs/format.md). Refusing the step
 * would lose the tool call, so the hook records it with each such number written as the string of its value
 * (`"Infinity"`, `"-Infinity"`, `"NaN"`): the step's input is the payload itself, whose hash the step's hash binds,
 * so the number as the agent sent it is kept, and the operator is told.
 */

/** Whether a value holds a NaN or an infinity anywhere. Walked only after a step was refused. */
export function holdsNonFinite(v: JsonValue | undefined): boolean {
  if (typeof v === 'number') return !Number.isFinite(v);
  if (v instanceof JsonFloat) return !Number.isFinite(v.value);
  if (Array.isArray(v)) return v.some(holdsNonFinite);
  if (v instanceof Map) return [...v.values()].some(holdsNonFinite);
  if (typeof v === 'object' && v !== null) return Object.values(v).some(holdsNonFinite);
  return false;
}

/** The value with every NaN and infinity in it replaced by the string of its value. */
function writable(v: JsonValue): JsonValue {
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (v instanceof JsonFloat) return Number.isFinite(v.value) ? v : String(v.value);
  if (Array.isArray(v)) return v.map(writable);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, writable(x)]));
  if (typeof v === 'object' && v !== null) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) setKey(out, k, writable(x));
    return out;
  }
  return v;
}

/** The step with its numbers made writable, and the fields that held one; undefined when none did. */
export function withWritableNumbers(step: StepInput): { step: StepInput; fields: string[] } | undefined {
  const fields = (['model', 'prompt', 'tool_call', 'tool_result'] as const).filter((k) => holdsNonFinite(step[k]));
  if (fields.length === 0) return undefined;
  const out: StepInput = { ...step };
  for (const k of fields) out[k] = writable(step[k]!);
  return { step: out, fields };
}
