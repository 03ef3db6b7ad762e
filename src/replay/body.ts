import { decodeUtf8, type JsonValue } from '../canonical';
import { stepExchangeText } from './exchanges';
import { InputError } from '../errors';
import type { JournalEntry } from '../journal';
import { unverifiedFields, type ReplaySource } from './source';
import { stepChanges, type FieldChange } from './step';
import { compactJson, displayWidth, isoTime, sanitize, truncate, valueLines, wrap } from './text';
import { formatSize, plural, pluralWord } from '../util/words';

/** One blob of a step: its size and a short preview when it is present. */
export interface BlobInfo {
  digest: string;
  present: boolean;
  /** Why a stored file under its name is not the blob (its bytes do not match), when that is why it is missing. */
  problem?: string;
  size: number | null;
  /** Whether this blob is the step's input (`input_hash`). */
  input: boolean;
  /** UTF-8 text blobs: the start of the text; binary: `null`. */
  preview: string | null;
  binary: boolean;
}

const PREVIEW_CHARS = 160;
const blobCache = new WeakMap<ReplaySource, Map<string, BlobInfo>>();

/** A blob's size and preview, read once per source. */
export function blobInfo(source: ReplaySource, digest: string, inputHash: string): BlobInfo {
  let cache = blobCache.get(source);
  if (cache === undefined) blobCache.set(source, (cache = new Map()));
  const key = `${digest}:${inputHash === digest}`;
  let info = cache.get(key);
  if (info === undefined) {
    const bytes = source.blobs.get(digest);
    info = {
      digest,
      present: bytes !== undefined,
      ...(bytes === undefined && source.blobs.problem?.(digest) !== undefined
        ? { problem: source.blobs.problem(digest)! }
        : {}),
      size: bytes?.length ?? null,
      input: digest === inputHash,
      preview: null,
      binary: false,
    };
    if (bytes !== undefined) {
      const head = bytes.subarray(0, PREVIEW_CHARS * 4);
      let text: string | undefined;
      try {
        text = decodeUtf8(head.length < bytes.length ? trimUtf8(head) : head);
      } catch {
        text = undefined;
      }
      if (text === undefined || text.includes('\u0000')) info.binary = true;
      else info.preview = [...text].slice(0, PREVIEW_CHARS).join('');
    }
    cache.set(key, info);
  }
  return info;
}

/** Drops a UTF-8 sequence cut at the end of a slice. */
function trimUtf8(b: Buffer): Buffer {
  let end = b.length;
  let back = 0;
  while (end > 0 && back < 4 && (b[end - 1]! & 0xc0) === 0x80) {
    end--;
    back++;
  }
  if (end > 0 && b[end - 1]! >= 0xc0) end--;
  return b.subarray(0, end);
}

export function stepBlobs(source: ReplaySource, e: JournalEntry): BlobInfo[] {
  return e.row.blob_refs.map((d) => blobInfo(source, d, e.row.input_hash));
}

export { formatSize };

/** One line of a step's body; `style` lets a terminal emphasise it. */
export interface BodyLine {
  text: string;
  style?: 'label' | 'dim' | 'change' | 'marker' | 'warn';
}

export interface BodyOptions {
  /** Columns available. */
  width: number;
  /** Show every field in full (no truncation marker). */
  expanded: boolean;
  /** Lines a field shows before it is cut (default 6). */
  fieldLines?: number;
  /** Changes listed before they are cut (default 8). */
  changeLines?: number;
  /** Wrap long lines to the width (the terminal) or keep them whole (`show`). */
  wrapLines?: boolean;
  /** Name the journal file on the seq line (`show`). */
  showFile?: boolean;
}

const LABEL = 12;

/** A change as one line: `~ tool_call.args.cmd: "a" → "b"`. */
export function changeText(c: FieldChange, valueWidth = 60): string {
  const v = (x: JsonValue | undefined): string => truncate(sanitize(compactJson(x ?? null)), valueWidth);
  // An object key is data too.
  const p = sanitize(c.path);
  if (c.kind === 'added') return `+ ${p}: ${v(c.after)}`;
  if (c.kind === 'removed') return `- ${p}: ${v(c.before)}`;
  return `~ ${p}: ${v(c.before)} → ${v(c.after)}`;
}

/**
 * The body of one step, laid out for `width` columns: seq and time, model,
 * prompt, tool call, tool result, blobs, hashes, then what changed since the
 * previous step. Fields longer than `fieldLines` are cut with a marker unless
 * `expanded`. Every value is sanitized (a row cannot send escape sequences).
 */
export function stepBody(
  source: ReplaySource,
  index: number,
  options: BodyOptions,
): { lines: BodyLine[]; truncated: boolean } {
  const e = source.entries.at(index);
  if (e === undefined) return { lines: [], truncated: false };
  const r = e.row;
  const width = Math.max(options.width, LABEL + 8);
  const valueWidth = width - LABEL;
  const maxLines = options.expanded ? Infinity : (options.fieldLines ?? 6);
  const maxChanges = options.expanded ? Infinity : (options.changeLines ?? 8);
  const doWrap = options.wrapLines ?? true;
  const lines: BodyLine[] = [];
  let truncated = false;

  const field = (label: string, values: string[], style?: BodyLine['style'], cut = false): void => {
    if (doWrap && cut && values.some((l) => displayWidth(l) > valueWidth)) truncated = true;
    const pieces = !doWrap
      ? values
      : cut
        ? values.map((l) => truncate(l, valueWidth))
        : values.flatMap((l) => wrap(l, valueWidth));
    const shown = pieces.length > maxLines ? pieces.slice(0, maxLines) : pieces;
    shown.forEach((p, i) =>
      lines.push({ text: `${i === 0 ? label.padEnd(LABEL) : ' '.repeat(LABEL)}${p}`, ...(style ? { style } : {}) }),
    );
    if (pieces.length === 0) lines.push({ text: label });
    if (shown.length < pieces.length) {
      truncated = true;
      const more = pieces.length - shown.length;
      lines.push({
        text: `${' '.repeat(LABEL)}… ${more} more ${pluralWord(more, 'line')} (Enter expands)`,
        style: 'marker',
      });
    }
  };

  field('seq', [
    options.showFile ? `${r.seq}  (line ${e.line} of ${sanitize(source.file)})` : `${r.seq}  (line ${e.line})`,
  ]);
  field('time', [`${isoTime(r.ts)}  (ts ${r.ts})`]);
  field('model', valueLines(r.model, valueWidth));
  field('prompt', valueLines(r.prompt, valueWidth));
  field('tool_call', valueLines(r.tool_call, valueWidth));
  field('tool_result', valueLines(r.tool_result, valueWidth));
  const exchange = stepExchangeText(source, r.seq);
  if (exchange.length > 0) field('exchange', exchange, undefined, !options.expanded);
  const blobs = stepBlobs(source, e);
  if (blobs.length === 0) field('blobs', ['(none)'], 'dim');
  else {
    field(
      'blobs',
      blobs.map((b) => {
        const what = b.input ? ' input' : '';
        const d = sanitize(b.digest.slice(0, 16));
        if (!b.present) return `${d}…${what}  MISSING`;
        const pv = b.binary ? '(binary)' : JSON.stringify(b.preview ?? '').slice(1, -1);
        return `${d}…${what}  ${formatSize(b.size ?? 0)}  ${sanitize(pv)}`;
      }),
      undefined,
      !options.expanded,
    );
  }
  field('input_hash', [sanitize(r.input_hash)]);
  field('prev_hash', [sanitize(r.prev_hash)]);
  field('step_hash', [sanitize(r.step_hash)]);
  // Keys outside the ten: no hash covers them, so they are set apart and named as unverified.
  const unverified = unverifiedFields(e);
  if (unverified.size > 0) {
    lines.push({ text: '' });
    lines.push({
      text: 'UNVERIFIED: keys outside the hashed row (no hash covers them; anyone could have written them):',
      style: 'warn',
    });
    const shown = [...unverified].flatMap(([k, v]) => {
      const [first = '', ...rest] = valueLines(v, valueWidth);
      return [`${sanitize(k)}: ${first}`, ...rest.map((l) => `  ${l}`)];
    });
    field('unverified', shown, 'warn', !options.expanded);
  }

  if (index > 0) {
    const changes = stepChanges(source.entries.at(index - 1)!.row, r);
    lines.push({ text: '' });
    if (changes.length === 0) {
      lines.push({ text: `no change in content since step ${index - 1}`, style: 'dim' });
    } else {
      lines.push({ text: `changed since step ${index - 1}:`, style: 'label' });
      const shown = changes.slice(0, maxChanges);
      for (const c of shown) {
        const text = changeText(
          c,
          options.expanded ? Infinity : Math.max(12, Math.floor((width - 6 - displayWidth(sanitize(c.path))) / 2)),
        );
        if (!options.expanded && (text !== changeText(c, Infinity) || displayWidth(text) > width - 2)) truncated = true;
        const pieces =
          doWrap && options.expanded ? wrap(`  ${text}`, width) : [`  ${doWrap ? truncate(text, width - 2) : text}`];
        for (const p of pieces) lines.push({ text: p, style: 'change' });
      }
      if (shown.length < changes.length) {
        truncated = true;
        lines.push({ text: `  … ${changes.length - shown.length} more changes (Enter expands)`, style: 'marker' });
      }
    }
  } else {
    lines.push({ text: '' });
    lines.push({ text: 'first step (genesis: prev_hash is 64 zeros)', style: 'dim' });
  }
  return { lines, truncated };
}

/** Whether a line is wider than `width` (for tests of the layout). */
export function overflows(lines: BodyLine[], width: number): boolean {
  return lines.some((l) => displayWidth(l.text) > width);
}

/** Throws InputError unless `seq` is a step of the source. */
export function entryAt(source: ReplaySource, seq: number): JournalEntry {
  const e = source.entries.at(seq);
  if (e === undefined) {
    throw new InputError(
      `${source.file}: step ${seq} is out of range (the journal has ${plural(source.steps, 'step')}${source.steps > 0 ? `, 0..${source.steps - 1}` : ''})`,
    );
  }
  return e;
}

/** A terminal's size in columns and rows. */
export interface ScreenSize {
  width: number;
  height: number;
}

/** The rows the step's body gets on a screen (the header, the rule and the footer take one each). */
export function bodyRows(size: ScreenSize): number {
  return Math.max(1, size.height - 3);
}

// The last body laid out: a key and the repaint after it need the same one, and a step with
// megabyte fields is worth laying out once.
let lastBody:
  | { source: ReplaySource; index: number; width: number; expanded: boolean; body: ReturnType<typeof stepBody> }
  | undefined;

/** `stepBody` at a width, the last one kept. */
export function laidOutBody(
  source: ReplaySource,
  index: number,
  width: number,
  expanded: boolean,
): ReturnType<typeof stepBody> {
  const c = lastBody;
  if (c && c.source === source && c.index === index && c.width === width && c.expanded === expanded) return c.body;
  const body = stepBody(source, index, { width, expanded });
  lastBody = { source, index, width, expanded, body };
  return body;
}
