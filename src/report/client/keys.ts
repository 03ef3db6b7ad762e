import { rebuildView, ROW_H, select } from './list';
import type { ReportState } from './state';

/** The search box, the "only faults" box, and the keys that move through the list. */
export function bindKeys(state: ReportState): void {
  const { doc } = state;
  const { search, onlyFaults } = state.ui;
  // Typing filters after a short pause; Enter or ↓ filters at once.
  let searchTimer: ReturnType<typeof setTimeout> | undefined;
  const applySearch = (): void => {
    state.list.filterText = search.value.trim().toLowerCase();
    rebuildView(state);
  };
  search.addEventListener('input', () => {
    if (searchTimer !== undefined) clearTimeout(searchTimer);
    searchTimer = setTimeout(applySearch, 120);
  });
  onlyFaults.addEventListener('change', () => rebuildView(state));
  doc.addEventListener('keydown', (ev) => {
    const t = ev.target as HTMLElement | null;
    if (t !== null && t.tagName === 'TEXTAREA') return;
    if (t !== null && t.tagName === 'INPUT') {
      if (ev.key === 'Escape') {
        search.value = '';
        applySearch();
        search.blur();
      } else if (ev.key === 'Enter' || ev.key === 'ArrowDown') {
        if (searchTimer !== undefined) clearTimeout(searchTimer);
        applySearch();
        search.blur();
        ev.preventDefault();
      }
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === '/') {
      search.focus();
      ev.preventDefault();
      return;
    }
    const to = keyTarget(state, ev.key);
    if (to === undefined) return;
    ev.preventDefault();
    state.list.userMoved = true;
    select(state, to);
  });
}

/** The view position a navigation key moves the selection to (undefined: not a navigation key). */
function keyTarget(state: ReportState, key: string): number | undefined {
  const { sel, view } = state.list;
  const page = Math.max(1, Math.floor(state.ui.list.clientHeight / ROW_H) - 1);
  switch (key) {
    case 'ArrowRight':
    case 'ArrowDown':
    case 'j':
      return sel + 1;
    case 'ArrowLeft':
    case 'ArrowUp':
    case 'k':
      return sel - 1;
    case 'Home':
    case 'g':
      return 0;
    case 'End':
    case 'G':
      return view.length - 1;
    case 'PageDown':
      return sel + page;
    case 'PageUp':
      return sel - page;
    default:
      return undefined;
  }
}
