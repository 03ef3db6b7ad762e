import { InputError } from '../../errors';
import { buildPublished, encodeManifest, parseRedactFields, writePublished, type PublishOptions } from '../../receipt';
import type { Command } from '../command';
import { KEYLESS_WRITE_OPTIONS, keylessDoc, keylessPlan, staleBundle, staleBundleRemoved } from './keyless-sign';
import { RECEIPT_WRITE_OPTIONS, receiptWriteTarget } from './receipt-target';
import { pluralWord } from '../../util/words';

export const publishCommand: Command = {
  name: ['publish'],
  usage:
    '<agent|dir|file> -o RECEIPT --opt-in [--redact FIELDS] [--force] [--root DIR] [--agent-id ID] [--sign-key FILE] [--keyless [--fulcio-url U] [--rekor-url U] [--tsa-url U]] [--json]',
  summary:
    'Write a privacy-redacted receipt (default redacts prompt,tool_result; re-anchored chain, no blobs). Requires --opt-in; the journal is untouched.',
  description:
    'Each redacted field that is not null becomes "<<redacted>>", the chain is recomputed over the redacted rows ' +
    '(a new head, printed beside the original), blob_refs are emptied and no blobs are bundled.',
  options: {
    ...RECEIPT_WRITE_OPTIONS,
    ...KEYLESS_WRITE_OPTIONS,
    'opt-in': {
      kind: 'flag',
      description: 'Required: nothing leaves .sdd/runtime/ without this explicit opt-in.',
    },
    redact: {
      kind: 'value',
      value: 'FIELDS',
      description:
        'Comma-separated fields to redact, of prompt, model, tool_call, tool_result (default prompt,tool_result).',
    },
  },
  examples: [
    { run: 'stepchain publish agent-1 -o public.receipt.tar --opt-in', what: 'redact prompts and tool results' },
    {
      run: 'stepchain publish agent-1 -o public.receipt.tar --opt-in --redact prompt,tool_call,tool_result --sign-key stepchain.key',
      what: 'redact more, and sign',
    },
  ],
  exitCodes: {
    0: 'written',
    1: 'the journal does not verify or keyless signing failed (nothing written)',
    2: 'usage or input error (no --opt-in, the output exists without --force, a bad field)',
  },
  async run(args, io) {
    // Refuse before reading anything else: nothing leaves .sdd/runtime/ without an explicit opt-in.
    if (!args.flags.has('opt-in')) {
      throw new InputError(
        'publish: refusing without --opt-in (receipts stay local unless you explicitly opt in); nothing was written',
      );
    }
    const { journal, out, outFile, options: common } = receiptWriteTarget(args, io, 'publish');
    const keyless = keylessPlan(args, io, outFile, out, 'publish');
    const stale = staleBundle(args, outFile, out, 'publish');
    const options: PublishOptions = { ...common, optIn: true };
    const redactText = args.values.get('redact');
    if (redactText !== undefined) options.redact = parseRedactFields(redactText);
    const built = buildPublished(journal.file, outFile, options);
    // Signed before anything is written: a signature that fails leaves neither file.
    const signed = keyless && (await keyless.sign(built.bytes, encodeManifest(built.manifest)));
    const r = writePublished(outFile, built, options, signed ? signed.companion : undefined);
    stale?.remove();
    for (const w of r.warnings) io.err(`stepchain: warning: ${w}`);
    if (args.flags.has('json')) {
      io.json({
        ok: true,
        receipt: outFile,
        agent_id: r.manifest.agent_id,
        steps: r.steps,
        redacted: r.redacted,
        original_head: r.original_head,
        published_head: r.published_head,
        signed: r.signed,
        key_id: r.key_id,
        ...(signed ? { keyless: keylessDoc(signed) } : {}),
        ...(stale ? { removed_bundle: stale.shown } : {}),
      });
      return 0;
    }
    io.out(
      `published ${r.steps} redacted ${pluralWord(r.steps, 'step')} of ${r.manifest.agent_id} to ${out} (redacted: ${r.redacted.join(', ')})`,
    );
    io.out(`  original head  ${r.original_head}  (local journal, unchanged)`);
    io.out(`  published head ${r.published_head}  (verify the receipt against this one)`);
    io.out(`  signed         ${r.signed ? `yes (key id ${r.key_id})` : 'no'}`);
    if (keyless && signed)
      io.out(`  keyless        ${signed.identity ?? '?'} (${signed.issuer ?? '?'}): ${keyless.bundleShown}`);
    if (stale) io.out(`  ${staleBundleRemoved(stale.shown)}`);
    return 0;
  },
};
