/**
 * Keyless receipts: a Sigstore bundle beside a receipt (`R.sigstore.json`), a
 * DSSE-signed in-toto statement naming the receipt, signed with a workflow's
 * OIDC identity through Fulcio and witnessed by Rekor and/or a TSA; verified
 * offline against a trusted root with an exact identity policy. Kept out of the
 * library's public API and loaded only when a command asks for it (its Sigstore
 * dependencies are most of the CLI bundle's weight).
 */
export { bundleBeside, bundlePathOf, notCheckedFault } from './bundle-path';
export { signReceiptKeyless } from './sign';
export type { KeylessSignature, KeylessSignOptions } from './sign';
export { GITHUB_INSTANCE, PUBLIC_GOOD, repositoryVisibility, serviceURL, signingEndpoints } from './endpoints';
export type { EndpointOverrides, SigningEndpoints } from './endpoints';
export { idTokenSource, SIGSTORE_AUDIENCE } from './token';
export type { IdTokenSource } from './token';
export { IN_TOTO_PAYLOAD_TYPE, RECEIPT_PREDICATE_TYPE, readStatement, receiptStatement } from './statement';
export { parseTrustedRoots, publicGoodRoot, rootFor } from './trusted-root';
export type { LoadedRoot } from './trusted-root';
export { rootPolicy } from './policy';
export type { RootPolicy } from './policy';
export { checkKeyless, parseBundle, verifyKeylessBundle } from './verify';
export type { KeylessCheck, KeylessFault, KeylessIdentityPolicy, KeylessSubject, KeylessVerdict } from './verify';
