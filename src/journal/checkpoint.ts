import { isSha256Hex } from '../util/hash';
import { readCheckpoint, tailDigest, writeCheckpoint, type FileIdentity } from '../util/checkpoint';
import type { ChainState } from './recover';

/**
 * The journal's checkpoint (`000000.jsonl.checkpoint`, see src/util/checkpoint.ts
 * and docs/journal.md): the verified chain state at the end of the file
 * (offset = size, steps, head) and the digest of the file's last 4 KiB.
 */
const KIND = 'journal';

export function journalCheckpointFile(journalFile: string): string {
  return `${journalFile}.checkpoint`;
}

/** The chain state of `file` as its checkpoint records it, when the checkpoint holds for the file as it is now. */
export function loadJournalCheckpoint(file: string, id: FileIdentity, key: Uint8Array): ChainState | undefined {
  const s = readCheckpoint(journalCheckpointFile(file), KIND, file, id, key);
  if (s === undefined) return undefined;
  const { offset, steps, head, tail_sha256 } = s;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || String(offset) !== id.size) return undefined;
  if (typeof steps !== 'number' || !Number.isSafeInteger(steps) || steps < 0) return undefined;
  if (typeof head !== 'string' || !isSha256Hex(head) || typeof tail_sha256 !== 'string') return undefined;
  try {
    if (tailDigest(file, offset) !== tail_sha256) return undefined;
  } catch {
    return undefined;
  }
  return { offset, steps, head };
}

/** Records the verified state of `file`, whose identity is `id` (best-effort). */
export function saveJournalCheckpoint(file: string, id: FileIdentity, state: ChainState, key: Uint8Array): void {
  if (String(state.offset) !== id.size) return; // only a whole verified file is checkpointed
  let tail: string;
  try {
    tail = tailDigest(file, state.offset);
  } catch {
    return;
  }
  writeCheckpoint(
    journalCheckpointFile(file),
    KIND,
    file,
    id,
    { offset: state.offset, steps: state.steps, head: state.head, tail_sha256: tail },
    key,
  );
}
