import { canonical, canonicalOfRead, type JsonValue } from '../canonical';
import { sha256Hex } from '../util/hash';

/** The six hashed fields of a step (docs/format.md §2). `ts`, `seq` and `blob_refs` are not hashed. */
export interface StepFields {
  prev_hash: string;
  input_hash: string;
  model: JsonValue;
  prompt: JsonValue;
  tool_call: JsonValue;
  tool_result: JsonValue;
}

function payloadOf(f: StepFields): JsonValue {
  return {
    prev_hash: f.prev_hash,
    input_hash: f.input_hash,
    model: f.model,
    prompt: f.prompt,
    tool_call: f.tool_call,
    tool_result: f.tool_result,
  };
}

/**
 * The canonical payload a peer hashes by hand:
 * `canonical({prev_hash, input_hash, model, prompt, tool_call, tool_result})`.
 * `read` values may carry NaN/Infinity (Python writes them); values being written may not.
 */
export function stepPayload(f: StepFields, read = false): string {
  return read ? canonicalOfRead(payloadOf(f)) : canonical(payloadOf(f));
}

/** `step_hash = sha256_hex(canonical(six fields))`. */
export function computeStepHash(f: StepFields, read = false): string {
  return sha256Hex(stepPayload(f, read));
}
