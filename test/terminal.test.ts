import fc from 'fast-check';
import { runCli } from '../src/cli/main';
import type { CommandIO } from '../src/cli/io';
import { terminalProgress } from '../src/util/progress';
import { clipLine, MAX_PROBLEM_LINE, sanitize } from '../src/util/terminal';
import { HOSTILE } from './helpers/hostile';

/**
 * The one terminal sanitiser: nothing a terminal acts on survives it, it is
 * idempotent, and newlines pass only where the program laid out lines. The
 * CLI's sink applies it to whatever a command prints (stdout and the one-line
 * problems on stderr); test/terminal.tty.test.ts shows the result on a real
 * terminal.
 */

// Everything a terminal may act on (C0 but tab and newline, DEL, C1, bidi controls, line/paragraph separators) or
// shows as nothing (the zero-width space, word joiner, invisible operators, BOM, tag characters).
const ACTS =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/;

describe('sanitize', () => {
  it('makes the hostile corpus visible', () => {
    expect(sanitize(HOSTILE.osc52)).toBe('\\x1b]52;c;UFdORUQ=\\x07');
    expect(sanitize(HOSTILE.title)).toBe('\\x1b]2;PWNED\\x07');
    expect(sanitize(HOSTILE.repaint)).toBe('\\x1b[2K\\x1b[1A\\x1b[2KOK hostile.tar: signature OK');
    expect(sanitize(HOSTILE.c1)).toBe('\\x9b2J\\x9d0;PWNED\\x9c');
    expect(sanitize(HOSTILE.bidi)).toBe('invoice-\\u202egpj.exe \\u2066isolated\\u2069 \\u200f\\u061c');
    expect(sanitize(HOSTILE.lineSep)).toBe('one\\u2028two\\u2029three');
    expect(sanitize(HOSTILE.cr)).toBe('FAIL\\x0dOK  \\x08\\x08\\x00\\x7f');
    expect(sanitize('a\nb\tc')).toBe('a\\nb  c');
    expect(sanitize('a\nb', { newlines: 'keep' })).toBe('a\nb');
    // Text a terminal shows as nothing: the zero-width space, word joiner, invisible operators, BOM, tag characters.
    const smuggled = `fix${Array.from('IGNORE', (c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')}`;
    expect(sanitize(`${smuggled} a\u200bb\u2060c\u2062d\ufeff`)).toBe(
      'fix\\u{e0049}\\u{e0047}\\u{e004e}\\u{e004f}\\u{e0052}\\u{e0045} a\\u200bb\\u2060c\\u2062d\\ufeff',
    );
    // Text a terminal only shows is left as it is (joiners of emoji sequences and scripts included).
    expect(sanitize('Résumé ✓ 日本語 العربية')).toBe('Résumé ✓ 日本語 العربية');
    expect(sanitize('👨\u200d👩\u200d👧 می\u200cخواهم 😀')).toBe('👨\u200d👩\u200d👧 می\u200cخواهم 😀');
  });

  it('property: nothing a terminal acts on survives, newlines only when kept, idempotent', () => {
    const text = fc.string({
      unit: fc.oneof(
        fc.constantFrom(...'\u001b\u009b\u202e\u2028\n\r\t\u0007\u200b\ufeff', '\u{E0041}'),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      ),
    });
    fc.assert(
      fc.property(text, (s) => {
        const a = sanitize(s);
        const k = sanitize(s, { newlines: 'keep' });
        expect(ACTS.test(a) || a.includes('\n') || a.includes('\t')).toBe(false);
        expect(ACTS.test(k) || k.includes('\t')).toBe(false);
        expect(k.split('\n').length).toBe(s.split('\n').length);
        expect(sanitize(a)).toBe(a);
        expect(sanitize(k, { newlines: 'keep' })).toBe(k);
      }),
      { numRuns: 500, seed: 2028 },
    );
  });
});

describe('the CLI sink', () => {
  function capture(): { io: CommandIO; out: string[]; err: string[] } {
    const out: string[] = [];
    const err: string[] = [];
    const io: CommandIO = {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      json: (d) => out.push(JSON.stringify(d)),
      readStdin: () => Buffer.alloc(0),
      stdinBlocks: () => [],
      isTTY: false,
      env: { STEPCHAIN_AUDIT: 'off' },
      cwd: process.cwd(),
    };
    return { io, out, err };
  }

  it('an error message naming hostile input is one line, nothing a terminal acts on', async () => {
    const c = capture();
    const code = await runCli(['verify', `./x${HOSTILE.osc52}\n${HOSTILE.repaint}.jsonl`], c.io);
    expect(code).toBe(2);
    expect(c.err).toHaveLength(1);
    expect(c.err[0]).not.toMatch(ACTS);
    expect(c.err[0]).not.toContain('\n');
    expect(c.err[0]).toContain('\\x1b]52;c;');
  });

  it('a problem quoting a value of any length is one bounded line that still says what is wrong', async () => {
    for (const [agent, payload] of [
      ['claude', { session_id: 'a/'.repeat(2_500_000), hook_event_name: 'PostToolUse', cwd: process.cwd() }],
      ['opencode', { session_id: 'a/'.repeat(2_500_000), hook_event_name: 'session.idle', directory: process.cwd() }],
    ] as const) {
      const c = capture();
      c.io.readStdin = () => Buffer.from(JSON.stringify(payload));
      await runCli(['hook', agent], c.io);
      const lines = c.err.filter((l) => l.includes('unsafe session_id'));
      expect(lines).toHaveLength(1);
      expect(lines[0]!.length).toBeLessThanOrEqual(MAX_PROBLEM_LINE);
      expect(lines[0]).toMatch(/characters cut/);
    }
    const c = capture();
    expect(await runCli(['verify', `${'x'.repeat(100_000)}.jsonl`], c.io)).toBe(2);
    expect(c.err).toHaveLength(1);
    expect(c.err[0]!.length).toBeLessThanOrEqual(MAX_PROBLEM_LINE);
    // The end of the message, after the value, is kept.
    expect(c.err[0]).toMatch(/\.jsonl.*$/);
  });

  it('an unknown command named with escapes is shown, not obeyed', async () => {
    const c = capture();
    expect(await runCli([`${HOSTILE.title}${HOSTILE.c1}`], c.io)).toBe(2);
    expect(c.err.join('')).not.toMatch(ACTS);
  });
});

describe('clipLine', () => {
  it('keeps a short line whole, and cuts a long one to its start and end, never inside a surrogate pair', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 300 }),
          fc.string({ unit: 'binary', minLength: 301, maxLength: 2000 }),
        ),
        fc.integer({ min: 120, max: 300 }),
        (s, max) => {
          const cut = clipLine(s, max);
          if (s.length <= max) return expect(cut).toBe(s);
          expect(cut.length).toBeLessThanOrEqual(max);
          const m = /^([\s\S]*) \[\.\.\. ([\d,]+) characters cut \.\.\.\] ([\s\S]*)$/.exec(cut)!;
          expect(m).not.toBeNull();
          const [head, n, tail] = [m[1]!, Number(m[2]!.replace(/,/g, '')), m[3]!];
          expect(s.startsWith(head) && s.endsWith(tail)).toBe(true);
          expect(head.length + n + tail.length).toBe(s.length);
          // Neither side ends or starts with half a pair that the string had whole.
          const pairAt = (i: number): boolean =>
            /[\ud800-\udbff]/.test(s[i - 1] ?? '') && /[\udc00-\udfff]/.test(s[i] ?? '');
          expect(pairAt(head.length)).toBe(false);
          expect(pairAt(s.length - tail.length)).toBe(false);
        },
      ),
    );
  });
});

describe('the progress line', () => {
  it('shows a hostile file name through the same sanitiser', () => {
    const written: string[] = [];
    const stream = {
      isTTY: true,
      columns: 400,
      write: (s: string) => written.push(s),
    } as unknown as NodeJS.WriteStream;
    const p = terminalProgress(
      `verifying ${HOSTILE.bidi} ${HOSTILE.osc52}`,
      { STEPCHAIN_PROGRESS_AFTER_MS: '0' },
      stream,
    )!;
    p.update(1, 2);
    p.done();
    const line = written[0]!;
    expect(line.startsWith('\r\x1b[K')).toBe(true);
    expect(ACTS.test(line.slice(4))).toBe(false);
    expect(line).toContain(sanitize(HOSTILE.bidi));
    expect(written[1]).toBe('\r\x1b[K');
  });
});
