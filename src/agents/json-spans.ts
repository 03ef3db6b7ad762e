/**
 * Editing a JSON text in place (a Claude Code settings file): the text is
 * read into a tree of spans, and changes are splices of the original text, so
 * every byte stepchain does not change stays as the user wrote it (spacing,
 * number spellings, escapes, the final newline). New values copy the layout
 * around them: the separator before the last element, its line's indentation,
 * or the file's one-line style. Removing what was inserted deletes exactly the
 * inserted text, so `init claude` then `init claude --remove` gives the original
 * bytes back, whatever their formatting.
 *
 * The text must already be valid JSON (the caller parses it first, for the
 * error messages); this reader only locates things.
 */
export type SpanNode =
  | { kind: 'object'; start: number; end: number; members: SpanMember[] }
  | { kind: 'array'; start: number; end: number; items: SpanNode[] }
  | { kind: 'string'; start: number; end: number; value: string }
  | { kind: 'other'; start: number; end: number };

export interface SpanMember {
  key: string;
  /** Where the key's string starts. */
  start: number;
  value: SpanNode;
}

/** The spans of a valid JSON text (`end` is exclusive). */
export function readSpans(text: string): SpanNode {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const str = (): { start: number; end: number; value: string } => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return { start, end: i, value: JSON.parse(text.slice(start, i)) as string };
  };
  const value = (): SpanNode => {
    ws();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++;
      const members: SpanMember[] = [];
      ws();
      while (text[i] !== '}') {
        const k = str();
        ws();
        i++; // ':'
        members.push({ key: k.value, start: k.start, value: value() });
        ws();
        if (text[i] === ',') i++;
        ws();
      }
      i++;
      return { kind: 'object', start, end: i, members };
    }
    if (c === '[') {
      i++;
      const items: SpanNode[] = [];
      ws();
      while (text[i] !== ']') {
        items.push(value());
        ws();
        if (text[i] === ',') i++;
        ws();
      }
      i++;
      return { kind: 'array', start, end: i, items };
    }
    if (c === '"') return { kind: 'string', ...str() };
    while (i < text.length && !',]} \t\r\n'.includes(text[i]!)) i++;
    return { kind: 'other', start, end: i };
  };
  return value();
}

/** The member of an object named `key` (the last one, as JSON.parse reads duplicates). */
export function memberOf(node: SpanNode, key: string): SpanMember | undefined {
  if (node.kind !== 'object') return undefined;
  for (let k = node.members.length - 1; k >= 0; k--) if (node.members[k]!.key === key) return node.members[k];
  return undefined;
}

/** A replacement of `text.slice(start, end)`. */
interface Splice {
  start: number;
  end: number;
  insert: string;
}

/** Where an element (an array item or an object member) starts and ends in the text. */
type Element = { start: number; end: number };

function elements(node: SpanNode): Element[] {
  if (node.kind === 'array') return node.items.map((x) => ({ start: x.start, end: x.end }));
  if (node.kind === 'object') return node.members.map((m) => ({ start: m.start, end: m.value.end }));
  return [];
}

/** How new values are written: indented like the lines around them, or on one line like the file. */
interface Style {
  multiline: boolean;
  /** One level of indentation (multi-line). */
  unit: string;
  /** Between a key and its value, e.g. `": "` or `":"`. */
  keySep: string;
  /** After a comma on one line, e.g. `" "` or `""`. */
  itemSep: string;
}

/** Collects splices of one text and applies them together. */
export class JsonEditor {
  private readonly splices: Splice[] = [];
  private readonly style: Style;

  constructor(
    readonly text: string,
    readonly root: SpanNode,
  ) {
    const multiline = /\n/.test(text.trim()) || elements(root).length === 0;
    const unit = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
    const key = /"( *: *)["{[\dtfn-]/.exec(text);
    const item = /[}\]"\del],( *)["{[\dtfn-]/.exec(text);
    const keySep = key?.[1] ?? ': ';
    // With no comma to copy, a file written without spaces after its colons has none after its commas either.
    this.style = { multiline, unit, keySep, itemSep: item?.[1] ?? (keySep === ':' ? '' : ' ') };
  }

  /** The indentation of the line `at` is on. */
  private lineIndent(at: number): string {
    const lineStart = this.text.lastIndexOf('\n', at - 1) + 1;
    return /^[ \t]*/.exec(this.text.slice(lineStart))![0];
  }

  /** A value in the file's style (`multiline`: indented, its first line at `level`; else on one line). */
  render(v: RenderValue, level: string, multiline = this.style.multiline): string {
    const s = this.style;
    const inner = level + s.unit;
    if (typeof v === 'string') return JSON.stringify(v);
    const isArray = Array.isArray(v);
    const parts = isArray
      ? (v as RenderValue[]).map((x) => this.render(x, inner, multiline))
      : [...(v as Map<string, RenderValue>)].map(
          ([k, x]) => `${JSON.stringify(k)}${s.keySep}${this.render(x, inner, multiline)}`,
        );
    const [open, close] = isArray ? ['[', ']'] : ['{', '}'];
    if (parts.length === 0) return open + close;
    if (!multiline) return open + parts.join(`,${s.itemSep}`) + close;
    return `${open}\n${parts.map((p) => inner + p).join(`,\n`)}\n${level}${close}`;
  }

  /** Appends items (arrays) or `[key, value]` members (objects) after the container's last element. */
  append(container: SpanNode, added: RenderValue[] | [string, RenderValue][]): void {
    if (added.length === 0) return;
    const isArray = container.kind === 'array';
    const els = elements(container);
    const text = (level: string, multiline: boolean): string[] =>
      isArray
        ? (added as RenderValue[]).map((x) => this.render(x, level, multiline))
        : (added as [string, RenderValue][]).map(
            ([k, x]) => `${JSON.stringify(k)}${this.style.keySep}${this.render(x, level, multiline)}`,
          );
    if (els.length === 0) {
      // An empty container: its inside is replaced (removing everything again gives back `[]` / `{}`).
      if (!this.style.multiline) {
        this.splices.push({
          start: container.start + 1,
          end: container.end - 1,
          insert: text('', false).join(`,${this.style.itemSep}`),
        });
        return;
      }
      const level = this.lineIndent(container.start);
      const inner = level + this.style.unit;
      const body = text(inner, true)
        .map((t) => inner + t)
        .join(',\n');
      this.splices.push({ start: container.start + 1, end: container.end - 1, insert: `\n${body}\n${level}` });
      return;
    }
    const last = els[els.length - 1]!;
    // The separator the last element has in front of it (without its comma), reused before each new one.
    const before = els.length > 1 ? els[els.length - 2]!.end : container.start + 1;
    const gap = this.text.slice(before, last.start).replace(/^\s*,/, '');
    const level = this.lineIndent(last.start);
    const multiline = gap.includes('\n');
    const insert = text(multiline ? level : '', multiline)
      .map((t) => `,${gap}${t}`)
      .join('');
    this.splices.push({ start: last.end, end: last.end, insert });
  }

  /** Removes the elements at `indexes` of a container (with the separators that came with them). */
  remove(container: SpanNode, indexes: Set<number>): void {
    const els = elements(container);
    if (indexes.size === 0) return;
    if (indexes.size >= els.length) {
      this.splices.push({ start: container.start + 1, end: container.end - 1, insert: '' });
      return;
    }
    for (let i = 0; i < els.length; i++) {
      if (!indexes.has(i)) continue;
      let j = i;
      while (j + 1 < els.length && indexes.has(j + 1)) j++;
      // After a kept element: from its end (the comma after it) to the end of the run; else up to the next kept one.
      if (i > 0) this.splices.push({ start: els[i - 1]!.end, end: els[j]!.end, insert: '' });
      else this.splices.push({ start: els[i]!.start, end: els[j + 1]!.start, insert: '' });
      i = j;
    }
  }

  /** Replaces one value (e.g. a string) with a new one. */
  replace(node: SpanNode, v: RenderValue): void {
    this.splices.push({ start: node.start, end: node.end, insert: this.render(v, this.lineIndent(node.start)) });
  }

  get changed(): boolean {
    return this.splices.length > 0;
  }

  /** The text with every splice applied (they never overlap: each names a distinct part of the text). */
  result(): string {
    let out = this.text;
    for (const s of [...this.splices].sort((a, b) => b.start - a.start || b.end - a.end))
      out = out.slice(0, s.start) + s.insert + out.slice(s.end);
    return out;
  }
}

/** What the editor writes: strings, lists and ordered objects. */
export type RenderValue = string | RenderValue[] | Map<string, RenderValue>;
