import { stepBody, type BodyLine } from './body';
import type { ReplaySource } from './source';
import { findStep, matchingSteps } from './step';
import { displayWidth, fit, sanitize, shortHash, sliceColumns } from './text';

/**
 * The interactive walk as a pure state machine: keys in, state out, and a
 * layout of the whole screen for a given size. The TTY driver (tty.ts) only
 * reads bytes, calls these, and paints the lines.
 */

export type Key =
  | { kind: 'char'; char: string }
  | {
      kind:
        | 'right'
        | 'left'
        | 'up'
        | 'down'
        | 'pgup'
        | 'pgdn'
        | 'home'
        | 'end'
        | 'enter'
        | 'escape'
        | 'backspace'
        | 'interrupt';
    };

export interface ReplayState {
  /** The index (= seq) of the step shown. */
  index: number;
  /** Every field shown in full. */
  expanded: boolean;
  /** First body line shown. */
  scroll: number;
  /** Typing a seq to jump to, or a search. */
  mode: 'normal' | 'jump' | 'search';
  input: string;
  /** The last search. */
  query: string;
  /** One line for the footer (a result, an error); cleared by the next key. */
  message: string;
}

export type ReplayAction = 'quit' | 'fork' | undefined;

export interface ScreenSize {
  width: number;
  height: number;
}

export function initialState(index = 0): ReplayState {
  return { index, expanded: false, scroll: 0, mode: 'normal', input: '', query: '', message: '' };
}

/** Splits raw terminal input into keys (arrow keys arrive as escape sequences, several keys may share a chunk). */
export function parseKeys(data: string): Key[] {
  const keys: Key[] = [];
  let i = 0;
  while (i < data.length) {
    const c = data[i]!;
    if (c === '\x1b') {
      const rest = data.slice(i);
      const m = /^\x1b(?:\[|O)([0-9;]*)([A-Za-z~])/.exec(rest);
      if (m) {
        const code = m[2] === '~' ? `${m[1]}~` : m[2]!;
        const map: Record<string, Key['kind']> = {
          A: 'up',
          B: 'down',
          C: 'right',
          D: 'left',
          H: 'home',
          F: 'end',
          '5~': 'pgup',
          '6~': 'pgdn',
          '1~': 'home',
          '4~': 'end',
          '7~': 'home',
          '8~': 'end',
        };
        const kind = map[code];
        if (kind !== undefined) keys.push({ kind } as Key);
        i += m[0].length;
        continue;
      }
      keys.push({ kind: 'escape' });
      i++;
      continue;
    }
    if (c === '\r' || c === '\n') keys.push({ kind: 'enter' });
    else if (c === '\x7f' || c === '\b') keys.push({ kind: 'backspace' });
    else if (c === '\x03' || c === '\x04') keys.push({ kind: 'interrupt' });
    else if (c >= ' ') {
      const cp = data.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      keys.push({ kind: 'char', char: ch });
      i += ch.length;
      continue;
    }
    i++;
  }
  return keys;
}

const HELP = '←/p prev  →/n next  g/G first/last  seq⏎ jump  / search  ⏎ expand  ↑↓ scroll  f fork  q quit';
// Key hints in display order, with a priority: on a narrow screen the footer keeps the most important ones.
const HINTS: [string, number][] = [
  ['n/→ next', 1],
  ['p/← prev', 1],
  ['g/G first/last', 3],
  ['seq⏎ jump', 4],
  ['/ search', 2],
  ['⏎ expand', 5],
  ['↑↓ scroll', 7],
  ['f fork', 6],
  ['? keys', 8],
  ['q quit', 0],
];

/** The key hints that fit in `width` columns, most important first. */
export function keyHints(width: number): string {
  const chosen = new Set<string>();
  let used = 0;
  for (const [hint] of [...HINTS].sort((a, b) => a[1] - b[1])) {
    const w = displayWidth(hint) + (chosen.size > 0 ? 2 : 0);
    if (used + w > width) continue;
    chosen.add(hint);
    used += w;
  }
  return HINTS.filter(([h]) => chosen.has(h))
    .map(([h]) => h)
    .join('  ');
}

// The last body laid out: a key and the repaint after it need the same one, and a step with
// megabyte fields is worth laying out once.
let lastBody:
  | { source: ReplaySource; index: number; width: number; expanded: boolean; body: ReturnType<typeof stepBody> }
  | undefined;
function bodyOf(source: ReplaySource, index: number, width: number, expanded: boolean): ReturnType<typeof stepBody> {
  const c = lastBody;
  if (c && c.source === source && c.index === index && c.width === width && c.expanded === expanded) return c.body;
  const body = stepBody(source, index, { width, expanded });
  lastBody = { source, index, width, expanded, body };
  return body;
}

function bodyHeight(size: ScreenSize): number {
  return Math.max(1, size.height - 3);
}

function go(state: ReplayState, index: number, message = ''): ReplayState {
  return { ...state, index, scroll: 0, expanded: index === state.index ? state.expanded : false, message };
}

function search(state: ReplayState, source: ReplaySource, query: string, direction: 1 | -1): ReplayState {
  if (query.length === 0)
    return { ...state, mode: 'normal', input: '', message: 'no search yet: press / and type some text' };
  const i = findStep(source.entries, query, state.index, direction);
  if (i < 0) return { ...state, mode: 'normal', input: '', query, message: `no step matches "${sanitize(query)}"` };
  const all = matchingSteps(source.entries, query);
  const wrapped = direction === 1 ? i <= state.index : i >= state.index;
  const msg = `"${sanitize(query)}": match ${all.indexOf(i) + 1} of ${all.length} (seq ${i})${wrapped && all.length > 1 ? ', wrapped' : ''}  / ⏎ next, N previous`;
  return { ...go({ ...state, mode: 'normal', input: '', query }, i), message: msg };
}

/** Applies one key. Returns the new state and what the driver must do (quit, fork). */
export function reduce(
  state: ReplayState,
  key: Key,
  source: ReplaySource,
  size: ScreenSize,
): { state: ReplayState; action?: ReplayAction } {
  const last = source.steps - 1;
  if (key.kind === 'interrupt') return { state, action: 'quit' };

  if (state.mode === 'jump' || state.mode === 'search') {
    if (key.kind === 'escape') return { state: { ...state, mode: 'normal', input: '', message: '' } };
    if (key.kind === 'backspace') {
      const input = [...state.input].slice(0, -1).join('');
      return {
        state: input.length === 0 && state.mode === 'jump' ? { ...state, mode: 'normal', input } : { ...state, input },
      };
    }
    if (key.kind === 'enter') {
      if (state.mode === 'search') return { state: search(state, source, state.input || state.query, 1) };
      const seq = Number(state.input);
      const done = { ...state, mode: 'normal' as const, input: '' };
      if (!Number.isSafeInteger(seq) || seq > last)
        return { state: { ...done, message: `no step ${state.input}: seqs are 0..${last}` } };
      return { state: go(done, seq) };
    }
    if (key.kind === 'char') {
      if (state.mode === 'jump') {
        if (/^[0-9]$/.test(key.char))
          return { state: state.input.length < 15 ? { ...state, input: state.input + key.char } : state };
        return { state: { ...state, mode: 'normal', input: '', message: 'jump cancelled: type digits, then Enter' } };
      }
      return { state: { ...state, input: state.input + key.char } };
    }
    return { state };
  }

  const body = bodyOf(source, state.index, Math.max(1, size.width), state.expanded).lines.length;
  const maxScroll = Math.max(0, body - bodyHeight(size));
  const scrollBy = (d: number): ReplayState => ({
    ...state,
    scroll: Math.min(maxScroll, Math.max(0, state.scroll + d)),
    message: '',
  });

  switch (key.kind) {
    case 'right':
      return {
        state: state.index < last ? go(state, state.index + 1) : { ...state, message: 'this is the last step' },
      };
    case 'left':
      return { state: state.index > 0 ? go(state, state.index - 1) : { ...state, message: 'this is the first step' } };
    case 'home':
      return { state: go(state, 0) };
    case 'end':
      return { state: go(state, last) };
    case 'up':
      return { state: scrollBy(-1) };
    case 'down':
      return { state: scrollBy(1) };
    case 'pgup':
      return { state: scrollBy(-bodyHeight(size)) };
    case 'pgdn':
      return { state: scrollBy(bodyHeight(size)) };
    case 'enter':
      return {
        state: {
          ...state,
          expanded: !state.expanded,
          scroll: 0,
          message: state.expanded ? 'collapsed' : 'expanded: every field in full (⏎ collapses, ↑↓ scroll)',
        },
      };
    case 'escape':
    case 'backspace':
      return { state: { ...state, message: '' } };
    case 'char':
      break;
  }
  const ch = key.char;
  if (ch === 'n' || ch === 'l') return reduce(state, { kind: 'right' }, source, size);
  if (ch === 'p' || ch === 'h') return reduce(state, { kind: 'left' }, source, size);
  if (ch === 'g') return { state: go(state, 0) };
  if (ch === 'G') return { state: go(state, last) };
  if (ch === 'j') return { state: scrollBy(1) };
  if (ch === 'k') return { state: scrollBy(-1) };
  if (ch === ' ') return { state: scrollBy(bodyHeight(size)) };
  if (/^[0-9]$/.test(ch)) return { state: { ...state, mode: 'jump', input: ch, message: '' } };
  if (ch === '/') return { state: { ...state, mode: 'search', input: '', message: '' } };
  if (ch === 'N') return { state: search(state, source, state.query, -1) };
  if (ch === 'q' || ch === 'Q') return { state, action: 'quit' };
  if (ch === 'f') return { state: { ...state, message: `forking from step ${state.index}…` }, action: 'fork' };
  if (ch === '?') return { state: { ...state, message: HELP } };
  return { state: { ...state, message: `unknown key ${JSON.stringify(ch)} (? lists the keys)` } };
}

/** One painted line: its text (exactly the screen width) and how to emphasise it. */
export interface ScreenLine {
  text: string;
  style?: BodyLine['style'] | 'header' | 'rule' | 'footer' | 'prompt';
}

/** A receipt's signature state, for headers. */
export function signatureText(source: ReplaySource): string {
  if (!source.signed) return ', unsigned';
  return source.signatureChecked ? ', signature ✓' : ', signed (signature not checked: no --public-key)';
}

/** The header: `step N / M` (N = seq + 1), the head hash and the chain status. */
export function headerText(source: ReplaySource, state: ReplayState): string {
  const kind =
    source.kind === 'receipt' ? `  receipt${source.redacted ? ' (redacted)' : ''}${signatureText(source)}` : '';
  return `step ${state.index + 1} / ${source.steps}  seq ${state.index}  head ${shortHash(source.head_hash)}  chain ✓ verified  ${sanitize(source.agentId)}${kind}`;
}

/** Lays out the whole screen: header, rule, the step's body (scrolled), footer. Exactly `height` lines of `width` columns. */
export function renderScreen(source: ReplaySource, state: ReplayState, size: ScreenSize): ScreenLine[] {
  const width = Math.max(1, size.width);
  const height = Math.max(1, size.height);
  const out: ScreenLine[] = [{ text: fit(headerText(source, state), width), style: 'header' }];
  if (height === 1) return out;
  const { lines, truncated } = bodyOf(source, state.index, width, state.expanded);
  const room = bodyHeight({ width, height });
  const scroll = Math.min(state.scroll, Math.max(0, lines.length - room));
  const shown = lines.slice(scroll, scroll + room);
  const more =
    lines.length > room ? ` lines ${scroll + 1}-${scroll + shown.length} of ${lines.length} (↑↓ scroll) ` : '';
  const mark = truncated && !state.expanded ? ' ⏎ expands ' : '';
  const label = sliceColumns(`──${more}${mark}`, width);
  out.push({ text: label + '─'.repeat(Math.max(0, width - displayWidth(label))), style: 'rule' });
  if (height === 2) return out;
  for (let i = 0; i < room && out.length < height - 1; i++) {
    const l = shown[i];
    out.push(
      l === undefined
        ? { text: ' '.repeat(width) }
        : { text: fit(l.text, width), ...(l.style ? { style: l.style } : {}) },
    );
  }
  let footer: ScreenLine;
  if (state.mode === 'jump')
    footer = {
      text: fit(`jump to seq (0..${source.steps - 1}): ${state.input}▏ ⏎ go, Esc cancel`, width),
      style: 'prompt',
    };
  else if (state.mode === 'search')
    footer = {
      text: fit(
        `/${sanitize(state.input)}▏ ⏎ search${state.query ? ` (empty: "${sanitize(state.query)}" again)` : ''}, Esc cancel`,
        width,
      ),
      style: 'prompt',
    };
  else footer = { text: fit(sanitize(state.message) || keyHints(width), width), style: 'footer' };
  out.push(footer);
  return out;
}
