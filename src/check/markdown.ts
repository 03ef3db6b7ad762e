import type { CheckReport } from './workspace';

/**
 * The check's report as GitHub-flavoured Markdown: the job summary and the PR
 * comment. A fork tree is drawn as a Mermaid flowchart (GitHub renders it).
 */
export const COMMENT_MARKER = '<!-- stepchain-check -->';

/** One node of a fork tree: a session and the session it was forked from. */
export interface ForkTreeNode {
  id: string;
  parent: string | null;
  /** The parent's step the fork was taken at (null for a session-level fork). */
  fromStep: number | null;
  label: string | null;
}

export interface MarkdownOptions {
  title?: string;
  forks?: ForkTreeNode[];
  /** Cap the faults listed (the rest are counted). */
  maxFaults?: number;
  /** Cap the table rows (the rest are counted). */
  maxRows?: number;
}

/** Text for a table cell or list item: no pipes or newlines, Markdown specials escaped. */
function cell(s: string): string {
  return s.replace(/\r?\n/g, ' ').replace(/([\\|`*_<>[\]])/g, '\\$1');
}

function code(s: string): string {
  return `<code>${s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '&#124;')}</code>`;
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

function mermaidText(s: string): string {
  return s.replace(/["<>#&]/g, (c) => `#${c.charCodeAt(0)};`);
}

/** A Mermaid `flowchart` of the fork tree (empty string when there are no forks). */
export function forkTreeMermaid(forks: ForkTreeNode[]): string {
  if (forks.length === 0) return '';
  const ids = new Map<string, string>();
  const lines = ['```mermaid', 'flowchart LR'];
  const declared = new Set<string>();
  const declare = (id: string, label: string | null): void => {
    if (declared.has(id)) return;
    declared.add(id);
    const text = label ? `${mermaidText(id)}<br/>${mermaidText(label)}` : mermaidText(id);
    lines.push(`  ${mermaidId(id, ids)}["${text}"]`);
  };
  const sorted = [...forks].sort((a, b) => (a.parent ?? '').localeCompare(b.parent ?? '') || a.id.localeCompare(b.id));
  // Forks first (with their labels), then roots that are only ever parents.
  for (const f of sorted) declare(f.id, f.label);
  for (const f of sorted) if (f.parent !== null) declare(f.parent, null);
  for (const f of sorted) {
    if (f.parent === null) continue;
    const edge = f.fromStep === null ? 'session' : `step ${f.fromStep}`;
    lines.push(`  ${mermaidId(f.parent, ids)} -->|"${mermaidText(edge)}"| ${mermaidId(f.id, ids)}`);
  }
  lines.push('```');
  return lines.join('\n');
}

export function renderCheckMarkdown(report: CheckReport, options: MarkdownOptions = {}): string {
  const maxFaults = options.maxFaults ?? 50;
  const maxRows = options.maxRows ?? 200;
  const errors = report.faults.filter((f) => f.severity === 'error');
  const warnings = report.faults.filter((f) => f.severity === 'warning');
  const out: string[] = [];
  out.push(`## ${options.title ?? 'stepchain'}: ${report.ok ? '✅ verified' : '❌ failed'}`);
  out.push('');
  const base =
    report.base === null
      ? 'append-only not checked'
      : `append-only checked against base ${code(report.base.slice(0, 12))}`;
  out.push(
    `${report.verified} verified, ${report.failed} failed, ${errors.length} fault${errors.length === 1 ? '' : 's'}` +
      `${warnings.length > 0 ? `, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}` : ''}; ${base}.`,
  );
  out.push('');
  if (report.items.length > 0) {
    out.push('| | Kind | File | Id | Steps | Head | Status |');
    out.push('|---|---|---|---|---:|---|---|');
    for (const i of report.items.slice(0, maxRows)) {
      const head = i.head === '' ? '' : code(i.head.slice(0, 12));
      const hist = i.appendOnly === undefined ? '' : ` · ${i.appendOnly}`;
      out.push(
        `| ${i.ok ? '✅' : '❌'} | ${i.kind} | ${code(i.path)} | ${cell(i.id)} | ${i.steps} | ${head} | ${cell(i.status)}${hist} |`,
      );
    }
    if (report.items.length > maxRows) out.push(`\n… and ${report.items.length - maxRows} more (see the JSON report).`);
    out.push('');
  } else {
    out.push('No journals, runs or receipts were found.');
    out.push('');
  }
  if (report.faults.length > 0) {
    out.push('### Faults');
    out.push('');
    for (const f of report.faults.slice(0, maxFaults)) {
      const where = f.line === null ? f.path : `${f.path}:${f.line}`;
      out.push(`- ${f.severity === 'error' ? '❌' : '⚠️'} ${code(where)}: ${cell(f.message)}`);
    }
    if (report.faults.length > maxFaults)
      out.push(`- … and ${report.faults.length - maxFaults} more (see the JSON report).`);
    out.push('');
  }
  const tree = forkTreeMermaid(options.forks ?? []);
  if (tree !== '') {
    out.push('### Fork tree');
    out.push('');
    out.push(tree);
    out.push('');
  }
  return out.join('\n');
}
