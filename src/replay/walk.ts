import { laidOutBody, bodyRows, type ScreenSize } from './body';
import { keyList, type Key, type PanelLine } from './keys';
import type { ReplaySource } from './source';
import { matchingSteps, nextMatch } from './step';
import { sanitize } from './text';

/**
 * The interactive walk as a pure state machine: keys in, state out. The TTY driver (tty.ts) only reads
 * bytes, calls `reduce`, and paints what `renderScreen` (screen.ts) lays out.
 */

export interface ReplayState {
  /** The index (= seq) of the step shown. */
  index: number;
  /** Every field shown in full. */
  expanded: boolean;
  /** First body line shown. */
  scroll: number;
  /** Typing a seq to jump to, a search, or answering "fork here?". */
  mode: 'normal' | 'jump' | 'search' | 'confirm-fork';
  input: string;
  /** The last search. */
  query: string;
  /** One line for the footer (a result, an error); cleared by the next key. */
  message: string;
  /** Lines shown instead of the step (every key, a fork's result) until the next key. */
  panel: PanelLine[] | null;
  /** Only the first `limit` steps are walked (`replay --limit N`); null: all. */
  limit: number | null;
  /** The limit as the caller's user names it (the door's words, e.g. `--limit`), in the header and messages. */
  limitName: string;
  /** Whether `f` can fork here (never for a receipt: fork the journal it came from). */
  canFork: boolean;
}

export type ReplayAction = 'quit' | 'fork' | undefined;

export interface WalkOptions {
  /** Walk only the first `limit` steps. */
  limit?: number;
  /** How the caller's user names the limit (default `limit`). */
  limitName?: string;
  /** Whether forking is offered (default true). */
  canFork?: boolean;
}

export function initialState(index = 0, options: WalkOptions = {}): ReplayState {
  return {
    index,
    expanded: false,
    scroll: 0,
    mode: 'normal',
    input: '',
    query: '',
    message: '',
    panel: null,
    limit: options.limit ?? null,
    limitName: options.limitName ?? 'limit',
    canFork: options.canFork ?? true,
  };
}

/** How many steps the walk covers: all of them, or the first `limit`. */
export function walkedSteps(source: ReplaySource, state: ReplayState): number {
  return state.limit === null ? source.steps : Math.min(source.steps, Math.max(1, state.limit));
}

function go(state: ReplayState, index: number, message = ''): ReplayState {
  return { ...state, index, scroll: 0, expanded: index === state.index ? state.expanded : false, message };
}

function search(state: ReplayState, source: ReplaySource, query: string, direction: 1 | -1): ReplayState {
  if (query.length === 0)
    return { ...state, mode: 'normal', input: '', message: 'no search yet: press / and type some text' };
  const all = matchesOf(source, walkedSteps(source, state), query);
  const i = nextMatch(all, state.index, direction);
  if (i < 0) return { ...state, mode: 'normal', input: '', query, message: `no step matches "${sanitize(query)}"` };
  const wrapped = direction === 1 ? i <= state.index : i >= state.index;
  const msg = `"${sanitize(query)}": match ${all.indexOf(i) + 1} of ${all.length} (seq ${i})${wrapped && all.length > 1 ? ', wrapped' : ''}  / ⏎ next, N previous`;
  return { ...go({ ...state, mode: 'normal', input: '', query }, i), message: msg };
}

/**
 * The steps among the first `n` that match `query`, in order: found once for a query and kept (the last one per
 * source), so that ⏎ and N move along them without reading every step again (each press read and parsed every
 * step twice, to find the next and to count them: ~9 s a press on a 100,000-step run).
 */
function matchesOf(source: ReplaySource, n: number, query: string): number[] {
  const key = `${n}\u0000${query}`;
  const hit = lastSearch.get(source);
  if (hit !== undefined && hit.key === key) return hit.matches;
  const matches = matchingSteps(source.entries, query, n);
  lastSearch.set(source, { key, matches });
  return matches;
}

const lastSearch = new WeakMap<ReplaySource, { key: string; matches: number[] }>();

/** A key's effect: the new state and what the driver must do (quit, fork). */
export interface Reduced {
  state: ReplayState;
  action?: ReplayAction;
}

/** Applies one key. Returns the new state and what the driver must do (quit, fork). */
export function reduce(state: ReplayState, key: Key, source: ReplaySource, size: ScreenSize): Reduced {
  if (key.kind === 'interrupt') return { state, action: 'quit' };
  // A panel (the key list, a fork's result) is read, then any key returns to the step.
  if (state.panel !== null) return { state: { ...state, panel: null, message: '' } };
  if (state.mode === 'confirm-fork') return answerFork(state, key);
  if (state.mode === 'jump' || state.mode === 'search') return { state: promptKey(state, key, source) };
  if (key.kind === 'char') return charKey(state, key.char, source, size);
  return { state: moveKey(state, key.kind, source, size) };
}

/** "fork here?": `y` forks, any other key cancels. */
function answerFork(state: ReplayState, key: Key): Reduced {
  if (key.kind === 'char' && (key.char === 'y' || key.char === 'Y'))
    return { state: { ...state, mode: 'normal', message: `forking from step ${state.index}…` }, action: 'fork' };
  return { state: { ...state, mode: 'normal', message: 'fork cancelled: nothing was created' } };
}

/** A key while typing a seq to jump to or a search: edit, cancel (Esc) or go (Enter). */
function promptKey(state: ReplayState, key: Key, source: ReplaySource): ReplayState {
  switch (key.kind) {
    case 'escape':
      return { ...state, mode: 'normal', input: '', message: '' };
    case 'backspace': {
      const input = [...state.input].slice(0, -1).join('');
      return input.length === 0 && state.mode === 'jump' ? { ...state, mode: 'normal', input } : { ...state, input };
    }
    case 'enter':
      return state.mode === 'search' ? search(state, source, state.input || state.query, 1) : jump(state, source);
    case 'char':
      if (state.mode === 'search') return { ...state, input: state.input + key.char };
      if (/^[0-9]$/.test(key.char))
        return state.input.length < 15 ? { ...state, input: state.input + key.char } : state;
      return { ...state, mode: 'normal', input: '', message: 'jump cancelled: type digits, then Enter' };
    default:
      return state;
  }
}

/** Enter after digits: go to that seq, or say which seqs there are. */
function jump(state: ReplayState, source: ReplaySource): ReplayState {
  const last = walkedSteps(source, state) - 1;
  const seq = Number(state.input);
  const done = { ...state, mode: 'normal' as const, input: '' };
  if (!Number.isSafeInteger(seq) || seq > last)
    return {
      ...done,
      message: `no step ${state.input}: seqs are 0..${last}${last + 1 < source.steps ? ` (${state.limitName} ${last + 1})` : ''}`,
    };
  return go(done, seq);
}

/** A key that moves through the walk (steps, scrolling, expanding), outside any prompt. */
type MoveKey = Exclude<Key['kind'], 'char' | 'interrupt'>;

/** Letter keys that do what a move key does. */
const LETTER_MOVES = new Map<string, MoveKey>([
  ['n', 'right'],
  ['l', 'right'],
  ['p', 'left'],
  ['h', 'left'],
  ['g', 'home'],
  ['G', 'end'],
  ['j', 'down'],
  ['k', 'up'],
  [' ', 'pgdn'],
]);

function moveKey(state: ReplayState, kind: MoveKey, source: ReplaySource, size: ScreenSize): ReplayState {
  const last = walkedSteps(source, state) - 1;
  switch (kind) {
    case 'right':
      if (state.index < last) return go(state, state.index + 1);
      return {
        ...state,
        message: `this is the last step${last + 1 < source.steps ? ` walked (${state.limitName} ${last + 1} of ${source.steps})` : ''}`,
      };
    case 'left':
      return state.index > 0 ? go(state, state.index - 1) : { ...state, message: 'this is the first step' };
    case 'home':
      return go(state, 0);
    case 'end':
      return go(state, last);
    case 'up':
      return scrollBy(state, source, size, -1);
    case 'down':
      return scrollBy(state, source, size, 1);
    case 'pgup':
      return scrollBy(state, source, size, -bodyRows(size));
    case 'pgdn':
      return scrollBy(state, source, size, bodyRows(size));
    case 'enter':
      return {
        ...state,
        expanded: !state.expanded,
        scroll: 0,
        message: state.expanded ? 'collapsed' : 'expanded: every field in full (⏎ collapses, ↑↓ scroll)',
      };
    case 'escape':
    case 'backspace':
      return { ...state, message: '' };
  }
}

/** Scrolls the step's body by `d` lines, within the body. */
function scrollBy(state: ReplayState, source: ReplaySource, size: ScreenSize, d: number): ReplayState {
  const body = laidOutBody(source, state.index, Math.max(1, size.width), state.expanded).lines.length;
  const maxScroll = Math.max(0, body - bodyRows(size));
  return { ...state, scroll: Math.min(maxScroll, Math.max(0, state.scroll + d)), message: '' };
}

/** A typed character outside any prompt: a letter move, a prompt opened, quit, fork, the key list. */
function charKey(state: ReplayState, ch: string, source: ReplaySource, size: ScreenSize): Reduced {
  const move = LETTER_MOVES.get(ch);
  if (move !== undefined) return { state: moveKey(state, move, source, size) };
  if (/^[0-9]$/.test(ch)) return { state: { ...state, mode: 'jump', input: ch, message: '' } };
  if (ch === '/') return { state: { ...state, mode: 'search', input: '', message: '' } };
  if (ch === 'N') return { state: search(state, source, state.query, -1) };
  if (ch === 'q' || ch === 'Q') return { state, action: 'quit' };
  if (ch === 'f') {
    if (!state.canFork)
      return {
        state: {
          ...state,
          message: `a receipt cannot be forked: fork the journal it came from (stepchain fork <agent> --from-step ${state.index})`,
        },
      };
    return { state: { ...state, mode: 'confirm-fork', message: '' } };
  }
  if (ch === '?') return { state: { ...state, panel: keyList(state.canFork), message: '' } };
  return { state: { ...state, message: `unknown key ${JSON.stringify(ch)} (? lists the keys)` } };
}
