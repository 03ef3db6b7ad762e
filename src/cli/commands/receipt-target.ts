import path from 'node:path';
import { InputError } from '../../errors';
import { resolveJournal, type JournalTarget } from '../../journal';
import { readPrivateKeyFile, type ReceiptAuditOptions, type ReceiptWriteOptions } from '../../receipt';
import { replacesFile } from '../../util/fs';
import { assertSafeId } from '../../util/ids';
import { expectPositionals, type OptionSpec, type ParsedArgs } from '../args';
import type { CommandIO } from '../io';
import { FORCE_OPTION, JSON_OPTION, refuseOverwrite, ROOT_OPTION, rootOf, writeOptions } from '../common';

/** The options `export` and `publish` share. */
export const RECEIPT_WRITE_OPTIONS: Record<string, OptionSpec> = {
  ...ROOT_OPTION,
  ...JSON_OPTION,
  ...FORCE_OPTION,
  output: {
    kind: 'value',
    short: 'o',
    value: 'RECEIPT',
    description: 'The receipt to write (required; a .gz or .tgz name is gzipped). An existing file needs --force.',
  },
  'agent-id': {
    kind: 'value',
    value: 'ID',
    description: "The agent id in the manifest (default: the journal's directory name).",
  },
  'sign-key': {
    kind: 'value',
    value: 'FILE',
    description: 'Sign the manifest with this Ed25519 private key (PEM PKCS#8 or a raw 32-byte seed).',
  },
};

/** What `export` and `publish` read from their arguments: the journal, the output, the common write options. */
export function receiptWriteTarget(
  args: ParsedArgs,
  io: CommandIO,
  command: string,
): {
  journal: JournalTarget;
  out: string;
  outFile: string;
  options: ReceiptWriteOptions & { audit: ReceiptAuditOptions };
} {
  const [target] = expectPositionals(args, ['agent|dir|file'], command);
  const out = args.values.get('output');
  if (out === undefined) throw new InputError(`${command}: missing -o RECEIPT`);
  const root = rootOf(args, io);
  const journal = resolveJournal(target!, root);
  const outFile = path.resolve(io.cwd, out);
  // Before the --force rule: a link to the journal's directory must not let --force replace the journal.
  if (replacesFile(journal.file, outFile)) throw new InputError(`${command}: the output would overwrite the journal`);
  refuseOverwrite(outFile, out, args, command);
  const options: ReceiptWriteOptions & { audit: ReceiptAuditOptions } = {
    agentId: assertSafeId(args.values.get('agent-id') ?? journal.agentId, 'agent id'),
    // Without --force, an output another export names while this one runs is not replaced either.
    replace: args.flags.has('force'),
    audit: { root: journal.root, ...writeOptions(io) },
  };
  const key = args.values.get('sign-key');
  if (key !== undefined) {
    // A key its group or others can read: the library says so in the result's warnings (signingKeyWarnings),
    // which writeReceipt prints; not checked here a second time.
    options.signKey = readPrivateKeyFile(path.resolve(io.cwd, key));
  }
  return { journal, out, outFile, options };
}
