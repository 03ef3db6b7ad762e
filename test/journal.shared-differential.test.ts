/**
 * Whether the bytes a command walks lie in shared memory (walkableBuffer: a threshold of one byte, two threads) or in
 * ordinary memory (one thread) changes nothing the bin prints: stdout, stderr and exit code byte for byte, over
 * generated journals (random line edits, every framing: CRLF, bare CR, blank lines, a torn tail, a BOM, bytes that
 * are not UTF-8, empty files) checked against a base, a journal of exactly the threshold and one byte under it, and
 * receipts of them (edited inside the journal member, gzipped, with a pax header or other members before the
 * journal, cut short, empty) read by `receipt verify`, `diff`, `show` and `replay`. The seed is printed (and taken
 * from STEPCHAIN_TEST_SEED), so a failure can be replayed.
 */
import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalFile } from '../src/journal';
import { prEvent, prScenario, runAction, type ActionResult } from './helpers/action';
import { setChunkWorkerEntry } from '../src/journal/parallel';
import { CHUNK_WORKER_SOURCE } from '../src/journal/worker/source.generated';
import { cli, type CliResult } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { commitAll, emptyRepo } from './helpers/git';
import { applyEdits, lineEdit, LINE_MUTATIONS, testSeed } from './helpers/journal-edits';
import { writeSyntheticJournal } from './helpers/journal-rows';
import { cliChangedWhilePaused } from './helpers/proc';
import { paxMember, rawTar } from './helpers/tar';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-shared-diff-');
const seed = testSeed();
const shared = { STEPCHAIN_PARALLEL_MIN_BYTES: '1', STEPCHAIN_THREADS: '2' };
const ordinary = { STEPCHAIN_THREADS: '1' };

/**
 * `stepchain <args>` in this process as the bin runs it: with the bin's worker-thread script (src/cli/index.ts), so
 * a walk is shared among threads as there, and `env` in process.env too (a module may read either, as the bin's do).
 * A Node start per command was most of this file's time (46 of them); the bin itself is run in the first test (the
 * same report as in this process), the receipt that changes while paused and the Action.
 */
async function inProcess(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  setChunkWorkerEntry({ source: CHUNK_WORKER_SOURCE });
  try {
    return await cliInProcess(args, { cwd, env });
  } finally {
    setChunkWorkerEntry(undefined);
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

/** Runs `args` in shared and in ordinary memory and expects the same report, byte for byte; returns it. */
async function same(args: string[], cwd: string, env: NodeJS.ProcessEnv = shared): Promise<CliResult> {
  const a = await inProcess(args, cwd, env);
  const b = await inProcess(args, cwd, ordinary);
  expect({ args, code: a.code, stderr: a.stderr, stdout: a.stdout }).toEqual({ args, ...b });
  return a;
}

/** Rows the fast-path mutations know (escapes, ratios, ok flags), so each mutation finds something to change. */
function writeJournal(file: string, n: number, tag: string): void {
  writeSyntheticJournal(file, n, (seq) => ({
    model: seq % 3 === 0 ? null : 'm',
    prompt: `${tag}${seq} r\u00e9sum\u00e9\t/${'x'.repeat(seq % 50)}`,
    tool_call: { name: 'edit', args: { ok: seq % 2 === 0, ratio: seq % 4 === 0 ? 0.25 : 1.5 } },
    tool_result: seq % 5 === 0 ? null : { ok: true, ratio: 1.0 },
    ts: 1_700_000_000 + seq / 4,
  }));
}

/** Whole-file framings: each applied to a journal's bytes. */
const FRAMINGS: ((b: Buffer) => Buffer)[] = [
  (b) => Buffer.from(b.toString('latin1').replaceAll('\n', '\r\n'), 'latin1'),
  (b) => Buffer.from(b.toString('latin1').replace('\n', '\r'), 'latin1'),
  (b) => Buffer.from(b.toString('latin1').replaceAll('}\n{', '}\n\n \n{'), 'latin1'),
  (b) => b.subarray(0, b.length - 37),
  (b) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]),
  (b) => Buffer.concat([b.subarray(0, 300), Buffer.from([0xff, 0xc0, 0x00]), b.subarray(303)]),
  () => Buffer.alloc(0),
  () => Buffer.from('\n'),
  (b) => b,
];

test(`check of generated journals reports the same in shared and ordinary memory (seed ${seed})`, async () => {
  const root = emptyRepo(path.join(tmp, 'repo'));
  const ids = Array.from({ length: 9 }, (_, i) => `j${i}`);
  for (const id of ids) writeJournal(journalFile(root, id), 30 + 7 * Number(id.slice(1)), id);
  const base = commitAll(root, 'base');
  const edits = fc.sample(fc.array(lineEdit(LINE_MUTATIONS.length, 30), { minLength: 0, maxLength: 3 }), {
    seed,
    numRuns: ids.length,
  });
  ids.forEach((id, i) => {
    const file = journalFile(root, id);
    const lines = readFileSync(file, 'utf8').split('\n').slice(0, -1);
    // Half are edited line by line, the rest framed whole (with a few more rows appended first: still append-only).
    const bytes = i % 2 === 0 ? applyEdits(lines, LINE_MUTATIONS, edits[i]!, i % 4 === 0) : readFileSync(file);
    writeFileSync(file, FRAMINGS[(i + (seed % FRAMINGS.length)) % FRAMINGS.length]!(bytes));
  });
  // A journal new since the base, and one over the threshold by exactly its size.
  writeJournal(journalFile(root, 'fresh'), 90, 'f');
  for (const args of [
    ['check', '--json', '--allow-empty', '--base', base],
    ['check', '--allow-empty', '--base', base],
  ]) {
    const r = await same(args, root);
    // The bin prints what the command printed in this process (here in shared memory).
    if (args[1] === '--json') expect(cli(args, { cwd: root, env: shared })).toEqual(r);
  }
  // The threshold at a journal's exact size (that one shared, the smaller not) and one byte over it (none shared).
  const size = statSync(journalFile(root, 'fresh')).size;
  // The line scanner in JavaScript (no WebAssembly) reads shared bytes as it reads ordinary ones.
  await same(['check', '--json', '--allow-empty'], root, { ...shared, STEPCHAIN_WASM: '0' });
  for (const min of [size, size + 1])
    await same(['check', '--json', '--allow-empty'], root, {
      STEPCHAIN_PARALLEL_MIN_BYTES: String(min),
      STEPCHAIN_THREADS: '2',
    });
});

test(`receipts read into shared and ordinary memory read the same (seed ${seed})`, async () => {
  const root = emptyRepo(path.join(tmp, 'receipts'));
  writeJournal(journalFile(root, 'a'), 120, 'a');
  writeJournal(journalFile(root, 'b'), 120, 'a');
  const dir = path.join(tmp, 'out');
  mkdirSync(dir, { recursive: true });
  const good = path.join(dir, 'a.tar');
  // Set-up, in this process (the bin's start is tested above; the exporter is not what this file is about).
  expect((await cliInProcess(['export', 'a', '-o', good], { cwd: root })).code).toBe(0);
  const tar = readFileSync(good);
  // The journal member's header and data (the rest of the archive around it, as exported).
  const members = tarMembers(tar);
  const journal = members.find((m) => m.name.endsWith('.jsonl'))!;
  expect(journal).toBeDefined();
  const rng = fc.sample(fc.tuple(fc.nat(journal.size - 1), fc.integer({ min: 0x20, max: 0x7e })), { seed, numRuns: 2 });
  const variants: Record<string, Buffer> = {
    'good.tar': tar,
    'good.tar.gz': gzipSync(tar),
    // Members before the journal: a pax header naming it, and a member of its own ahead of everything.
    'pax.tar': Buffer.concat([
      rawTar([paxMember({ comment: 'x'.repeat(333) }), { name: 'zz-extra.txt', data: 'y'.repeat(777) }], false),
      tar,
    ]),
    'cut.tar': tar.subarray(0, journal.dataAt + Math.floor(journal.size / 2)),
    'empty.tar': Buffer.alloc(0),
  };
  rng.forEach(([at, byte], k) => {
    const edited = Buffer.from(tar);
    edited[journal.dataAt + at] = byte;
    variants[`edited${k}.tar`] = edited;
  });
  for (const [name, bytes] of Object.entries(variants)) writeFileSync(path.join(dir, name), bytes);
  for (const name of Object.keys(variants)) {
    const f = path.join(dir, name);
    await same(['show', '--json', f, '7'], root);
    // An archive cut short or empty is refused before any walk: `show` says what `diff` would.
    if (/^(cut|empty)\./.test(name)) continue;
    await same(['diff', f, good], root);
    if (!/^(good|pax)\.tar/.test(name)) continue;
    await same(['receipt', 'verify', '--json', f], root);
    await same(['replay', '--json', f], root);
  }
});

test('a receipt that grows or shrinks between its size and its read reads as what was read, in either memory', async () => {
  const root = emptyRepo(path.join(tmp, 'moving'));
  writeJournal(journalFile(root, 'small'), 60, 's');
  writeJournal(journalFile(root, 'large'), 400, 'l');
  const small = path.join(tmp, 'small.tar');
  const large = path.join(tmp, 'large.tar');
  for (const [id, f] of [
    ['small', small],
    ['large', large],
  ] as const)
    // Set-up, in this process, as above.
    expect((await cliInProcess(['export', id, '-o', f], { cwd: root })).code).toBe(0);
  const moving = path.join(tmp, 'moving.tar');
  let n = 0;
  for (const [from, to] of [
    [small, large],
    [large, small],
  ] as const) {
    // What the file holds when it is read is what every command reports (read to its end, however it was measured):
    // the bin's report of the file at rest, as this process makes it (the same code; a Node start saved).
    const direct = await cliInProcess(['show', '--json', to, '9'], { env: ordinary });
    expect(direct.code).toBe(0);
    for (const env of [shared, ordinary]) {
      writeFileSync(moving, readFileSync(from));
      const r = await cliChangedWhilePaused(
        ['show', '--json', moving, '9'],
        'receipt:measured',
        path.join(tmp, `resume-${++n}`),
        () => writeFileSync(moving, readFileSync(to)),
        env,
      );
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 0,
        stdout: direct.stdout,
        stderr: direct.stderr.split('\n').filter((l) => l !== ''),
      });
    }
  }
});

interface TarMember {
  name: string;
  size: number;
  dataAt: number;
}

/** The plain ustar members of an archive the exporter wrote (names and where their data lies). */
function tarMembers(tar: Buffer): TarMember[] {
  const out: TarMember[] = [];
  for (let at = 0; at + 512 <= tar.length;) {
    const name = tar.toString('latin1', at, at + 100).replace(/\0.*$/s, '');
    if (name === '') break;
    const size = parseInt(
      tar
        .toString('latin1', at + 124, at + 136)
        .replace(/\0.*$/s, '')
        .trim(),
      8,
    );
    out.push({ name, size, dataAt: at + 512 });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

test('the Action in verify mode reports the same in shared and ordinary memory', async () => {
  // One pull request (one commit: the report names it) run twice: a journal appended to with CRLF framing, one
  // edited in place (the chain breaks at a line).
  const { dir, base } = prScenario(path.join(tmp, 'action', 'pr'));
  const alice = journalFile(dir, 'alice');
  writeFileSync(alice, readFileSync(alice, 'latin1').replaceAll('\n', '\r\n'), 'latin1');
  const bob = journalFile(dir, 'bob');
  writeFileSync(bob, readFileSync(bob, 'utf8').replace('"seq":1,', '"seq":1 ,'));
  commitAll(dir, 'pr');
  const run = (env: Record<string, string>): Promise<ActionResult> =>
    runAction({ workspace: dir, scratch: path.join(tmp, 'scratch'), event: prEvent(dir, base), env });
  // The report and heads files are named by the run's temporary directory: their contents are compared instead.
  const read = (r: ActionResult): unknown[] => {
    const { report, 'heads-file': heads, ...outputs } = r.outputs;
    return [r.code, r.annotations, outputs, readFileSync(report!, 'utf8'), readFileSync(heads!, 'utf8')];
  };
  const a = await run(shared);
  expect(a.annotations.length).toBeGreaterThan(0);
  expect(read(a)).toEqual(read(await run(ordinary)));
});
