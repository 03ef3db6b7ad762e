import path from 'node:path';
import { InputError } from '../../errors';
import { projectRootOf, resolveJournal, type JournalTarget } from '../../journal';
import { readPrivateKeyFile, type ReceiptAuditOptions, type ReceiptWriteOptions } from '../../receipt';
import { assertSafeId } from '../../util/ids';
import { expectPositionals, type OptionSpec, type ParsedArgs } from '../args';
import type { CommandIO } from '../io';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';

/** The options `export` and `publish` share. */
export const RECEIPT_WRITE_OPTIONS: Record<string, OptionSpec> = {
  ...ROOT_OPTION,
  ...JSON_OPTION,
  output: { kind: 'value', short: 'o' },
  'agent-id': { kind: 'value' },
  'sign-key': { kind: 'value' },
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
  if (outFile === path.resolve(journal.file))
    throw new InputError(`${command}: the output would overwrite the journal`);
  const options: ReceiptWriteOptions & { audit: ReceiptAuditOptions } = {
    agentId: assertSafeId(args.values.get('agent-id') ?? journal.agentId, 'agent id'),
    audit: { root: projectRootOf(journal.dir) ?? root, env: io.env },
  };
  const key = args.values.get('sign-key');
  if (key !== undefined) options.signKey = readPrivateKeyFile(path.resolve(io.cwd, key));
  return { journal, out, outFile, options };
}
