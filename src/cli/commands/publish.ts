import { InputError } from '../../errors';
import { commitPublished, parseRedactFields, stagePublished, type PublishOptions } from '../../receipt';
import type { Command } from '../command';
import { KEYLESS_WRITE_OPTIONS } from './keyless-sign';
import { RECEIPT_WRITE_OPTIONS } from './receipt-target';
import { writeReceipt } from './receipt-write';
import { pluralWord } from '../../util/words';

export const publishCommand: Command = {
  name: ['publish'],
  usage:
    '<agent|dir|file> -o RECEIPT --opt-in [--redact FIELDS] [--keep-input-hashes] [--force] [--root DIR] [--agent-id ID] [--sign-key FILE] [--keyless [--fulcio-url U] [--rekor-url U] [--tsa-url U]] [--json]',
  summary:
    'Write a privacy-redacted receipt (default redacts prompt,tool_result; re-anchored chain, no blobs). Requires --opt-in; the journal is untouched.',
  description:
    'Each redacted field that is not null becomes "<<redacted>>", the chain is recomputed over the redacted rows ' +
    '(a new head, printed beside the original), blob_refs are emptied and no blobs are bundled. Each input_hash is ' +
    'blinded under a key drawn for this publish (kept only in the local audit event), so it confirms no guess of ' +
    'redacted text.',
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
    'keep-input-hashes': {
      kind: 'flag',
      description:
        "Keep each step's input_hash as in the journal (the reference's publish): the SHA-256 of the step's whole input, which confirms a guess of redacted text.",
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
    const w = await writeReceipt(args, io, 'publish', {
      options(common): PublishOptions {
        const redactText = args.values.get('redact');
        return {
          ...common,
          optIn: true,
          inputHashes: args.flags.has('keep-input-hashes') ? 'kept' : 'blinded',
          ...(redactText !== undefined ? { redact: parseRedactFields(redactText) } : {}),
        };
      },
      stage: stagePublished,
      commit: commitPublished,
    });
    const r = w.r;
    if (args.flags.has('json')) {
      io.json(
        w.document({
          steps: r.steps,
          redacted: r.redacted,
          original_head: r.original_head,
          published_head: r.published_head,
          signed: r.signed,
          key_id: r.key_id,
          input_hashes: r.input_hashes,
        }),
      );
      return 0;
    }
    io.out(
      `published ${r.steps} redacted ${pluralWord(r.steps, 'step')} of ${r.manifest.agent_id} to ${w.out} (redacted: ${r.redacted.join(', ')})`,
    );
    io.out(`  original head  ${r.original_head}  (local journal, unchanged)`);
    io.out(`  published head ${r.published_head}  (verify the receipt against this one)`);
    io.out(
      `  input hashes   ${r.input_hashes === 'blinded' ? 'blinded (the key is in the local audit event replay.publish)' : 'kept as in the journal'}`,
    );
    io.out(`  signed         ${r.signed ? `yes (key id ${r.key_id})` : 'no'}`);
    if (w.keylessLine !== undefined) io.out(`  keyless        ${w.keylessLine}`);
    if (w.staleLine !== undefined) io.out(`  ${w.staleLine}`);
    return 0;
  },
};
