import { bundleFromJSON, isBundleWithDsseEnvelope, type Bundle } from '@sigstore/bundle';
import { RFC3161Timestamp } from '@sigstore/core';
import { toSignedEntity, Verifier } from '@sigstore/verify';
import { InputError } from '../../errors';
import type { KeylessFaultKind } from '../fault-kinds';
import { sha256Hex } from '../../util/hash';
import { signerIdentity, type SignerIdentity } from './certificate';
import { rootPolicy, verifierOptions } from './policy';
import { IN_TOTO_PAYLOAD_TYPE, RECEIPT_PREDICATE_TYPE, readStatement } from './statement';
import { readSmallFile } from './files';
import { parseTrustedRoots, publicGoodRoot, rootFor, type LoadedRoot } from './trusted-root';

/** Who must have signed: exact strings, no pattern (a prefix of an identity is another identity). */
export interface KeylessIdentityPolicy {
  /** The certificate's SAN must be one of these, e.g. `https://github.com/ORG/REPO/.github/workflows/F.yml@refs/heads/main`. */
  identities: string[];
  /** The OIDC issuer, e.g. `https://token.actions.githubusercontent.com`. */
  issuer: string;
  /** The repository owner (gh's `--owner`): the certificate's Source Repository Owner URI ends in `/OWNER`. */
  owner?: string;
}

/** One reason a keyless signature does not hold. */
export interface KeylessFault {
  kind: KeylessFaultKind;
  message: string;
}

/** The verdict on a receipt's Sigstore bundle (what `receipt verify --json` reports under `keyless`). */
export interface KeylessVerdict {
  ok: boolean;
  /** The bundle file. */
  bundle: string;
  /** The certificate's SAN and issuer (reported whether or not they match). */
  identity: string | null;
  issuer: string | null;
  /** The statement's subject that names the receipt. */
  subject: { name: string; sha256: string } | null;
  /** The transparency log entry's index, when there is one. */
  log_index: string | null;
  /** The earliest verified time (a log entry's integrated time or a timestamp), ISO 8601. */
  time: string | null;
  /** The trusted root used. */
  trusted_root: string | null;
  errors: KeylessFault[];
}

/** A bundle read from its file; malformed JSON or a bundle that is not one is an input error (exit 2). */
export function parseBundle(text: string, file: string): Bundle {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new InputError(`${file}: not JSON: ${(e as Error).message}`);
  }
  let bundle: Bundle;
  try {
    bundle = bundleFromJSON(doc);
  } catch (e) {
    throw new InputError(`${file}: not a Sigstore bundle: ${(e as Error).message}`);
  }
  if (!isBundleWithDsseEnvelope(bundle))
    throw new InputError(`${file}: the bundle holds no DSSE envelope (a receipt's bundle signs an in-toto statement)`);
  return bundle;
}

/**
 * The receipt a keyless signature is checked against: its bytes as on disk, or
 * their SHA-256 taken while the receipt was streamed (the file is never held
 * whole), and the manifest's bytes.
 */
export type KeylessSubject = { manifestBytes: Uint8Array | undefined } & ({ bytes: Uint8Array } | { sha256: string });

/**
 * Verifies a receipt's Sigstore bundle offline: the certificate chains to the
 * root's CA at a verified time, the log entry and timestamps verify under the
 * root as its policy requires (`rootPolicy`), the DSSE signature verifies, the
 * certificate's SAN and issuer equal the policy's exactly, and the signed
 * statement is about these receipt bytes (a subject's sha256), with our
 * predicate type and this manifest as predicate. The verifier itself never
 * looks at the artifact of a DSSE bundle, nor anchors its SAN pattern: both are
 * checked here. Every fault is reported; none throws.
 */
export function verifyKeylessBundle(
  bundle: Bundle,
  bundleFile: string,
  receipt: KeylessSubject,
  policy: KeylessIdentityPolicy,
  roots: LoadedRoot[],
): KeylessVerdict {
  const verdict: KeylessVerdict = {
    ok: false,
    bundle: bundleFile,
    identity: null,
    issuer: null,
    subject: null,
    log_index: null,
    time: null,
    trusted_root: null,
    errors: [],
  };
  const fault = (kind: KeylessFaultKind, message: string): void => {
    verdict.errors.push({ kind, message });
  };

  const leaf = leafCertificate(bundle);
  let signer: SignerIdentity | undefined;
  if (leaf === undefined) fault('keyless_no_certificate', 'the bundle has no signing certificate');
  else {
    try {
      signer = signerIdentity(leaf);
    } catch (e) {
      fault('keyless_bad_certificate', `the signing certificate cannot be read: ${(e as Error).message}`);
    }
  }
  verdict.identity = signer?.san ?? null;
  verdict.issuer = signer?.issuer ?? null;

  const root = rootFor(roots, signer?.caOrganisation);
  if (root === undefined) {
    fault(
      'keyless_no_trusted_root',
      `no trusted root names the certificate's CA organisation ${JSON.stringify(signer?.caOrganisation ?? null)} (${roots.map((r) => r.source).join(', ')})`,
    );
  } else {
    verdict.trusted_root = root.source;
    verifyUnderRoot(bundle, root, fault);
  }

  if (signer !== undefined) {
    if (signer.san === undefined || !policy.identities.includes(signer.san))
      fault(
        'keyless_identity_mismatch',
        `the certificate identity is ${JSON.stringify(signer.san ?? null)}, not ${policy.identities.length === 1 ? JSON.stringify(policy.identities[0]) : `one of ${policy.identities.map((i) => JSON.stringify(i)).join(', ')}`}`,
      );
    if (signer.issuer !== policy.issuer)
      fault(
        'keyless_issuer_mismatch',
        `the certificate's OIDC issuer is ${JSON.stringify(signer.issuer ?? null)}, not ${JSON.stringify(policy.issuer)}`,
      );
    if (policy.owner !== undefined && !ownerMatches(signer.ownerURI, policy.owner))
      fault(
        'keyless_owner_mismatch',
        `the certificate's repository owner is ${JSON.stringify(signer.ownerURI ?? null)}, not ${policy.owner}`,
      );
  }

  checkStatement(bundle, receipt, verdict, fault);
  const entry = bundle.verificationMaterial.tlogEntries[0];
  verdict.log_index = entry === undefined ? null : entry.logIndex;
  verdict.time = earliestTime(bundle);
  verdict.ok = verdict.errors.length === 0;
  return verdict;
}

/** The chain, log entries, timestamps and signature, under the root's policy. */
function verifyUnderRoot(
  bundle: Bundle,
  root: LoadedRoot,
  fault: (kind: KeylessFaultKind, message: string) => void,
): void {
  const policy = rootPolicy(root);
  const material = bundle.verificationMaterial;
  const logEntries = material.tlogEntries.length;
  const signedTimestamps = material.timestampVerificationData?.rfc3161Timestamps.length ?? 0;
  const loggedTimes = material.tlogEntries.filter((e) => e.inclusionPromise !== undefined).length;
  if (logEntries < policy.logEntries) {
    fault(
      'keyless_no_log_entry',
      `the bundle has no transparency log entry, and ${root.source} lists transparency logs: a log entry is required`,
    );
    return;
  }
  if (signedTimestamps < policy.signedTimestamps) {
    fault(
      'keyless_no_timestamp',
      `the bundle has no RFC 3161 timestamp, and ${root.source} relies on its timestamp authorities: a timestamp is required`,
    );
    return;
  }
  if (signedTimestamps + loggedTimes === 0) {
    fault(
      'keyless_no_verified_time',
      'the bundle has no verified time (no timestamp, no log entry with an integrated time): the short-lived certificate cannot be checked',
    );
    return;
  }
  try {
    new Verifier(root.material, verifierOptions(policy)).verify(toSignedEntity(bundle));
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    fault('keyless_signature_invalid', `the bundle does not verify under ${root.source}: ${describe(e, code)}`);
  }
}

function describe(e: unknown, code: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return typeof code === 'string' ? `${code}: ${msg}` : msg;
}

/** The statement is about these receipt bytes, is ours, and vouches for this manifest. */
function checkStatement(
  bundle: Bundle,
  receipt: KeylessSubject,
  verdict: KeylessVerdict,
  fault: (kind: KeylessFaultKind, message: string) => void,
): void {
  if (bundle.content.$case !== 'dsseEnvelope') return;
  const envelope = bundle.content.dsseEnvelope;
  if (envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    fault(
      'keyless_payload_type',
      `the envelope's payload type is ${JSON.stringify(envelope.payloadType)}, not ${IN_TOTO_PAYLOAD_TYPE}`,
    );
    return;
  }
  let statement;
  try {
    statement = readStatement(envelope.payload);
  } catch (e) {
    fault('keyless_statement', (e as Error).message);
    return;
  }
  const digest = 'sha256' in receipt ? receipt.sha256 : sha256Hex(receipt.bytes);
  const subject = statement.subjects.find((s) => s.sha256 === digest);
  if (subject === undefined) {
    const named = statement.subjects.map((s) => `${s.name} sha256:${s.sha256 ?? '?'}`).join(', ');
    fault(
      'keyless_subject_mismatch',
      `the statement is not about this receipt (sha256:${digest}); it names ${named || 'nothing'}`,
    );
  } else verdict.subject = { name: subject.name, sha256: digest };
  if (statement.predicateType !== RECEIPT_PREDICATE_TYPE)
    fault(
      'keyless_predicate_type',
      `the statement's predicate type is ${JSON.stringify(statement.predicateType ?? null)}, not ${RECEIPT_PREDICATE_TYPE}`,
    );
  else if (
    receipt.manifestBytes === undefined ||
    statement.predicateCanonical !== Buffer.from(receipt.manifestBytes).toString('utf8')
  )
    fault('keyless_predicate_mismatch', "the statement's predicate is not the receipt's manifest.json");
}

function leafCertificate(bundle: Bundle): Buffer | undefined {
  const c = bundle.verificationMaterial.content;
  if (c.$case === 'certificate') return c.certificate.rawBytes;
  if (c.$case === 'x509CertificateChain') return c.x509CertificateChain.certificates[0]?.rawBytes;
  return undefined;
}

/** gh's `--owner`: the owner URI's one path segment, compared as GitHub compares names (case-insensitively). */
function ownerMatches(ownerURI: string | undefined, owner: string): boolean {
  if (ownerURI === undefined) return false;
  let u: URL;
  try {
    u = new URL(ownerURI);
  } catch {
    return false;
  }
  return u.pathname.replace(/^\//, '').toLowerCase() === owner.toLowerCase();
}

/** The earliest of the bundle's times (only meaningful once the bundle verified: they are then verified times). */
function earliestTime(bundle: Bundle): string | null {
  const times: number[] = [];
  for (const e of bundle.verificationMaterial.tlogEntries)
    if (e.inclusionPromise !== undefined) times.push(Number(e.integratedTime) * 1000);
  for (const t of bundle.verificationMaterial.timestampVerificationData?.rfc3161Timestamps ?? []) {
    try {
      times.push(RFC3161Timestamp.parse(Buffer.from(t.signedTimestamp)).signingTime.getTime());
    } catch {
      // An unreadable timestamp is the verifier's fault to report.
    }
  }
  const finite = times.filter((t) => Number.isFinite(t));
  return finite.length === 0 ? null : new Date(Math.min(...finite)).toISOString();
}

/** Where a receipt's keyless signature is checked against what. */
export interface KeylessCheck {
  bundleFile: string;
  policy: KeylessIdentityPolicy;
  /** A TrustedRoot JSON or gh's JSON-lines file; default the shipped public Sigstore root. */
  trustedRootFile?: string;
}

/** Reads the bundle and the roots (input errors: exit 2), then verifies (`verifyKeylessBundle`). */
export function checkKeyless(receipt: KeylessSubject, check: KeylessCheck): KeylessVerdict {
  const roots =
    check.trustedRootFile === undefined
      ? [publicGoodRoot()]
      : parseTrustedRoots(readSmallFile(check.trustedRootFile, 'trusted root'), check.trustedRootFile);
  return checkKeylessWithRoots(receipt, check.bundleFile, check.policy, roots);
}

/** `checkKeyless` with the roots already loaded (the Action reads them from the base commit). */
export function checkKeylessWithRoots(
  receipt: KeylessSubject,
  bundleFile: string,
  policy: KeylessIdentityPolicy,
  roots: LoadedRoot[],
): KeylessVerdict {
  const bundle = parseBundle(readSmallFile(bundleFile, 'Sigstore bundle'), bundleFile);
  return verifyKeylessBundle(bundle, bundleFile, receipt, policy, roots);
}
