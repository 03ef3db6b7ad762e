import { run } from '../../src/action/run';
import { rememberNamedConfig } from '../../src/git/exec';
import type { ActionResult, Annotation, RunOptions } from './action';
import { newStep } from './action-core';
import { prEvent } from './action-repo';

// Importing this module wires the stand-ins (jest hoists these above the imports, as in a test file): both packages
// are ESM-only, which Jest's CommonJS resolver does not take, so they are stood in for by name
// (helpers/action-core.ts). The bundle runs of the same test file are processes of their own, untouched.
jest.mock('@actions/core', () => jest.requireActual('./action-core').core, { virtual: true });
jest.mock(
  '@actions/github',
  () => ({
    context: jest.requireActual('./action-core').context,
    getOctokit: () => {
      throw new Error('the in-process runs reach no GitHub API');
    },
  }),
  { virtual: true },
);

/**
 * The Action's `run()` in this process, answering as `runAction` (the built bundle in a process of its own) does,
 * for the tests about the Action's logic: its verdict, outputs, annotations, log lines and summary. What only a
 * process shows (its exit code on a crash, workflow commands as printed, the GITHUB_OUTPUT file, the bundle's own
 * environment handling) stays with `runAction`. Each run costs no process start and no 3 MB bundle load.
 *
 * `code` is 1 when the step failed (setFailed), else 0; `stdout` is the log lines (core.info); `stderr` is empty;
 * `annotations` are setFailed, error and warning calls in the order made.
 */
export async function runInProcess(o: RunOptions): Promise<ActionResult> {
  const saved = new Map<string, string | undefined>();
  for (const [k, v] of Object.entries(o.env ?? {})) {
    saved.set(k, process.env[k]);
    process.env[k] = v;
  }
  try {
    const rec = newStep(o.workspace, o.scratch, o.inputs ?? {}, o.event ?? { name: 'push', payload: {} });
    await runAsBundle();
    const annotations: Annotation[] = rec.commands.map(({ level, call }) => ({
      level,
      message: call.message,
      ...(call.file === undefined ? {} : { file: call.file }),
      ...(call.startLine === undefined ? {} : { line: call.startLine }),
      ...(call.title === undefined ? {} : { title: call.title }),
    }));
    return {
      code: rec.failed.length > 0 ? 1 : 0,
      stdout: rec.log.map((l) => `${l}\n`).join(''),
      stderr: '',
      outputs: { ...rec.outputs },
      summary: rec.summary,
      annotations,
    };
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** `actionTestBed`'s `onPr` with `run()` in this process: the pull request from `base` to the head of `dir`. */
export function inProcessOnPr(
  scratch: string,
): (dir: string, base: string, inputs?: Record<string, string>, env?: Record<string, string>) => Promise<ActionResult> {
  return (dir, base, inputs = {}, env = {}) =>
    runInProcess({ workspace: dir, scratch, event: prEvent(dir, base), inputs, env });
}

/**
 * `run()` as the bundle's entry (src/action/index.ts) starts it: keeping the repository's named-configuration reads
 * for the run (a git process each, about seven per pull request's check), and ending the keeping after it, as the
 * bundle's process ends (this process goes on to other repositories and to the CLI, which does not keep them).
 */
export async function runAsBundle(): Promise<void> {
  const forget = rememberNamedConfig();
  try {
    await run();
  } finally {
    forget();
  }
}
