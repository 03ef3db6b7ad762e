import { createHash, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { readTar } from '../src/receipt';
import { cli, expectNoStack, type CliResult } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { conformanceDir } from './helpers/paths';
import { rawTar, type RawMember } from './helpers/tar';
import { tempDir } from './helpers/tmp';

/**
 * The four receipt commands through runCli in this process (the code dist/cli.js bundles: the commands' logic is the
 * point, and a Node start per call was most of this file's time); keygen runs as a real process of the built CLI.
 */
const root = tempDir('stepchain-cli-receipt-');
const AGENT = 'cli-agent';
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const jfile = path.join(root, '.sdd', 'runtime', 'journal', AGENT, '000000.jsonl');
const at = (f: string): string => path.join(root, f);

function real(args: string[], cwd = root): CliResult {
  const r = cli(args, { cwd });
  expectNoStack(r);
  return r;
}

async function run(args: string[], cwd = root): Promise<CliResult> {
  const r = await cliInProcess(args, { cwd });
  expectNoStack(r);
  return r;
}

/** Every file under a directory with its size, to show a command wrote nothing. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(`${path.relative(dir, p)} ${statSync(p).size}`);
    }
  };
  walk(dir);
  return out.sort();
}

beforeAll(async () => {
  writeFileSync(at('in.txt'), 'input one');
  writeFileSync(at('blob.bin'), Buffer.from([1, 2, 3]));
  expect(
    (
      await run([
        'append',
        AGENT,
        '--input',
        'in.txt',
        '--model',
        'm',
        '--prompt',
        'secret prompt',
        '--tool-result',
        '{"out":"secret"}',
        '--blob',
        'blob.bin',
      ])
    ).code,
  ).toBe(0);
  expect((await run(['append', AGENT, '--prompt', 'second', '--tool-call', '{"name":"x"}'])).code).toBe(0);
});

describe('stepchain keygen', () => {
  it('writes a 0600 private key and a public key, and refuses to overwrite either (exit 2)', () => {
    const r = real(['keygen', '-o', 'k.pem', '--public', 'k.pub', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ ok: true, key_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(statSync(at('k.pem')).mode & 0o777).toBe(0o600);
    expect(readFileSync(at('k.pem'), 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(readFileSync(at('k.pub'), 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const before = readFileSync(at('k.pem'));
    const again = real(['keygen', '-o', 'k.pem', '--public', 'other.pub']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/k\.pem: already exists/);
    expect(existsSync(at('other.pub'))).toBe(false);
    expect(readFileSync(at('k.pem')).equals(before)).toBe(true);
    const pubExists = real(['keygen', '-o', 'fresh.pem', '--public', 'k.pub']);
    expect(pubExists.code).toBe(2);
    expect(existsSync(at('fresh.pem'))).toBe(false);
    expect(real(['keygen']).code).toBe(2);
    const noPub = real(['keygen', '-o', 'solo.pem']);
    expect(noPub.code).toBe(0);
    expect(noPub.stdout).toMatch(/-----BEGIN PUBLIC KEY-----/);
  });
});

describe('stepchain export / receipt verify', () => {
  it('exports a signed receipt and verifies it; JSON shapes; exit 0', async () => {
    const e = await run(['export', AGENT, '-o', 'r.tar', '--sign-key', 'k.pem', '--json']);
    expect(e.code).toBe(0);
    const doc = JSON.parse(e.stdout);
    expect(Object.keys(doc)).toEqual(['ok', 'receipt', 'agent_id', 'head_hash', 'steps', 'signed', 'key_id', 'blobs']);
    expect(doc).toMatchObject({ ok: true, agent_id: AGENT, steps: 2, signed: true, blobs: { missing: [] } });
    expect(doc.blobs.bundled).toHaveLength(2);
    const v = await run([
      'receipt',
      'verify',
      'r.tar',
      '--public-key',
      'k.pub',
      '--require-blobs',
      '--expected-head',
      doc.head_hash,
      '--json',
    ]);
    expect(v.code).toBe(0);
    const vd = JSON.parse(v.stdout);
    expect(Object.keys(vd)).toEqual([
      'ok',
      'head_hash',
      'steps',
      'signed',
      'signature_ok',
      'key_id',
      'blobs',
      'published',
      'redacted_fields',
      'errors',
      'fault_count',
    ]);
    expect(vd).toMatchObject({
      ok: true,
      head_hash: doc.head_hash,
      steps: 2,
      signed: true,
      signature_ok: true,
      key_id: doc.key_id,
      errors: [],
    });
    const human = await run([
      'receipt',
      'verify',
      'r.tar',
      '--public-key',
      'solo.pem.pub-missing',
      '--public-key',
      'k.pub',
    ]);
    expect(human.code).toBe(2); // a key file that does not exist is an input error
    const ok = await run(['receipt', 'verify', 'r.tar', '--public-key', 'k.pub']);
    expect(ok.stdout).toMatch(/^OK r\.tar: 2 steps, head [0-9a-f]{64}, signature verified \(key id [0-9a-f]{16}\)/);
    // What the signature does not cover is said, not left to be assumed.
    expect(ok.stdout).toContain('not signed: step times (ts) and which step lists which blob (blob_refs)');
    expect(ok.stdout).not.toContain('published');
  });

  it('fails (exit 1) on a signed receipt with no key, the wrong key, or the wrong expected head', async () => {
    const noKey = await run(['receipt', 'verify', 'r.tar']);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/r\.tar:manifest\.sig: no_trusted_key/);
    await run(['keygen', '-o', 'k2.pem', '--public', 'k2.pub']);
    const wrong = await run(['receipt', 'verify', 'r.tar', '--public-key', 'k2.pub', '--json']);
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toMatchObject({
      ok: false,
      signature_ok: false,
      errors: [{ kind: 'signature_invalid' }],
    });
    expect((await run(['receipt', 'verify', 'r.tar', '--public-key', 'k2.pub', '--public-key', 'k.pub'])).code).toBe(0);
    const head = await run(['receipt', 'verify', 'r.tar', '--public-key', 'k.pub', '--expected-head', 'ab'.repeat(32)]);
    expect(head.code).toBe(1);
    expect(head.stderr).toMatch(/head_mismatch/);
  });

  it('the FAIL line names the signature only where it is among the faults: never for a receipt that was not read', async () => {
    const noKey = await run(['receipt', 'verify', 'r.tar']);
    expect(noKey.stdout).toMatch(/^FAIL r\.tar: 1 problem; signature NOT checked/m);
    const wrong = await run(['receipt', 'verify', 'r.tar', '--public-key', 'k2.pub']);
    expect(wrong.stdout).toMatch(/^FAIL r\.tar: 1 problem; signature INVALID/m);
    const head = await run(['receipt', 'verify', 'r.tar', '--public-key', 'k.pub', '--expected-head', 'ab'.repeat(32)]);
    expect(head.stdout).toMatch(/^FAIL r\.tar: 1 problem$/m);
    // Not read at all (a gzip cut short, an archive that is no tar): nothing is known of its signature.
    const gz = gzipSync(readFileSync(at('r.tar')));
    writeFileSync(at('cut.tar.gz'), gz.subarray(0, gz.length - 100));
    writeFileSync(at('not.tar'), Buffer.alloc(100, 7));
    for (const f of ['cut.tar.gz', 'not.tar']) {
      const r = await run(['receipt', 'verify', f, '--public-key', 'k.pub']);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(new RegExp(`^FAIL ${f.replace('.', '\\.')}: 1 problem$`, 'm'));
      expect(r.stdout).not.toMatch(/unsigned|signature/);
    }
  });

  it('verifies the reference receipt', async () => {
    const r = await run([
      'receipt',
      'verify',
      path.join(conformanceDir, 'reference-receipt.tar'),
      '--public-key',
      path.join(conformanceDir, 'reference-verify.pem'),
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: true,
      steps: 5,
      head_hash: '12577bced7cc3cb97fe35f0d4554b038572c931336f05f4d5c54dc8a0ff90def',
    });
  });

  it('input errors exit 2: missing receipt, bad key files, bad options, unsafe agent id', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    writeFileSync(at('rsa.pub'), rsa.publicKey.export({ format: 'pem', type: 'spki' }).toString());
    writeFileSync(at('rsa.pem'), rsa.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
    writeFileSync(at('33.bin'), Buffer.alloc(33, 1));
    const cases: [string[], RegExp][] = [
      [['receipt', 'verify', 'nope.tar'], /nope\.tar: no such receipt file/],
      [['receipt', 'verify', 'r.tar', '--public-key', 'k.pem'], /this is a private key/],
      [['receipt', 'verify', 'r.tar', '--public-key', 'rsa.pub'], /a rsa key/],
      [['receipt', 'verify', 'r.tar', '--public-key', '33.bin'], /got 33 bytes/],
      [['receipt', 'verify', 'r.tar', '--expected-head', 'xyz'], /--expected-head/],
      [['receipt', 'verify'], /missing <receipt>/],
      [['export', AGENT, '-o', 'x.tar', '--sign-key', 'k.pub'], /this is a public key/],
      [['export', AGENT, '-o', 'x.tar', '--sign-key', 'rsa.pem'], /a rsa key/],
      [['export', AGENT, '-o', 'x.tar', '--sign-key', 'missing.pem'], /no such file/],
      [['export', AGENT, '-o', 'x.tar', '--agent-id', '../up'], /unsafe agent id/],
      [['export', 'no-such-agent', '-o', 'x.tar'], /no journal for agent/],
      [['export', AGENT], /missing -o/],
      [['export', AGENT, '-o', 'no-such-dir/x.tar'], /does not exist/],
    ];
    for (const [args, msg] of cases) {
      const r = await run(args);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), 2]);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(existsSync(at('x.tar'))).toBe(false);
  });

  it('a broken chain is never exported (exit 1, nothing written)', async () => {
    const dir = at('broken');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, '000000.jsonl'), readFileSync(jfile, 'utf8').replace('"second"', '"SECOND"'));
    const r = await run(['export', dir, '-o', 'broken.tar']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/000000\.jsonl:2: step_hash_mismatch/);
    expect(existsSync(at('broken.tar'))).toBe(false);
  });

  it('--cas elsewhere: missing blobs are reported, --require-blobs fails on them', async () => {
    mkdirSync(at('empty-cas'), { recursive: true });
    const r = await run(['export', AGENT, '-o', 'nocas.tar', '--cas', 'empty-cas', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).blobs).toMatchObject({
      bundled: [],
      missing: [expect.any(String), expect.any(String)],
    });
    expect((await run(['receipt', 'verify', 'nocas.tar'])).code).toBe(0);
    const strict = await run(['receipt', 'verify', 'nocas.tar', '--require-blobs']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/missing_blob/);
  });
});

describe('hostile receipts through the CLI: exit 1, one line per fault, nothing written anywhere', () => {
  const evil = `/tmp/stepchain-evil-${process.pid}`;
  const base = (): RawMember[] =>
    readTar(readFileSync(at('r.tar'))).map((e) => ({ name: e.name, data: Buffer.from(e.data) }));
  const swap =
    (name: string, data: string | Buffer) =>
    (m: RawMember[]): RawMember[] =>
      m.map((x) => (x.name === name ? { ...x, data } : x));
  const cases: [string, () => Buffer, string][] = [
    ['traversal', () => rawTar([...base(), { name: '../../escaped.txt', data: 'pwned' }]), 'unsafe_member'],
    ['absolute', () => rawTar([...base(), { name: evil, data: 'pwned' }]), 'unsafe_member'],
    [
      'symlink',
      () => rawTar([{ name: 'journal/000000.jsonl', type: '2', linkname: '/etc/passwd' }, ...base()]),
      'unsafe_member',
    ],
    [
      'hardlink',
      () => rawTar([...base(), { name: 'blobs/' + '0'.repeat(64), type: '1', linkname: '/etc/passwd' }]),
      'unsafe_member',
    ],
    ['duplicate', () => rawTar([...base(), base()[2]!]), 'duplicate_member'],
    [
      'oversized member',
      () => rawTar(base().map((x) => (x.name === 'journal/000000.jsonl' ? { ...x, size: 1 } : x))),
      'corrupt_archive',
    ],
    ['truncated', () => rawTar(base()).subarray(0, 1700), 'truncated'],
    ['2 GB declared size', () => rawTar([{ name: 'manifest.json', size: 2 * 1024 ** 3, data: '{}' }]), 'truncated'],
    ['not a tar', () => Buffer.from('PK\x03\x04 this is a zip, not a tar'.repeat(40)), 'not_a_receipt'],
    ['non-JSON manifest', () => rawTar(swap('manifest.json', 'not json')(base())), 'manifest_not_json'],
    [
      'non-canonical manifest',
      () => rawTar(swap('manifest.json', ` ${base()[0]!.data!.toString()}`)(base())),
      'manifest_not_canonical',
    ],
    ['signature not base64', () => rawTar(swap('manifest.sig', 'not*base64')(base())), 'signature_not_base64'],
    [
      'signature wrong length',
      () => rawTar(swap('manifest.sig', Buffer.alloc(32).toString('base64'))(base())),
      'signature_wrong_length',
    ],
  ];

  it.each(cases)('%s', async (name, make, kind) => {
    const sandbox = at(`sandbox-${name.replace(/\W+/g, '-')}`);
    const cwd = path.join(sandbox, 'a', 'b');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(path.join(cwd, 'evil.tar'), make());
    writeFileSync(path.join(cwd, 'k.pub'), readFileSync(at('k.pub')));
    const before = tree(sandbox);
    const r = await run(['receipt', 'verify', 'evil.tar', '--public-key', 'k.pub', '--json'], cwd);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.ok).toBe(false);
    expect(doc.errors.map((e: { kind: string }) => e.kind)).toContain(kind);
    const human = await run(['receipt', 'verify', 'evil.tar', '--public-key', 'k.pub'], cwd);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain(`: ${kind}: `);
    expect(tree(sandbox)).toEqual(before);
    expect(existsSync(evil)).toBe(false);
    expect(existsSync(path.join(sandbox, 'escaped.txt'))).toBe(false);
  });
});

describe('stepchain publish', () => {
  it('refuses without --opt-in (exit 2) and writes nothing', async () => {
    const before = sha(readFileSync(jfile));
    const r = await run(['publish', AGENT, '-o', 'pub.tar']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--opt-in/);
    expect(existsSync(at('pub.tar'))).toBe(false);
    const bad = await run(['publish', AGENT, '-o', 'pub.tar', '--opt-in', '--redact', 'prompt,input_hash']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"input_hash" is not a redactable field/);
    expect(existsSync(at('pub.tar'))).toBe(false);
    expect(sha(readFileSync(jfile))).toBe(before);
  });

  it('publishes a redacted, re-anchored receipt; prints both heads; the journal is untouched byte for byte', async () => {
    const before = sha(readFileSync(jfile));
    const original = JSON.parse((await run(['verify', AGENT, '--json'])).stdout).head_hash;
    const r = await run(['publish', AGENT, '-o', 'pub.tar', '--opt-in', '--sign-key', 'k.pem', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({
      ok: true,
      agent_id: AGENT,
      steps: 2,
      redacted: ['prompt', 'tool_result'],
      original_head: original,
      signed: true,
    });
    expect(doc.published_head).toMatch(/^[0-9a-f]{64}$/);
    expect(doc.published_head).not.toBe(original);
    expect(sha(readFileSync(jfile))).toBe(before);
    const v = await run([
      'receipt',
      'verify',
      'pub.tar',
      '--public-key',
      'k.pub',
      '--expected-head',
      doc.published_head,
      '--require-blobs',
    ]);
    expect(v.code).toBe(0);
    // A published receipt says so: its chain is not the original one.
    expect(v.stdout).toContain('published receipt: prompt, tool_result redacted');
    const vj = JSON.parse((await run(['receipt', 'verify', 'pub.tar', '--public-key', 'k.pub', '--json'])).stdout);
    expect(vj).toMatchObject({ ok: true, published: true, redacted_fields: ['prompt', 'tool_result'] });
    const text = readFileSync(at('pub.tar')).toString('latin1');
    expect(text).not.toContain('secret');
    expect(text).toContain('<<redacted>>');
    expect(readTar(readFileSync(at('pub.tar'))).map((e) => e.name)).toEqual([
      'manifest.json',
      'manifest.sig',
      'journal/000000.jsonl',
    ]);
    const human = await run(['publish', AGENT, '-o', 'pub2.tar', '--opt-in', '--redact', 'tool_call,model']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`original head  ${original}`);
    expect(human.stdout).toMatch(/published head [0-9a-f]{64}/);
    expect(sha(readFileSync(jfile))).toBe(before);
  });
});
