import { lstatSync } from 'node:fs';
import path from 'node:path';
import { InputError, IntegrityError } from '../../errors';
import { requestedHookCommand } from '../hook-file';
import { readHookFileBytes, refuseLinksTo, writeOwnHookFile } from '../hook-file-io';
import { unifiedDiff } from '../line-diff';
import type { AgentIntegration, InitPlan, InitRequest } from '../types';
import { OPENCODE_HOOK } from '../hooks';
import { OPENCODE_ADAPTER, OPENCODE_EVENTS } from './hook';
import { PLUGIN_MARKER, pluginSource } from './plugin';
import { opencodeProxy } from './proxy';

/**
 * `init opencode`: OpenCode has no command hooks, so stepchain's recording is a plugin file of its own,
 * `.opencode/plugins/stepchain.js` (generated, marked on its first line; `./plugin.ts`). `init` writes it (or
 * rewrites it when the command changed), `--remove` deletes it; a file there that stepchain did not generate is
 * never touched. OpenCode gates no plugins on trust: a project's plugins load when OpenCode starts in it.
 */
function readOurs(file: string): string | null {
  let st;
  try {
    st = lstatSync(file);
  } catch {
    return null;
  }
  if (st.isSymbolicLink()) throw new IntegrityError(`${file}: is a symlink; refusing to follow it`);
  if (!st.isFile()) throw new InputError(`${file}: is not a regular file; left as it is`);
  const text = readHookFileBytes(file)?.toString('utf8') ?? '';
  if (!text.startsWith(`${PLUGIN_MARKER}\n`))
    throw new InputError(`${file}: not the plugin \`stepchain init opencode\` writes (no marker line); left as it is`);
  return text;
}

function planInit(request: InitRequest): InitPlan {
  const file = request.file ?? path.join(request.root, '.opencode', 'plugins', 'stepchain.js');
  const command = requestedHookCommand('opencode', request.command);
  refuseLinksTo(file, request.root);
  const before = readOurs(file);
  const after = request.remove ? (before === null ? null : '') : pluginSource(command);
  const changed = request.remove ? before !== null : before !== after;
  const plan = { file, root: request.root, before, after: after ?? '', changed };
  const updated = !request.remove && before !== null && changed ? ['plugin'] : [];
  return {
    file,
    changes: changed ? [{ file, before, after: request.remove ? null : after }] : [],
    changed,
    events: changed && updated.length === 0 ? [...OPENCODE_EVENTS] : [],
    updated,
    repaired: [],
    findings: updated.length > 0 ? [`${file}: the plugin was generated for another command or version`] : [],
    notes: [],
    warnings: [],
    diff: changed
      ? unifiedDiff(
          before ?? '',
          request.remove ? '' : (after ?? ''),
          before === null ? '/dev/null' : file,
          request.remove ? '/dev/null' : file,
        )
      : [],
    // Removing: the plan's empty text deletes the file (only ours: checked again at write time).
    write: () => writeOwnHookFile(plan),
  };
}

/** OpenCode (docs/agents.md "OpenCode"). */
export const opencodeIntegration: AgentIntegration = {
  ...OPENCODE_HOOK,
  adapter: OPENCODE_ADAPTER,
  configFile: '.opencode/plugins/stepchain.js',
  planInit,
  resume: {
    supported: false,
    reason:
      'OpenCode keeps its sessions in a SQLite database of its own (messages and parts by id, with its own file ' +
      'snapshots); stepchain does not write into it, and `opencode --fork` copies a whole session, not one cut after a given tool call',
  },
  proxy: opencodeProxy,
};
