import { bindKeys } from './keys';
import { checkBlob, renderBlobs, renderBlobSection } from './blobs';
import type { ReportData } from './data';
import { byId, fmtInt } from './dom';
import { renderForks } from './forks';
import { bindList, extendView, renderList } from './list';
import { renderReceipt } from './receipt';
import { createState, type ReportState } from './state';
import { fail, finish } from './verdict';

/**
 * The report page's user interface. It reads the embedded data, verifies the
 * chain in chunks (yielding to the browser between them), renders a virtual step
 * list, the step detail, blobs, the receipt and its signature, and the fork
 * tree, and sets the root element's data-* attributes when done (docs/report.md).
 * All journal text goes in with `textContent`: the journal is untrusted input.
 * The parts share one state object (state.ts).
 */

/** Milliseconds of work per chunk before yielding to the browser. */
const CHUNK_MS = 12;

export function startReport(doc: Document): void {
  let data: ReportData;
  try {
    data = JSON.parse(byId(doc, 'stepchain-data').textContent ?? '') as ReportData;
    if (data.format !== 2) throw new Error(`format ${String(data.format)}, this page reads format 2`);
  } catch (e) {
    fail(doc, 'report_error', `embedded data unreadable: ${(e as Error).message}`);
    return;
  }
  const state = createState(doc, data);
  renderReceipt(state);
  bindList(state);
  renderBlobSection(state);
  renderForks(doc, data.forks);
  bindKeys(state);
  state.root.setAttribute('data-verify-state', 'running');
  const tick = (): void => {
    try {
      if (verifyChunk(state)) finish(state);
      else setTimeout(tick, 0);
    } catch (e) {
      fail(doc, 'report_error', `verification stopped: ${(e as Error).message}`);
    }
  };
  setTimeout(tick, 0);
}

/**
 * One chunk of verification within a time budget: chain lines first, then the embedded blobs' digests.
 * Returns true when everything is checked.
 */
function verifyChunk(state: ReportState): boolean {
  const { verifier, entries, ui } = state;
  const t0 = performance.now();
  const before = entries.length;
  let done = false;
  while (!done && performance.now() - t0 < CHUNK_MS) done = verifier.run(64);
  extendView(state, before);
  const pct = verifier.total === 0 ? 100 : Math.floor((entries.length / verifier.total) * 100);
  ui.bar.style.width = `${pct}%`;
  ui.title.textContent = `Verifying in this browser… ${fmtInt(entries.length)} / ${fmtInt(verifier.total)} lines`;
  renderList(state, before === 0);
  if (!done) return false;
  const queue = state.blobs.queue;
  while (queue.length > 0 && performance.now() - t0 < CHUNK_MS) checkBlob(state, queue.shift()!);
  if (queue.length > 0) {
    ui.title.textContent = `Checking bundled blobs… ${fmtInt(queue.length)} left`;
    renderBlobs(state);
    return false;
  }
  renderBlobs(state);
  return true;
}
