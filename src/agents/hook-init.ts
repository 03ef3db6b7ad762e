import path from 'node:path';
import { planHookFile, type HookFileSpec } from './hook-file';
import { writeHookFile, writeOwnHookFile, type HookFilePlan } from './hook-file-io';
import type { InitPlan, InitRequest } from './types';

/**
 * `init <agent>` for an agent whose hooks are entries of one JSON hook file (`./hook-file.ts` merges them): the
 * file asked for or the agent's default, planned by the agent's `HookFileSpec`, with what the agent adds to say.
 */
export interface HookFileInit {
  spec: HookFileSpec;
  /** The file `init` edits when none is given, relative to the project root (the integration's `configFile`). */
  configFile: string;
  /**
   * What keeps the hooks from running that `init` does not change, beyond the plan's own (an untrusted folder, a
   * setting that turns hooks off): the step to take.
   */
  warnings?(request: InitRequest, plan: HookFilePlan): string[];
}

/** The file's plan as `init` says and carries it out. */
export function initPlanOf(plan: HookFilePlan, warnings: string[], write: () => void): InitPlan {
  return {
    file: plan.file,
    // An empty text after: the file goes (a file of stepchain's own that nothing is left of).
    changes: plan.changed
      ? [{ file: plan.file, before: plan.before, after: plan.after === '' ? null : plan.after }]
      : [],
    changed: plan.changed,
    events: plan.events,
    updated: plan.updated,
    repaired: plan.repaired,
    findings: plan.findings,
    notes: [],
    warnings,
    diff: plan.diff,
    write,
  };
}

/** The hook file's plan for `request` (nothing written). */
export function planInitHookFile(init: Pick<HookFileInit, 'spec' | 'configFile'>, request: InitRequest): HookFilePlan {
  const file = request.file ?? path.join(request.root, init.configFile);
  return planHookFile(file, init.spec, {
    ...(request.command === undefined ? {} : { command: request.command }),
    remove: request.remove,
    root: request.root,
  });
}

/** What `init <agent>` does for an agent of one hook file. */
export function planHookFileInit(init: HookFileInit, request: InitRequest): InitPlan {
  const plan = planInitHookFile(init, request);
  const write = init.spec.ownFile ? writeOwnHookFile : writeHookFile;
  return initPlanOf(plan, [...plan.warnings, ...(init.warnings?.(request, plan) ?? [])], () => write(plan));
}
