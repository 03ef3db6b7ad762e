import { existsSync, mkdirSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { failureOf, appendSteps, requireBuiltAction, runAction, type ActionResult } from './helpers/action';
import { commitAll, emptyRepo, git } from './helpers/git';
import { startStandIns, type StandIns } from './helpers/sigstore-stand-ins';
import { tempDir } from './helpers/tmp';

/**
 * The Action with keyless receipts (dist/index.js as a real process; Sigstore and GitHub's attestations API
 * are local stand-ins): export mode signs and attests every receipt; verify mode checks a receipt's bundle
 * under the keyless anchors read from the base commit, and fails a bundle nobody gave anchors for.
 */
const tmp = tempDir('stepchain-action-keyless-');
const scratch = path.join(tmp, 'scratch');
let si: StandIns;

beforeAll(async () => {
  requireBuiltAction();
  si = await startStandIns('octo/stepchain-test');
});
afterAll(async () => si.close());

const urls = (): Record<string, string> => ({ 'fulcio-url': si.url, 'rekor-url': si.url, 'tsa-url': si.url });
const noStack = (r: ActionResult): void => expect(r.stdout + r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?/);

async function exportKeyless(dir: string): Promise<{ r: ActionResult; files: string[] }> {
  const r = await runAction({
    workspace: dir,
    scratch,
    inputs: { mode: 'export', attest: 'true', 'upload-artifact': 'false', 'github-token': 'gh-token-1', ...urls() },
    env: { SIGSTORE_ID_TOKEN: si.token, GITHUB_API_URL: si.url },
  });
  noStack(r);
  return { r, files: r.code === 0 ? (JSON.parse(r.outputs['receipts']!) as string[]) : [] };
}

/**
 * A keyless export of alice's three steps, made once: the export test's run, and the receipt and bundle the verify
 * tests check (they had a keyless export of their own, one more process of the bundle, for a receipt of two steps).
 */
let exported: Promise<{ r: ActionResult; files: string[]; before: number }> | undefined;
function firstExport(): Promise<{ r: ActionResult; files: string[]; before: number }> {
  exported ??= (async () => {
    const dir = emptyRepo(path.join(tmp, 'export'));
    appendSteps(dir, 'alice', 3);
    commitAll(dir, 'journals');
    const before = si.attestations.length;
    return { ...(await exportKeyless(dir)), before };
  })();
  return exported;
}

describe('export mode, keyless: true / attest: true', () => {
  it('signs each receipt, writes its bundle beside it and stores the bundle as an attestation', async () => {
    const { r, files, before } = await firstExport();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(files.map((f) => path.basename(f))).toEqual(['alice.receipt.tar']);
    const bundle = JSON.parse(readFileSync(`${files[0]}.sigstore.json`, 'utf8')) as { mediaType: string };
    expect(bundle.mediaType).toBe('application/vnd.dev.sigstore.bundle.v0.3+json');
    expect(si.attestations.length).toBe(before + 1);
    const sent = si.attestations[before]!;
    expect(sent.path).toBe('/repos/octo/stepchain-test/attestations');
    expect(sent.auth).toMatch(/gh-token-1/);
    expect(sent.body).toEqual({ bundle });
    expect(r.summary).toMatch(
      /\| keyless <code>https&#58;\/\/github\.com\/octo\/stepchain-test\/[^|]*<\/code>, attestation 1 \|/,
    );
    // No signing-key and no allow-unsigned: a keyless signature is the signature.
    expect(r.stdout).not.toContain('not signed');
  });

  it('fails and leaves no receipt when there is no OIDC token', async () => {
    const dir = emptyRepo(path.join(tmp, 'no-token'));
    appendSteps(dir, 'alice', 2);
    commitAll(dir, 'journals');
    const r = await runAction({
      workspace: dir,
      scratch,
      inputs: { mode: 'export', keyless: 'true', 'upload-artifact': 'false', ...urls() },
    });
    noStack(r);
    expect(r.code).not.toBe(0);
    expect(failureOf(r)).toMatch(/SIGSTORE_ID_TOKEN/);
  });
});

describe('verify mode with keyless anchors', () => {
  let dir: string;
  let base: string;
  beforeAll(async () => {
    const { files } = await firstExport();
    expect(files).toHaveLength(1);
    dir = emptyRepo(path.join(tmp, 'verify'));
    mkdirSync(path.join(dir, 'receipts'), { recursive: true });
    copyFileSync(files[0]!, path.join(dir, 'receipts', 'alice.receipt.tar'));
    copyFileSync(`${files[0]}.sigstore.json`, path.join(dir, 'receipts', 'alice.receipt.tar.sigstore.json'));
    mkdirSync(path.join(dir, '.github'), { recursive: true });
    writeFileSync(path.join(dir, '.github', 'sigstore-root.json'), JSON.stringify(si.root({})));
    writeFileSync(path.join(dir, '.github', 'signers.txt'), `# who may sign receipts\n${si.identity}\n`);
    base = commitAll(dir, 'receipts and anchors');
    git(dir, ['checkout', '-q', '-b', 'pr']);
  });

  const verify = (inputs: Record<string, string>): Promise<ActionResult> =>
    runAction({
      workspace: dir,
      scratch,
      inputs: { mode: 'verify', journals: 'none', runs: 'none', 'upload-artifact': 'false', ...inputs },
      event: { name: 'push', payload: { before: base, after: git(dir, ['rev-parse', 'HEAD']) } },
    });

  it('holds under the identities and root read from the base commit', async () => {
    const r = await verify({
      'keyless-identities': '.github/signers.txt',
      'trusted-root': '.github/sigstore-root.json',
    });
    noStack(r);
    expect(failureOf(r)).toBeUndefined();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Keyless signers: ${si.identity}`);
  });

  it('fails a receipt whose bundle nobody gave anchors for, and one signed by another identity', async () => {
    const unchecked = await verify({});
    expect(unchecked.code).not.toBe(0);
    expect(unchecked.stdout).toContain('keyless_not_checked');
    const other = await verify({
      'keyless-identities': 'https://github.com/octo/other/.github/workflows/x.yml@refs/heads/main',
      'trusted-root': '.github/sigstore-root.json',
    });
    expect(other.code).not.toBe(0);
    expect(other.stdout).toContain('keyless_identity_mismatch');
  });

  it('never reads the anchors from the change being checked', async () => {
    writeFileSync(path.join(dir, '.github', 'pr-signers.txt'), `${si.identity}\n`);
    commitAll(dir, 'the PR brings its own signer list');
    const r = await verify({
      'keyless-identities': '.github/pr-signers.txt',
      'trusted-root': '.github/sigstore-root.json',
    });
    expect(r.code).not.toBe(0);
    expect(failureOf(r)).toMatch(/does not exist at the base commit/);
    expect(existsSync(path.join(dir, '.github', 'pr-signers.txt'))).toBe(true);
  });
});
