import { spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, ftruncateSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { lineTooLong, MAX_LINE_BYTES } from '../src/canonical';
import type { Fault } from '../src/journal';
import { Journal, journalDir } from '../src/journal';
import { buildReceipt, readTar, walkReceiptJournal } from '../src/receipt';
import { JournalWalker } from '../src/receipt/journal-walk';
import { cliPath } from './helpers/paths';
import { python3 } from './helpers/python';
import { chainRows, pushedWalk } from './helpers/long-lines';
import { tempDir } from './helpers/tmp';

/**
 * A line longer than the longest stepchain reads (MAX_LINE_BYTES, the longest string Node.js holds) is one
 * malformed line, said so, and never held in memory: `verify` of a file, `receipt verify` of a receipt walked in
 * place, and a receipt's journal pushed in pieces (a gzip receipt) all skip over it and walk on. Before, such a line
 * was read whole (two copies of it in memory, 2.6 GB for a 1 GB line in a 4 MB gzip receipt), said to be "invalid
 * UTF-8", and past 4 GB not read at all (exit 2, "cannot read: ERR_OUT_OF_RANGE"); a line of gigabytes also made
 * the parallel plan read it once per slice.
 */
jest.setTimeout(180000);

const root = tempDir('stepchain-long-lines-');
const BIG = MAX_LINE_BYTES + 64 * 1024 * 1024;

const rows = (): string[] => chainRows(root);

/** Writes `before` lines, then a line of `length` zero bytes (sparse: no disk), then `after` lines. */
function withHugeLine(file: string, before: string[], length: number, after: string[]): void {
  writeFileSync(file, before.map((l) => `${l}\n`).join(''));
  const fd = openSync(file, 'r+');
  try {
    const at = Buffer.byteLength(before.map((l) => `${l}\n`).join(''));
    ftruncateSync(fd, at + length);
  } finally {
    closeSync(fd);
  }
  appendFileSync(file, `\n${after.map((l) => `${l}\n`).join('')}`);
}

/** Runs the CLI; its exit code, output and peak RSS (MB, measured by Python's getrusage of its child). */
function run(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { code: number | null; out: string; err: string; mb: number } {
  const wrapper =
    'import resource, subprocess, sys\n' +
    'r = subprocess.run(sys.argv[1:], capture_output=True)\n' +
    'sys.stdout.buffer.write(r.stdout); sys.stderr.buffer.write(r.stderr)\n' +
    'sys.stderr.write("\\nmaxrss_kb=%d\\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n' +
    'sys.exit(r.returncode)\n';
  const r = spawnSync(python3(), ['-c', wrapper, process.execPath, cliPath, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  const m = /\nmaxrss_kb=(\d+)\n$/.exec(r.stderr);
  if (m === null) throw new Error(`no peak RSS from the wrapper: ${r.stderr}`);
  return { code: r.status, out: r.stdout, err: r.stderr.slice(0, m.index), mb: Number(m[1]) / 1024 };
}

describe('verify: a line longer than the longest read is one malformed line, skipped, the chain walked on', () => {
  const [a, b, c] = rows();
  const file = path.join(root, 'huge-line.jsonl');
  withHugeLine(file, [a!, b!], BIG, [c!]);
  const expected = `${file}:3: malformed_json: ${lineTooLong(BIG)}`;

  it.each([
    ['one thread', { STEPCHAIN_THREADS: '1' }],
    ['two threads (the plan cuts the file where there is no newline for gigabytes)', { STEPCHAIN_THREADS: '2' }],
    ['without the WebAssembly scanner', { STEPCHAIN_WASM: '0', STEPCHAIN_THREADS: '1' }],
  ])('%s', (_name, env) => {
    const r = run(['verify', file], env);
    expect([r.code, r.err.trim()]).toEqual([1, expected]);
    expect(r.out).toMatch(/^FAIL .*: 1 fault in 3 rows/);
    // Never held: far less than the line itself (it was read whole, twice over).
    expect(r.mb).toBeLessThan(300);
  });
});

/** A project whose journal `big` is a row, a line of BIG bytes, and the next row: it does not verify. */
function hugeLineProject(name: string): { project: string; file: string } {
  const [a, b] = rows();
  const project = path.join(root, name);
  const file = path.join(journalDir(project, 'big'), '000000.jsonl');
  Journal.open(journalDir(project, 'big'), { durability: 'none' });
  withHugeLine(file, [a!], BIG, [b!]);
  return { project, file };
}

describe('report of a journal that does not verify and is larger than a page embeds whole', () => {
  it('is refused naming the first fault, not read whole (it ended in an internal error after reading it all)', () => {
    const { project, file } = hugeLineProject('report-project');
    const out = path.join(root, 'report.html');
    const r = run(['report', 'big', '--root', project, '-o', out]);
    expect(r.code).toBe(1);
    expect(r.err.trim()).toMatch(
      new RegExp(
        `^stepchain: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: malformed_json: line of [\\d,]+ bytes: .*; the journal does not verify and, at \\d+ MB, is larger than a report page embeds whole \\(128 MB\\): embed a window of it with --max-steps N \\[--from SEQ\\], or list its faults with \`stepchain verify\`$`,
      ),
    );
    expect(existsSync(out)).toBe(false);
    expect(r.mb).toBeLessThan(300);
    // A window asked for is cut from the journal read whole: past what stepchain reads whole (512 MiB) there is none,
    // and the refusal says so (exit 1, the first fault named, no page), never an input error about the file's size.
    const windowed = run(['report', 'big', '--root', project, '-o', out, '--max-steps', '1']);
    expect([windowed.code, existsSync(out)]).toEqual([1, false]);
    expect(windowed.err.trim()).toMatch(
      new RegExp(
        `^stepchain: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: malformed_json: line of [\\d,]+ bytes: .*; the journal does not verify and, at \\d+ MB, is larger than stepchain reads whole \\(512 MB\\) to cut a window of it: list its faults with \`stepchain verify\`$`,
      ),
    );
  });
});

describe('export of a journal that does not verify and is large', () => {
  it('is refused naming the first fault, without reading it whole (it held 2.8 GB for a 668 MB file)', () => {
    const { project, file } = hugeLineProject('export-project');
    const out = path.join(root, 'big.receipt.tar');
    const r = run(['export', 'big', '--root', project, '-o', out]);
    expect(r.code).toBe(1);
    expect(r.err.trim()).toBe(`stepchain: ${file}:2: malformed_json: ${lineTooLong(BIG)}`);
    expect(existsSync(out)).toBe(false);
    expect(r.mb).toBeLessThan(300);
  });
});

describe('receipt verify of a plain receipt whose journal holds such a line (walked where it lies)', () => {
  it('one malformed line, said so, in bounded memory', () => {
    const [a, b] = rows();
    const dir = journalDir(root, 'receipt-src');
    Journal.open(dir, { durability: 'none' }).append({ prompt: 'p', model: 'm', ts: 1_700_000_000, tool_result: null });
    const members = readTar(buildReceipt(path.join(dir, '000000.jsonl')).bytes).filter((e) => e.type === 'file');
    const file = path.join(root, 'huge.receipt.tar');
    writeHugeMemberTar(
      file,
      members.filter((e) => !e.name.startsWith('journal/')),
      Buffer.from(`${a}\n${b}\n`),
      BIG,
    );
    const r = run(['receipt', 'verify', file]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${file}:journal/000000.jsonl:3: malformed_json: ${lineTooLong(BIG)}`);
    expect(r.mb).toBeLessThan(300);
  });
});

/** A ustar header of a regular file (Python's numeric style). */
function ustarHeader(name: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  const oct = (n: number, len: number): string => `${n.toString(8).padStart(len - 1, '0')}\0`;
  h.write(name, 0, 'latin1');
  h.write(oct(0o644, 8), 100, 'latin1');
  h.write(oct(0, 8), 108, 'latin1');
  h.write(oct(0, 8), 116, 'latin1');
  h.write(oct(size, 12), 124, 'latin1');
  h.write(oct(1_700_000_000, 12), 136, 'latin1');
  h.fill(0x20, 148, 156);
  h.write('0', 156, 'latin1');
  h.write('ustar\x0000', 257, 'latin1');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return h;
}

const padded = (n: number): number => Math.ceil(n / 512) * 512;

/**
 * A tar of the manifest's members, a journal member of `head` then `zeros` zero bytes (written sparse: no disk),
 * the other members after it, and the end of the archive.
 */
function writeHugeMemberTar(
  file: string,
  members: { name: string; data: Buffer }[],
  head: Buffer,
  zeros: number,
): void {
  const member = (m: { name: string; data: Buffer }): Buffer =>
    Buffer.concat([ustarHeader(m.name, m.data.length), m.data, Buffer.alloc(padded(m.data.length) - m.data.length)]);
  const first = members.filter((m) => m.name.startsWith('manifest'));
  const rest = members.filter((m) => !m.name.startsWith('manifest'));
  const size = head.length + zeros;
  writeFileSync(file, Buffer.concat([...first.map(member), ustarHeader('journal/000000.jsonl', size), head]));
  const fd = openSync(file, 'r+');
  try {
    const at = first.reduce((t, m) => t + 512 + padded(m.data.length), 0) + 512 + padded(size);
    ftruncateSync(fd, at);
    const after = Buffer.concat([...rest.map(member), Buffer.alloc(1024)]);
    writeSync(fd, after, 0, after.length, at);
  } finally {
    closeSync(fd);
  }
}

describe('a journal pushed in pieces (a gzip receipt): a line longer than the longest read passes by unread', () => {
  const [a, b, c] = rows();
  const strip = (fs: Fault[]): Fault[] => fs.map((f) => ({ ...f, message: '' }));

  it('the walk is the whole-bytes walk of the same journal with that line a short malformed one', () => {
    const max = 1000; // rows are ~350 bytes
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(a!, b!, c!, '', '{"x": 1'), fc.integer({ min: max + 1, max: 3 * max })), {
          maxLength: 8,
        }),
        fc.boolean(),
        fc.integer({ min: 16, max }),
        fc.array(fc.integer({ min: 1, max: 2000 }), { maxLength: 12 }),
        (parts, lastNewline, slice, cuts) => {
          const line = (p: string | number): string => (typeof p === 'number' ? 'y'.repeat(p) : p);
          const text = parts.map(line).join('\n') + (lastNewline && parts.length > 0 ? '\n' : '');
          const buf = Buffer.from(text);
          const walked = pushedWalk(buf, cuts, slice, Number.MAX_SAFE_INTEGER, max);
          const model = Buffer.from(
            parts.map((p) => (typeof p === 'number' ? '{' : p)).join('\n') +
              (lastNewline && parts.length > 0 ? '\n' : ''),
          );
          const whole = walkReceiptJournal(model);
          // (Whether a journal with no steps is said to be empty is each walk's own rule: not compared.)
          const own = (fs: Fault[]): Fault[] => strip(fs.filter((f) => f.kind !== 'empty_journal'));
          expect({ ...walked, faults: own(walked.faults) }).toEqual({ ...whole, faults: own(whole.faults) });
        },
      ),
      { numRuns: 300, seed: 1205 },
    );
  });

  it('says what it is, with carriage returns in it or not, and at the end with no newline', () => {
    const text = `${a}\n${'z'.repeat(250)}\r${'z'.repeat(250)}\n${b}\n${'q'.repeat(450)}`;
    const walker = new JournalWalker(32, Number.MAX_SAFE_INTEGER, 400);
    for (let i = 0; i < text.length; i += 7) walker.push(Buffer.from(text.slice(i, i + 7)));
    const r = walker.finish();
    expect(r.faults).toEqual([
      { line: 2, kind: 'malformed_json', message: lineTooLong(501, 400) },
      { line: 4, kind: 'malformed_json', message: lineTooLong(450, 400) },
    ]);
    expect(r.steps).toBe(2);
  });
});
