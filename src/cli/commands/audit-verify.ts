import path from 'node:path';
import {
  archivedSegments,
  auditDir,
  auditFiles,
  describeAuditFaults,
  loadAuditKey,
  resolveAuditKeyPath,
  verifyAuditLogChecked,
} from '../../audit';
import { AUDIT_CHECKPOINT } from '../../audit/layout';
import { rollbackUncheckedLine } from '../../util/rollback';
import { existsSync } from 'node:fs';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { outLine } from '../io';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';
import { plural } from '../../util/words';

export const auditVerifyCommand: Command = {
  name: ['audit', 'verify'],
  usage: '[--dir DIR] [--key FILE] [--root DIR] [--json]',
  summary:
    'Verify the HMAC-chained audit log across its daily files: every fault with file and line. Exit 0 holds, 1 not.',
  description:
    'Every line must be byte-identical to its canonical form, every prev_hmac the previous hmac, every hmac recompute ' +
    'under the key. A missing or empty audit directory is a fault, never "OK, 0 entries". A log that holds less than ' +
    'its authenticated checkpoint (audit.checkpoint) recorded, its tail cut or a day removed, is a rollback.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    dir: { kind: 'value', value: 'DIR', description: 'The audit directory (default <root>/.sdd/audit).' },
    key: {
      kind: 'value',
      value: 'FILE',
      description: 'The HMAC key file (default STEPCHAIN_AUDIT_KEY_PATH, else the XDG state directory).',
    },
  },
  examples: [{ run: 'stepchain audit verify', what: "verify this project's audit chain" }],
  exitCodes: {
    0: 'the chain holds',
    1: 'a fault (each printed with file and line), or no entries at all',
    2: 'usage or input error (an unreadable key)',
  },
  run(args, io) {
    expectPositionals(args, [], 'audit verify');
    const dirOpt = args.values.get('dir');
    const dir = dirOpt === undefined ? auditDir(rootOf(args, io)) : path.resolve(io.cwd, dirOpt);
    const keyOpt = args.values.get('key');
    // No log at all is the fault to report (never "OK, 0 entries"), whether or not a key exists yet; a checkpoint
    // left behind says more was logged (a rollback), which takes the key to tell.
    const key =
      auditFiles(dir).length === 0 &&
      archivedSegments(dir).length === 0 &&
      keyOpt === undefined &&
      !existsSync(path.join(dir, AUDIT_CHECKPOINT))
        ? new Uint8Array(0)
        : loadAuditKey(resolveAuditKeyPath(io.env, keyOpt === undefined ? undefined : path.resolve(io.cwd, keyOpt)))
            .bytes;
    // With the rollback check: the log against its authenticated checkpoint (docs/journal.md, "Rollback").
    const { result: r, unchecked } = verifyAuditLogChecked(dir, key, io.env);
    if (unchecked !== undefined) io.err(rollbackUncheckedLine(dir, unchecked));
    if (args.flags.has('json')) {
      io.json({
        ok: r.ok,
        dir,
        head_hmac: r.head_hmac,
        head_hash: r.head_hmac,
        entries: r.entries,
        steps: r.entries,
        files: r.files,
        // Runs collapsed and the list capped: `fault_count` is every fault, `errors_omitted` those not listed.
        errors: r.errors,
        fault_count: r.fault_count,
        errors_omitted: r.errors_omitted,
      });
    } else if (r.ok) {
      outLine(
        io,
        `OK ${dir}: ${plural(r.entries, 'entry', 'entries')} in ${plural(r.files.length, 'file')}, head ${r.head_hmac}`,
      );
    } else {
      outLine(io, `FAIL ${dir}: ${plural(r.fault_count, 'fault')} in ${r.entries} entries`);
    }
    if (!r.ok) for (const line of describeAuditFaults(dir, r)) io.err(line);
    return r.ok ? 0 : 1;
  },
};
