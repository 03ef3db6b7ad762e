import { readdirSync } from 'node:fs';
import path from 'node:path';
import { InputError, isOsError, osError } from '../errors';
import { notADirectory, refuseLinkedStoreDirs } from '../util/nofollow';

/** `<root>/.sdd/audit/`: one `YYYY-MM-DD.jsonl` per UTC day. */
export function auditDir(root: string): string {
  return path.join(root, '.sdd', 'audit');
}

export const AUDIT_LOCK = 'audit.lock';

/** `<audit dir>/audit.checkpoint` (docs/journal.md, "Checkpoints"): not a `.jsonl`, so never read as a day file. */
export const AUDIT_CHECKPOINT = 'audit.checkpoint';
export const AUDIT_CHECKPOINT_KIND = 'audit-log';

/** The UTC day file name for an instant. */
export function dayFileName(unixMicros: number): string {
  return `${new Date(Math.floor(unixMicros / 1000)).toISOString().slice(0, 10)}.jsonl`;
}

/** The log's `*.jsonl` files in chain order (by name, as the reference sorts them); [] when there is no directory. */
export function auditFiles(dir: string): string[] {
  let names: string[];
  refuseLinkedStoreDirs(dir); // never listed through a link (src/util/nofollow.ts)
  try {
    names = readdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    throw (
      notADirectory(dir) ??
      (isOsError(e)
        ? osError(e, dir, 'cannot read the audit directory')
        : new InputError(`${dir}: cannot read the audit directory`))
    );
  }
  return names.filter((n) => n.endsWith('.jsonl')).sort();
}
