import path from 'node:path';
import { InputError } from '../../errors';
import { createFork } from '../../forks';
import { readPublicKeyFile, verdictText } from '../../receipt';
import {
  BrokenChainError,
  openReplay,
  replayDocumentParts,
  runInteractive,
  sourceSignature,
  stepTable,
  type ReplaySource,
} from '../../replay';
import type { ParsedArgs } from '../args';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { intArg, JSON_OPTION, KEY_HINT, PUBLIC_KEY_OPTION, ROOT_OPTION, rootOf, writeOptions } from '../common';
import { outLines, StreamedDocument, type CommandIO } from '../io';
import { terminalProgress } from '../../util/progress';
import { pausePoint } from '../../util/pause';

/**
 * Opens a target for display, verified first. A broken chain prints every fault
 * (`file:line: kind: message`) on stderr and is rethrown: exit 1, nothing shown.
 */
export function openForDisplay(target: string, args: ParsedArgs, io: CommandIO): ReplaySource {
  const publicKeys = (args.lists.get('public-key') ?? []).map((f) => readPublicKeyFile(path.resolve(io.cwd, f)));
  const progress = terminalProgress('verifying', io.env);
  try {
    return openReplay(target, {
      root: rootOf(args, io),
      cwd: io.cwd,
      ...(publicKeys.length > 0 ? { publicKeys } : {}),
      ...(progress === undefined ? {} : { onProgress: progress.update }),
    });
  } catch (e) {
    progress?.done();
    if (e instanceof BrokenChainError) for (const f of e.faults) io.err(f);
    throw e;
  } finally {
    progress?.done();
  }
}

/** 1 when a receipt shown has a signature nobody checked (see signatureVerdict): shown, but not a green verdict. */
export function displayVerdict(sources: ReplaySource[], io: CommandIO, json: boolean): 0 | 1 {
  let code: 0 | 1 = 0;
  for (const s of sources) {
    const v = sourceSignature(s);
    if (v === undefined || v.holds) continue;
    code = 1;
    if (!json) io.err(`stepchain: ${s.file}: ${verdictText(v, KEY_HINT)}; the verdict is not "verified" (exit 1)`);
  }
  return code;
}

export const replayCommand: Command = {
  name: ['replay'],
  usage: '<agent|dir|file|receipt> [--root DIR] [--json] [--limit N] [--public-key FILE]...',
  summary:
    'Walk a verified run step by step: interactive on a terminal (n/p, g/G, seq+Enter, /search, Enter expands, f forks, ? keys, q quits), ' +
    'a table of steps otherwise, or --json. A broken chain: exit 1, nothing shown.',
  description:
    'The chain is verified from genesis before anything is shown (a receipt: the whole receipt). On a terminal, `f` forks the ' +
    'run at the step shown into a new git worktree after asking (not offered for a receipt), and `?` lists every key. ' +
    'A signed receipt given no --public-key is shown with "signature NOT checked" in the warning colour and exits 1.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    limit: {
      kind: 'value',
      value: 'N',
      description: 'Only the first N steps: the table, the JSON entries, and the steps walked on a terminal.',
    },
    'public-key': PUBLIC_KEY_OPTION,
  },
  examples: [
    { run: 'stepchain replay agent-1', what: 'walk the run on a terminal' },
    { run: 'stepchain replay agent-1 --limit 20 | less', what: 'the first 20 steps as a table' },
    {
      run: 'stepchain replay run.receipt.tar --public-key keys/receipts.pub',
      what: 'a signed receipt, signature checked',
    },
  ],
  exitCodes: {
    0: 'shown, everything verified',
    1: 'the chain or receipt does not verify (nothing shown), or a signature was not checked',
    2: 'usage or input error',
  },
  async run(args, io) {
    const [target] = expectPositionals(args, ['agent|dir|file|receipt'], 'replay');
    const limitText = args.values.get('limit');
    const limit = limitText === undefined ? undefined : intArg(limitText, '--limit');
    if (limit === 0) throw new InputError('--limit: give at least 1 step');
    const source = openForDisplay(target!, args, io);
    pausePoint('replay:opened', io.env);
    const json = args.flags.has('json');
    if (json) {
      const doc = replayDocumentParts(source, limit);
      io.json(new StreamedDocument(doc.head, 'entries', doc.entries, doc.tail));
      return displayVerdict([source], io, true);
    }
    if (!io.isTTY) {
      outLines(io, stepTable(source, limit, '--limit'));
      return displayVerdict([source], io, false);
    }
    const projectRoot = source.projectRoot;
    const canFork = source.kind === 'journal' && projectRoot !== undefined;
    await runInteractive(source, {
      ...(limit === undefined ? {} : { limit, limitName: '--limit' }),
      ...(canFork
        ? {
            fork: async (seq: number) => {
              const r = await createFork({
                root: projectRoot,
                sessionId: source.agentId,
                fromStep: seq,
                ...writeOptions(io),
              });
              return [
                `forked at step ${seq} as ${r.fork_session_id}`,
                '',
                `worktree  ${r.fork_worktree}`,
                `branch    ${r.fork_branch}`,
                `commit    ${r.fork_commit}${r.restored_from_snapshot ? ` (the files of step ${seq})` : " (the parent's current commit)"}`,
                ...r.warnings.map((w) => `warning: ${w}`),
                '',
                `continue it: stepchain append ${r.fork_session_id} --root ${r.fork_worktree} ...`,
              ];
            },
          }
        : {}),
    });
    return displayVerdict([source], io, false);
  },
};
