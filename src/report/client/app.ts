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
/**
 * The step list is drawn again at most this often while the chain is verified: drawing it reads the list's layout,
 * which the chunk's changes make the browser compute anew (on every chunk, that was a fifth of a large journal's
 * verification). What the reader does draws it at once (select, search), and so does the end.
 */
const LIST_EVERY_MS = 100;

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
  const next = yielder(doc);
  const tick = (): void => {
    try {
      if (verifyChunk(state)) finish(state);
      else next(tick);
    } catch (e) {
      fail(doc, 'report_error', `verification stopped: ${(e as Error).message}`);
    }
  };
  next(tick);
}

/**
 * Runs `f` as a task of its own, after what the browser has waiting (input, rendering). A message to a port of the
 * page's own: setTimeout(f, 0) nested five deep waits at least 4 ms (HTML's timer clamping), which between chunks of
 * 12 ms was a quarter of a large journal's verification spent idle.
 */
function yielder(doc: Document): (f: () => void) => void {
  const view = doc.defaultView;
  if (view === null || typeof view.MessageChannel !== 'function') return (f) => setTimeout(f, 0);
  const channel = new view.MessageChannel();
  let pending: (() => void) | undefined;
  channel.port1.onmessage = () => {
    const f = pending;
    pending = undefined;
    f?.();
  };
  return (f) => {
    pending = f;
    channel.port2.postMessage(null);
  };
}

/**
 * One chunk of verification within a time budget: chain lines first, then the embedded blobs' digests.
 * Returns true when everything is checked.
 */
let listDrawn = -Infinity;

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
  if (before === 0 || done || t0 - listDrawn >= LIST_EVERY_MS) {
    renderList(state, before === 0);
    listDrawn = performance.now();
  }
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
