import { isSha256Hex, sha256Hex } from '../util/hash';
import { tailDigest, type FileIdentity } from '../util/checkpoint';
import type { ChainState } from './recover';

/**
 * The journal's checkpoint (`000000.jsonl.checkpoint`, see src/util/checkpoint.ts
 * and docs/journal.md): the verified chain state at the end of the file
 * (offset = size, steps, head) and the digest of the file's last bytes (the
 * last append's, at most 4 KiB).
 */
export const JOURNAL_CHECKPOINT_KIND = 'journal';

export function journalCheckpointFile(journalFile: string): string {
  return `${journalFile}.checkpoint`;
}

/** The chain state a checkpoint of `file` recorded (`s`), when it holds for the file as it is now (identity `id`). */
export function restoreJournalState(
  file: string,
  s: Record<string, unknown>,
  id: FileIdentity,
): ChainState | undefined {
  const { offset, steps, head, tail_from, tail_sha256 } = s;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || String(offset) !== id.size) return undefined;
  if (typeof steps !== 'number' || !Number.isSafeInteger(steps) || steps < 0) return undefined;
  if (typeof head !== 'string' || !isSha256Hex(head) || typeof tail_sha256 !== 'string') return undefined;
  if (typeof tail_from !== 'number' || !Number.isSafeInteger(tail_from) || tail_from < 0 || tail_from > offset)
    return undefined;
  if (offset - tail_from > TAIL_MAX) return undefined;
  try {
    if (tailDigest(file, offset, tail_from) !== tail_sha256) return undefined;
  } catch {
    return undefined;
  }
  return { offset, steps, head };
}

/** The most bytes at the end of the file a checkpoint's digest covers. */
const TAIL_MAX = 4096;

/**
 * What a checkpoint records of the verified state of `file`, whose identity is
 * `id` (undefined: not a whole verified file, or its tail cannot be read).
 * `written` (the bytes just appended, ending at the state's offset) saves
 * reading the tail back.
 */
export function journalCheckpointBody(
  file: string,
  id: FileIdentity,
  state: ChainState,
  written?: Uint8Array,
): Record<string, unknown> | undefined {
  if (String(state.offset) !== id.size) return undefined; // only a whole verified file is checkpointed
  let tail: string;
  let from: number;
  if (written !== undefined && written.length > 0 && written.length <= state.offset) {
    const bytes = written.subarray(Math.max(0, written.length - TAIL_MAX));
    from = state.offset - bytes.length;
    tail = sha256Hex(bytes);
  } else {
    from = Math.max(0, state.offset - TAIL_MAX);
    try {
      tail = tailDigest(file, state.offset, from);
    } catch {
      return undefined;
    }
  }
  return { offset: state.offset, steps: state.steps, head: state.head, tail_from: from, tail_sha256: tail };
}
