import {
  encodeManifest,
  type Manifest,
  type ReceiptAuditOptions,
  type ReceiptCompanion,
  type ReceiptWriteOptions,
} from '../../receipt';
import { InputError } from '../../errors';
import type { StagedFile } from '../../util/fs';
import type { ParsedArgs } from '../args';
import { outputExists } from '../common';
import type { CommandIO } from '../io';
import { keylessDoc, keylessPlan, staleBundle, staleBundleRemoved } from './keyless-sign';
import { receiptWriteTarget } from './receipt-target';

/** A receipt written under a temporary name, before it is named. */
interface Staged {
  manifest: Manifest;
  /** The SHA-256 of its bytes (what a keyless signature names). */
  sha256: string;
  staged: StagedFile;
}

/** What a command says once the receipt is named. */
interface Written {
  manifest: Manifest;
  /** Non-fatal notes, printed as warnings once it is written. */
  warnings: string[];
}

/** What `export` and `publish` do their own way around the run they share. */
export interface ReceiptWriteSteps<O, S extends Staged, B extends Written> {
  /** The command's options over the common ones (read after the output and the keyless plan are settled). */
  options(common: ReceiptWriteOptions & { audit: ReceiptAuditOptions }): O;
  stage(journalFile: string, outFile: string, options: O): S;
  commit(staged: S, options: O, companion: ReceiptCompanion | undefined): B;
}

/** A written receipt, with what the command says about it besides its own fields. */
export interface WrittenReceipt<B> {
  r: B;
  /** The output as given. */
  out: string;
  /** The `--json` document: `ok`, the receipt, its agent, the command's `fields`, then a keyless signature's. */
  document(fields: Record<string, unknown>): Record<string, unknown>;
  /** The keyless signature's text (who signed, the bundle), when there is one. */
  keylessLine: string | undefined;
  /** The line saying a stale bundle was removed, when one was. */
  staleLine: string | undefined;
}

/**
 * The run `export` and `publish` share: the journal, the output, the keyless plan and a stale bundle are settled
 * before anything is read; the receipt is written under a temporary name, signed before it is named (a signature
 * that fails leaves neither file), named, the stale bundle removed, and the library's warnings printed.
 */
export async function writeReceipt<O, S extends Staged, B extends Written>(
  args: ParsedArgs,
  io: CommandIO,
  command: string,
  steps: ReceiptWriteSteps<O, S, B>,
): Promise<WrittenReceipt<B>> {
  const { journal, out, outFile, options: common } = receiptWriteTarget(args, io, command);
  const keyless = keylessPlan(args, io, outFile, out, command);
  const stale = staleBundle(args, outFile, out, command);
  const options = steps.options(common);
  const staged = steps.stage(journal.file, outFile, options);
  let signed: Awaited<ReturnType<NonNullable<typeof keyless>['sign']>> | undefined;
  try {
    signed = keyless && (await keyless.sign(staged.sha256, encodeManifest(staged.manifest)));
  } catch (e) {
    staged.staged.abort();
    throw e;
  }
  let r: B;
  try {
    r = steps.commit(staged, options, signed ? signed.companion : undefined);
  } catch (e) {
    // Named meanwhile by another writer (the library's replace: false): the line an existing output gets.
    if (e instanceof InputError && e.field === 'replace') throw outputExists(out, command);
    throw e;
  }
  stale?.remove();
  for (const w of r.warnings) io.err(`stepchain: warning: ${w}`);
  return {
    r,
    out,
    document: (fields) => ({
      ok: true,
      receipt: outFile,
      agent_id: r.manifest.agent_id,
      ...fields,
      ...(signed ? { keyless: keylessDoc(signed) } : {}),
      ...(stale ? { removed_bundle: stale.shown } : {}),
    }),
    keylessLine:
      keyless && signed ? `${signed.identity ?? '?'} (${signed.issuer ?? '?'}): ${keyless.bundleShown}` : undefined,
    staleLine: stale ? staleBundleRemoved(stale.shown) : undefined,
  };
}
