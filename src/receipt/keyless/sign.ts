import path from 'node:path';
import type { SerializedBundle } from '@sigstore/bundle';
import type { Witness } from '@sigstore/sign';
import { IntegrityError } from '../../errors';
import { signerIdentity } from './certificate';
import { sigstore } from './sigstore';
import type { SigningEndpoints } from './endpoints';
import { IN_TOTO_PAYLOAD_TYPE, receiptStatement } from './statement';
import type { IdTokenSource } from './token';

/** A keyless signature made: the bundle, and who it says signed (read back from its certificate). */
export interface KeylessSignature {
  bundle: SerializedBundle;
  identity: string | null;
  issuer: string | null;
  log_index: string | null;
}

export interface KeylessSignOptions {
  endpoints: SigningEndpoints;
  token: IdTokenSource;
  /** Per request (default 30 s); each service is retried twice on a 5xx or a network error. */
  timeoutMs?: number;
}

/**
 * Signs a receipt keylessly: a DSSE envelope over the in-toto statement that
 * names the receipt file (`name`, and `receiptSha256`: the SHA-256 of its bytes) with its
 * manifest as predicate, a short-lived Fulcio certificate for the token's
 * identity, witnessed by the Rekor log (a `dsse` entry) and/or the TSA. Returns
 * the bundle (v0.3 JSON). Nothing is written; a service that fails is an
 * IntegrityError naming it.
 */
export async function signReceiptKeyless(
  name: string,
  receiptSha256: string,
  manifestBytes: Uint8Array,
  options: KeylessSignOptions,
): Promise<KeylessSignature> {
  const { endpoints, token } = options;
  const timeout = options.timeoutMs ?? 30_000;
  const retry = 2;
  const { bundleToJSON, DSSEBundleBuilder, FulcioSigner, RekorWitness, TSAWitness } = sigstore();
  const witnesses: Witness[] = [];
  if (endpoints.rekorURL !== undefined)
    witnesses.push(new RekorWitness({ rekorBaseURL: endpoints.rekorURL, entryType: 'dsse', timeout, retry }));
  if (endpoints.tsaURL !== undefined) witnesses.push(new TSAWitness({ tsaBaseURL: endpoints.tsaURL, timeout, retry }));
  const signer = new FulcioSigner({
    identityProvider: { getToken: () => token.getToken() },
    fulcioBaseURL: endpoints.fulcioURL,
    timeout,
    retry,
  });
  const builder = new DSSEBundleBuilder({ signer, witnesses });
  const statement = receiptStatement(path.basename(name), receiptSha256, manifestBytes);
  try {
    const bundle = await builder.create({ data: statement, type: IN_TOTO_PAYLOAD_TYPE });
    const c = bundle.verificationMaterial.content;
    const leaf = c.$case === 'certificate' ? c.certificate.rawBytes : undefined;
    const who = leaf === undefined ? undefined : signerIdentity(leaf);
    return {
      bundle: bundleToJSON(bundle),
      identity: who?.san ?? null,
      issuer: who?.issuer ?? null,
      log_index: bundle.verificationMaterial.tlogEntries[0]?.logIndex ?? null,
    };
  } catch (e) {
    if (e instanceof IntegrityError || (e as { exitCode?: unknown }).exitCode !== undefined) throw e;
    throw new IntegrityError(`keyless signing failed (${describeServices(endpoints)}): ${reason(e)}`);
  }
}

function describeServices(e: SigningEndpoints): string {
  return [`Fulcio ${e.fulcioURL}`, e.rekorURL && `Rekor ${e.rekorURL}`, e.tsaURL && `TSA ${e.tsaURL}`]
    .filter(Boolean)
    .join(', ');
}

/** One line: the error and its causes (sigstore-js wraps the HTTP error in `cause`). */
function reason(e: unknown): string {
  const parts: string[] = [];
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur !== undefined && cur !== null; i++) {
    const msg = cur instanceof Error ? cur.message : String(cur);
    if (msg !== '' && !parts.includes(msg)) parts.push(msg);
    cur = cur instanceof Error ? (cur as Error & { cause?: unknown }).cause : undefined;
  }
  return parts.join(': ').replace(/\s+/g, ' ');
}
