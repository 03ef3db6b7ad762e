import path from 'node:path';
import { bundleBeside } from '../receipt/keyless/bundle-path';
import { bodyRows, laidOutBody, type BodyLine, type ScreenSize } from './body';
import { keyHints } from './keys';
import type { ReplaySource } from './source';
import { signatureVerdict, type SignatureVerdict } from '../receipt/trust';
import { displayWidth, fit, sanitize, shortHash, sliceColumns, wrap } from './text';
import { walkedSteps, type ReplayState } from './walk';

/**
 * The replay screen's layout for a given size: header, rule, the step's body (scrolled) or a panel, footer.
 * The state it shows is walk.ts's; the keys, keys.ts's.
 */

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

/** The keyless bundle beside a receipt, named for a display (never checked by one: `receipt verify` checks it). */
export function keylessBundleOf(file: string): { keylessBundle?: string } {
  const bundle = bundleBeside(file);
  return bundle === undefined ? {} : { keylessBundle: bundle };
}

/** That bundle in a display's JSON: `keyless_bundle`, always unchecked. */
export function keylessBundleDocument(bundle: string | undefined): {
  keyless_bundle?: { file: string; checked: false };
} {
  return bundle === undefined ? {} : { keyless_bundle: { file: bundle, checked: false } };
}

/** The suffix naming a keyless bundle beside a receipt, never checked by a display (`receipt verify` checks it). */
export function keylessNote(bundle: string | undefined): string {
  return bundle === undefined
    ? ''
    : `, keyless bundle ${path.basename(bundle)} beside it NOT checked (stepchain receipt verify checks it)`;
}

/** A receipt's signature state as a suffix (`, unsigned`, `, signature ✓`, `, signature NOT checked ...`). */
export function signatureText(source: ReplaySource): string {
  const v = sourceSignature(source);
  if (v === undefined) return '';
  const keyless = keylessNote(source.keylessBundle);
  if (v.status === 'unsigned') return `, unsigned${keyless}`;
  if (v.status === 'verified') return `, signature ✓${keyless}`;
  return `, ${v.text}${keyless}`;
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
    [`step ${state.index + 1} / ${n}${n < source.steps ? ` (of ${source.steps}, ${state.limitName})` : ''}`, 0],
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
  const { lines, truncated } = laidOutBody(source, state.index, width, state.expanded);
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
  const room = bodyRows({ width, height });
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
