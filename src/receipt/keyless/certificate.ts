import type { X509Certificate } from '@sigstore/core';
import { sigstore } from './sigstore';

/** Fulcio's OIDC issuer extension (v2, DER UTF8String) and its legacy form (v1, raw bytes). */
const OID_ISSUER_V2 = '1.3.6.1.4.1.57264.1.8';
const OID_ISSUER_V1 = '1.3.6.1.4.1.57264.1.1';
/** Fulcio's Source Repository Owner URI extension (`https://github.com/ORG`), what gh's `--owner` checks. */
const OID_SOURCE_REPO_OWNER_URI = '1.3.6.1.4.1.57264.1.16';
const OID_ORGANIZATION = '2.5.4.10';

/** What a Fulcio certificate says about who signed. */
export interface SignerIdentity {
  /** The SAN (a URI for a workflow: `https://github.com/OWNER/REPO/.github/workflows/F.yml@REF`). */
  san: string | undefined;
  /** The OIDC issuer (`https://token.actions.githubusercontent.com` for GitHub Actions). */
  issuer: string | undefined;
  /** `https://github.com/ORG` when the certificate names the repository owner. */
  ownerURI: string | undefined;
  /** The organisation of the certificate's issuer DN, e.g. `sigstore.dev` (picks the trusted root). */
  caOrganisation: string | undefined;
}

/** Reads a certificate's identity fields; throws (a one-line Error) when it is not a certificate. */
export function signerIdentity(der: Buffer): SignerIdentity {
  const cert = sigstore().X509Certificate.parse(Buffer.from(der));
  return {
    san: cert.subjectAltName,
    issuer: utf8Extension(cert, OID_ISSUER_V2) ?? rawExtension(cert, OID_ISSUER_V1),
    ownerURI: utf8Extension(cert, OID_SOURCE_REPO_OWNER_URI),
    caOrganisation: issuerOrganisation(cert),
  };
}

/** An extension whose value is a DER string (Fulcio's v2 extensions). */
function utf8Extension(cert: X509Certificate, oid: string): string | undefined {
  const ext = cert.extension(oid);
  // The extension's OCTET STRING holds the DER string: its one sub-object.
  return ext?.valueObj.subs[0]?.value.toString('utf8');
}

/** An extension whose value is the raw bytes of a string (Fulcio's legacy v1 extensions). */
function rawExtension(cert: X509Certificate, oid: string): string | undefined {
  const ext = cert.extension(oid);
  return ext === undefined ? undefined : ext.value.toString('ascii');
}

/** The O= of the issuer's distinguished name (tbsCertificate's fourth element: SETs of {OID, value}). */
function issuerOrganisation(cert: X509Certificate): string | undefined {
  const name = cert.tbsCertificate.subs[3];
  for (const rdn of name?.subs ?? []) {
    for (const attr of rdn.subs) {
      if (attr.subs.length === 2 && attr.subs[0]!.toOID() === OID_ORGANIZATION)
        return attr.subs[1]!.value.toString('utf8');
    }
  }
  return undefined;
}
