import path from 'node:path';
import { readRegularFile } from '../../util/nofollow';
import type { HookFileSpec } from '../hook-file';
import { writeHookFile } from '../hook-file-io';
import { initPlanOf, planInitHookFile } from '../hook-init';
import { unifiedDiff } from '../line-diff';
import type { InitPlan, InitRequest } from '../types';
import { CODEX, CODEX_EVENTS } from './hook';
import {
  codexConfigFile,
  codexPath,
  movedTrust,
  planTrust,
  projectTrusted,
  readConfigText,
  stepchainHandlers,
  trustedHashes,
} from './trust';
import { tomlBasicString } from './toml';

/**
 * `stepchain init codex`: stepchain's hook entries in the project's `.codex/hooks.json` (Claude Code's schema,
 * merged by `../hook-file.ts`), and the trust Codex itself records when a user approves a hook, for those
 * entries only, in `$CODEX_HOME/config.toml` (./trust.ts): the user asked for the hooks by running `init`, and
 * hooks Codex does not trust are skipped without a word. The project's own trust stays the user's: when Codex
 * does not trust the project, `init` says the one step to take.
 */
/** The project file `init codex` edits, relative to the root. */
export const CODEX_HOOKS_FILE = '.codex/hooks.json';

export const CODEX_HOOK_FILE: HookFileSpec = {
  agent: CODEX,
  title: 'Codex',
  events: CODEX_EVENTS,
  // The tool event takes a tool-name matcher; the others match every occurrence without one.
  matchers: { PostToolUse: '*' },
  // Codex drops these events' matchers (they have nothing to match on), also from the trust hash.
  matcherIgnored: new Set(['UserPromptSubmit', 'Stop']),
  // Codex gives a SessionEnd hook 1 s unless its entry says otherwise (3 s at most): too short on a loaded machine.
  timeouts: { SessionEnd: 3 },
};

/**
 * The directories whose trust covers the project: the root itself, and for a git worktree (a fork's), the main
 * working tree, as Codex resolves a worktree to its repository when it looks for the project's trust.
 */
function trustCandidates(root: string): string[] {
  const out = new Set([path.resolve(root), codexPath(root)]);
  try {
    const bytes = readRegularFile(path.join(root, '.git'), { maxBytes: 4096 });
    const m = bytes === undefined ? null : /^gitdir: (.+)$/m.exec(bytes.toString('utf8'));
    const gitdir = m === null ? undefined : path.resolve(root, m[1]!.trim());
    if (gitdir !== undefined && path.basename(path.dirname(gitdir)) === 'worktrees') {
      const common = path.dirname(path.dirname(gitdir));
      if (path.basename(common) === '.git') out.add(codexPath(path.dirname(common)));
    }
  } catch {
    /* not a worktree, or not readable: the root alone */
  }
  return [...out];
}

export function planCodexInit(request: InitRequest): InitPlan {
  const plan = planInitHookFile({ spec: CODEX_HOOK_FILE, configFile: CODEX_HOOKS_FILE }, request);
  // Codex keys a hook by the real path of its file; the handlers are trusted as they stand after the change.
  const keyFile = codexPath(plan.file);
  const handlers = (text: string | null) =>
    stepchainHandlers(text, keyFile, CODEX, CODEX_HOOK_FILE.events, CODEX_HOOK_FILE.matcherIgnored);
  const want = handlers(plan.after);
  const had = handlers(plan.before);
  const config = codexConfigFile(request.env);
  const configText = readConfigText(config);
  // The user's own hooks that the edit moved keep the trust the user gave them.
  const moved = movedTrust(
    plan.before,
    plan.after,
    keyFile,
    CODEX,
    CODEX_HOOK_FILE.events,
    CODEX_HOOK_FILE.matcherIgnored,
    trustedHashes(config, configText),
  );
  const trust = planTrust(config, configText, [...want, ...moved.want], [...had.map((h) => h.key), ...moved.drop]);
  const configChanged = trust.after !== (configText ?? '');
  const notes: string[] = [];
  const movedKeys = new Set(moved.want.map((w) => w.key));
  const ours = trust.trusted.filter((k) => !movedKeys.has(k));
  if (ours.length > 0)
    notes.push(
      `${config}: stepchain's hooks trusted for ${[...new Set(want.filter((w) => ours.includes(w.key)).map((w) => w.event))].join(', ')} ` +
        `(${ours.length} [hooks.state."…"] table${ours.length === 1 ? '' : 's'} with the trusted_hash Codex records when you approve a hook)`,
    );
  const removed = trust.removed.filter((k) => !moved.drop.includes(k));
  if (removed.length > 0)
    notes.push(`${config}: the trust of stepchain's hooks taken out (${removed.length} [hooks.state."…"] tables)`);
  if (moved.want.length > 0)
    notes.push(
      `${config}: the trust you gave ${moved.want.length} of your own hook${moved.want.length === 1 ? '' : 's'} moved with ${moved.want.length === 1 ? 'it' : 'them'} to ${moved.want.length === 1 ? 'its' : 'their'} new place in the hooks file`,
    );
  const warnings = [...plan.warnings];
  const root = codexPath(request.root);
  if (!request.remove && !projectTrusted(config, configText, trustCandidates(request.root)))
    warnings.push(
      `Codex runs a project's hooks only in a trusted project, and ${config} does not trust ${root}: ` +
        `start \`codex\` in ${root} once and answer that you trust the folder ` +
        `(or add [projects.${tomlBasicString(root)}] trust_level = "trusted" to ${config})`,
    );
  const changes = [
    ...(configChanged ? [{ file: config, before: configText, after: trust.after }] : []),
    ...(plan.changed ? [{ file: plan.file, before: plan.before, after: plan.after }] : []),
  ];
  const configDiff = configChanged
    ? unifiedDiff(configText ?? '', trust.after, configText === null ? '/dev/null' : config, config)
    : [];
  const cfg = { file: config, before: configText, after: trust.after, changed: configChanged };
  return {
    ...initPlanOf(plan, warnings, () => {
      // The trust first when adding (a trusted hook that is not there yet does nothing), last when removing:
      // hooks are never left in the project untrusted, where Codex would skip them without a word.
      if (request.remove) {
        writeHookFile(plan);
        writeHookFile(cfg);
      } else {
        writeHookFile(cfg);
        writeHookFile(plan);
      }
    }),
    changes,
    changed: changes.length > 0,
    notes,
    diff: [...plan.diff, ...configDiff],
  };
}
