import path from 'node:path';
import { assertSafeId } from '../util/ids';

/** The on-disk layout of docs/format.md §2, relative to a project root. */
export const JOURNAL_FILE = '000000.jsonl';

export function runtimeDir(root: string): string {
  return path.join(root, '.sdd', 'runtime');
}

export function journalsDir(root: string): string {
  return path.join(runtimeDir(root), 'journal');
}

/** `<root>/.sdd/runtime/journal/<agent_id>/` (the id is validated first). */
export function journalDir(root: string, agentId: string): string {
  return path.join(journalsDir(root), assertSafeId(agentId, 'agent id'));
}

export function journalFile(root: string, agentId: string): string {
  return path.join(journalDir(root, agentId), JOURNAL_FILE);
}

export function casDir(root: string): string {
  return path.join(runtimeDir(root), 'cas');
}
