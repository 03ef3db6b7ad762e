import { unlinkSync } from 'node:fs';
import path from 'node:path';
import * as core from '@actions/core';
import * as github from '@actions/github';
import type { SerializedBundle } from '@sigstore/bundle';
import type { CheckFault, CheckOptions, ExportedReceipt } from '../check';
import { InputError, IntegrityError } from '../errors';
import { verifyReceiptFile } from '../receipt';
import { writeFileWhole } from '../util/fs';
import { bundlePathOf } from '../receipt/keyless/bundle-path';
import { serviceURL, signingEndpoints, type EndpointOverrides } from '../receipt/keyless/endpoints';
import { idTokenSource } from '../receipt/keyless/token';
import { normalisePath, readAnchorFiles, where, type Anchors } from './anchors';
import { safeLine } from './log';

/**
 * Keyless receipts in the Action. Export: each receipt is signed through
 * Sigstore with the workflow's identity (`id-token: write`), its bundle written
 * beside it (a receipt whose signature fails is removed: never one without the
 * other), and with `attest` stored through GitHub's attestations API so `gh
 * attestation verify` finds it. Verify: the allowed identities and issuer are
 * read as trust anchors (from the base commit, like public-keys); the library's
 * check (src/check/keyless.ts) checks each receipt's bundle under them.
 */

/** The export inputs that concern keyless signing. */
export interface KeylessExportInputs {
  attest: boolean;
  githubToken: string;
  endpoints: EndpointOverrides;
}

/** Endpoint inputs: URLs, validated. */
export function endpointInputs(raw: { fulcio: string; rekor: string; tsa: string }): EndpointOverrides {
  const out: EndpointOverrides = {};
  if (raw.fulcio !== '') out.fulcioURL = serviceURL(raw.fulcio, 'input fulcio-url');
  if (raw.rekor !== '') out.rekorURL = serviceURL(raw.rekor, 'input rekor-url');
  if (raw.tsa !== '') out.tsaURL = serviceURL(raw.tsa, 'input tsa-url');
  return out;
}

/** A receipt signed keylessly: its bundle, who signed, and the attestation's id when stored. */
export interface KeylessExported {
  receipt: string;
  bundle: string;
  identity: string | null;
  attestation_id: string | null;
}

/**
 * Signs each exported receipt; a receipt that cannot be signed (or attested) is
 * removed with its bundle and becomes a fault. Returns the signed ones, and the
 * receipts that remain.
 */
export async function signExported(
  receipts: ExportedReceipt[],
  inputs: KeylessExportInputs,
  faults: CheckFault[],
): Promise<{ signed: KeylessExported[]; kept: ExportedReceipt[] }> {
  const token = idTokenSource(process.env);
  const endpoints = signingEndpoints(inputs.endpoints, process.env);
  if (inputs.attest && inputs.githubToken === '')
    throw new InputError('input attest: needs github-token (with attestations: write)');
  const { signReceiptKeyless } = await import(/* webpackMode: "eager" */ '../receipt/keyless/sign');
  const signed: KeylessExported[] = [];
  const kept: ExportedReceipt[] = [];
  for (const x of receipts) {
    const bundleFile = bundlePathOf(x.file);
    try {
      // The receipt as written, read once in bounded memory (a streamed export of any size): what it says, its digest.
      const read = await verifyReceiptFile(x.file);
      if (!read.verdict.ok || read.manifestBytes === undefined || read.sha256 === undefined)
        throw new IntegrityError(`${path.basename(x.file)} does not verify as written; not signed`);
      const s = await signReceiptKeyless(path.basename(x.file), read.sha256, read.manifestBytes, { endpoints, token });
      writeFileWhole(bundleFile, Buffer.from(`${JSON.stringify(s.bundle, null, 2)}\n`, 'utf8'), { durable: true });
      const id = inputs.attest ? await storeAttestation(inputs.githubToken, s.bundle) : null;
      signed.push({ receipt: x.file, bundle: bundleFile, identity: s.identity, attestation_id: id });
      kept.push(x);
      core.info(
        safeLine(
          `Signed ${path.basename(x.file)} keylessly as ${s.identity ?? '?'}${id === null ? '' : ` (attestation ${id})`}`,
        ),
      );
    } catch (e) {
      for (const f of [x.file, bundleFile]) {
        try {
          unlinkSync(f);
        } catch {
          /* not written */
        }
      }
      faults.push({
        item: 'receipt',
        path: path.basename(x.file),
        line: null,
        kind: 'keyless_sign_failed',
        message: `agent ${x.agent_id}: no receipt: ${e instanceof Error ? e.message : String(e)}`,
        severity: 'error',
        id: x.agent_id,
      });
    }
  }
  return { signed, kept };
}

/** Stores a bundle through GitHub's attestations API (`attestations: write`); returns the attestation id. */
async function storeAttestation(token: string, bundle: SerializedBundle): Promise<string> {
  const octokit = github.getOctokit(token);
  const { owner, repo } = github.context.repo;
  try {
    const r = await octokit.request('POST /repos/{owner}/{repo}/attestations', {
      owner,
      repo,
      bundle: bundle as unknown as Record<string, unknown>,
    });
    const data = (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as { id?: unknown };
    return String(data?.id ?? '');
  } catch (e) {
    throw new Error(`storing the attestation failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/** Keyless trust anchors for verify mode: the check's (CheckOptions.keyless, which reads the roots), and their source. */
export interface KeylessAnchors extends NonNullable<CheckOptions['keyless']> {
  /** Where they came from (for the summary). */
  source: string;
}

/** GitHub Actions' OIDC issuer: the default `keyless-issuer`. */
export const ACTIONS_ISSUER = 'https://token.actions.githubusercontent.com';

/**
 * `keyless-identities` (and `trusted-root`) as trust anchors, read like
 * `public-keys`: an `https://` line is an identity given inline; any other line
 * names a repository file of identities (one a line, `#` comments), read from
 * the event's base commit, never from the change being checked. Without
 * `trusted-root` the public Sigstore root shipped with stepchain is used.
 */
export async function resolveKeylessAnchors(
  workspace: string,
  raw: { identities: string; issuer: string; trustedRoot: string },
  base: string | undefined,
  anchors: Anchors,
): Promise<KeylessAnchors | undefined> {
  const lines = raw.identities
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  if (lines.length === 0) {
    if (raw.trustedRoot !== '') throw new InputError('input trusted-root: needs keyless-identities');
    return undefined;
  }
  const identities = lines.filter((l) => l.startsWith('https://'));
  const paths = lines.filter((l) => !l.startsWith('https://')).map((l) => normalisePath(l, 'keyless-identities'));
  const sources = identities.length > 0 ? ['the keyless-identities input'] : [];
  const files = await readAnchorFiles(workspace, base, paths, 'keyless-identities', anchors);
  for (const p of paths) {
    for (const l of files.get(p)!.toString('utf8').split(/\r?\n/)) {
      const id = l.trim();
      if (id !== '' && !id.startsWith('#')) identities.push(id);
    }
    sources.push(where(p, base));
  }
  if (identities.length === 0) throw new InputError('input keyless-identities: the files name no identity');
  let trustedRoots: KeylessAnchors['trustedRoots'];
  if (raw.trustedRoot !== '') {
    const p = normalisePath(raw.trustedRoot, 'trusted-root');
    const got = await readAnchorFiles(workspace, base, [p], 'trusted-root', anchors);
    trustedRoots = { text: got.get(p)!.toString('utf8'), source: `input trusted-root: ${p}` };
    sources.push(`trusted root ${where(p, base)}`);
  }
  return {
    policy: { identities, issuer: raw.issuer },
    ...(trustedRoots === undefined ? {} : { trustedRoots }),
    source: sources.join('; '),
  };
}
