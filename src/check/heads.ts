import { isJsonObject, parseBytes, type JsonValue } from '../canonical';
import { InputError } from '../errors';
import { isSha256Hex } from '../util/hash';
import { assertSafeId } from '../util/ids';
import { idRecord } from '../util/records';

/** Pinned heads: a JSON object `{agent_id: head}` (e.g. collected from signed receipts). */
export function parseExpectedHeads(bytes: Buffer, source: string): Record<string, string> {
  let v: JsonValue;
  try {
    v = parseBytes(bytes);
  } catch (e) {
    throw new InputError(`${source}: not JSON: ${(e as Error).message}`);
  }
  if (!isJsonObject(v)) throw new InputError(`${source}: expected a JSON object {agent_id: head}`);
  const heads = idRecord<string>();
  for (const [agent, head] of Object.entries(v)) {
    assertSafeId(agent, `agent id in ${source}`);
    if (!isSha256Hex(head)) throw new InputError(`${source}: the head of ${agent} is not 64 lowercase hex digits`);
    heads[agent] = head;
  }
  return heads;
}
