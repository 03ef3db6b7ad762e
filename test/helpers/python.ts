import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './paths';

/**
 * python3 for differential tests: the independent Python peers of the reference algorithms (all in test/python/)
 * and short inline scripts.
 */
export type PythonPeer = 'stepchain_ref.py' | 'ref_run_journal.py' | 'ref_audit.py';

let interpreter: string | undefined;
/**
 * The python3 that `python3` on PATH runs, as its own path (`sys.executable`), found once per test process: where
 * python3 on PATH is a version manager's shim (pyenv's: a bash script that runs seven more to pick the version), each
 * call through it cost ~330 ms of CPU more than the interpreter's own ~90 ms. The same interpreter runs; when python3
 * is missing (or says nothing), `python3` itself, so the test that needs it fails as it did, saying so.
 */
export function python3(): string {
  // test/setup/sequencer.js finds it once for the whole run (each test file has a module registry of its own, so
  // this cache alone asked ~30 times a run, at ~210 ms of CPU each through pyenv's shim).
  const found = process.env.STEPCHAIN_TEST_PYTHON;
  if (interpreter === undefined && found !== undefined && path.isAbsolute(found)) interpreter = found;
  if (interpreter === undefined) {
    const r = spawnSync('python3', ['-c', 'import sys; sys.stdout.write(sys.executable or "")'], { encoding: 'utf8' });
    interpreter = r.status === 0 && path.isAbsolute(r.stdout) ? r.stdout : 'python3';
  }
  return interpreter;
}

/** Where a Python peer is. */
export function peerPath(peer: PythonPeer): string {
  return path.join(repoRoot, 'test', 'python', peer);
}

/** Runs a Python peer with `args` (and `input` on stdin); the whole result, for tests that read its exit or stderr. */
export function runPeer(peer: PythonPeer, args: string[], input?: string): SpawnSyncReturns<string> {
  return spawnSync(python3(), [peerPath(peer), ...args], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
}

/** Runs a Python peer; returns stdout, throwing on failure. */
export function refPython(peer: PythonPeer, args: string[]): string {
  const r = runPeer(peer, args);
  if (r.status !== 0) throw new Error(`python3 ${peer} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** Runs a python3 script with the given stdin; returns stdout, throwing on failure. */
export function python(script: string, input = '', args: string[] = []): string {
  const r = spawnSync(python3(), ['-c', script, ...args], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`python3 failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/**
 * A journal verifies in stepchain (`verified`: what `stepchain verify <journal> --json` gave) and in the Python
 * model of the reference (`file`), the two agreeing on its head; and holds `steps` steps, when given, on both sides.
 */
export function expectVerifiedByPeer(verified: { code: number; stdout: string }, file: string, steps?: number): void {
  expect(verified.code).toBe(0);
  const counted = steps === undefined ? {} : { steps };
  expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, ...counted });
  const py = runPeer('stepchain_ref.py', ['verify', file]);
  expect(JSON.parse(py.stdout)).toMatchObject({
    ok: true,
    ...counted,
    head_hash: (JSON.parse(verified.stdout) as { head_hash: string }).head_hash,
  });
}

/**
 * A JS string as UTF-8 with its lone surrogates passed through (what Python's "surrogatepass" reads back to the same
 * string): how a differential test hands Python text that TextEncoder would have changed.
 */
export function utf8SurrogatePass(s: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const cp = s.codePointAt(i)!;
    if (cp > 0xffff) i++;
    if (cp < 0x80) bytes.push(cp);
    else if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return Buffer.from(bytes);
}
