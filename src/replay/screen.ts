import { stepBody, type BodyLine } from './body';
import type { ReplaySource } from './source';
import { findStep, matchingSteps } from './step';
import { signatureVerdict, type SignatureVerdict } from '../receipt/trust';
import { displayWidth, fit, sanitize, shortHash, sliceColumns, wrap } from './text';

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
  /** Whether `f` can fork here (never for a receipt: fork the journal it came from). */
  canFork: boolean;
}

export type ReplayAction = 'quit' | 'fork' | undefined;

export interface ScreenSize {
  width: number;
  height: number;
}

export interface WalkOptions {
  /** Walk only the first `limit` steps. */
  limit?: number;
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
    canFork: options.canFork ?? true,
  };
}

/** How many steps the walk covers: all of them, or the first `limit`. */
export function walkedSteps(source: ReplaySource, state: ReplayState): number {
  return state.limit === null ? source.steps : Math.min(source.steps, Math.max(1, state.limit));
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

/** A panel line; `indent` is where its wrapped continuation lines start (a key list's description column). */
export type PanelLine = string | { text: string; indent: number };

/** The column a key's description starts at in the key list. */
const KEY_COLUMN = 18;

/** Every key, for `?`: shown in a panel instead of the step. */
export function keyList(canFork: boolean): PanelLine[] {
  const rows: [string, string][] = [
    ['n  →  l', 'next step'],
    ['p  ←  h', 'previous step'],
    ['g  Home', 'first step'],
    ['G  End', 'last step'],
    ['digits ⏎', 'jump to that seq (Esc cancels)'],
    ['/text ⏎', 'search every field and hash (case-insensitive, wraps around)'],
    ['/ ⏎', 'the same search again, forward'],
    ['N', 'the same search, backward'],
    ['⏎', 'expand: every field in full (again: collapse)'],
    ['↑ ↓  j k', 'scroll one line'],
    ['PgUp PgDn Space', 'scroll one page'],
    ...(canFork
      ? ([['f', 'fork the run at this step into a new git worktree and branch (asks first)']] as [string, string][])
      : []),
    ['?', 'this list'],
    ['q  Ctrl-C', 'quit'],
  ];
  return [
    'Keys (any key returns to the step)',
    '',
    ...rows.map(([k, what]) => ({ text: `  ${k.padEnd(KEY_COLUMN - 3)} ${what}`, indent: KEY_COLUMN })),
  ];
}

// Key hints in display order, with a priority: on a narrow screen the footer keeps the most important ones.
// `? keys` is how every other key is found, so it stays with the essentials.
const HINTS: [string, number][] = [
  ['n/→ next', 1],
  ['p/← prev', 1],
  ['g/G first/last', 3],
  ['seq⏎ jump', 4],
  ['/ search', 2],
  ['⏎ expand', 5],
  ['↑↓ scroll', 7],
  ['f fork', 6],
  ['? keys', 1],
  ['q quit', 0],
];

/** The key hints that fit in `width` columns, most important first (`f fork` only where it works). */
export function keyHints(width: number, canFork = true): string {
  const chosen = new Set<string>();
  let used = 0;
  const hints = HINTS.filter(([h]) => canFork || h !== 'f fork');
  for (const [hint] of [...hints].sort((a, b) => a[1] - b[1])) {
    const w = displayWidth(hint) + (chosen.size > 0 ? 2 : 0);
    if (used + w > width) continue;
    chosen.add(hint);
    used += w;
  }
  return hints
    .filter(([h]) => chosen.has(h))
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
  const n = walkedSteps(source, state);
  const entries = n === source.entries.length ? source.entries : source.entries.slice(0, n);
  const i = findStep(entries, query, state.index, direction);
  if (i < 0) return { ...state, mode: 'normal', input: '', query, message: `no step matches "${sanitize(query)}"` };
  const all = matchingSteps(entries, query);
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
  const last = walkedSteps(source, state) - 1;
  if (key.kind === 'interrupt') return { state, action: 'quit' };
  // A panel (the key list, a fork's result) is read, then any key returns to the step.
  if (state.panel !== null) return { state: { ...state, panel: null, message: '' } };
  if (state.mode === 'confirm-fork') {
    if (key.kind === 'char' && (key.char === 'y' || key.char === 'Y'))
      return { state: { ...state, mode: 'normal', message: `forking from step ${state.index}…` }, action: 'fork' };
    return { state: { ...state, mode: 'normal', message: 'fork cancelled: nothing was created' } };
  }

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
        return {
          state: {
            ...done,
            message: `no step ${state.input}: seqs are 0..${last}${last + 1 < source.steps ? ` (--limit ${last + 1})` : ''}`,
          },
        };
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
        state:
          state.index < last
            ? go(state, state.index + 1)
            : {
                ...state,
                message: `this is the last step${last + 1 < source.steps ? ` walked (--limit ${last + 1} of ${source.steps})` : ''}`,
              },
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

/** One painted line: its text (exactly the screen width) and how to emphasise it. */
export interface ScreenLine {
  text: string;
  style?: BodyLine['style'] | 'header' | 'header-warn' | 'rule' | 'footer' | 'prompt';
}

/**
 * A receipt's signature state, for headers and status lines (one meaning of
 * "signed", see signatureVerdict): a receipt opened for display verified
 * everything but, given no trusted key, its signature.
 */
export function sourceSignature(source: ReplaySource): SignatureVerdict | undefined {
  if (source.kind !== 'receipt') return undefined;
  return signatureVerdict(
    { signed: source.signed === true, signature_ok: source.signatureChecked === true, key_id: null },
    source.signatureChecked === true ? 1 : 0,
  );
}

/** A receipt's signature state as a suffix (`, unsigned`, `, signature ✓`, `, signature NOT checked ...`). */
export function signatureText(source: ReplaySource): string {
  const v = sourceSignature(source);
  if (v === undefined) return '';
  if (v.status === 'unsigned') return ', unsigned';
  if (v.status === 'verified') return ', signature ✓';
  return `, ${v.text}`;
}

/**
 * The header: `step N / M` (N = seq + 1), the chain status, the head hash, the
 * agent and (receipts) the signature. Parts are dropped by priority to fit
 * `width`, never the step or the chain status, nor an unchecked signature.
 */
export function headerText(source: ReplaySource, state: ReplayState, width = Infinity): string {
  const n = walkedSteps(source, state);
  const sig = sourceSignature(source);
  // [text, priority]: 0 is always shown; higher numbers go first when the line is too narrow.
  const parts: [string, number][] = [
    [`step ${state.index + 1} / ${n}${n < source.steps ? ` (of ${source.steps}, --limit)` : ''}`, 0],
    [`seq ${state.index}`, 5],
    [`head ${shortHash(source.head_hash)}`, 2],
    ['chain ✓ verified', 0],
    [sanitize(source.agentId), 3],
  ];
  if (source.kind === 'receipt') {
    parts.push([source.redacted ? 'published receipt (redacted)' : 'receipt', 4]);
    if (sig !== undefined)
      parts.push([
        sig.status === 'verified' ? 'signature ✓' : sig.status === 'unsigned' ? 'unsigned' : 'signature NOT checked',
        sig.warn ? 0 : 1,
      ]);
  }
  const join = (ps: [string, number][]): string => ps.map(([t]) => t).join('  ');
  let shown = parts;
  for (let drop = 5; drop >= 1 && displayWidth(join(shown)) > width; drop--) shown = shown.filter(([, p]) => p < drop);
  return join(shown);
}

/** A panel line wrapped with its continuation lines under its description column (when that leaves room). */
function wrapHanging(line: { text: string; indent: number }, width: number): string[] {
  if (width - line.indent < 16) return wrap(line.text, width);
  const first = wrap(line.text, width)[0] ?? '';
  const rest = line.text.slice(first.length).trimStart();
  if (rest === '') return [first];
  return [first, ...wrap(rest, width - line.indent).map((p) => ' '.repeat(line.indent) + p)];
}

/** The body area: a panel's lines (wrapped, never cut) or the step's body, scrolled. */
function bodyArea(
  source: ReplaySource,
  state: ReplayState,
  width: number,
  room: number,
): { rows: ScreenLine[]; label: string } {
  if (state.panel !== null) {
    const lines = state.panel.flatMap((l) => (typeof l === 'string' ? wrap(l, width) : wrapHanging(l, width)));
    return {
      rows: lines.slice(0, room).map((text, i) => ({ text, ...(i === 0 ? { style: 'label' as const } : {}) })),
      label: '──',
    };
  }
  const { lines, truncated } = bodyOf(source, state.index, width, state.expanded);
  const scroll = Math.min(state.scroll, Math.max(0, lines.length - room));
  const shown = lines.slice(scroll, scroll + room);
  const more =
    lines.length > room ? ` lines ${scroll + 1}-${scroll + shown.length} of ${lines.length} (↑↓ scroll) ` : '';
  const mark = truncated && !state.expanded ? ' ⏎ expands ' : '';
  return {
    rows: shown.map((l) => ({ text: l.text, ...(l.style ? { style: l.style } : {}) })),
    label: `──${more}${mark}`,
  };
}

/** The fork confirmation, as long as fits: the answer keys (`y/N`) are never the part cut off. */
export function forkQuestion(index: number, width: number): string {
  const variants = [
    `fork the run at step ${index} into a new git worktree and branch? y/N`,
    `fork the run at step ${index} into a new git worktree? y/N`,
    `fork at step ${index}? y/N`,
  ];
  return variants.find((v) => displayWidth(v) <= width) ?? variants.at(-1)!;
}

/** Lays out the whole screen: header, rule, the step's body (scrolled), footer. Exactly `height` lines of `width` columns. */
export function renderScreen(source: ReplaySource, state: ReplayState, size: ScreenSize): ScreenLine[] {
  const width = Math.max(1, size.width);
  const height = Math.max(1, size.height);
  const warn = sourceSignature(source)?.warn === true;
  const out: ScreenLine[] = [
    { text: fit(headerText(source, state, width), width), style: warn ? 'header-warn' : 'header' },
  ];
  if (height === 1) return out;
  const room = bodyHeight({ width, height });
  const { rows, label: labelText } = bodyArea(source, state, width, room);
  const label = sliceColumns(labelText, width);
  out.push({ text: label + '─'.repeat(Math.max(0, width - displayWidth(label))), style: 'rule' });
  if (height === 2) return out;
  for (let i = 0; i < room && out.length < height - 1; i++) {
    const l = rows[i];
    out.push(
      l === undefined
        ? { text: ' '.repeat(width) }
        : { text: fit(l.text, width), ...(l.style ? { style: l.style } : {}) },
    );
  }
  let footer: ScreenLine;
  if (state.mode === 'jump')
    footer = {
      text: fit(`jump to seq (0..${walkedSteps(source, state) - 1}): ${state.input}▏ ⏎ go, Esc cancel`, width),
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
  else if (state.mode === 'confirm-fork')
    footer = { text: fit(forkQuestion(state.index, width), width), style: 'prompt' };
  else if (state.panel !== null) footer = { text: fit('any key returns to the step', width), style: 'footer' };
  else footer = { text: fit(sanitize(state.message) || keyHints(width, state.canFork), width), style: 'footer' };
  out.push(footer);
  return out;
}
