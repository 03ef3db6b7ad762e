/**
 * The Sigstore packages keyless receipts use, as one program of their own: it is
 * bundled apart (scripts/build-sigstore.mjs) and carried as text, compiled only
 * when a keyless receipt is signed or checked (./sigstore.ts). Bundled in, they
 * were half of the CLI's bytes, compiled by every command (`--version` included).
 * Our own modules stay out of it (one copy of each class, `instanceof` holds):
 * it holds the packages only.
 */
export { bundleFromJSON, bundleToJSON, isBundleWithDsseEnvelope } from '@sigstore/bundle';
export { RFC3161Timestamp, X509Certificate } from '@sigstore/core';
export { TrustedRoot } from '@sigstore/protobuf-specs';
export { DSSEBundleBuilder, FulcioSigner, RekorWitness, TSAWitness } from '@sigstore/sign';
export { toSignedEntity, toTrustMaterial, Verifier } from '@sigstore/verify';
