import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expandFaults, Journal, verifyJournalBytes, verifyJournalFile } from '../src/journal';
import { tempDir } from './helpers/tmp';

const root = tempDir();
let n = 0;
function journalWith(steps: number): { file: string; lines: string[] } {
  const dir = path.join(root, '.sdd', 'runtime', 'journal', `agent-${n++}`);
  const j = Journal.open(dir, { durability: 'none' });
  for (let i = 0; i < steps; i++) {
    j.append({
      input: Buffer.from(`in ${i}`),
      model: 'm',
      prompt: `p${i}`,
      tool_call: { name: 't', args: { i } },
      tool_result: { ok: true },
      ts: 1700000000 + i,
    });
  }
  const lines = j.read().entries.map((e) => e.bytes.toString('utf8'));
  return { file: j.file, lines };
}
const kinds = (b: Buffer, strict = false): [number | null, string][] =>
  expandFaults(verifyJournalBytes(b, { strict }).errors).map((e) => [e.line, e.kind]);
const join = (lines: string[]): Buffer => Buffer.from(lines.map((l) => `${l}\n`).join(''));

describe('verify reports every fault with its line and kind', () => {
  const { lines } = journalWith(5);

  it('an intact chain', () => {
    const r = verifyJournalBytes(join(lines), { strict: true });
    expect(r.ok).toBe(true);
    expect(r.steps).toBe(5);
  });

  it('a field tamper is a step_hash_mismatch at its line only', () => {
    const t = [...lines];
    t[2] = t[2]!.replace('"p2"', '"P2"');
    expect(kinds(join(t))).toEqual([[3, 'step_hash_mismatch']]);
  });

  it('a deleted row is a chain break at the next line, and every later row is a seq_mismatch (the reference counts rows)', () => {
    const t = [...lines];
    t.splice(1, 1);
    expect(kinds(join(t))).toEqual([
      [2, 'seq_mismatch'],
      [2, 'prev_hash_mismatch'],
      [3, 'seq_mismatch'],
      [4, 'seq_mismatch'],
    ]);
  });

  it('swapped rows', () => {
    const t = [lines[0]!, lines[2]!, lines[1]!, lines[3]!, lines[4]!];
    const k = kinds(join(t)).map((x) => x[1]);
    expect(k).toContain('seq_mismatch');
    expect(k).toContain('prev_hash_mismatch');
  });

  it('malformed lines do not advance the chain', () => {
    const t = [lines[0]!, '{"not":"closed"', lines[1]!, '[1,2]', 'null', lines[2]!];
    expect(kinds(join(t))).toEqual([
      [2, 'malformed_json'],
      [4, 'malformed_json'],
      [5, 'malformed_json'],
    ]);
  });

  it('invalid UTF-8 is malformed', () => {
    const bad = Buffer.concat([Buffer.from(`${lines[0]}\n`), Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a])]);
    expect(kinds(bad)).toEqual([[2, 'malformed_json']]);
  });

  it('a row missing a key or with wrong types is malformed (the field named), and still walked', () => {
    const obj = JSON.parse(lines[0]!) as Record<string, unknown>;
    delete obj.tool_call;
    expect(kinds(join([JSON.stringify(obj)]))).toEqual([[1, 'malformed_json']]);
    const obj2 = { ...(JSON.parse(lines[0]!) as Record<string, unknown>), seq: '0' };
    expect(kinds(join([JSON.stringify(obj2)]))).toEqual([[1, 'malformed_json']]);
  });

  it('a non-canonical line verifies, and strict mode reports it', () => {
    const obj = JSON.parse(lines[0]!) as Record<string, unknown>;
    const spaced = JSON.stringify(obj, null, 1).replace(/\n/g, '');
    expect(kinds(join([spaced, ...lines.slice(1)]))).toEqual([]);
    expect(kinds(join([spaced, ...lines.slice(1)]), true)).toEqual([[1, 'non_canonical']]);
  });

  it('a missing trailing newline verifies, strict mode reports it', () => {
    const b = Buffer.from(lines.join('\n'));
    expect(kinds(b)).toEqual([]);
    expect(kinds(b, true)).toEqual([[5, 'non_canonical']]);
  });

  it('a journal of blank lines only is a fault; an empty file is a journal with no steps yet (docs/journal.md)', () => {
    expect(kinds(Buffer.from(' \n\r\n\t\n'))).toEqual([[null, 'empty_journal']]);
    expect(kinds(Buffer.alloc(0))).toEqual([]);
  });

  it('a blank line is skipped, as the reference skips it; strict mode notes it', () => {
    expect(kinds(join([lines[0]!, '', lines[1]!]))).toEqual([]);
    expect(kinds(join([lines[0]!, '', lines[1]!]), true)).toEqual([[2, 'non_canonical']]);
  });

  it('head is the last stored step_hash; expected head is checked', () => {
    const last = JSON.parse(lines[4]!) as { step_hash: string };
    const r = verifyJournalBytes(join(lines), { expectedHead: last.step_hash });
    expect(r.head_hash).toBe(last.step_hash);
    expect(r.ok).toBe(true);
  });

  it('a 100 MB single line is a fault, not a crash', () => {
    const dir = path.join(root, 'big');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, '000000.jsonl');
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from(`${lines[0]}\n{"prompt":"`),
        Buffer.alloc(100 * 1024 * 1024, 0x61),
        Buffer.from('\n'),
      ]),
    );
    const r = verifyJournalFile(file);
    expect(r.errors.map((e) => [e.line, e.kind])).toEqual([[2, 'malformed_json']]);
    expect(r.steps).toBe(1);
  });
});
