// Writes a realistic journal of N steps (~1.3 KB a row) for the benchmarks:
// prompts with non-ASCII text, nested tool calls, tool results with escapes.
// Rows are hashed with node:crypto over the canonical payload; the values are
// chosen so JSON.stringify with sorted keys is already canonical except for
// non-ASCII (escaped below), ints, and floats written with a fraction.
import { createHash } from 'node:crypto';
import { openSync, writeSync, closeSync } from 'node:fs';

const [, , out, nArg] = process.argv;
const n = Number(nArg ?? 100000);
const esc = (s) =>
  JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const enc = (v) => {
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return esc(v);
  if (Array.isArray(v)) return `[${v.map(enc).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${esc(k)}:${enc(v[k])}`)
    .join(',')}}`;
};
const sha = (s) => createHash('sha256').update(s).digest('hex');
const words = 'the agent reads the file and runs the tests then edits the function résumé naïve 日本 ✓'.split(' ');
let seed = 42;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const text = (len) => {
  let s = '';
  while (s.length < len) s += `${words[Math.floor(rnd() * words.length)]} `;
  return s.slice(0, len);
};
const fd = openSync(out, 'w');
let prev = '0'.repeat(64);
let buf = [];
for (let i = 0; i < n; i++) {
  const fields = {
    input_hash: sha(`input ${i}`),
    model: 'claude-3-7-sonnet-20250219',
    prev_hash: prev,
    prompt: `Step ${i}: ${text(210)}`,
    tool_call: { name: 'edit_file', args: { path: `src/module_${i % 97}.py`, line: i % 400, patch: text(110) } },
    tool_result: { exit_code: 0, stdout: `${text(210)}\n"quoted"\ttab`, lines_changed: i % 13 },
  };
  const payload = enc(fields);
  const step = sha(payload);
  // The row is the payload with blob_refs, seq, step_hash and ts put in their sorted places: encoding it
  // again was half of this script's time. `,"tool_call":` cannot occur inside an encoded string (quotes are
  // escaped there), so the first one is the key.
  const cut = payload.indexOf(',"tool_call":');
  const ts = (1796000000 + i * 0.731).toFixed(6).replace(/0+$/, '').replace(/\.$/, '.0');
  const line = `{"blob_refs":[${esc(fields.input_hash)}],${payload.slice(1, cut)},"seq":${i},"step_hash":"${step}"${payload.slice(cut, -1)},"ts":${ts}}`;
  buf.push(`${line}\n`);
  prev = step;
  if (buf.length === 1000) {
    writeSync(fd, buf.join(''));
    buf = [];
  }
}
writeSync(fd, buf.join(''));
closeSync(fd);
