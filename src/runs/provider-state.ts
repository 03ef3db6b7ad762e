import { canonicalOfRead, isJsonInteger, type JsonObject, type JsonValue } from '../canonical';
import { sha256Hex } from '../util/hash';

/** Journal event type of one observed provider-side context mutation. */
export const MUTATION_EVENT = 'provider_state_mutation';
/** Journal event type of an adapter's mutation-observability capability for the run. */
export const CAPABILITY_EVENT = 'provider_state_capability';
export const CAPABILITIES = ['observed', 'declared-blind'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** Environment variables that put a run in a deterministic mode (record with a seed, or hermetic replay). */
export const DETERMINISTIC_ENV = [
  'STEPCHAIN_DETERMINISTIC_SEED',
  'STEPCHAIN_REPLAY_RUN_ID',
  'BERNSTEIN_DETERMINISTIC_SEED',
  'BERNSTEIN_REPLAY_RUN_ID',
] as const;

/** The deterministic-mode variable that is set (non-blank), if any. */
export function deterministicModeVar(env: NodeJS.ProcessEnv): string | undefined {
  return DETERMINISTIC_ENV.find((k) => (env[k] ?? '').trim() !== '');
}

/** A mutation's identity (what its content address covers) plus the policy flag. */
export interface ProviderStateMutation {
  kind: string;
  before_digest: string;
  after_digest: string;
  step_index: number;
  flagged: boolean;
}

const BEFORE_PREFIXES = ['pre_', 'before_'];

/** sha256 hex of `canonical(v)`. */
export function canonicalSha256(v: JsonValue): string {
  return sha256Hex(canonicalOfRead(v));
}

/** What a mutation's row keeps of the provider's reported detail: two digests (see signalDigests). */
export interface SignalDigests {
  before_digest: string;
  after_digest: string;
}

/**
 * From a provider's reported detail: `before_digest` covers the top-level
 * fields named `pre_*` / `before_*` (the reported pre-mutation state; the
 * empty-object digest when there are none), `after_digest` the whole detail.
 */
export function signalDigests(detail: JsonObject): SignalDigests {
  const before: JsonObject = {};
  for (const [k, v] of Object.entries(detail)) {
    if (BEFORE_PREFIXES.some((p) => k.startsWith(p))) {
      Object.defineProperty(before, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
  }
  return { before_digest: canonicalSha256(before), after_digest: canonicalSha256(detail) };
}

/** The mutation of a signal whose detail is digested already (signalDigests). */
export function mutationOf(
  kind: string,
  digests: SignalDigests,
  stepIndex: number,
  flagged: boolean,
): ProviderStateMutation {
  return {
    kind,
    before_digest: digests.before_digest,
    after_digest: digests.after_digest,
    step_index: stepIndex,
    flagged,
  };
}

/** The mutation of a provider's signal: its kind, its detail's digests (signalDigests), its step. */
export function mutationFromSignal(
  kind: string,
  detail: JsonObject,
  stepIndex: number,
  flagged: boolean,
): ProviderStateMutation {
  return mutationOf(kind, signalDigests(detail), stepIndex, flagged);
}

/** `sha256(canonical({kind, before_digest, after_digest, step_index}))`: `flagged` is policy, not identity. */
export function contentAddress(m: {
  kind: JsonValue;
  before_digest: JsonValue;
  after_digest: JsonValue;
  step_index: JsonValue;
}): string {
  return canonicalSha256({
    kind: m.kind,
    before_digest: m.before_digest,
    after_digest: m.after_digest,
    step_index: m.step_index,
  });
}

/** The payload of a `provider_state_mutation` row, in the reference's key order. */
export function mutationPayload(m: ProviderStateMutation, agentId: string): Map<string, JsonValue> {
  return new Map<string, JsonValue>([
    ['mutation_kind', m.kind],
    ['before_digest', m.before_digest],
    ['after_digest', m.after_digest],
    ['step_index', m.step_index],
    ['content_address', contentAddress(m)],
    ['flagged', m.flagged],
    ['agent_id', agentId],
  ]);
}

export function capabilityPayload(adapter: string, capability: Capability): Map<string, JsonValue> {
  return new Map<string, JsonValue>([
    ['adapter', adapter],
    ['capability', capability],
  ]);
}

/** Why a mutation row's fields do not hold (content address, types), or undefined. */
export function checkMutationRow(payload: Map<string, JsonValue>): string | undefined {
  const kind = payload.get('mutation_kind');
  const stepIndex = payload.get('step_index');
  const stored = payload.get('content_address');
  if (typeof kind !== 'string') return 'mutation_kind is not a string';
  if (!isJsonInteger(stepIndex)) return 'step_index is not an integer';
  const expected = contentAddress({
    kind,
    before_digest: payload.get('before_digest') ?? '',
    after_digest: payload.get('after_digest') ?? '',
    step_index: stepIndex,
  });
  if (stored !== expected) {
    return `content address ${typeof stored === 'string' ? stored : JSON.stringify(stored)} does not match its fields (expected ${expected})`;
  }
  return undefined;
}
