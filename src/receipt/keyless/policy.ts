import type { VerifierOptions } from '@sigstore/verify';
import { PUBLIC_GOOD_ORGANISATION, type LoadedRoot } from './trusted-root';

/** What a bundle must carry to verify under a root. */
export interface RootPolicy {
  /** Transparency log entries (each verified against the root's logs). */
  logEntries: number;
  /** RFC 3161 timestamps from the root's authorities. */
  signedTimestamps: number;
  /** Signed certificate timestamps in the certificate (from the root's CT logs). */
  scts: number;
}

/**
 * The policy follows the root, as gh's does (`gh attestation verify`: the public
 * instance needs a log entry and an SCT; GitHub's needs a signed timestamp):
 * a root that lists transparency logs needs a log entry (its integrated time is
 * the signing time); a root that lists none but lists timestamp authorities
 * needs a timestamp from one of them; a root whose CA is the public instance's
 * needs an SCT. And always: at least one verified time (a log entry's integrated
 * time or a timestamp), or there is nothing the certificate's short validity can
 * be checked at.
 *
 * A root that lists both logs and authorities (the public root now does) needs
 * the log entry, not a timestamp: actions/attest signs public repositories'
 * attestations with a log entry and no timestamp.
 */
export function rootPolicy(root: LoadedRoot): RootPolicy {
  const logs = root.root.tlogs.length > 0;
  return {
    logEntries: logs ? 1 : 0,
    signedTimestamps: !logs && root.root.timestampAuthorities.length > 0 ? 1 : 0,
    scts: root.organisation === PUBLIC_GOOD_ORGANISATION ? 1 : 0,
  };
}

/** The verifier's thresholds for a policy (its own default is one of each, whatever the root). */
export function verifierOptions(p: RootPolicy): VerifierOptions {
  return { tlogThreshold: p.logEntries, ctlogThreshold: p.scts, timestampThreshold: 1 };
}
