import { clip, plural, visible } from '../util/words';
import { compareCodePoints } from '../canonical';

/**
 * The one Mermaid drawing of a fork tree (the check's Markdown report, the
 * Action's summary, `forksMermaid` for library users). Every text in it comes
 * from a repository or an agent (ids, labels, branch names), so every label is
 * escaped strictly: letters, digits and a few safe characters stay, everything
 * else is a Mermaid entity code, and labels are quoted.
 */

/** One node of a fork tree: a session and the session it was forked from. */
export interface ForkTreeNode {
  id: string;
  parent: string | null;
  /** The parent's step the fork was taken at (null for a session-level fork). */
  fromStep: number | null;
  label: string | null;
  /** More lines under the label (a branch, the steps since the fork). */
  notes?: string[];
}

/** A Mermaid label: letters, digits and a few safe characters stay, everything else is a `#N;` entity code. */
export function mermaidText(s: string, max = 60): string {
  let out = '';
  for (const c of clip(s, max)) {
    const cp = c.codePointAt(0)!;
    if (/[A-Za-z0-9 ,.\-/_]/.test(c)) out += c;
    else if (visible(c) !== c) out += '#65533;';
    else out += `#${cp};`;
  }
  return out;
}

/** A Mermaid node id: letters and digits only, stable per session id. */
function mermaidId(id: string, ids: Map<string, string>): string {
  let m = ids.get(id);
  if (m === undefined) {
    m = `n${ids.size}`;
    ids.set(id, m);
  }
  return m;
}

/** Mermaid refuses to draw a diagram whose text is over 50,000 characters (its `maxTextSize`): stay under it. */
const MERMAID_MAX_TEXT = 45_000;

export interface ForkTreeMermaidOptions {
  /** At most this many forks (default 200); the rest are counted. */
  maxForks?: number;
  /** `LR` (default) or `TD`. */
  direction?: 'LR' | 'TD';
  /** Inside a Markdown ```mermaid fence (default true). */
  fenced?: boolean;
}

/**
 * A Mermaid `flowchart` of the fork tree (empty string when there are no
 * forks): at most `maxForks` forks and at most MERMAID_MAX_TEXT characters of
 * diagram (labels of escaped characters are long), the rest counted.
 */
export function forkTreeMermaid(forks: ForkTreeNode[], options: ForkTreeMermaidOptions | number = {}): string {
  const o = typeof options === 'number' ? { maxForks: options } : options;
  if (forks.length === 0) return '';
  const ids = new Map<string, string>();
  const nodeLine = (id: string, f?: ForkTreeNode): string => {
    const text = [id, ...(f?.label ? [f.label] : []), ...(f?.notes ?? [])].map((t) => mermaidText(t)).join('<br/>');
    return `  ${mermaidId(id, ids)}["${text}"]`;
  };
  const edgeLine = (f: ForkTreeNode): string =>
    `  ${mermaidId(f.parent!, ids)} -->|"${mermaidText(f.fromStep === null ? 'session' : `step ${f.fromStep}`)}"| ${mermaidId(f.id, ids)}`;
  // Code-point order: the same diagram on every machine (localeCompare follows the locale: under da_DK, `aa` after `z`).
  const sorted = [...forks].sort(
    (a, b) => compareCodePoints(a.parent ?? '', b.parent ?? '') || compareCodePoints(a.id, b.id),
  );
  // The forks drawn: in order, while the diagram (counting each one's node, edge and parent node) stays small.
  const drawn: ForkTreeNode[] = [];
  let size = 40;
  for (const f of sorted.slice(0, o.maxForks ?? 200)) {
    const cost =
      nodeLine(f.id, f).length + 1 + (f.parent === null ? 0 : edgeLine(f).length + nodeLine(f.parent).length + 2);
    if (size + cost > MERMAID_MAX_TEXT) break;
    size += cost;
    drawn.push(f);
  }
  const fenced = o.fenced ?? true;
  const lines = [...(fenced ? ['```mermaid'] : []), `flowchart ${o.direction ?? 'LR'}`];
  const declared = new Set<string>();
  const declare = (id: string, f?: ForkTreeNode): void => {
    if (declared.has(id)) return;
    declared.add(id);
    lines.push(nodeLine(id, f));
  };
  // Forks first (with their labels), then roots that are only ever parents.
  for (const f of drawn) declare(f.id, f);
  for (const f of drawn) if (f.parent !== null) declare(f.parent);
  for (const f of drawn) if (f.parent !== null) lines.push(edgeLine(f));
  const more = forks.length - drawn.length;
  if (!fenced) {
    if (more > 0) lines.push(`%% … and ${plural(more, 'more fork')}`);
    return `${lines.join('\n')}\n`;
  }
  lines.push('```');
  if (more > 0) lines.push('', `… and ${plural(more, 'more fork')} (see the JSON report).`);
  return lines.join('\n');
}
