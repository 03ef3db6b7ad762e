import path from 'node:path';
import { auditDir, describeAuditFault, loadAuditKey, resolveAuditKeyPath, verifyAuditLog } from '../../audit';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';

export const auditVerifyCommand: Command = {
  name: ['audit', 'verify'],
  usage: '[--dir DIR] [--key FILE] [--root DIR] [--json]',
  summary:
    'Verify the HMAC-chained audit log across its daily files: every fault with file and line. Exit 0 holds, 1 not.',
  options: { ...ROOT_OPTION, ...JSON_OPTION, dir: { kind: 'value' }, key: { kind: 'value' } },
  run(args, io) {
    expectPositionals(args, [], 'audit verify');
    const dirOpt = args.values.get('dir');
    const dir = dirOpt === undefined ? auditDir(rootOf(args, io)) : path.resolve(io.cwd, dirOpt);
    const keyOpt = args.values.get('key');
    const key = loadAuditKey(
      resolveAuditKeyPath(io.env, keyOpt === undefined ? undefined : path.resolve(io.cwd, keyOpt)),
    );
    const r = verifyAuditLog(dir, key.bytes);
    if (args.flags.has('json')) {
      io.json({
        ok: r.ok,
        dir,
        head_hmac: r.head_hmac,
        head_hash: r.head_hmac,
        entries: r.entries,
        steps: r.entries,
        files: r.files,
        errors: r.errors,
      });
    } else if (r.ok) {
      io.out(
        `OK ${dir}: ${r.entries} entr${r.entries === 1 ? 'y' : 'ies'} in ${r.files.length} file${r.files.length === 1 ? '' : 's'}, head ${r.head_hmac}`,
      );
    } else {
      io.out(`FAIL ${dir}: ${r.errors.length} fault${r.errors.length === 1 ? '' : 's'} in ${r.entries} entries`);
    }
    if (!r.ok) for (const f of r.errors) io.err(describeAuditFault(dir, f));
    return r.ok ? 0 : 1;
  },
};
