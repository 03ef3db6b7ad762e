import path from 'node:path';
import { InputError } from '../../errors';
import type { ReceiptCompanion } from '../../receipt';
import { bundlePathOf, staleBundleBeside } from '../../receipt/keyless/bundle-path';
import { serviceURL, signingEndpoints, type EndpointOverrides } from '../../receipt/keyless/endpoints';
import { idTokenSource } from '../../receipt/keyless/token';
import type { OptionSpec, ParsedArgs } from '../args';
import { refuseOverwrite } from '../common';
import type { CommandIO } from '../io';

/** The options `export` and `publish` share for a keyless (Sigstore) signature. */
export const KEYLESS_WRITE_OPTIONS: Record<string, OptionSpec> = {
  keyless: {
    kind: 'flag',
    description:
      "Also sign keylessly with the workflow's OIDC identity through Sigstore: writes RECEIPT.sigstore.json beside it " +
      '(token from SIGSTORE_ID_TOKEN, or ACTIONS_ID_TOKEN_REQUEST_URL/_TOKEN in GitHub Actions).',
  },
  'fulcio-url': {
    kind: 'value',
    value: 'URL',
    description:
      "With --keyless: the Fulcio CA (default: the public instance's for a public repository, GitHub's otherwise).",
  },
  'rekor-url': { kind: 'value', value: 'URL', description: 'With --keyless: the Rekor transparency log to record in.' },
  'tsa-url': { kind: 'value', value: 'URL', description: 'With --keyless: the RFC 3161 timestamp authority.' },
};

/** What a signed receipt's bundle is, for `--json` (`keyless`, present only with --keyless). */
export function keylessDoc(s: Awaited<ReturnType<KeylessPlan['sign']>>): {
  bundle: string;
  identity: string | null;
  issuer: string | null;
  log_index: string | null;
} {
  return { bundle: s.companion.file, identity: s.identity, issuer: s.issuer, log_index: s.log_index };
}

/** A keyless signature to make before anything is written. */
export interface KeylessPlan {
  bundleFile: string;
  /** The bundle's name as given on the command line (for messages). */
  bundleShown: string;
  /** Signs the receipt (the SHA-256 of its bytes): the bundle to write beside it, and who signed. */
  sign(
    receiptSha256: string,
    manifestBytes: Uint8Array,
  ): Promise<{ companion: ReceiptCompanion; identity: string | null; issuer: string | null; log_index: string | null }>;
}

/**
 * `--keyless` read before any work: the token source (neither source is a usage
 * error), the endpoints, and the bundle beside the output (refused when it
 * exists, unless --force). The Sigstore code is loaded only now: `stepchain
 * --version` and the hooks do not pay for it.
 */
export function keylessPlan(
  args: ParsedArgs,
  io: CommandIO,
  outFile: string,
  out: string,
  command: string,
): KeylessPlan | undefined {
  const overrides: EndpointOverrides = {};
  for (const [option, key] of [
    ['fulcio-url', 'fulcioURL'],
    ['rekor-url', 'rekorURL'],
    ['tsa-url', 'tsaURL'],
  ] as const) {
    const v = args.values.get(option);
    if (v === undefined) continue;
    if (!args.flags.has('keyless')) throw new InputError(`${command}: --${option} needs --keyless`);
    overrides[key] = serviceURL(v, `--${option}`);
  }
  if (!args.flags.has('keyless')) return undefined;
  const token = idTokenSource(io.env);
  const endpoints = signingEndpoints(overrides, io.env);
  const bundleFile = bundlePathOf(outFile);
  const bundleShown = bundlePathOf(out);
  refuseOverwrite(bundleFile, bundleShown, args, command);
  return {
    bundleFile,
    bundleShown,
    async sign(receiptSha256, manifestBytes) {
      const { signReceiptKeyless } = await import(/* webpackMode: "eager" */ '../../receipt/keyless/sign');
      const s = await signReceiptKeyless(path.basename(outFile), receiptSha256, manifestBytes, { endpoints, token });
      const bytes = Buffer.from(`${JSON.stringify(s.bundle, null, 2)}\n`, 'utf8');
      return { companion: { file: bundleFile, bytes }, identity: s.identity, issuer: s.issuer, log_index: s.log_index };
    },
  };
}

/**
 * The library's stale-bundle rule (`staleBundleBeside`) in the CLI's words: an export without `--keyless` is
 * refused when a bundle sits beside its output, unless `--force`; then `remove` deletes it once the new receipt is
 * written, and the command says so.
 */
export function staleBundle(
  args: ParsedArgs,
  outFile: string,
  out: string,
  command: string,
): { shown: string; remove(): void } | undefined {
  if (args.flags.has('keyless')) return undefined; // --keyless writes a new one (keylessPlan)
  const shown = bundlePathOf(out);
  const stale = staleBundleBeside(outFile, {
    force: args.flags.has('force'),
    shown: `${command}: ${shown}`,
    remedy: 'remove it, give --keyless to sign anew, or --force to remove it',
  });
  return stale === undefined ? undefined : { shown, remove: stale.remove };
}

/** The line and the `--json` field an export that removed a stale bundle adds. */
export function staleBundleRemoved(shown: string): string {
  return `removed ${shown}: it signed the receipt this one replaced (this receipt has no keyless signature)`;
}
