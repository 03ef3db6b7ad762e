import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Journal, journalDir, journalFile } from '../src/journal';
import { buildReceipt } from '../src/receipt';
import { RecycledOutput } from '../src/receipt/inflate-recycle';
import { verifyReceiptFile } from '../src/receipt/stream-verify';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * Faults found by reviewing today's changes, each a real process. The bin writes a line to the descriptor itself
 * while Node has not made the stream (src/cli/io.ts): a reader gone from one stream must not take the other
 * stream's output with it, as it did not when every line went through the stream (whose error came a tick later).
 */
const root = tempDir('stepchain-review66-');
const project = path.join(root, 'p');
mkdirSync(project);
const bare: NodeJS.ProcessEnv = { ...process.env, STEPCHAIN_AUDIT: 'off' };
delete bare.NODE_EXTRA_CA_CERTS;
// Appended with one checkpoint key and verified with another path, which holds none: verify warns on stderr
// ("rollback not checked"), then says OK on stdout.
const appended = spawnSync(process.execPath, [cliPath, 'append', 'a', '--model', 'm', '--prompt', 'p'], {
  env: { ...bare, STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(root, 'key-a') },
  cwd: project,
  encoding: 'utf8',
});
if (appended.status !== 0) throw new Error(`append failed: ${appended.stderr}`);
const env: NodeJS.ProcessEnv = { ...bare, STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(root, 'key-b') };
// Its receipt with the step's prompt changed (same length): a step_hash_mismatch line on stderr.
const tampered = path.join(root, 'tampered.tar');
const exported = spawnSync(process.execPath, [cliPath, 'export', 'a', '-o', path.join(root, 'r.tar')], {
  env: { ...bare, STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(root, 'key-a') },
  cwd: project,
  encoding: 'utf8',
});
if (exported.status !== 0) throw new Error(`export failed: ${exported.stderr}`);
writeFileSync(
  tampered,
  Buffer.from(
    readFileSync(path.join(root, 'r.tar')).toString('latin1').replace('"prompt":"p"', '"prompt":"q"'),
    'latin1',
  ),
);

/**
 * Runs the bin with one of its streams a pipe whose reader has gone (closed before the bin starts: EPIPE on its
 * first write, no race with a reader that is slow to close), the other captured. python3 makes the pipe: node's
 * spawn has no bare pipe to give.
 */
function withReaderGone(stream: 'stdout' | 'stderr', argv: string[]): { code: number; kept: string } {
  const script = [
    'import os, subprocess, sys, json',
    'r, w = os.pipe(); os.close(r)',
    `gone = ${JSON.stringify(stream)}`,
    'p = subprocess.run(sys.argv[1:], stdout=w if gone == "stdout" else subprocess.PIPE,',
    '    stderr=w if gone == "stderr" else subprocess.PIPE, stdin=subprocess.DEVNULL)',
    'kept = p.stderr if gone == "stdout" else p.stdout',
    'print(json.dumps({"code": p.returncode, "kept": kept.decode()}))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', script, process.execPath, cliPath, ...argv], {
    env,
    cwd: project,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { code: number; kept: string };
}

describe('one standard stream that cannot be written (its reader gone, a full device)', () => {
  test('stderr gone: the verdict still reaches stdout, the exit is 141 (as when lines went through the stream)', () => {
    const r = withReaderGone('stderr', ['verify', 'a']);
    expect(r.kept).toMatch(/^OK .*000000\.jsonl: 1 step, head [0-9a-f]{64}\n$/);
    expect(r.code).toBe(141);
  });

  test('stderr gone under --json: the document after a fault line still reaches stdout, exit 141', () => {
    // receipt verify names each fault on stderr, then writes the document: both in the same turn of the loop.
    const r = withReaderGone('stderr', ['receipt', 'verify', tampered, '--json']);
    expect(JSON.parse(r.kept)).toMatchObject({ ok: false, steps: 1 });
    expect(r.code).toBe(141);
  });

  test('stdout gone: the warning said before it is on stderr, no stack trace, exit 141', () => {
    const r = withReaderGone('stdout', ['verify', 'a']);
    expect(r.kept).toMatch(/^stepchain: .*warning: rollback not checked: no checkpoint key/);
    expect(r.kept).not.toMatch(/\n {4}at /);
    expect(r.code).toBe(141);
  });

  test('stdout gone under --json: the document is not made, exit 141 at once, stderr quiet', () => {
    const r = withReaderGone('stdout', ['verify', 'a', '--json']);
    expect(r.code).toBe(141);
    expect(r.kept).not.toMatch(/\n {4}at /);
  });

  test('stderr a full device (/dev/full, ENOSPC): the verdict still reaches stdout, exit 1', () => {
    const full = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [cliPath, 'verify', 'a'], {
        env,
        cwd: project,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', full],
      });
      expect(r.stdout).toMatch(/^OK .*000000\.jsonl: 1 step, head [0-9a-f]{64}\n$/);
      expect(r.status).toBe(1);
    } finally {
      closeSync(full);
    }
  });
});

/**
 * The gzip's trailer sizes the inflater's piece (stream-verify.ts, inflatedSizeHint): a large receipt gzipped in
 * two members, or followed by zero padding (both read as receipts), has a trailer that is not the file's, and was
 * inflated in 64 KiB pieces where one member is inflated in 4 MiB ones: a 47 MB gzip of 120 MB so, 0.35 -> 0.55 s
 * of wall time (two members, medians of 7). The size of the inflater's output buffers (handed to RecycledOutput) is
 * its piece.
 */
describe("a large gzip whose trailer is not the whole file's (two members, zero padding)", () => {
  const dir = journalDir(root, 'big');
  const j = Journal.open(dir, { durability: 'none' });
  // ~6 MB that deflate does not shrink much: the gzip is larger than the piece.
  j.append({ prompt: randomBytes(4_500_000).toString('base64'), model: 'm', ts: 1_700_000_000 });
  const tar = buildReceipt(journalFile(root, 'big')).bytes;
  const cut = tar.length - 1536;
  const variants: [string, Buffer][] = [
    ['one member', gzipSync(tar)],
    ['two members', Buffer.concat([gzipSync(tar.subarray(0, cut)), gzipSync(tar.subarray(cut))])],
    ['zero padding', Buffer.concat([gzipSync(tar), Buffer.alloc(1024)])],
  ];

  it.each(variants)('%s: the same verdict, inflated in 4 MiB pieces', async (name, data) => {
    const file = path.join(root, `${name.replace(' ', '-')}.tar.gz`);
    writeFileSync(file, data);
    // Observed, not replaced: the inflater's output buffers are handed to RecycledOutput with their size.
    const made: number[] = [];
    const install = RecycledOutput.install.bind(RecycledOutput);
    const spy = jest.spyOn(RecycledOutput, 'install').mockImplementation((gunzip, size) => {
      made.push(size);
      return install(gunzip, size);
    });
    try {
      expect((await verifyReceiptFile(file, { fileDigest: false })).verdict.ok).toBe(true);
    } finally {
      spy.mockRestore();
    }
    expect(made).toEqual([4 * 1024 * 1024]);
  });
});
