import path from 'node:path';
import { InputError } from '../../errors';
import { Cas, projectRootOf, resolveJournal } from '../../journal';
import { exportReceipt, readPrivateKeyFile, type ExportOptions } from '../../receipt';
import { assertSafeId } from '../../util/ids';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';

export const exportCommand: Command = {
  name: ['export'],
  usage: '<agent|dir|file> -o RECEIPT [--root DIR] [--agent-id ID] [--sign-key FILE] [--cas DIR] [--json]',
  summary:
    'Verify a journal, then write a portable receipt (tar; .gz/.tgz names are gzipped): manifest, optional Ed25519 signature, chain, blobs.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    output: { kind: 'value', short: 'o' },
    'agent-id': { kind: 'value' },
    'sign-key': { kind: 'value' },
    cas: { kind: 'value' },
  },
  run(args, io) {
    const [target] = expectPositionals(args, ['agent|dir|file'], 'export');
    const out = args.values.get('output');
    if (out === undefined) throw new InputError('export: missing -o RECEIPT');
    const root = rootOf(args, io);
    const options: ExportOptions = {};
    const agentId = args.values.get('agent-id');
    const journal = resolveJournal(target!, root);
    options.agentId = assertSafeId(agentId ?? journal.agentId, 'agent id');
    const key = args.values.get('sign-key');
    if (key !== undefined) options.signKey = readPrivateKeyFile(path.resolve(io.cwd, key));
    const cas = args.values.get('cas');
    if (cas !== undefined) options.cas = new Cas(path.resolve(io.cwd, cas), false);
    const outFile = path.resolve(io.cwd, out);
    options.audit = { root: projectRootOf(journal.dir) ?? root, env: io.env };
    const r = exportReceipt(journal.file, outFile, options);
    for (const w of r.warnings) io.err(`stepchain: warning: ${w}`);
    if (args.flags.has('json')) {
      io.json({
        ok: true,
        receipt: outFile,
        agent_id: r.manifest.agent_id,
        head_hash: r.manifest.head_hash,
        steps: r.manifest.steps,
        signed: r.signed,
        key_id: r.key_id,
        blobs: r.blobs,
      });
      return 0;
    }
    io.out(`exported ${r.manifest.steps} step${r.manifest.steps === 1 ? '' : 's'} of ${r.manifest.agent_id} to ${out}`);
    io.out(`  head_hash ${r.manifest.head_hash}`);
    io.out(`  signed    ${r.signed ? `yes (key id ${r.key_id})` : 'no'}`);
    io.out(`  blobs     ${r.blobs.bundled.length} bundled, ${r.blobs.missing.length} missing from the CAS`);
    return 0;
  },
};
