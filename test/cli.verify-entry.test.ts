import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../src/cli/main';
import { runCaptured } from '../src/cli/in-process';
import { gzipSync } from 'node:zlib';
import { Journal } from '../src/journal';
import { buildReceipt, parsePrivateKey, writeKeyPair } from '../src/receipt';
import { cliPath } from './helpers/paths';
import { writeCompileCounter } from './helpers/proc';
import { tempDir } from './helpers/tmp';

/**
 * `stepchain verify` runs the verify entry (src/cli/verify-entry.ts), a small
 * program of the bin, instead of the whole CLI: its process start is a
 * noticeable part of a verify. What it prints and its exit code must be what the
 * whole CLI gives for the same command line, on every path (a journal that holds,
 * one that does not, --json, --strict, help, options that do not parse); and it
 * must really compile only the small program when it takes the command line.
 */
const root = tempDir('stepchain-verify-entry-');
const env: NodeJS.ProcessEnv = { ...process.env, STEPCHAIN_AUDIT: 'off' };
const agentDir = path.join(root, '.sdd', 'runtime', 'journal', 'agent');
const journal = Journal.open(agentDir, { durability: 'none' });
for (let i = 0; i < 5; i++)
  journal.append({ model: 'm', prompt: `p${i}`, tool_call: { name: 't', args: { i } }, tool_result: { ok: i } });
const good = journal.file;
const bad = path.join(root, 'tampered.jsonl');
writeFileSync(bad, readFileSync(good, 'utf8').replace('"p2"', '"P2"'));

/** A preload that reports the size of every program the bin compiles, on stderr (the bin's programs run as vm.Script, with V8's code cache). */
const preload = writeCompileCounter(path.join(root, 'count-compiles.cjs'), { scripts: true });

function viaBin(argv: string[], extra: string[] = []) {
  const r = spawnSync(process.execPath, [...extra, cliPath, ...argv], { env, cwd: root, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The length of the whole CLI's text (what `--version` compiles): the bin carries it packed, so not the bin's size.
 * Measured once (the bin does not change during the file): a process with the preload per test was three of them.
 */
let whole: number | undefined;
function wholeCli(): number {
  if (whole === undefined) {
    const r = viaBin(['--version'], ['-r', preload]);
    whole = Math.max(...[...r.stderr.matchAll(/^compiled (\d+)$/gm)].map((m) => Number(m[1])));
  }
  return whole;
}

describe('the verify entry', () => {
  test('a verify compiles only the verify program (a small part of the bin)', () => {
    const r = viaBin(['verify', good], ['-r', preload]);
    expect(r.code).toBe(0);
    const sizes = [...r.stderr.matchAll(/^compiled (\d+)$/gm)].map((m) => Number(m[1]));
    expect(sizes).toHaveLength(1);
    expect(sizes[0]).toBeLessThan(wholeCli() / 4);
    expect(r.stdout).toMatch(/^OK .*5 steps/);
  });

  test.each([
    ['a journal that holds', ['verify', good]],
    ['an agent directory', ['verify', agentDir]],
    ['a tampered journal', ['verify', bad]],
    ['--json', ['verify', bad, '--json']],
    ['--strict --json', ['verify', good, '--strict', '--json']],
    ['--expected-head that differs', ['verify', good, '--expected-head', 'ab'.repeat(32)]],
    ['no such file', ['verify', path.join(root, 'none.jsonl')]],
    ['--help', ['verify', '--help']],
    ['-h after an argument', ['verify', good, '-h']],
    ['an unknown option', ['verify', good, '--bogus']],
    ['an option missing its value', ['verify', good, '--expected-head']],
    ['no argument', ['verify']],
    ['two arguments', ['verify', good, bad]],
  ])('%s: the same output and exit code as the whole CLI', async (_what, argv) => {
    const bin = viaBin(argv);
    const inProcess = await runCaptured(runCli, argv, { cwd: root, env });
    expect({ code: bin.code, stdout: bin.stdout, stderr: bin.stderr }).toEqual({
      code: inProcess.code,
      stdout: inProcess.stdout,
      stderr: inProcess.stderr,
    });
  });
});

describe('the verify entry runs receipt verify too (no keyless check: the Sigstore program is not in it)', () => {
  const pub = path.join(root, 'k.pub');
  const signKey = parsePrivateKey(Buffer.from(writeKeyPair(path.join(root, 'k.pem'), pub).privateKeyPem), 'k.pem');
  const receipt = buildReceipt(good, { signKey }).bytes;
  const at = (name: string, bytes: Buffer | string): string => {
    writeFileSync(path.join(root, name), bytes);
    return name;
  };
  const plain = at('r.tar', receipt);
  const gz = at('r.tar.gz', gzipSync(receipt));
  const tampered = at('t.tar', Buffer.from(receipt.toString('latin1').replace('"p3"', '"P3"'), 'latin1'));
  const besideBundle = at('b.tar', receipt);
  at('b.tar.sigstore.json', '{}');

  test('a receipt verify compiles only the verify program', () => {
    const r = viaBin(['receipt', 'verify', plain, '--public-key', pub], ['-r', preload]);
    expect(r.code).toBe(0);
    const sizes = [...r.stderr.matchAll(/^compiled (\d+)$/gm)].map((m) => Number(m[1]));
    expect(sizes).toHaveLength(1);
    expect(sizes[0]).toBeLessThan(wholeCli() / 4);
    expect(r.stdout).toMatch(/^OK .*5 steps/);
  });

  test('its output to pipes (stdout and stderr) is written without making their streams (node:net not loaded)', () => {
    // A pipe's stream loads node:net and its stream machinery, ~3 ms of the process for the two: the verdict is
    // written to the descriptors themselves. The probe reports with writeSync (process.stderr would make one).
    const probe = path.join(root, 'probe-net.cjs');
    writeFileSync(
      probe,
      `process.on('exit', () => require('node:fs').writeSync(2, 'net loaded ' + process.moduleLoadList.includes('NativeModule net') + '\\n'));\n`,
    );
    const r = viaBin(['receipt', 'verify', tampered, '--public-key', pub, '--json'], ['-r', probe]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false });
    expect(r.stderr).toMatch(/^t\.tar:journal\/000000\.jsonl:4: step_hash_mismatch: .*\n/);
    expect(r.stderr).toContain('net loaded false\n');
  });

  test('a signer to expect (a keyless check) goes to the whole CLI', () => {
    const r = viaBin(
      ['receipt', 'verify', besideBundle, '--certificate-identity', 'i', '--certificate-oidc-issuer', 'o'],
      ['-r', preload],
    );
    const sizes = [...r.stderr.matchAll(/^compiled (\d+)$/gm)].map((m) => Number(m[1]));
    expect(Math.max(...sizes)).toBeGreaterThan(wholeCli() / 4);
  });

  test.each([
    ['a signed receipt and its key', ['receipt', 'verify', plain, '--public-key', pub]],
    ['no key: signature not checked', ['receipt', 'verify', plain]],
    ['gzipped, --json', ['receipt', 'verify', gz, '--public-key', pub, '--json']],
    ['tampered', ['receipt', 'verify', tampered, '--public-key', pub]],
    ['tampered --json', ['receipt', 'verify', tampered, '--json']],
    ['--expected-head that differs', ['receipt', 'verify', plain, '--expected-head', 'ab'.repeat(32)]],
    ['--require-blobs', ['receipt', 'verify', plain, '--require-blobs', '--public-key', pub]],
    ['a bundle beside it, no signer given', ['receipt', 'verify', besideBundle, '--public-key', pub]],
    ['--bundle without a signer', ['receipt', 'verify', plain, '--bundle', 'b.tar.sigstore.json']],
    [
      'a signer given',
      ['receipt', 'verify', besideBundle, '--certificate-identity', 'i', '--certificate-oidc-issuer', 'o'],
    ],
    ['half a signer', ['receipt', 'verify', plain, '--certificate-identity', 'i']],
    ['no such file', ['receipt', 'verify', 'none.tar']],
    ['a bad key file', ['receipt', 'verify', plain, '--public-key', 'r.tar']],
    ['--help', ['receipt', 'verify', '--help']],
    ['an unknown option', ['receipt', 'verify', plain, '--bogus']],
    ['no argument', ['receipt', 'verify']],
    ['the receipt group alone', ['receipt']],
    // Spellings of the options the entry hands on or keeps (the entry and the whole CLI read them alike).
    [
      'a signer given with =',
      ['receipt', 'verify', besideBundle, '--certificate-identity=i', '--certificate-oidc-issuer=o'],
    ],
    ['an empty signer given with =', ['receipt', 'verify', plain, '--certificate-identity=', '--public-key', pub]],
    ['an abbreviated option', ['receipt', 'verify', plain, '--certificate-ident', 'i']],
    ['-- then a file named like an option', ['receipt', 'verify', '--', '--certificate-identity']],
    ['-- then the receipt', ['receipt', 'verify', '--public-key', pub, '--', plain]],
    ['a signer option after --', ['receipt', 'verify', plain, '--', '--certificate-identity', 'i']],
    ['-h', ['receipt', 'verify', '-h']],
    ['--help after --', ['receipt', 'verify', plain, '--', '--help']],
    ['--json twice', ['receipt', 'verify', plain, '--json', '--json']],
    ['a value option without its value', ['receipt', 'verify', plain, '--public-key']],
    ['another receipt subcommand', ['receipt', 'inspect', plain]],
    ['another receipt subcommand, --help', ['receipt', 'export', '--help']],
    ['an unknown receipt subcommand', ['receipt', 'verfy', plain]],
    ['receipt --help', ['receipt', '--help']],
    ['verify with no journal', ['verify']],
    ['verify --help', ['verify', '--help']],
    ['verify with an unknown option', ['verify', 'x.jsonl', '--bogus']],
  ])('%s: the same output and exit code as the whole CLI', async (_what, argv) => {
    const bin = viaBin(argv);
    const inProcess = await runCaptured(runCli, argv, { cwd: root, env });
    expect({ code: bin.code, stdout: bin.stdout, stderr: bin.stderr }).toEqual({
      code: inProcess.code,
      stdout: inProcess.stdout,
      stderr: inProcess.stderr,
    });
  });
});
