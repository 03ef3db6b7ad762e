import * as core from '@actions/core';
import * as github from '@actions/github';
import path from 'node:path';
import { asStepchainError, StepchainError } from '../errors';
import { eventBase } from './event';
import { exportMode } from './export';
import { gatherMode } from './gather';
import { readInputs } from './inputs';
import { oneLineMessage } from './log';
import { oneLine } from './outputs';
import { verifyMode } from './verify';

/**
 * The Action: `node dist/index.js` as a runner starts it (inputs in INPUT_*, the
 * event in GITHUB_EVENT_PATH, outputs and summary through the GITHUB_* files).
 * One file per mode: verify.ts, export.ts, gather.ts. The step fails with one
 * line, printed first; then at most 10 faults become error annotations (GitHub
 * shows no more per step) and 10 warnings; every fault is one log line, and the
 * summary and the JSON report have them all (the summary within GitHub's 1 MiB,
 * the comment within 65,536 characters). Every line printed with data in it is
 * neutralised (src/action/log.ts). Nothing ends in a stack trace.
 */
export async function run(): Promise<void> {
  try {
    const workspace = path.resolve(process.env['GITHUB_WORKSPACE'] || process.cwd());
    const inputs = readInputs();
    const event = eventBase(github.context.eventName, github.context.payload);
    if (inputs.mode === 'export') await exportMode(inputs, workspace);
    else if (inputs.mode === 'gather') await gatherMode(inputs, workspace, event);
    else await verifyMode(inputs, workspace, event);
  } catch (thrown) {
    // An OS error (ENOSPC, EACCES, ...) gets the CLI's one line naming the path and the cause.
    const e = asStepchainError(thrown) ?? thrown;
    if (e instanceof StepchainError) core.setFailed(oneLineMessage(`stepchain: ${e.message}`));
    else {
      // Unexpected: one line for the check, the trace only in the debug log (ACTIONS_STEP_DEBUG).
      if (e instanceof Error && e.stack) core.debug(e.stack);
      core.setFailed(oneLineMessage(`stepchain: ${oneLine(e)}`));
    }
  }
}
