/**
 * Writes a journal of N steps for the benchmarks and tests, with the project's own
 * canonical encoder and step hash (no third encoder to drift from the other two):
 *
 *   node -r ./test/helpers/swc-register.js bench/make-journal.ts OUT [N] [SHAPE]
 *
 * SHAPE (default `plain`) is what the hashed fields carry, each about 1.3 KB a row:
 * - plain: prompts with non-ASCII text, a nested tool call, a result with escapes, no floats;
 * - floats: reference-shaped rows, floats in tool_call and tool_result (durations, scores,
 *   ratios of 16-17 significant digits, every repr length and exponent form: 1e-05,
 *   1.5e+16, 0.0001, 123456789012345.6, integral floats like 3.0);
 * - escapes: strings dense with quotes, backslashes, control characters;
 * - unicode: mostly non-ASCII text (accents, CJK, emoji as surrogate pairs);
 * - nested: tool inputs nested dozens of levels deep;
 * - bigints: integers past 2^53 (exact, written in full), negative and small ones;
 * - long: one long string per row (the same bytes a row, in fewer tokens).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { float, type JsonValue } from '../src/canonical';
import { computeStepHash } from '../src/journal/step-hash';
import { encodeRow } from '../src/journal/row';
import { sha256Hex } from '../src/util/hash';

export const SHAPES = ['plain', 'floats', 'escapes', 'unicode', 'nested', 'bigints', 'long'] as const;
export type Shape = (typeof SHAPES)[number];

let seed = 42;
const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const text = (words: readonly string[], len: number): string => {
  let s = '';
  while (s.length < len) s += `${pick(words)} `;
  return s.slice(0, len);
};
const WORDS = 'the agent reads the file and runs the tests then edits the function résumé naïve 日本 ✓'.split(' ');
const ESCAPY = ['"q"', '\\', 'a\tb', 'line\nnext', '\r\n', '\u0001', '\b\f', 'C:\\dir\\x', '{"k":"v"}', 'x'];
const UNICODE = ['résumé', 'naïve', '日本語の文章', 'Привет', 'مرحبا', '😀🚀', 'ß∂ƒ©', '✓✗', 'κόσμε', 'x'];

/** A random double of 16-17 significant digits (most computed ratios are). */
const ratio = (): number => rnd() / (rnd() + 0.001);
/** Floats of every repr length and layout, in both notations and at both thresholds. */
function floats(i: number): JsonValue[] {
  const e = Math.floor(rnd() * 40) - 20;
  return [
    ratio(),
    -ratio() * 1e6,
    rnd(),
    Number((rnd() * 1000).toFixed(1 + (i % 6))),
    1e-5,
    1.5e16,
    0.0001,
    123456789012345.6,
    ratio() * 10 ** e,
    Number(`${1 + (i % 9)}e${e}`),
    i % 50,
    0.1 + 0.2,
    -0,
    1e22 * (1 + (i % 7)),
    5e-324 * (1 + (i % 3)),
    1.7976931348623157e308,
  ].map(float);
}

function nested(depth: number, leaf: JsonValue): JsonValue {
  let v = leaf;
  for (let d = 0; d < depth; d++) v = d % 2 === 0 ? { [`k${d % 5}`]: v, z: d } : [d, v];
  return v;
}

function fieldsOf(shape: Shape, i: number): { prompt: JsonValue; tool_call: JsonValue; tool_result: JsonValue } {
  switch (shape) {
    case 'plain':
      return {
        prompt: `Step ${i}: ${text(WORDS, 210)}`,
        tool_call: {
          name: 'edit_file',
          args: { path: `src/module_${i % 97}.py`, line: i % 400, patch: text(WORDS, 110) },
        },
        tool_result: { exit_code: 0, stdout: `${text(WORDS, 210)}\n"quoted"\ttab`, lines_changed: i % 13 },
      };
    case 'floats': {
      const fs = floats(i);
      return {
        prompt: `Step ${i}: ${text(WORDS, 120)}`,
        tool_call: {
          name: 'run_tests',
          args: { timeout_s: float(30), sample: fs.slice(0, 8), threshold: ratio() },
          started: 1796000000 + i * 0.731 + rnd(),
        },
        tool_result: {
          duration_s: rnd() * 40,
          score: rnd(),
          ratios: fs.slice(8),
          metrics: {
            p50: rnd() * 100,
            p99: ratio() * 1e3,
            loss: ratio() * 1e-7,
            tokens_per_s: float(Math.round(rnd() * 1e17)),
          },
          exit_code: 0,
        },
      };
    }
    case 'escapes':
      return {
        prompt: `Step ${i}: ${text(ESCAPY, 260)}`,
        tool_call: { name: 'bash', args: { command: text(ESCAPY, 200) } },
        tool_result: { stdout: text(ESCAPY, 300), stderr: '\u0000\u001f\u007f', exit_code: 1 },
      };
    case 'unicode':
      return {
        prompt: `Step ${i}: ${text(UNICODE, 160)}`,
        tool_call: { name: 'translate', args: { text: text(UNICODE, 60), to: 'ja' } },
        tool_result: { text: text(UNICODE, 120), clé: 'värde', 日本: i },
      };
    case 'nested':
      return {
        prompt: `Step ${i}: ${text(WORDS, 100)}`,
        tool_call: { name: 'patch', args: nested(40 + (i % 20), { path: `a/${i % 31}`, n: i }) },
        tool_result: nested(30, [true, false, null, i, 'ok']),
      };
    case 'bigints':
      return {
        prompt: `Step ${i}: ${text(WORDS, 150)}`,
        tool_call: {
          name: 'count',
          args: { ids: Array.from({ length: 12 }, (_, k) => 2n ** BigInt(53 + ((i + k) % 200)) + BigInt(i)) },
        },
        tool_result: {
          big: -(10n ** 40n) - BigInt(i),
          ints: Array.from({ length: 20 }, (_, k) => (k % 2 === 0 ? -1 : 1) * (i * 7919 + k * 104729)),
          max_safe: Number.MAX_SAFE_INTEGER,
        },
      };
    case 'long':
      return {
        prompt: `Step ${i}: ${'x'.repeat(80)}`,
        tool_call: { name: 'write_file', args: { path: `out/${i}.txt` } },
        tool_result: { content: `${text(WORDS, 1000)}${'a'.repeat(100 + (i % 50))}` },
      };
  }
}

const ROWS_PER_WRITE = 32;

/** Writes `n` rows of `shape` to `out`. */
export function makeJournal(out: string, n: number, shape: Shape = 'plain'): void {
  seed = 42;
  const fd = openSync(out, 'w');
  try {
    let prev = '0'.repeat(64);
    let buf: string[] = [];
    for (let i = 0; i < n; i++) {
      const input_hash = sha256Hex(`input ${i}`);
      const f = { prev_hash: prev, input_hash, model: 'claude-3-7-sonnet-20250219', ...fieldsOf(shape, i) };
      const step_hash = computeStepHash(f);
      const ts = 1796000000 + i * 0.731;
      buf.push(`${encodeRow({ ...f, blob_refs: [input_hash], seq: i, step_hash, ts })}\n`);
      prev = step_hash;
      // Written every few rows: a buffer of rows that outlives the young generation's collections is copied
      // into the old one and collected there (1,000 rows a write took ~60% more CPU for 120,000 rows).
      if (buf.length === ROWS_PER_WRITE) {
        writeSync(fd, buf.join(''));
        buf = [];
      }
    }
    writeSync(fd, buf.join(''));
  } finally {
    closeSync(fd);
  }
}

if (require.main === module) {
  const [, , out, nArg, shapeArg] = process.argv;
  const shape = (shapeArg ?? 'plain') as Shape;
  if (out === undefined || !SHAPES.includes(shape)) {
    console.error(`usage: make-journal.ts OUT [N] [${SHAPES.join('|')}]`);
    process.exit(2);
  }
  makeJournal(out, Number(nArg ?? 100000), shape);
}
