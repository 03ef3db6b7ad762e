import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, verifyJournalFile, type TornTailMoved } from '../src/journal';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { tempDir } from './helpers/tmp';

/**
 * The torn-tail rule (docs/journal.md, "Recovery on open"), through the built
 * CLI: only bytes after the last line ending, or a final line that does not parse
 * as JSON at all, are a torn tail (moved aside, said on stderr); a complete final
 * row that parses but does not verify is refused, naming the file and line, and
 * nothing is written.
 */
const root = tempDir();
let n = 0;
function fresh(steps = 3): Journal {
  const dir = path.join(root, '.sdd', 'runtime', 'journal', `t-${n++}`);
  const j = Journal.open(dir, { durability: 'none' });
  for (let i = 0; i < steps; i++) j.append({ prompt: `step ${i}`, tool_result: { i } });
  return j;
}
const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');
const tornFiles = (j: Journal): string[] => readdirSync(j.dir).filter((f) => f.includes('.torn-'));
// The rule's logic is the point: through runCli in this process (`cliInProcess`, the code the bundle runs); the
// notice a terminal shows is the real process's stderr (below).
const append = (j: Journal) => cliInProcess(['append', j.dir, '--prompt', 'next', '--no-snapshot'], { cwd: root });

/** Rewrites the last row with a JSON edit (the line stays complete, with its newline). */
function editLastRow(j: Journal, edit: (row: Record<string, unknown>) => string): void {
  const lines = readFileSync(j.file, 'utf8').split('\n').slice(0, -1);
  lines[lines.length - 1] = edit(JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>);
  writeFileSync(j.file, lines.map((l) => `${l}\n`).join(''));
}
const json = (o: Record<string, unknown>): string => JSON.stringify(o);

describe('a complete final row that parses is judged as a row: refused when it does not verify', () => {
  const cases: [string, (r: Record<string, unknown>) => string, string][] = [
    ['a missing key', (r) => json({ ...r, tool_call: undefined }), 'no "tool_call" key'],
    ['seq -1', (r) => json({ ...r, seq: -1 }), 'seq_mismatch'],
    ['seq "0"-like string', (r) => json({ ...r, seq: String(r.seq) }), '"seq" is not an integer'],
    ['prev_hash null', (r) => json({ ...r, prev_hash: null }), '"prev_hash" is not a string'],
    ['ts of the wrong type', (r) => json({ ...r, ts: 'noon' }), '"ts" is not a number'],
    ['a leading BOM', (r) => `\ufeff${json(r)}`, 'malformed_json'],
    ['a field tamper', (r) => json({ ...r, prompt: 'tampered' }), 'step_hash_mismatch'],
    ['a JSON value that is no object', () => '[1, 2, 3]', 'not a JSON object'],
    [
      'nesting deeper than the limit',
      (r) => json({ ...r, tool_call: JSON.parse(`${'['.repeat(950)}${']'.repeat(950)}`) }),
      'nested deeper',
    ],
  ];
  it.each(cases)('%s: exit 1, file:line named, nothing written, nothing moved', async (_name, edit, why) => {
    const j = fresh(3);
    editLastRow(j, edit);
    const digest = sha(j.file);
    const r = await append(j);
    expectNoStack(r);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${j.file}:3: `);
    expect(r.stderr).toContain(why);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(sha(j.file)).toBe(digest);
    expect(tornFiles(j)).toEqual([]);
  });

  it('two lines that do not parse at the end are no torn write: refused', async () => {
    const j = fresh(2);
    writeFileSync(j.file, `${readFileSync(j.file, 'utf8')}{"blob_refs":[],"in\n{"blob_`);
    const digest = sha(j.file);
    const r = await append(j);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${j.file}:3: malformed_json`);
    expect(r.stderr).toContain('a torn write leaves at most one');
    expect(sha(j.file)).toBe(digest);
  });

  it('a line that does not parse, followed by one that does, is interior corruption', async () => {
    const j = fresh(3);
    const lines = readFileSync(j.file, 'utf8').split('\n');
    lines[1] = lines[1]!.slice(0, 40);
    writeFileSync(j.file, lines.join('\n'));
    const r = await append(j);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${j.file}:2: malformed_json`);
    expect(r.stderr).toContain('interior corruption: line 3 after it parses');
  });
});

describe('a torn tail is moved aside, and the operator is told', () => {
  const cases: [string, (text: string) => string][] = [
    ['a row cut short (no newline)', (t) => `${t}{"blob_refs":[],"input_hash":"e3b0`],
    ['NUL padding after the last newline (power loss)', (t) => `${t}${'\0'.repeat(4096)}`],
    ['a NUL-padded final line with its newline', (t) => `${t}${'\0'.repeat(100)}\n`],
    ['a cut row that still got a newline', (t) => `${t}{"blob_refs":[],"input_ha\n`],
    ['whitespace after the last newline', (t) => `${t}   `],
  ];
  it.each(cases)('%s', async (_name, damage) => {
    const j = fresh(3);
    const before = readFileSync(j.file, 'utf8');
    const damaged = damage(before);
    writeFileSync(j.file, damaged);
    const r = await append(j);
    expectNoStack(r);
    expect(r.code).toBe(0);
    const side = tornFiles(j);
    expect(side).toHaveLength(1);
    const sideFile = path.join(j.dir, side[0]!);
    const moved = Buffer.byteLength(damaged) - Buffer.byteLength(before);
    expect(readFileSync(sideFile, 'utf8')).toBe(damaged.slice(before.length));
    expect(r.stderr).toContain(`${j.file}: moved a torn tail of ${moved} byte${moved === 1 ? '' : 's'}`);
    expect(r.stderr).toContain(sideFile);
    const v = verifyJournalFile(j.file, { strict: true });
    expect(v.errors).toEqual([]);
    expect(v.steps).toBe(4);
    expect(readFileSync(j.file, 'utf8').startsWith(before)).toBe(true);
  });

  it('the notice is one line the terminal shows, whatever the path holds', () => {
    const hostile = path.join(root, 'proj\u001b]52;c;UFdORUQ=\u0007\n\u202eevil');
    const dir = path.join(hostile, '.sdd', 'runtime', 'journal', 'h');
    const j = Journal.open(dir, { durability: 'none' });
    j.append({ prompt: 'one' });
    writeFileSync(j.file, `${readFileSync(j.file, 'utf8')}{"blob_refs":[],"in`);
    const r = cli(['append', j.dir, '--prompt', 'next', '--no-snapshot'], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(r.stderr).toContain('proj\\x1b]52;c;UFdORUQ=\\x07\\n\\u202eevil');
    expect(r.stderr).toContain('moved a torn tail of 19 bytes');
  });

  it('a complete row that only lost its newline is kept, the newline written, nothing said', async () => {
    const j = fresh(2);
    const before = readFileSync(j.file, 'utf8');
    writeFileSync(j.file, before.slice(0, -1));
    const r = await append(j);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(tornFiles(j)).toEqual([]);
    expect(verifyJournalFile(j.file, { strict: true })).toMatchObject({ ok: true, steps: 3 });
  });

  it('blank lines the reference skips are kept, and the next row chains on', async () => {
    const j = fresh(2);
    writeFileSync(j.file, `${readFileSync(j.file, 'utf8')}\n \r\n`);
    const r = await append(j);
    expect(r.code).toBe(0);
    expect(tornFiles(j)).toEqual([]);
    expect(verifyJournalFile(j.file)).toMatchObject({ ok: true, steps: 3 });
  });

  it('the library says it through onTornTail (default: a line on stderr)', () => {
    const j = fresh(2);
    writeFileSync(j.file, `${readFileSync(j.file, 'utf8')}{"blob_`);
    const told: TornTailMoved[] = [];
    const again = Journal.open(j.dir, { durability: 'none', onTornTail: (m) => told.push(m) });
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ file: j.file, bytes: 7 });
    expect(readFileSync(told[0]!.sideFile, 'utf8')).toBe('{"blob_');
    expect(again.append({ prompt: 'x' }).seq).toBe(2);
  });
});
