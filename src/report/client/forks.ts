import type { ReportForkNode } from './data';
import { byId, el } from './dom';
import { plural } from '../../util/words';

/** The fork tree section (shown only when the report has one). */
export function renderForks(doc: Document, forks: ReportForkNode | null): void {
  if (forks === null) return;
  const sec = byId(doc, 'forks');
  sec.hidden = false;
  const ul = el(doc, 'ul', 'tree');
  ul.append(forkNode(doc, forks));
  sec.append(ul);
}

function forkNode(doc: Document, n: ReportForkNode): HTMLElement {
  const li = el(doc, 'li');
  const bits = [n.id];
  if (n.label) bits.push(`“${n.label}”`);
  if (n.from_step !== undefined && n.from_step !== null) bits.push(`from step ${n.from_step}`);
  if (n.branch) bits.push(`branch ${n.branch}`);
  if (n.steps_since !== undefined && n.steps_since !== null) bits.push(`+${plural(n.steps_since, 'step')} since`);
  if (n.journal_ok === false) bits.push('JOURNAL DOES NOT VERIFY');
  if (n.missing) bits.push('WORKTREE MISSING');
  if (n.current) bits.push('(this report)');
  const span = el(
    doc,
    'span',
    n.current ? 'node current' : n.journal_ok === false || n.missing ? 'node badnode' : 'node',
    bits.join(' · '),
  );
  li.append(span);
  if (n.children.length > 0) {
    const ul = el(doc, 'ul');
    for (const c of n.children) ul.append(forkNode(doc, c));
    li.append(ul);
  }
  return li;
}
