import path from 'node:path';
import { DEFAULT_MAX_RECEIPT_BYTES, loadReceipt } from '../receipt';
import { bundleBeside, notCheckedFault } from '../receipt/keyless/bundle-path';
import { MAX_KEYLESS_FILE_BYTES } from '../receipt/keyless/files';
import type { LoadedRoot } from '../receipt/keyless/trusted-root';
import type { KeylessFault } from '../receipt/keyless/verify';
import type { Scan, ScanRead } from './scan';
import type { CheckedItem, CheckOptions, CheckReport } from './types';

/**
 * The keyless pass of the check: a receipt's Sigstore bundle beside it (`R.sigstore.json`) is checked under the
 * caller's keyless anchors (`CheckOptions.keyless`: the identity policy and trusted roots), or, with none given, is a
 * `keyless_not_checked` fault: a bundle claims a signer, and a claim nobody checked is never green (one meaning of
 * signed, as for an Ed25519 signature without a trusted key). Its faults join the receipt's item, which then fails.
 * The Sigstore code is loaded only when keyless anchors are given.
 */
export async function keylessPass(ctx: { options: CheckOptions; report: CheckReport; scan: Scan }): Promise<void> {
  const { options, report, scan } = ctx;
  // The roots are read when anchors are given, bundles or not: a malformed root is an input error either way.
  const roots = options.keyless === undefined ? undefined : await loadRoots(options.keyless.trustedRoots);
  for (const item of report.items) {
    if (item.kind !== 'receipt') continue;
    const bundle = bundleBeside(path.join(report.root, item.path));
    const faults =
      bundle === undefined
        ? noBundleFaults(item, options)
        : await bundleFaults(item, bundle, path.relative(report.root, bundle), options, scan, roots);
    if (faults.length > 0) failItem(report, item, faults);
  }
}

/**
 * A receipt with no bundle beside it: nothing to check without keyless anchors (it claims no keyless signer), but
 * with them a keyless signer is required, as a trusted `--public-key` requires a signature (`unsigned`): otherwise a
 * change that deletes a receipt's bundle, or adds an unsigned receipt, is green under the very anchors that were
 * meant to vouch for it. A receipt that cannot be read has its own fault already (as in bundleFaults).
 */
function noBundleFaults(item: CheckedItem, options: CheckOptions): KeylessFault[] {
  if (options.keyless === undefined || item.status === 'deleted') return [];
  return [
    {
      kind: 'keyless_no_bundle',
      message: `${path.basename(item.path)}.sigstore.json is not beside the receipt, but keyless identities were given: a keyless signature is required`,
    },
  ];
}

/** The faults of one receipt's bundle (none when it verified: the item's status then names the signer). */
async function bundleFaults(
  item: CheckedItem,
  bundle: string,
  shown: string,
  options: CheckOptions,
  scan: Scan,
  roots: LoadedRoot[] | undefined,
): Promise<KeylessFault[]> {
  const anchors = options.keyless;
  if (anchors === undefined || roots === undefined)
    return [notCheckedFault(shown, options.keylessHint ?? 'keyless identities')];
  const read = scan.read(item.path, DEFAULT_MAX_RECEIPT_BYTES);
  // A receipt that cannot be read has its own fault already; there is nothing to check the bundle against.
  if (read.kind !== 'file') return [];
  // The bundle is the checkout's file like the receipt: read by the same reader, never through a link (a change
  // could link it to any file of the runner, whose first bytes a JSON error would quote into the report).
  const text = scan.read(shown, MAX_KEYLESS_FILE_BYTES);
  if (text.kind !== 'file') return [{ kind: 'keyless_unreadable', message: unreadable(shown, text) }];
  const { parseBundle, verifyKeylessBundle } = await import(/* webpackMode: "eager" */ '../receipt/keyless/verify');
  const faults: KeylessFault[] = [];
  try {
    let manifest: Buffer | undefined;
    try {
      manifest = loadReceipt(read.bytes).manifestBytes;
    } catch {
      manifest = undefined; // the receipt's own faults are already in the report
    }
    const parsed = parseBundle(text.bytes.toString('utf8'), bundle);
    const v = verifyKeylessBundle(
      parsed,
      bundle,
      { bytes: read.bytes, manifestBytes: manifest },
      anchors.policy,
      roots,
    );
    faults.push(...v.errors);
    if (v.ok) item.status = `${item.status}, keyless ${v.identity}`;
  } catch (e) {
    faults.push({ kind: 'keyless_unreadable', message: e instanceof Error ? e.message : String(e) });
  }
  return faults;
}

/** Why a bundle in the checkout was not read (`shown`: its path in the checkout). */
function unreadable(shown: string, r: Exclude<ScanRead, { kind: 'file' }>): string {
  if (r.kind === 'symlink') return `${r.at} is a symbolic link (never followed)`;
  if (r.kind === 'too_large') return `${shown}: the Sigstore bundle is ${r.size} bytes, over ${MAX_KEYLESS_FILE_BYTES}`;
  if (r.kind === 'missing') return `${shown}: the Sigstore bundle is gone`;
  if (r.kind === 'not_committed') return `${shown}: ${r.why}`;
  return `${shown}: the Sigstore bundle is not a regular file`;
}

/** The trusted roots of the anchors (the Sigstore code loaded only now). */
async function loadRoots(given: { text: string; source: string } | undefined): Promise<LoadedRoot[]> {
  const { parseTrustedRoots, publicGoodRoot } = await import(
    /* webpackMode: "eager" */ '../receipt/keyless/trusted-root'
  );
  return given === undefined ? [publicGoodRoot()] : parseTrustedRoots(given.text, given.source);
}

/** The bundle's faults on the receipt's item: the item fails (the report counts it once the passes are done). */
function failItem(report: CheckReport, item: CheckedItem, faults: KeylessFault[]): void {
  item.ok = false;
  item.status = 'FAIL';
  for (const f of faults)
    report.faults.push({
      item: 'receipt',
      path: item.path,
      line: null,
      kind: f.kind,
      message: f.message,
      severity: 'error',
      id: item.id,
    });
}
