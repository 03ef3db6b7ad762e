import type { PageFault, PageVerifyResult } from './data';
import { el, fmtInt, plural } from './dom';
import { jumpToLine, renderList } from './list';
import type { ReportState } from './state';
import { shownText } from './display';

/** The verdict: the status banner, the fault list, the header's steps and head, and the root's data-* attributes. */

/** Faults listed in the banner (the list's "only faults" shows every faulty line). */
const FAULTS_SHOWN = 200;

/** The page could not check the chain at all (unreadable data, a crash while verifying). */
export function fail(doc: Document, kind: string, message: string): void {
  const root = doc.documentElement;
  root.setAttribute('data-verify-state', 'done');
  root.setAttribute('data-verified', 'false');
  root.setAttribute('data-first-fault-kind', kind);
  const status = doc.getElementById('status');
  if (status) {
    status.className = 'status bad';
    const t = doc.getElementById('status-title');
    if (t) t.textContent = '✗ NOT VERIFIED: the report could not check this chain';
    const d = doc.getElementById('status-detail');
    if (d) d.textContent = shownText(message);
  }
}

function showFaults(state: ReportState, errors: PageFault[]): void {
  const { doc } = state;
  const list = state.ui.faults;
  list.textContent = '';
  const shown = errors.slice(0, FAULTS_SHOWN);
  for (const f of shown) {
    const li = el(doc, 'li');
    if (f.line !== null) {
      const a = el(doc, 'button', 'linklike', `line ${f.line}`);
      const line = f.line;
      a.addEventListener('click', () => jumpToLine(state, line));
      li.append(a, el(doc, 'span', undefined, `: ${f.kind}: ${f.message}`));
    } else li.textContent = shownText(`${f.kind}: ${f.message}`);
    list.append(li);
  }
  if (errors.length > shown.length)
    list.append(
      el(
        doc,
        'li',
        undefined,
        `… and ${errors.length - shown.length} more (tick “only faults” to list every faulty line)`,
      ),
    );
}

/** Faults the generator found where the page cannot look (outside the embedded window). */
function outsideFaults(state: ReportState): PageFault[] {
  const win = state.data.window;
  if (win === null) return [];
  const last = win.first_line + state.verifier.total - 1;
  const reachesEnd = last >= win.total_lines;
  return state.data.generator_verify.errors
    .filter((f) => (f.line === null ? !reachesEnd : f.line < win.first_line || f.line > last))
    .map((f) => ({ ...f, message: `${f.message} (outside the embedded window: checked by the generator)` }));
}

/** Every fault the verdict counts: the page's chain check, the generator's beyond the window, blobs, receipt, signature. */
function allFaults(state: ReportState, r: PageVerifyResult): PageFault[] {
  // Receipt checks the page cannot redo (archive structure, blob_digests) count too, marked as the generator's.
  const receiptFaults = (state.data.receipt?.generator_faults ?? []).map((f) => ({
    ...f,
    message: `${f.message} (checked by the generator)`,
  }));
  return [...r.errors, ...outsideFaults(state), ...state.blobs.faults, ...receiptFaults, ...state.signature.faults];
}

/** Shows the verdict (once verification finished); returns the faults it counted. */
export function renderVerdict(state: ReportState): PageFault[] {
  const r = state.finished;
  if (r === null) return [];
  const { root, ui } = state;
  const win = state.data.window;
  const gv = state.data.generator_verify;
  const errors = allFaults(state, r);
  ui.steps.textContent =
    win === null ? fmtInt(r.steps) : `${fmtInt(win.total_steps)} (${fmtInt(r.steps)} embedded and checked here)`;
  ui.head.textContent =
    errors.length === 0 ? r.head_hash : `${r.head_hash} (the last stored step_hash: not vouched for)`;
  ui.bar.style.width = '100%';
  root.setAttribute('data-verify-state', 'done');
  root.setAttribute('data-steps', String(win === null ? r.steps : win.total_steps));
  root.setAttribute('data-head-hash', r.head_hash);
  if (errors.length === 0 && state.signature.state === 'not_checked') showUncheckedSignature(state, r);
  else if (errors.length > 0 && errors.every((f) => f.kind === 'keyless_not_checked')) showUncheckedKeyless(state, r);
  else if (errors.length === 0) showIntact(state, r);
  else showBroken(state, errors);
  if (win === null && (r.ok !== gv.ok || r.head_hash !== gv.head_hash)) {
    ui.statusDetail.textContent += ` Warning: the generator's own check disagreed (${gv.ok ? 'intact' : 'faults'}, head ${gv.head_hash}).`;
  }
  renderList(state);
  return errors;
}

/** The chain is intact but a signature was not checked: a warning, never a green verdict nor tampering (one fault). */
function showUnchecked(state: ReportState, kind: string, title: string, detail: string): void {
  const { root, ui } = state;
  ui.status.className = 'status warn';
  ui.title.textContent = title;
  ui.statusDetail.textContent = detail;
  ui.faults.textContent = '';
  root.setAttribute('data-verified', 'false');
  root.setAttribute('data-first-fault-kind', kind);
  root.setAttribute('data-fault-count', '1');
  root.removeAttribute('data-first-fault-line');
}

/**
 * One meaning of "signed" (docs/receipts.md): a signature nobody checked is never a green verdict, nor
 * tampering. A key pasted below that verifies it makes the verdict green.
 */
function showUncheckedSignature(state: ReportState, r: PageVerifyResult): void {
  const { pastedFailed } = state.signature;
  showUnchecked(
    state,
    'no_trusted_key',
    '⚠ Chain intact, but the signature was NOT checked',
    `The chain verified in this browser (head ${r.head_hash}), but the receipt is signed and ` +
      (pastedFailed.length > 0
        ? `the signature does not hold under the pasted key ${pastedFailed.join(', ')}: `
        : 'no public key was given: ') +
      'who signed it is not established. Paste the signer’s public key below to check it here, offline.',
  );
}

/** The same for a keyless (Sigstore) bundle beside the receipt that the generator was given no identity to check. */
function showUncheckedKeyless(state: ReportState, r: PageVerifyResult): void {
  showUnchecked(
    state,
    'keyless_not_checked',
    '⚠ Chain intact, but the keyless signature was NOT checked',
    `The chain verified in this browser (head ${r.head_hash}), but a Sigstore bundle is beside the receipt and no ` +
      'identity was given to check it against: who signed it is not established (the signer it names is shown below, ' +
      'unchecked). Check it with `stepchain receipt verify RECEIPT --certificate-identity ID --certificate-oidc-issuer ISS`.',
  );
}

function showIntact(state: ReportState, r: PageVerifyResult): void {
  const { root, ui } = state;
  const win = state.data.window;
  ui.status.className = 'status ok';
  const what =
    win === null
      ? `${plural(r.steps, 'step')} verified in this browser`
      : `steps ${fmtInt(win.first_seq)}–${fmtInt(win.first_seq + Math.max(0, r.steps - 1))} of ${fmtInt(win.total_steps)} verified in this browser`;
  ui.title.textContent = `✓ Chain intact: ${what}${state.signature.state === 'verified' ? '; signature verified' : ''}`;
  ui.statusDetail.textContent =
    win === null
      ? `Every step hash was recomputed from the canonical JSON of its fields and every link checked, from genesis to head ${r.head_hash}.`
      : `Every embedded step hash was recomputed and every link checked, from the generator-verified step_hash ${win.anchor_hash} to head ${r.head_hash}. The ${fmtInt(win.total_steps - r.steps)} steps outside the window are not in this file.`;
  ui.faults.textContent = '';
  root.setAttribute('data-verified', 'true');
  for (const a of ['data-first-fault-kind', 'data-first-fault-line', 'data-fault-count']) root.removeAttribute(a);
}

function showBroken(state: ReportState, errors: PageFault[]): void {
  const { root, ui } = state;
  const first = errors[0]!;
  ui.status.className = 'status bad';
  ui.title.textContent = `✗ TAMPERED OR BROKEN: ${plural(errors.length, 'fault')}${first.line !== null ? `, first at line ${first.line}` : ''}`;
  ui.statusDetail.textContent =
    'Do not trust this run as recorded. The faults below were found by recomputing the chain in this browser, unless marked otherwise.';
  showFaults(state, errors);
  root.setAttribute('data-verified', 'false');
  root.setAttribute('data-first-fault-kind', first.kind);
  if (first.line !== null) root.setAttribute('data-first-fault-line', String(first.line));
  else root.removeAttribute('data-first-fault-line');
  root.setAttribute('data-fault-count', String(errors.length));
}

/** Verification finished: show the verdict and open the report on the first faulty step, unless the reader moved. */
export function finish(state: ReportState): void {
  state.finished = state.verifier.result();
  const errors = renderVerdict(state);
  const first = errors[0];
  if (!state.list.userMoved && first !== undefined && first.line !== null && state.list.filterText === '')
    jumpToLine(state, first.line);
}
