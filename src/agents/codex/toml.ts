import { InputError } from '../../errors';

/**
 * Just enough of TOML to edit Codex's `config.toml` by text, keeping every byte stepchain does not change: the
 * file is cut into statements (table headers, key/value pairs, blank and comment lines) with their spans and
 * their key paths decoded, and values are skipped over, never interpreted (strings of the four kinds, arrays and
 * inline tables across lines included, so a line inside a multi-line value is never taken for a header). What
 * does not scan is refused, naming the line: the file is left as it is.
 */
export interface TomlStatement {
  kind: 'table' | 'array-table' | 'keyval' | 'blank';
  /** Offset of the statement's first character (its line's start) and just past its line end. */
  start: number;
  end: number;
  /** 1-based line of the statement. */
  line: number;
  /** The header's key path, or the key/value's (dotted) key relative to its table. */
  keys: string[];
  /** The key/value's value, as written. */
  valueStart: number;
  valueEnd: number;
}

const BARE = /[A-Za-z0-9_-]/;

class Scanner {
  i = 0;
  constructor(
    readonly s: string,
    readonly file: string,
  ) {}

  fail(why: string): never {
    let line = 1;
    for (let k = 0; k < this.i && k < this.s.length; k++) if (this.s.charCodeAt(k) === 10) line++;
    throw new InputError(`${this.file}:${line}: not TOML stepchain can edit (${why}); the file is left as it is`);
  }

  peek(n = 0): string {
    return this.s[this.i + n] ?? '';
  }

  spaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.i++;
  }

  /** Whitespace, a comment and the line end; anything else is refused. */
  lineEnd(): void {
    this.spaces();
    if (this.peek() === '#') while (this.i < this.s.length && this.peek() !== '\n') this.i++;
    if (this.peek() === '\r' && this.peek(1) === '\n') this.i++;
    if (this.i < this.s.length) {
      if (this.peek() !== '\n') this.fail('unexpected text after a value');
      this.i++;
    }
  }

  /** A basic string's body from after the opening quote; returns the decoded text. */
  basic(multi: boolean): string {
    let out = '';
    for (;;) {
      if (this.i >= this.s.length) this.fail('an unterminated string');
      const c = this.peek();
      if (multi ? this.s.startsWith('"""', this.i) : c === '"') {
        this.i += multi ? 3 : 1;
        // A multi-line string may end with up to two more quotes, which belong to its text.
        for (let extra = 0; multi && this.peek() === '"'; extra++) {
          if (extra === 2) this.fail('too many quotes');
          out += '"';
          this.i++;
        }
        return out;
      }
      if (!multi && c === '\n') this.fail('a newline in a string');
      if (c === '\\') {
        const e = this.peek(1);
        this.i += 2;
        const simple: Record<string, string> = {
          b: '\b',
          t: '\t',
          n: '\n',
          f: '\f',
          r: '\r',
          e: '\x1b',
          '"': '"',
          '\\': '\\',
        };
        if (simple[e] !== undefined) out += simple[e];
        else if (e === 'u' || e === 'U' || e === 'x') {
          const n = e === 'u' ? 4 : e === 'U' ? 8 : 2;
          const hex = this.s.slice(this.i, this.i + n);
          if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== n) this.fail('a bad escape');
          const cp = parseInt(hex, 16);
          if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.fail('a bad escape');
          out += String.fromCodePoint(cp);
          this.i += n;
        } else if (multi && (e === '\n' || e === ' ' || e === '\t' || e === '\r')) {
          // A line-ending backslash trims the whitespace that follows.
          this.i--;
          while (/[ \t\r\n]/.test(this.peek())) this.i++;
        } else this.fail('a bad escape');
        continue;
      }
      out += c;
      this.i++;
    }
  }

  literal(multi: boolean): string {
    const close = multi ? "'''" : "'";
    const at = this.s.indexOf(close, this.i);
    if (at < 0) this.fail('an unterminated string');
    let end = at;
    if (multi) while (this.s[end + 3] === "'" && end - at < 2) end++;
    const text = this.s.slice(this.i, end);
    if (!multi && text.includes('\n')) this.fail('a newline in a string');
    this.i = end + close.length;
    return text;
  }

  /** A string starting here (any of the four kinds), decoded. */
  string(): string {
    if (this.s.startsWith('"""', this.i)) {
      this.i += 3;
      if (this.peek() === '\n') this.i++;
      else if (this.peek() === '\r' && this.peek(1) === '\n') this.i += 2;
      return this.basic(true);
    }
    if (this.s.startsWith("'''", this.i)) {
      this.i += 3;
      if (this.peek() === '\n') this.i++;
      else if (this.peek() === '\r' && this.peek(1) === '\n') this.i += 2;
      return this.literal(true);
    }
    const q = this.peek();
    this.i++;
    return q === '"' ? this.basic(false) : this.literal(false);
  }

  /** A dotted key: bare, basic or literal parts. */
  key(): string[] {
    const keys: string[] = [];
    for (;;) {
      this.spaces();
      const c = this.peek();
      if (c === '"' || c === "'") {
        if (this.s.startsWith(c.repeat(3), this.i)) this.fail('a multi-line string as a key');
        keys.push(this.string());
      } else {
        const from = this.i;
        while (BARE.test(this.peek())) this.i++;
        if (this.i === from) this.fail('a key was expected');
        keys.push(this.s.slice(from, this.i));
      }
      this.spaces();
      if (this.peek() !== '.') return keys;
      this.i++;
    }
  }

  /** Skips whitespace, newlines and comments inside an array. */
  gap(): void {
    for (;;) {
      this.spaces();
      if (this.peek() === '#') while (this.i < this.s.length && this.peek() !== '\n') this.i++;
      else if (this.peek() === '\n' || (this.peek() === '\r' && this.peek(1) === '\n')) this.i++;
      else return;
    }
  }

  /** Skips one value. */
  value(depth = 0): void {
    if (depth > 64) this.fail('values nested too deeply');
    const c = this.peek();
    if (c === '"' || c === "'") {
      this.string();
      return;
    }
    if (c === '[') {
      this.i++;
      for (;;) {
        this.gap();
        if (this.peek() === ']') {
          this.i++;
          return;
        }
        this.value(depth + 1);
        this.gap();
        if (this.peek() === ',') this.i++;
        else if (this.peek() !== ']') this.fail('an array is not closed');
      }
    }
    if (c === '{') {
      this.i++;
      this.spaces();
      if (this.peek() === '}') {
        this.i++;
        return;
      }
      for (;;) {
        this.key();
        if (this.peek() !== '=') this.fail('"=" was expected');
        this.i++;
        this.spaces();
        this.value(depth + 1);
        this.spaces();
        if (this.peek() === ',') {
          this.i++;
          continue;
        }
        if (this.peek() !== '}') this.fail('an inline table is not closed');
        this.i++;
        return;
      }
    }
    // A number, a boolean, a date: up to whitespace, a comment, a separator or the line end.
    const from = this.i;
    while (this.i < this.s.length && !/[\s#,\]}]/.test(this.peek())) this.i++;
    // Dates may hold one space between the date and the time.
    if (this.peek() === ' ' && /^\d{4}-\d{2}-\d{2}$/.test(this.s.slice(from, this.i)) && /\d/.test(this.peek(1))) {
      this.i++;
      while (this.i < this.s.length && !/[\s#,\]}]/.test(this.peek())) this.i++;
    }
    if (this.i === from) this.fail('a value was expected');
  }
}

/** The statements of a TOML document, in order. */
export function scanToml(text: string, file: string): TomlStatement[] {
  const sc = new Scanner(text, file);
  const out: TomlStatement[] = [];
  let line = 1;
  const countLines = (from: number, to: number): void => {
    for (let k = from; k < to; k++) if (text.charCodeAt(k) === 10) line++;
  };
  if (text.charCodeAt(0) === 0xfeff) sc.i = 1;
  while (sc.i < text.length) {
    const start = sc.i;
    const at = line;
    sc.spaces();
    const c = sc.peek();
    let st: TomlStatement;
    if (c === '#' || c === '\n' || c === '\r' || c === '') {
      sc.lineEnd();
      st = { kind: 'blank', start, end: sc.i, line: at, keys: [], valueStart: 0, valueEnd: 0 };
    } else if (c === '[') {
      const array = sc.peek(1) === '[';
      sc.i += array ? 2 : 1;
      const keys = sc.key();
      if (sc.peek() !== ']' || (array && sc.peek(1) !== ']')) sc.fail('a table header is not closed');
      sc.i += array ? 2 : 1;
      sc.lineEnd();
      st = { kind: array ? 'array-table' : 'table', start, end: sc.i, line: at, keys, valueStart: 0, valueEnd: 0 };
    } else {
      const keys = sc.key();
      if (sc.peek() !== '=') sc.fail('"=" was expected');
      sc.i++;
      sc.spaces();
      const valueStart = sc.i;
      sc.value();
      const valueEnd = sc.i;
      sc.lineEnd();
      st = { kind: 'keyval', start, end: sc.i, line: at, keys, valueStart, valueEnd };
    }
    countLines(start, sc.i);
    out.push(st);
  }
  return out;
}

/** The decoded text of a string value as written (`"..."` or `'...'`), or undefined for any other value. */
export function tomlStringValue(raw: string): string | undefined {
  if (!raw.startsWith('"') && !raw.startsWith("'")) return undefined;
  try {
    const sc = new Scanner(raw, '');
    const v = sc.string();
    return sc.i === raw.length ? v : undefined;
  } catch {
    return undefined;
  }
}

/** A TOML basic string holding `s` (a key or a value). */
export function tomlBasicString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c < 0x20 || c === 0x7f) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
