import path from 'node:path';
import { InputError } from '../../errors';
import { projectRootOf, resolveJournal } from '../../journal';
import { parseRedactFields, publishReceipt, readPrivateKeyFile, type PublishOptions } from '../../receipt';
import { assertSafeId } from '../../util/ids';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';

export const publishCommand: Command = {
  name: ['publish'],
  usage: '<agent|dir|file> -o RECEIPT --opt-in [--redact FIELDS] [--root DIR] [--agent-id ID] [--sign-key FILE] [--json]',
  summary:
    'Write a privacy-redacted receipt (default redacts prompt,tool_result; re-anchored chain, no blobs). Requires --opt-in; the journal is untouched.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    output: { kind: 'value', short: 'o' },
    'opt-in': { kind: 'flag' },
    redact: { kind: 'value' },
    'agent-id': { kind: 'value' },
    'sign-key': { kind: 'value' },
  },
  run(args, io) {
    // Refuse before reading anything else: nothing leaves .sdd/runtime/ without an explicit opt-in.
    if (!args.flags.has('opt-in')) {
      throw new InputError('publish: refusing without --opt-in (receipts stay local unless you explicitly opt in); nothing was written');
    }
    const [target] = expectPositionals(args, ['agent|dir|file'], 'publish');
    const out = args.values.get('output');
    if (out === undefined) throw new InputError('publish: missing -o RECEIPT');
    const redactText = args.values.get('redact');
    const options: PublishOptions = { optIn: true };
    if (redactText !== undefined) options.redact = parseRedactFields(redactText);
    const root = rootOf(args, io);
    const journal = resolveJournal(target!, root);
    options.agentId = assertSafeId(args.values.get('agent-id') ?? journal.agentId, 'agent id');
    const key = args.values.get('sign-key');
    if (key !== undefined) options.signKey = readPrivateKeyFile(path.resolve(io.cwd, key));
    const outFile = path.resolve(io.cwd, out);
    if (outFile === path.resolve(journal.file)) throw new InputError('publish: the output would overwrite the journal');
    options.audit = { root: projectRootOf(journal.dir) ?? root, env: io.env };
    const r = publishReceipt(journal.file, outFile, options);
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
      });
      return 0;
    }
    io.out(`published ${r.steps} redacted step${r.steps === 1 ? '' : 's'} of ${r.manifest.agent_id} to ${out} (redacted: ${r.redacted.join(', ')})`);
    io.out(`  original head  ${r.original_head}  (local journal, unchanged)`);
    io.out(`  published head ${r.published_head}  (verify the receipt against this one)`);
    io.out(`  signed         ${r.signed ? `yes (key id ${r.key_id})` : 'no'}`);
    return 0;
  },
};
