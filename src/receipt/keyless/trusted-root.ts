import type { TrustedRoot } from '@sigstore/protobuf-specs';
import type { TrustMaterial } from '@sigstore/verify';
import { InputError } from '../../errors';
import publicGoodRootJson from './public-trusted-root.json';
import { sigstore } from './sigstore';

/**
 * A trusted root ready to verify with: the Sigstore TrustedRoot, its trust
 * material, the organisation its certificate authorities name (how a bundle's
 * certificate picks its root, as gh picks it), and where it came from.
 */
export interface LoadedRoot {
  root: TrustedRoot;
  material: TrustMaterial;
  /** The CA subject organisation, e.g. `sigstore.dev` or `GitHub, Inc.`. */
  organisation: string | undefined;
  /** For messages: `FILE`, `FILE:LINE`, or the shipped public root. */
  source: string;
}

/** The organisation of Sigstore's public-good instance's CA. */
export const PUBLIC_GOOD_ORGANISATION = 'sigstore.dev';
const TRUSTED_ROOT_MEDIA_TYPE = /^application\/vnd\.dev\.sigstore\.trustedroot(\.v0\.[0-9]+)?\+json/;

/**
 * The public Sigstore instance's trusted root, shipped with the package (the
 * `trusted_root.json` target of the TUF repository https://tuf-repo-cdn.sigstore.dev,
 * as seeded in @sigstore/tuf 4.0.2): verification needs no network. GitHub's
 * private-instance root is not shipped: `gh attestation trusted-root > roots.jsonl`.
 */
export function publicGoodRoot(): LoadedRoot {
  return loadRoot(publicGoodRootJson, 'the shipped public Sigstore trusted root');
}

/**
 * The roots of a trusted-root file: one TrustedRoot JSON document, or the
 * JSON-lines file `gh attestation trusted-root` writes (one root a line). A
 * malformed file is an input error naming the file and line.
 */
export function parseTrustedRoots(text: string, file: string): LoadedRoot[] {
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch {
    whole = undefined;
  }
  if (whole !== undefined) return [loadRoot(whole, file)];
  const roots: LoadedRoot[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let doc: unknown;
    try {
      doc = JSON.parse(line);
    } catch (e) {
      throw new InputError(`${file}:${i + 1}: not a trusted root: ${(e as Error).message}`);
    }
    roots.push(loadRoot(doc, `${file}:${i + 1}`));
  }
  if (roots.length === 0) throw new InputError(`${file}: no trusted root in the file`);
  return roots;
}

function loadRoot(doc: unknown, source: string): LoadedRoot {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new InputError(`${source}: a trusted root is a JSON object`);
  const mediaType = (doc as Record<string, unknown>)['mediaType'];
  if (typeof mediaType !== 'string' || !TRUSTED_ROOT_MEDIA_TYPE.test(mediaType))
    throw new InputError(`${source}: not a Sigstore trusted root (mediaType ${JSON.stringify(mediaType ?? null)})`);
  const { TrustedRoot, toTrustMaterial } = sigstore();
  let root: TrustedRoot;
  let material: TrustMaterial;
  try {
    root = TrustedRoot.fromJSON(doc);
    material = toTrustMaterial(root);
  } catch (e) {
    throw new InputError(`${source}: malformed trusted root: ${(e as Error).message}`);
  }
  if (root.certificateAuthorities.length === 0)
    throw new InputError(`${source}: the trusted root lists no certificate authority`);
  const organisation = root.certificateAuthorities.map((ca) => ca.subject?.organization).find((o) => o);
  return { root, material, organisation, source };
}

/**
 * The root for a certificate issued by `organisation`: the first whose CA
 * names it, as gh chooses among the roots of its JSON-lines file; a single
 * root is used whatever it names (its CA then decides whether the chain holds).
 */
export function rootFor(roots: LoadedRoot[], organisation: string | undefined): LoadedRoot | undefined {
  if (roots.length === 1) return roots[0];
  return roots.find((r) => r.organisation !== undefined && r.organisation === organisation);
}
