import { parseExpectedHeads, type TrustedKeySource } from '../check';
import { ensureCommit, readFilesAtCommit } from '../git';
import { InputError } from '../errors';
import { parsePublicKey, type PublicKey } from '../receipt';
import { readUnder } from '../util/nofollow';

/**
 * Trust anchors: the keys receipts must be signed by and the heads journals
 * must end at. What a pull request brings is never its own anchor: a file named
 * in `public-keys` or `expected-heads` is read from the event's base commit
 * (`git show <base>:<path>`, the PR's base, the commit before a push, a merge
 * group's base), never from the checkout the PR controls; a file the base does
 * not have is an input error, not a key. Inline values (PEM blocks, a JSON
 * object: from a secret or a variable) are taken as given. Without a base
 * commit (a manual run, a new branch) a named file is read from the checkout,
 * never through a symbolic link, and the summary says so.
 */
export interface Anchors {
  /** Whether the base commit had to be fetched to read them (a shallow checkout). */
  fetchedBase: boolean;
  publicKeys: PublicKey[];
  keySources: TrustedKeySource[];
  expectedHeads?: { heads: Record<string, string>; path: string; source: string };
}

const PEM_BLOCK = /-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----/g;

export function normalisePath(p: string, what: string): string {
  const rel = p.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  if (rel.startsWith('/') || /^[A-Za-z]:/.test(rel) || rel.split('/').includes('..') || rel === '')
    throw new InputError(`input ${what}: ${p} is not a path inside the repository`);
  return rel;
}

/** Reads repository files for anchors: from the base commit, or (no base) from the checkout without links. */
export async function readAnchorFiles(
  workspace: string,
  base: string | undefined,
  paths: string[],
  what: string,
  anchors: Anchors,
): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  if (paths.length === 0) return out;
  if (base !== undefined) {
    if (await ensureCommit(workspace, base)) anchors.fetchedBase = true;
    const got = await readFilesAtCommit(workspace, base, paths);
    for (const p of paths) {
      const bytes = got.get(p);
      if (bytes === undefined)
        throw new InputError(
          `input ${what}: ${p} does not exist at the base commit ${base.slice(0, 12)}; ` +
            'trust anchors are read from the base, never from the change being checked ' +
            '(add the file to the base branch first, or pass the value inline from a secret or variable)',
        );
      out.set(p, bytes);
    }
    return out;
  }
  for (const p of paths) {
    const r = readUnder(workspace, p, 1024 * 1024);
    if (r.kind === 'symlink') throw new InputError(`input ${what}: ${r.at} is a symbolic link (never followed)`);
    if (r.kind === 'too_large') throw new InputError(`input ${what}: ${p} is ${r.size} bytes, not a key or heads file`);
    if (r.kind !== 'file') throw new InputError(`input ${what}: ${p}: no such file in the repository`);
    out.set(p, r.bytes);
  }
  return out;
}

export function where(p: string, base: string | undefined): string {
  return base === undefined
    ? `${p} in the checkout (this event has no base commit)`
    : `${p} at the base commit ${base.slice(0, 12)}`;
}

export async function resolveAnchors(
  workspace: string,
  raw: { publicKeys: string; expectedHeads: string },
  base: string | undefined,
): Promise<Anchors> {
  const anchors: Anchors = { fetchedBase: false, publicKeys: [], keySources: [] };
  let n = 0;
  for (const m of raw.publicKeys.match(PEM_BLOCK) ?? []) {
    const key = parsePublicKey(Buffer.from(`${m}\n`), `input public-keys (PEM block ${++n})`);
    anchors.publicKeys.push(key);
    anchors.keySources.push({ keyId: key.keyId, source: `the public-keys input (inline PEM block ${n})` });
  }
  const keyPaths = raw.publicKeys
    .replace(PEM_BLOCK, '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => normalisePath(l, 'public-keys'));
  const keyFiles = await readAnchorFiles(workspace, base, keyPaths, 'public-keys', anchors);
  for (const p of keyPaths) {
    const key = parsePublicKey(keyFiles.get(p)!, `input public-keys: ${p}`);
    anchors.publicKeys.push(key);
    anchors.keySources.push({ keyId: key.keyId, source: where(p, base) });
  }
  const heads = raw.expectedHeads.trim();
  if (heads.startsWith('{')) {
    anchors.expectedHeads = {
      heads: parseExpectedHeads(Buffer.from(heads), 'input expected-heads'),
      path: '.',
      source: 'the expected-heads input (inline JSON)',
    };
  } else if (heads !== '') {
    const p = normalisePath(heads, 'expected-heads');
    const files = await readAnchorFiles(workspace, base, [p], 'expected-heads', anchors);
    anchors.expectedHeads = {
      heads: parseExpectedHeads(files.get(p)!, `input expected-heads: ${p}`),
      path: p,
      source: where(p, base),
    };
  }
  return anchors;
}
