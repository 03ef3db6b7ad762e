import type { ReportData } from './data';
import { addMeta, byId, fmtInt, plural } from './dom';
import type { PageVerifier } from './verifier';

/** Writes the page header (agent, source, generator and its check, the window); returns the cells the verdict fills. */
export function renderHeader(
  doc: Document,
  data: ReportData,
  verifier: PageVerifier,
): { steps: HTMLElement; head: HTMLElement } {
  const meta = byId(doc, 'meta');
  const gv = data.generator_verify;
  const win = data.window;
  addMeta(meta, 'Agent', data.agent_id);
  addMeta(meta, 'Source', `${data.source.kind === 'receipt' ? 'receipt' : 'journal'} ${data.source.path}`);
  const steps = addMeta(meta, 'Steps', '…');
  const head = addMeta(meta, 'Head hash', '…', 'hash');
  addMeta(meta, 'Generated', `${data.generated_at} by ${data.generator}`);
  addMeta(
    meta,
    'Generator check',
    gv.ok
      ? `intact (${plural(gv.steps, 'step')}, head ${gv.head_hash})`
      : `${plural(gv.errors.length, 'fault')}: first ${gv.errors[0]?.kind ?? ''} at line ${gv.errors[0]?.line ?? '-'}`,
    'hash',
  );
  if (win !== null) {
    addMeta(
      meta,
      'Window',
      `lines ${fmtInt(win.first_line)}–${fmtInt(win.first_line + Math.max(0, verifier.total - 1))} of ${fmtInt(win.total_lines)} are embedded; ` +
        `the first links to step_hash ${win.anchor_hash}, which the generator verified from genesis`,
      'hash warn',
    );
  }
  return { steps, head };
}
