import path from 'node:path';
import { InputError } from '../../errors';
import type { ReportFault, ReportKeyless } from '../../report';
import { bundleBeside, notCheckedFault } from '../../receipt/keyless/bundle-path';
import type { KeylessCheck, KeylessIdentityPolicy } from '../../receipt/keyless/verify';
import type { OptionSpec, ParsedArgs } from '../args';
import type { CommandIO } from '../io';

/** The options `receipt verify` and `report` share to check a keyless (Sigstore) signature. */
export const KEYLESS_CHECK_OPTIONS: Record<string, OptionSpec> = {
  bundle: {
    kind: 'value',
    value: 'FILE',
    description: 'The Sigstore bundle of a keyless signature (default: RECEIPT.sigstore.json when it exists).',
  },
  'certificate-identity': {
    kind: 'value',
    value: 'ID',
    description:
      "The signer's exact certificate identity (SAN), e.g. https://github.com/ORG/REPO/.github/workflows/ci.yml@refs/heads/main.",
  },
  'certificate-oidc-issuer': {
    kind: 'value',
    value: 'ISS',
    description: "The signer's exact OIDC issuer, e.g. https://token.actions.githubusercontent.com.",
  },
  'trusted-root': {
    kind: 'value',
    value: 'FILE',
    description:
      'A Sigstore TrustedRoot JSON, or the JSON-lines file of `gh attestation trusted-root` (default: the public Sigstore root).',
  },
  owner: {
    kind: 'value',
    value: 'ORG',
    description: "Also require the certificate's repository owner to be ORG (as `gh attestation verify --owner`).",
  },
};

/**
 * The signer to expect (`--certificate-identity`, `--certificate-oidc-issuer`, `--owner`), or none given. Half a
 * policy, an empty one, or `--trusted-root`/`--owner` without one is a usage error.
 */
export function keylessPolicyArgs(args: ParsedArgs, command: string): KeylessIdentityPolicy | undefined {
  const identity = args.values.get('certificate-identity');
  const issuer = args.values.get('certificate-oidc-issuer');
  const owner = args.values.get('owner');
  if ((identity === undefined) !== (issuer === undefined))
    throw new InputError(
      `${command}: --certificate-identity and --certificate-oidc-issuer go together (${identity === undefined ? '--certificate-identity' : '--certificate-oidc-issuer'} is missing)`,
    );
  if (identity === undefined || issuer === undefined) {
    for (const name of ['bundle', 'trusted-root', 'owner'])
      if (args.values.get(name) !== undefined)
        throw new InputError(
          `${command}: --${name} needs --certificate-identity and --certificate-oidc-issuer (the signer to expect)`,
        );
    return undefined;
  }
  if (identity === '' || issuer === '')
    throw new InputError(`${command}: --certificate-identity and --certificate-oidc-issuer must not be empty`);
  return { identities: [identity], issuer, ...(owner === undefined ? {} : { owner }) };
}

/**
 * The keyless part of the command line: a check to make (identity and issuer
 * both given, a bundle given or beside the receipt), or a bundle beside the
 * receipt that nobody asked to check. Half a policy is a usage error.
 */
export function keylessArgs(
  args: ParsedArgs,
  io: CommandIO,
  receiptFile: string,
  command: string,
): { check?: KeylessCheck; unchecked?: string } {
  const policy = keylessPolicyArgs(args, command);
  const bundle = args.values.get('bundle');
  const root = args.values.get('trusted-root');
  if (policy === undefined) {
    const beside = bundleBeside(receiptFile);
    return beside === undefined ? {} : { unchecked: beside };
  }
  const bundleFile = bundle === undefined ? bundleBeside(receiptFile) : path.resolve(io.cwd, bundle);
  if (bundleFile === undefined)
    throw new InputError(
      `${command}: no Sigstore bundle: give --bundle FILE or put it beside the receipt as ${path.basename(receiptFile)}.sigstore.json`,
    );
  return {
    check: {
      bundleFile,
      policy,
      ...(root === undefined ? {} : { trustedRootFile: path.resolve(io.cwd, root) }),
    },
  };
}

/**
 * The keyless signer a report shows for a receipt (of the bytes it was made of:
 * `sha256`), checked as `receipt verify` checks it when an identity policy was
 * given; otherwise what the certificate claims, said to be NOT checked, with
 * `receipt verify`'s keyless_not_checked fault (a bundle nobody checked is never
 * green). Its faults join the receipt's.
 */
export async function reportKeyless(
  receipt: { sha256: string; manifestBytes: Buffer; faults: ReportFault[] },
  keyless: { check?: KeylessCheck; unchecked?: string },
  shown: (file: string) => string,
): Promise<ReportKeyless | undefined> {
  if (keyless.check === undefined && keyless.unchecked === undefined) return undefined;
  const verify = await import(/* webpackMode: "eager" */ '../../receipt/keyless/verify');
  if (keyless.check !== undefined) {
    const v = verify.checkKeyless({ sha256: receipt.sha256, manifestBytes: receipt.manifestBytes }, keyless.check);
    for (const f of v.errors) receipt.faults.push({ line: null, kind: f.kind, message: f.message });
    const who = `${v.identity ?? '?'} (${v.issuer ?? '?'})`;
    return {
      bundle: shown(keyless.check.bundleFile),
      identity: v.identity,
      issuer: v.issuer,
      verified: v.ok,
      text: v.ok
        ? `verified by the generator: ${who}, ${v.log_index === null ? 'no log entry' : `log index ${v.log_index}`}, signed at ${v.time ?? '?'}`
        : `FAILED: the bundle names ${who} and does not hold (${v.errors.map((e) => e.kind).join(', ')})`,
    };
  }
  const file = keyless.unchecked!;
  const claim = verify.claimedSigner(file);
  const fault = notCheckedFault(shown(file), '--certificate-identity and --certificate-oidc-issuer');
  receipt.faults.push({ line: null, kind: fault.kind, message: fault.message });
  return {
    bundle: shown(file),
    identity: claim?.identity ?? null,
    issuer: claim?.issuer ?? null,
    verified: false,
    text:
      `NOT checked: ${shown(file)} ${claim === undefined ? 'is not a readable bundle' : `names ${claim.identity ?? '?'} (${claim.issuer ?? '?'})`}; ` +
      'give --certificate-identity and --certificate-oidc-issuer to check it',
  };
}
