import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { bundleFromJSON } from '@sigstore/bundle';
import { DSSEBundleBuilder, FulcioSigner, RekorWitness, TSAWitness } from '@sigstore/sign';
import { SIGSTORE_PROGRAM_SOURCE } from '../src/receipt/keyless/sigstore-program.generated';
import { runCaptured } from '../src/cli/in-process';
import { runCli } from '../src/cli/main';
import { cliPath } from './helpers/paths';
import { writeCompileCounter } from './helpers/proc';
import { startStandIns, type StandIns } from './helpers/sigstore-stand-ins';
import { tempDir } from './helpers/tmp';

/**
 * Keyless receipts end to end, offline: the CLI (runCli in this process; the built bundle as a real process where
 * the Sigstore program's loading is judged) signs through local stand-ins for
 * Fulcio, Rekor and a TSA (one HTTP server on 127.0.0.1, with an OIDC token endpoint), and verifies the
 * bundles against trusted roots built from them: the good bundle and each refusal.
 */
const dir = tempDir('stepchain-keyless-');
const AGENT = 'k-agent';
const at = (f: string): string => path.join(dir, f);
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
let si: StandIns;
let other: StandIns;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** This process's environment without a token or an event a runner would have given. */
function cleanEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean = { ...process.env };
  for (const k of [
    'SIGSTORE_ID_TOKEN',
    'ACTIONS_ID_TOKEN_REQUEST_URL',
    'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
    'GITHUB_EVENT_PATH',
  ])
    delete clean[k];
  return { ...clean, STEPCHAIN_AUDIT: 'off', ...env };
}

/**
 * The CLI's `runCli` in this process, its output captured (the stand-ins answer from this process meanwhile): what
 * these tests judge is the signing and the checking, not the process. A process per command line cost about 0.4 s
 * of CPU each, 49 of them; the real processes that remain (`process`, and `compiled` below) run the built bundle
 * for signing and for checking.
 */
async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const r = await runCaptured(runCli, args, { cwd: dir, env: cleanEnv(env) });
  expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?/);
  return r;
}

/** The built CLI as a real process, asynchronously (the stand-ins answer from this process meanwhile). */
function process_(args: string[], env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...nodeArgs, cliPath, ...args], {
      cwd: dir,
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => {
      expect(stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?/);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

const services = (): string[] => ['--fulcio-url', si.url, '--rekor-url', si.url, '--tsa-url', si.url];
const signEnv = (): NodeJS.ProcessEnv => ({ SIGSTORE_ID_TOKEN: si.token });
const writeRoot = (name: string, root: object): string => {
  writeFileSync(at(name), JSON.stringify(root));
  return name;
};
/** The keyless policy: the identity (the signer's unless given) and the issuer. */
const policy = (identity = si.identity): string[] => [
  '--certificate-identity',
  identity,
  '--certificate-oidc-issuer',
  si.issuer,
];
const verify = (receipt: string, ...extra: string[]): Promise<Run> =>
  run(['receipt', 'verify', receipt, ...policy(), '--trusted-root', 'full.json', ...extra]);
const kinds = (r: Run): string[] => [...r.stderr.matchAll(/: (keyless_[a-z_]+):/g)].map((m) => m[1]!);

beforeAll(async () => {
  si = await startStandIns('acme/app');
  other = await startStandIns('acme/app');
  writeFileSync(at('in.txt'), 'input one');
  expect((await run(['append', AGENT, '--input', 'in.txt', '--model', 'm', '--prompt', 'p1'])).code).toBe(0);
  expect((await run(['append', AGENT, '--prompt', 'second'])).code).toBe(0);
  writeRoot('full.json', si.root({}));
  writeRoot('tsa-only.json', si.root({ tlog: false }));
  writeRoot('no-time.json', si.root({ tlog: false, tsa: false }));
  writeRoot('other.json', other.root({}));
  // gh's JSON-lines file: another instance's root first (another CA organisation), then ours.
  writeFileSync(
    at('roots.jsonl'),
    `${JSON.stringify(other.root({ organisation: 'GitHub, Inc.' }))}\n${JSON.stringify(si.root({}))}\n`,
  );
});

afterAll(async () => {
  await si.close();
  await other.close();
});

describe('export --keyless', () => {
  it('refuses without an OIDC token, naming both sources (exit 2), and writes nothing', async () => {
    const r = await run(['export', AGENT, '-o', 'none.tar', '--keyless', ...services()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('SIGSTORE_ID_TOKEN');
    expect(r.stderr).toContain('ACTIONS_ID_TOKEN_REQUEST_URL');
    expect(existsSync(at('none.tar'))).toBe(false);
    expect(existsSync(at('none.tar.sigstore.json'))).toBe(false);
  });

  it("signs with GitHub Actions' token (audience sigstore): a v0.3 DSSE bundle over the receipt's statement", async () => {
    const before = si.hits.get('/token') ?? 0;
    const r = await run(['export', AGENT, '-o', 'run.tar', '--keyless', ...services(), '--json'], {
      ACTIONS_ID_TOKEN_REQUEST_URL: `${si.url}/token`,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: si.bearer,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(si.hits.get('/token')).toBe(before + 1);
    const doc = JSON.parse(r.stdout) as { keyless: { bundle: string; identity: string; issuer: string } };
    expect(doc.keyless.identity).toBe(si.identity);
    expect(doc.keyless.issuer).toBe(si.issuer);
    expect(doc.keyless.bundle).toBe(at('run.tar.sigstore.json'));
    const json = JSON.parse(readFileSync(at('run.tar.sigstore.json'), 'utf8')) as {
      mediaType: string;
      dsseEnvelope: { payload: string; payloadType: string };
    };
    expect(json.mediaType).toBe('application/vnd.dev.sigstore.bundle.v0.3+json');
    expect(json.dsseEnvelope.payloadType).toBe('application/vnd.in-toto+json');
    const bundle = bundleFromJSON(json);
    expect(bundle.verificationMaterial.tlogEntries).toHaveLength(1);
    expect(bundle.verificationMaterial.tlogEntries[0]!.kindVersion?.kind).toBe('dsse');
    expect(bundle.verificationMaterial.timestampVerificationData?.rfc3161Timestamps).toHaveLength(1);
    const statement = JSON.parse(Buffer.from(json.dsseEnvelope.payload, 'base64').toString('utf8')) as {
      _type: string;
      subject: { name: string; digest: { sha256: string } }[];
      predicateType: string;
      predicate: unknown;
    };
    expect(statement._type).toBe('https://in-toto.io/Statement/v1');
    expect(statement.subject).toEqual([{ name: 'run.tar', digest: { sha256: sha(readFileSync(at('run.tar'))) } }]);
    expect(statement.predicateType).toBe('https://stepchain.dev/receipt/v1');
    // The predicate is the receipt's manifest.json (python3 would read the same object from the archive).
    const manifest = JSON.parse(
      (await run(['receipt', 'verify', 'run.tar', '--json', ...policy(), '--trusted-root', 'full.json'])).stdout,
    ) as { ok: boolean };
    expect(manifest.ok).toBe(true);
    expect(statement.predicate).toMatchObject({ agent_id: AGENT, steps: 2, format_version: 1 });
  });

  it('SIGSTORE_ID_TOKEN wins over the Actions token request', async () => {
    const before = si.hits.get('/token') ?? 0;
    const r = await run(['export', AGENT, '-o', 'env.tar', '--keyless', ...services()], {
      SIGSTORE_ID_TOKEN: si.token,
      ACTIONS_ID_TOKEN_REQUEST_URL: `${si.url}/token`,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'wrong-bearer',
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`keyless   ${si.identity}`);
    expect(si.hits.get('/token') ?? 0).toBe(before);
  });

  it('refuses an existing bundle without --force (exit 2); --force replaces both files', async () => {
    expect((await run(['export', AGENT, '-o', 'force.tar', '--keyless', ...services()], signEnv())).code).toBe(0);
    const first = readFileSync(at('force.tar.sigstore.json'), 'utf8');
    copyFileSync(at('force.tar'), at('force-receipt-only.tar'));
    writeFileSync(at('lonely.tar.sigstore.json'), first);
    const refused = await run(['export', AGENT, '-o', 'lonely.tar', '--keyless', ...services()], signEnv());
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('lonely.tar.sigstore.json exists');
    expect(existsSync(at('lonely.tar'))).toBe(false);
    const forced = await run(['export', AGENT, '-o', 'force.tar', '--keyless', '--force', ...services()], signEnv());
    expect(forced.code).toBe(0);
    expect(readFileSync(at('force.tar.sigstore.json'), 'utf8')).not.toBe(first);
    expect((await verify('force.tar')).code).toBe(0);
  });

  it('leaves neither file when signing fails (a service that is down): exit 1', async () => {
    const down = 'http://127.0.0.1:9';
    const r = await run(
      ['export', AGENT, '-o', 'down.tar', '--keyless', '--fulcio-url', down, '--rekor-url', down],
      signEnv(),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('keyless signing failed');
    expect(existsSync(at('down.tar'))).toBe(false);
    expect(existsSync(at('down.tar.sigstore.json'))).toBe(false);
  });

  it("names a .tgz receipt's bundle R.tgz.sigstore.json; publish --keyless signs the redacted receipt", async () => {
    expect((await run(['export', AGENT, '-o', 'run.tgz', '--keyless', ...services()], signEnv())).code).toBe(0);
    expect(existsSync(at('run.tgz.sigstore.json'))).toBe(true);
    expect((await verify('run.tgz')).code).toBe(0);
    const p = await run(['publish', AGENT, '-o', 'pub.tar', '--opt-in', '--keyless', ...services()], signEnv());
    expect(p.code).toBe(0);
    expect((await verify('pub.tar')).code).toBe(0);
  });
});

describe('receipt verify with a keyless bundle', () => {
  beforeAll(async () => {
    if (!existsSync(at('good.tar')))
      expect((await run(['export', AGENT, '-o', 'good.tar', '--keyless', ...services()], signEnv())).code).toBe(0);
  });

  it('holds for the good bundle; --json reports identity, issuer, subject, log index and time', async () => {
    const r = await verify('good.tar');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`keyless signature verified: ${si.identity} (${si.issuer})`);
    const j = await verify('good.tar', '--json');
    const doc = JSON.parse(j.stdout) as {
      ok: boolean;
      keyless: {
        identity: string;
        issuer: string;
        subject: { name: string; sha256: string };
        log_index: string;
        time: string;
      };
    };
    expect(doc.ok).toBe(true);
    expect(doc.keyless.identity).toBe(si.identity);
    expect(doc.keyless.issuer).toBe(si.issuer);
    expect(doc.keyless.subject).toEqual({ name: 'good.tar', sha256: sha(readFileSync(at('good.tar'))) });
    expect(doc.keyless.log_index).toMatch(/^[0-9]+$/);
    expect(Math.abs(Date.parse(doc.keyless.time) - Date.now())).toBeLessThan(3600_000);
  });

  it("picks the root of gh's JSON-lines file whose CA organisation matches the certificate", async () => {
    const r = await run(['receipt', 'verify', 'good.tar', ...policy(), '--trusted-root', 'roots.jsonl']);
    expect(r.code).toBe(0);
  });

  it('holds under --owner of the repository owner, and not under another owner', async () => {
    expect((await verify('good.tar', '--owner', si.owner)).code).toBe(0);
    const r = await verify('good.tar', '--owner', 'someone-else');
    expect(r.code).toBe(1);
    expect(kinds(r)).toEqual(['keyless_owner_mismatch']);
  });

  it('refuses another identity, a prefix of the identity, and another issuer (exit 1)', async () => {
    const cases: [string[], string][] = [
      [
        ['--certificate-identity', `${si.identity}x`, '--certificate-oidc-issuer', si.issuer],
        'keyless_identity_mismatch',
      ],
      [
        ['--certificate-identity', si.identity.slice(0, -5), '--certificate-oidc-issuer', si.issuer],
        'keyless_identity_mismatch',
      ],
      [
        ['--certificate-identity', 'https://github.com/acme/app/.*', '--certificate-oidc-issuer', si.issuer],
        'keyless_identity_mismatch',
      ],
      [
        ['--certificate-identity', si.identity, '--certificate-oidc-issuer', 'https://accounts.example.com'],
        'keyless_issuer_mismatch',
      ],
    ];
    for (const [flags, kind] of cases) {
      const r = await run(['receipt', 'verify', 'good.tar', ...flags, '--trusted-root', 'full.json']);
      expect(r.code).toBe(1);
      expect(kinds(r)).toEqual([kind]);
    }
  });

  it("refuses another receipt's bundle, another root, and an edited receipt", async () => {
    const another = await verify('good.tar', '--bundle', 'run.tar.sigstore.json');
    expect(another.code).toBe(1);
    // Another receipt of the same journal: another file digest, and another manifest (its created_at).
    expect(kinds(another)).toContain('keyless_subject_mismatch');

    const root = await run(['receipt', 'verify', 'good.tar', ...policy(), '--trusted-root', 'other.json']);
    expect(root.code).toBe(1);
    expect(kinds(root)).toEqual(['keyless_signature_invalid']);
    // Without --trusted-root, the public Sigstore root shipped with the package: a stand-in's bundle fails it.
    const pub = await run(['receipt', 'verify', 'good.tar', ...policy()]);
    expect(pub.code).toBe(1);
    expect(pub.stderr).toContain('keyless_');

    const bytes = readFileSync(at('good.tar'));
    const edited = Buffer.from(bytes);
    const i = edited.indexOf('second');
    edited.write('SECOND', i);
    writeFileSync(at('edited.tar'), edited);
    copyFileSync(at('good.tar.sigstore.json'), at('edited.tar.sigstore.json'));
    const e = await verify('edited.tar');
    expect(e.code).toBe(1);
    expect(kinds(e)).toContain('keyless_subject_mismatch');
  });

  it('refuses a bundle without the log entry or the timestamp its root requires, and one with no verified time', async () => {
    const tsaOnly = ['--fulcio-url', si.url, '--tsa-url', si.url];
    expect((await run(['export', AGENT, '-o', 'tsa.tar', '--keyless', ...tsaOnly], signEnv())).code).toBe(0);
    const noLog = await verify('tsa.tar');
    expect(noLog.code).toBe(1);
    expect(kinds(noLog)).toEqual(['keyless_no_log_entry']);
    // The same bundle holds under a root with no logs (GitHub's kind): its timestamp is what that root needs.
    expect((await run(['receipt', 'verify', 'tsa.tar', ...policy(), '--trusted-root', 'tsa-only.json'])).code).toBe(0);

    const logOnly = ['--fulcio-url', si.url, '--rekor-url', si.url];
    expect((await run(['export', AGENT, '-o', 'log.tar', '--keyless', ...logOnly], signEnv())).code).toBe(0);
    const noStamp = await run(['receipt', 'verify', 'log.tar', ...policy(), '--trusted-root', 'tsa-only.json']);
    expect(noStamp.code).toBe(1);
    expect(kinds(noStamp)).toEqual(['keyless_no_timestamp']);
    expect((await verify('log.tar')).code).toBe(0);

    const bare = JSON.parse(readFileSync(at('good.tar.sigstore.json'), 'utf8')) as {
      verificationMaterial: { tlogEntries: unknown[]; timestampVerificationData?: unknown };
    };
    bare.verificationMaterial.tlogEntries = [];
    delete bare.verificationMaterial.timestampVerificationData;
    writeFileSync(at('bare.json'), JSON.stringify(bare));
    const noTime = await run([
      'receipt',
      'verify',
      'good.tar',
      ...policy(),
      '--bundle',
      'bare.json',
      '--trusted-root',
      'no-time.json',
    ]);
    expect(noTime.code).toBe(1);
    expect(kinds(noTime)).toEqual(['keyless_no_verified_time']);
  });

  it('refuses a statement with another predicate type, signed by the same identity', async () => {
    const receipt = readFileSync(at('good.tar'));
    const statement = JSON.parse(
      Buffer.from(
        (JSON.parse(readFileSync(at('good.tar.sigstore.json'), 'utf8')) as { dsseEnvelope: { payload: string } })
          .dsseEnvelope.payload,
        'base64',
      ).toString('utf8'),
    ) as { predicateType: string; subject: { digest: { sha256: string } }[] };
    expect(statement.subject[0]!.digest.sha256).toBe(sha(receipt));
    statement.predicateType = 'https://slsa.dev/provenance/v1';
    const builder = new DSSEBundleBuilder({
      signer: new FulcioSigner({ identityProvider: { getToken: async () => si.token }, fulcioBaseURL: si.url }),
      witnesses: [
        new RekorWitness({ rekorBaseURL: si.url, entryType: 'dsse' }),
        new TSAWitness({ tsaBaseURL: si.url }),
      ],
    });
    const { bundleToJSON } = await import('@sigstore/bundle');
    const b = await builder.create({
      data: Buffer.from(JSON.stringify(statement)),
      type: 'application/vnd.in-toto+json',
    });
    writeFileSync(at('slsa.json'), JSON.stringify(bundleToJSON(b)));
    const r = await verify('good.tar', '--bundle', 'slsa.json');
    expect(r.code).toBe(1);
    expect(kinds(r)).toEqual(['keyless_predicate_type']);
  });

  it('never holds on a bundle nobody checked: beside the receipt without an identity, it fails (exit 1)', async () => {
    const r = await run(['receipt', 'verify', 'good.tar']);
    expect(r.code).toBe(1);
    expect(kinds(r)).toEqual(['keyless_not_checked']);
    expect(r.stdout).toMatch(/^FAIL good\.tar/);
  });

  it('refuses malformed bundles and roots and half a policy as input errors (exit 2)', async () => {
    writeFileSync(at('junk.json'), '{"mediaType": "nope"}');
    writeFileSync(at('notjson.json'), 'not json');
    const cases: string[][] = [
      ['receipt', 'verify', 'good.tar', ...policy(), '--bundle', 'junk.json', '--trusted-root', 'full.json'],
      ['receipt', 'verify', 'good.tar', ...policy(), '--bundle', 'notjson.json', '--trusted-root', 'full.json'],
      ['receipt', 'verify', 'good.tar', ...policy(), '--trusted-root', 'junk.json'],
      ['receipt', 'verify', 'good.tar', ...policy(), '--trusted-root', 'missing.json'],
      ['receipt', 'verify', 'good.tar', '--certificate-identity', si.identity],
      ['receipt', 'verify', 'good.tar', '--bundle', 'good.tar.sigstore.json'],
      ['receipt', 'verify', 'force-receipt-only.tar', ...policy()],
    ];
    for (const args of cases) {
      const r = await run(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('the Sigstore packages are compiled only when a keyless receipt is signed or checked', () => {
  /** The sizes of the programs a command line compiled (a preload reports every vm.compileFunction on stderr). */
  async function compiled(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ run: Run; sizes: number[] }> {
    const preload = writeCompileCounter(at('count-compiles.cjs'));
    const r = await process_(args, env, ['-r', preload]);
    const sizes = [...r.stderr.matchAll(/^compiled (\d+)$/gm)].map((m) => Number(m[1]));
    return { run: { ...r, stderr: r.stderr.replace(/^compiled \d+\n/gm, '') }, sizes };
  }
  const sigstoreSize = SIGSTORE_PROGRAM_SOURCE.length;

  it('not by --version, a journal verify, an export without --keyless or a receipt verify without a bundle', async () => {
    for (const args of [
      ['--version'],
      ['verify', AGENT],
      ['export', AGENT, '-o', 'plain-lazy.tar'],
      ['receipt', 'verify', 'plain-lazy.tar'],
    ]) {
      const { run: r, sizes } = await compiled(args);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
      expect({ args, sigstore: sizes.includes(sigstoreSize) }).toEqual({ args, sigstore: false });
    }
  });

  it('by export --keyless and by receipt verify of a keyless bundle, once each', async () => {
    const signed = await compiled(['export', AGENT, '-o', 'lazy.tar', '--keyless', ...services()], signEnv());
    expect(signed.run.code).toBe(0);
    expect(signed.sizes.filter((s) => s === sigstoreSize)).toHaveLength(1);
    const checked = await compiled(['receipt', 'verify', 'lazy.tar', ...policy(), '--trusted-root', 'full.json']);
    expect(checked.run.code).toBe(0);
    expect(checked.sizes.filter((s) => s === sigstoreSize)).toHaveLength(1);
  });
});

describe('a keyless bundle beside a receipt, wherever the receipt is written or read', () => {
  beforeAll(async () => {
    expect((await run(['export', AGENT, '-o', 'beside.tar', '--keyless', ...services()], signEnv())).code).toBe(0);
  });

  it('export without --keyless refuses a bundle at the output (exit 2); with --force removes it and says so', async () => {
    copyFileSync(at('beside.tar'), at('stale.tar'));
    copyFileSync(at('beside.tar.sigstore.json'), at('stale.tar.sigstore.json'));
    // An orphan bundle (its receipt gone) is refused as well: it would be taken for the new receipt's signature.
    copyFileSync(at('beside.tar.sigstore.json'), at('orphan.tar.sigstore.json'));
    const orphan = await run(['export', AGENT, '-o', 'orphan.tar']);
    expect(orphan.code).toBe(2);
    expect(orphan.stderr).toContain('orphan.tar.sigstore.json exists beside the output');
    expect(existsSync(at('orphan.tar'))).toBe(false);
    const forced = await run(['export', AGENT, '-o', 'stale.tar', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('removed stale.tar.sigstore.json: it signed the receipt this one replaced');
    expect(existsSync(at('stale.tar.sigstore.json'))).toBe(false);
    expect((await run(['receipt', 'verify', 'stale.tar'])).code).toBe(0);
    copyFileSync(at('beside.tar.sigstore.json'), at('stale.tar.sigstore.json'));
    const json = await run(['publish', AGENT, '-o', 'stale.tar', '--opt-in', '--force', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, removed_bundle: 'stale.tar.sigstore.json' });
    expect(existsSync(at('stale.tar.sigstore.json'))).toBe(false);
  });

  it('report shows the signer the certificate names: NOT checked (exit 1) without an identity, verified with one', async () => {
    const unchecked = await run(['report', 'beside.tar', '-o', 'beside-unchecked.html']);
    expect(unchecked.code).toBe(1);
    expect(unchecked.stdout).toContain('chain intact, signature NOT checked (a keyless bundle beside it');
    expect(unchecked.stderr).toContain('keyless_not_checked');
    const page = readFileSync(at('beside-unchecked.html'), 'utf8');
    expect(page).toContain(`NOT checked: beside.tar.sigstore.json names ${si.identity} (${si.issuer})`);
    const checked = await run([
      'report',
      'beside.tar',
      '-o',
      'beside-checked.html',
      ...policy(),
      '--trusted-root',
      'full.json',
    ]);
    expect({ code: checked.code, stderr: checked.stderr }).toEqual({ code: 0, stderr: '' });
    expect(readFileSync(at('beside-checked.html'), 'utf8')).toContain(
      `verified by the generator: ${si.identity} (${si.issuer})`,
    );
    const wrong = await run([
      'report',
      'beside.tar',
      '-o',
      'beside-wrong.html',
      ...policy(`${si.identity}x`),
      '--trusted-root',
      'full.json',
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('keyless_identity_mismatch');
    const half = await run(['report', 'beside.tar', '-o', 'half.html', '--certificate-identity', si.identity]);
    expect(half.code).toBe(2);
    expect(existsSync(at('half.html'))).toBe(false);
  });

  it('replay, show and diff name the bundle beside the receipt, as not checked there', async () => {
    const replay = await run(['replay', 'beside.tar', '--limit', '1']);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain('keyless bundle beside.tar.sigstore.json beside it NOT checked');
    const show = await run(['show', 'beside.tar', '0', '--json']);
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout).signature).toMatchObject({
      keyless_bundle: { file: at('beside.tar.sigstore.json'), checked: false },
    });
    // diff said nothing of it (it only said "same").
    const diff = await run(['diff', 'beside.tar', 'beside.tar']);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('keyless bundle beside.tar.sigstore.json beside it NOT checked');
    const diffJson = JSON.parse((await run(['diff', 'beside.tar', 'beside.tar', '--json'])).stdout);
    expect(diffJson.left_status.signature).toMatchObject({
      keyless_bundle: { file: at('beside.tar.sigstore.json'), checked: false },
    });
  });
});

describe('stepchain check: the keyless bundle beside a committed receipt (the check the Action runs)', () => {
  const check = (...extra: string[]): Promise<Run> =>
    run(['check', '--root', 'chk', '--journals', 'none', '--runs', 'none', '--json', ...extra]);
  const doc = (r: Run) =>
    JSON.parse(r.stdout) as {
      ok: boolean;
      items: { path: string; ok: boolean; status: string }[];
      faults: { path: string; kind: string; message: string }[];
    };

  beforeAll(async () => {
    mkdirSync(at('chk'));
    const out = path.join('chk', `${AGENT}.receipt.tar`);
    const exported = await run(['export', AGENT, '-o', out, '--keyless', ...services()], signEnv());
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
  });

  it('fails the receipt when no identity was given to check its bundle (keyless_not_checked)', async () => {
    const r = await check();
    expect(r.code).toBe(1);
    expect(doc(r).items).toEqual([
      expect.objectContaining({ path: `${AGENT}.receipt.tar`, ok: false, status: 'FAIL' }),
    ]);
    expect(doc(r).faults).toEqual([
      expect.objectContaining({
        path: `${AGENT}.receipt.tar`,
        kind: 'keyless_not_checked',
        message: `${AGENT}.receipt.tar.sigstore.json is beside the receipt but no --certificate-identity and --certificate-oidc-issuer were given: its keyless signature was NOT checked`,
      }),
    ]);
  });

  it('holds under the signer and root given, and fails another signer, as the Action does', async () => {
    const good = await check(...policy(), '--trusted-root', 'full.json');
    expect(good.code).toBe(0);
    expect(doc(good).items).toEqual([
      expect.objectContaining({ ok: true, status: `ok (unsigned), keyless ${si.identity}` }),
    ]);
    const other = await check(...policy(`${si.identity}x`), '--trusted-root', 'full.json');
    expect(other.code).toBe(1);
    expect(doc(other).faults.map((f) => f.kind)).toEqual(['keyless_identity_mismatch']);
    const half = await check('--trusted-root', 'full.json');
    expect(half.code).toBe(2);
  });

  it("never reads a bundle through a link: a change linking it to a runner's file gets no byte of that file quoted", async () => {
    mkdirSync(at('chk-link'));
    copyFileSync(at(path.join('chk', `${AGENT}.receipt.tar`)), at(path.join('chk-link', `${AGENT}.receipt.tar`)));
    writeFileSync(at('runner-secret.txt'), 'TOKEN=ghp_runner_secret_value\n');
    symlinkSync(at('runner-secret.txt'), at(path.join('chk-link', `${AGENT}.receipt.tar.sigstore.json`)));
    const r = await run([
      'check',
      '--root',
      'chk-link',
      '--journals',
      'none',
      '--runs',
      'none',
      '--json',
      ...policy(),
      '--trusted-root',
      'full.json',
    ]);
    expect(r.code).toBe(1);
    expect(`${r.stdout}${r.stderr}`).not.toContain('TOKEN=');
    expect(doc(r).faults).toEqual([
      expect.objectContaining({
        kind: 'keyless_unreadable',
        message: expect.stringContaining('is a symbolic link (never followed)'),
      }),
    ]);
  });

  it('under keyless identities, fails a receipt with no bundle beside it (keyless_no_bundle), as a trusted key fails an unsigned one', async () => {
    // The same receipt, its bundle left behind (deleted in a change, or a receipt added without one): with the
    // anchors given, a keyless signer is required; without them, it claims none and holds on its chain.
    mkdirSync(at('chk-bare'));
    copyFileSync(at(path.join('chk', `${AGENT}.receipt.tar`)), at(path.join('chk-bare', `${AGENT}.receipt.tar`)));
    const bare = (...extra: string[]): Promise<Run> =>
      run(['check', '--root', 'chk-bare', '--journals', 'none', '--runs', 'none', '--json', ...extra]);
    const r = await bare(...policy(), '--trusted-root', 'full.json');
    expect(r.code).toBe(1);
    expect(doc(r).items).toEqual([
      expect.objectContaining({ path: `${AGENT}.receipt.tar`, ok: false, status: 'FAIL' }),
    ]);
    expect(doc(r).faults).toEqual([
      expect.objectContaining({
        path: `${AGENT}.receipt.tar`,
        kind: 'keyless_no_bundle',
        message: `${AGENT}.receipt.tar.sigstore.json is not beside the receipt, but keyless identities were given: a keyless signature is required`,
      }),
    ]);
    const none = await bare();
    expect(none.code).toBe(0);
    expect(doc(none).items).toEqual([expect.objectContaining({ ok: true, status: 'ok (unsigned)' })]);
  });
});
