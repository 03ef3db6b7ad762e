import { forkTreeMermaid, type ForkTreeNode } from '../forks/mermaid';
import type { AttributedFile } from '../provenance/attribute';
import { clip, plural, visible } from '../util/words';
import type { CheckReport, ProvenanceReport } from './types';

export { forkTreeMermaid, mermaidText, type ForkTreeNode } from '../forks/mermaid';

/**
 * The check's report as GitHub-flavoured Markdown: the job summary and the PR
 * comment. A fork tree is drawn as a Mermaid flowchart (GitHub renders it).
 *
 * Every value that comes from a repository (paths, ids, labels, fault messages)
 * is escaped for where it goes: in text, table cells and code spans every
 * character Markdown, GFM (autolinks, @mentions, #references, tables, emphasis,
 * math) or HTML could act on becomes a character reference; in a Mermaid label,
 * a Mermaid entity code. Control characters are shown as `\uXXXX`. GitHub's
 * limits are kept by cutting whole rows, never a row in the middle, and the
 * faults are kept before the table.
 */
export const COMMENT_MARKER = '<!-- stepchain-check -->';

/** GitHub's cap on a step's job summary (1 MiB), with room to spare. */
export const SUMMARY_MAX_BYTES = 1_000_000;
/** GitHub's cap on a comment body is 65,536 characters. */
export const COMMENT_MAX_CHARS = 65_536;

export interface MarkdownOptions {
  title?: string;
  forks?: ForkTreeNode[];
  /** Cap the faults listed (the rest are counted). */
  maxFaults?: number;
  /** Cap the table rows (the rest are counted). */
  maxRows?: number;
  /** Cap the fork tree's nodes (Mermaid's own text limit is 50,000 characters). */
  maxForks?: number;
  /** The whole document's size limit, in UTF-8 bytes (job summary) ... */
  maxBytes?: number;
  /** ... or in UTF-16 code units (a comment; never fewer than its characters). */
  maxChars?: number;
  /** Plain-text notes shown under the title (escaped here). */
  notes?: string[];
}

/**
 * Repository data as inert Markdown text (usable in a table cell, a list item or
 * inside `<code>`): letters, digits, space and `-./,` stay; every other ASCII
 * character becomes `&#N;`, and so does the `.` of a `www.` (GFM autolinks it).
 */
export function mdText(s: string, max = 300): string {
  const t = visible(clip(s, max));
  let out = '';
  for (let i = 0; i < t.length; i++) {
    const c = t[i]!;
    const code = c.charCodeAt(0);
    const plain = /[A-Za-z0-9 \-/,]/.test(c) || (c === '.' && !/www$/i.test(t.slice(Math.max(0, i - 3), i)));
    out += plain || code > 0x7f ? c : `&#${code};`;
  }
  return out;
}

/** A code span for repository data (an HTML `<code>`: a backtick in the data cannot close it). */
export function mdCode(s: string, max = 300): string {
  return `<code>${mdText(s, max)}</code>`;
}

export function renderCheckMarkdown(report: CheckReport, options: MarkdownOptions = {}): string {
  const maxFaults = options.maxFaults ?? 500;
  const maxRows = options.maxRows ?? 5000;
  const size = options.maxChars !== undefined ? (s: string) => s.length : (s: string) => Buffer.byteLength(s, 'utf8');
  const limit = options.maxChars ?? options.maxBytes ?? SUMMARY_MAX_BYTES;
  const errors = report.faults.filter((f) => f.severity === 'error');
  const warnings = report.faults.filter((f) => f.severity === 'warning');
  const verdict = !report.ok ? '❌ failed' : report.items.length === 0 ? '⚠️ nothing checked' : '✅ verified';
  const shard = report.shard === null ? '' : ` (shard ${report.shard.index + 1} of ${report.shard.count})`;

  const head: string[] = [];
  head.push(`## ${mdText(options.title ?? 'stepchain', 100)}${shard}: ${verdict}`, '');
  const base =
    report.base === null
      ? 'append-only not checked'
      : `append-only checked against base ${mdCode(report.base.slice(0, 12))}`;
  head.push(
    `${report.verified} verified, ${report.failed} failed, ${plural(errors.length, 'fault')}` +
      `${warnings.length > 0 ? `, ${plural(warnings.length, 'warning')}` : ''}; ${base}.`,
    '',
  );
  for (const n of options.notes ?? []) head.push(`> ${mdText(n, 1000)}`, '');
  if (report.trustedKeys.length > 0) {
    head.push('Trusted keys:', '');
    for (const k of report.trustedKeys.slice(0, 50)) head.push(`- ${mdCode(k.keyId, 80)} from ${mdText(k.source)}`);
    if (report.trustedKeys.length > 50) head.push(`- … and ${report.trustedKeys.length - 50} more`);
    head.push('');
  }

  const faultLines = report.faults.slice(0, maxFaults).map((f) => {
    const where = f.line === null ? f.path : `${f.path}:${f.line}`;
    return `- ${f.severity === 'error' ? '❌' : '⚠️'} ${mdCode(where)}: ${mdText(f.message, 500)}`;
  });
  const rowLines = report.items.slice(0, maxRows).map((i) => {
    const head12 = i.head === '' ? '' : mdCode(i.head.slice(0, 12));
    const hist = i.appendOnly === undefined || i.appendOnly === 'renamed' ? '' : ` · ${mdText(i.appendOnly, 40)}`;
    return `| ${i.ok ? '✅' : '❌'} | ${i.kind} | ${mdCode(i.path)} | ${mdText(i.id, 100)} | ${i.steps} | ${head12} | ${mdText(i.status, 200)}${hist} |`;
  });
  const tree = forkTreeMermaid(options.forks ?? [], options.maxForks ?? 200);

  // Assemble within the limit: the head, then the faults, then whole table rows, then the tree if it fits.
  const out = [...head];
  let used = size(out.join('\n')) + 200; // room for the "and N more" lines
  const fits = (lines: string[]): boolean => used + size(lines.join('\n')) + lines.length <= limit;
  const take = (line: string): boolean => {
    if (!fits([line])) return false;
    out.push(line);
    used += size(line) + 1;
    return true;
  };
  if (report.faults.length > 0) {
    take('### Faults');
    take('');
    let shown = 0;
    for (const l of faultLines) {
      if (!take(l)) break;
      shown++;
    }
    if (report.faults.length > shown) out.push(`- … and ${report.faults.length - shown} more (see the JSON report).`);
    out.push('');
  }
  if (report.items.length > 0) {
    const header = ['| | Kind | File | Id | Steps | Head | Status |', '|---|---|---|---|---:|---|---|'];
    if (fits(header)) {
      take(header[0]!);
      take(header[1]!);
      let shown = 0;
      for (const l of rowLines) {
        if (!take(l)) break;
        shown++;
      }
      if (report.items.length > shown)
        out.push('', `… and ${report.items.length - shown} more files (see the JSON report).`);
      out.push('');
    } else {
      out.push(`${report.items.length} files checked (see the JSON report).`, '');
    }
  } else {
    out.push('No journals, runs or receipts were found.', '');
  }
  if (report.provenance !== undefined) {
    const lines = provenanceMarkdown(report.provenance, maxRows);
    for (const l of lines) if (!take(l)) break;
    if (out[out.length - 1] !== '') out.push('');
  }
  if (tree !== '') {
    const lines = ['### Fork tree', '', tree, ''];
    if (fits(lines)) out.push(...lines);
    else out.push('(The fork tree is left out to keep within GitHub’s size limit; see the JSON report.)', '');
  }
  return out.join('\n');
}

/**
 * The job summary's provenance section: the counts, then a table of the files by agent and step, unrecorded
 * first (what a reviewer looks at). Every value from the repository goes through the Markdown escapers.
 */
export function provenanceMarkdown(p: ProvenanceReport, maxRows: number): string[] {
  const out = [
    '### Provenance',
    '',
    `${p.recorded} of ${p.files.length} changed file${p.files.length === 1 ? '' : 's'} produced by a verified recorded step, ` +
      `${p.unrecorded} unrecorded (since ${mdCode(p.base.slice(0, 12))}; policy ${p.policy}).`,
    '',
  ];
  if (p.files.length === 0) return out;
  const order = (f: AttributedFile): string =>
    `${f.status === 'unrecorded' ? 0 : 1}\0${f.agent ?? ''}\0${String(f.seq ?? 0).padStart(12, '0')}\0${f.path}`;
  const files = [...p.files].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  out.push('| | File | Agent | Step | step_hash |', '|---|---|---|---:|---|');
  for (const f of files.slice(0, maxRows)) {
    const what = f.change === 'D' ? ' (deleted)' : f.from !== undefined ? ` (from ${mdCode(f.from)})` : '';
    out.push(
      f.status === 'recorded'
        ? `| ✅ | ${mdCode(f.path)}${what} | ${mdText(f.agent ?? '', 100)} | ${f.seq} | ${mdCode((f.step_hash ?? '').slice(0, 12))} |`
        : `| ${p.policy === 'error' ? '❌' : '⚠️'} | ${mdCode(f.path)}${what} | unrecorded | | |`,
    );
  }
  if (files.length > maxRows) out.push('', `… and ${files.length - maxRows} more files (see the JSON report).`);
  out.push('');
  return out;
}
