import type { ScanRead } from '../scan';
import type { CheckedItem, CheckFault, ItemKind } from '../types';
import { pluralWord } from '../../util/words';

/** What every item checker returns: the item as the report lists it, and its faults in order. */
export interface ItemCheck {
  item: CheckedItem;
  faults: CheckFault[];
}

/** How messages name an item: `agent <id>` for journals, `run <id>`, `receipt <id>`. */
export function whoOf(kind: ItemKind, id: string): string {
  return `${kind === 'journal' ? 'agent' : kind} ${id}`;
}

/** `N faults on lines a-b, the first: ` for a collapsed run of faults (nothing for a single one). */
export function runOfFaults(f: { line: number | null; last_line?: number; count?: number }): string {
  if (f.line === null || f.last_line === undefined || f.count === undefined) return '';
  return `${f.count.toLocaleString('en-US')} faults on lines ${f.line}-${f.last_line}, the first: `;
}

/** A file's faults come collapsed into runs and capped (docs/journal.md, "Fault output"): say what was left out. */
export function omittedFault(item: CheckedItem, n: number, severity: CheckFault['severity']): CheckFault | undefined {
  if (n <= 0) return undefined;
  return {
    item: item.kind,
    path: item.path,
    line: null,
    kind: 'faults_not_listed',
    message: `${n.toLocaleString('en-US')} more ${pluralWord(n, 'fault')} not listed (run \`stepchain ${item.kind === 'run' ? 'run verify' : 'verify'}\` on ${item.path})`,
    severity,
    id: item.id,
  };
}

/** The 1-based line of the first CRLF, or 0. Canonical rows never hold a raw CR, so one means a converted checkout. */
function crlfLine(bytes: Buffer): number {
  const i = bytes.indexOf('\r\n');
  if (i < 0) return 0;
  let line = 1;
  for (let j = bytes.indexOf(0x0a); j >= 0 && j < i; j = bytes.indexOf(0x0a, j + 1)) line++;
  return line;
}

export const CRLF_REMEDY =
  'git converted the line endings on checkout (core.autocrlf=true?), so every row differs from what was hashed; ' +
  'add `.sdd/** -text` (and your journal paths) to .gitattributes, or run `git config core.autocrlf false` before the checkout';

/** A journal whose lines end in CRLF fails, with the remedy (a converted checkout, not a tampered file). */
export function crlfFault(item: CheckedItem, bytes: Buffer): CheckFault | undefined {
  const line = crlfLine(bytes);
  if (line === 0) return undefined;
  item.ok = false;
  return {
    item: item.kind,
    path: item.path,
    line,
    kind: 'crlf_line_endings',
    message: `${whoOf(item.kind, item.id)}: lines end in CRLF from line ${line}: ${CRLF_REMEDY}`,
    severity: 'error',
    id: item.id,
  };
}

/** An item that holds nothing yet (a file that could not be read, a base file gone). */
export function bareItem(kind: ItemKind, rel: string, id: string, ok: boolean, status: string): CheckedItem {
  return { kind, path: rel, id, steps: 0, head: '', ok, status };
}

/** A checkout file that could not be read (a link on the way, too large, vanished, not a file, not committed): failed. */
export function unreadable(
  kind: ItemKind,
  rel: string,
  id: string,
  r: Exclude<ScanRead, { kind: 'file' }>,
  max: number | undefined,
): ItemCheck {
  const why =
    r.kind === 'symlink'
      ? `${r.at} is a symbolic link: never followed`
      : r.kind === 'too_large'
        ? `${r.size} bytes, over the ${max ?? 0}-byte limit`
        : r.kind === 'missing'
          ? 'vanished while being checked'
          : r.kind === 'not_committed'
            ? r.why
            : 'not a regular file';
  return {
    item: bareItem(kind, rel, id, false, 'unreadable'),
    faults: [
      {
        item: kind,
        path: rel,
        line: null,
        kind: r.kind === 'symlink' || r.kind === 'too_large' || r.kind === 'not_committed' ? r.kind : 'unreadable',
        message: `${whoOf(kind, id)}: ${why}`,
        severity: 'error',
        id,
      },
    ],
  };
}
