import type { Command } from '../command';
import { appendCommand } from './append';
import { auditQueryCommand } from './audit-query';
import { auditVerifyCommand } from './audit-verify';
import { checkCommand } from './check';
import { demoCommand } from './demo';
import { diffCommand } from './diff';
import { exportCommand } from './export';
import { forkCommand } from './fork';
import { forkRmCommand } from './fork-rm';
import { forksCommand } from './forks';
import { hookClaudeCommand } from './hook-claude';
import { initClaudeCommand } from './init-claude';
import { keygenCommand } from './keygen';
import { publishCommand } from './publish';
import { recordCommand } from './record';
import { receiptVerifyCommand } from './receipt-verify';
import { replayCommand } from './replay';
import { reportCommand } from './report';
import { runCapabilityCommand } from './run-capability';
import { runDiffCommand } from './run-diff';
import { runIngestCommand } from './run-ingest';
import { runMutationCommand } from './run-mutation';
import { runRecordCommand } from './run-record';
import { runVerifyCommand } from './run-verify';
import { showCommand } from './show';
import { verifyCommand } from './verify';

/**
 * Every CLI command, one module each, each a thin layer over the library.
 * Add a command by importing it here.
 */
export const commands: Command[] = [
  appendCommand,
  recordCommand,
  verifyCommand,
  keygenCommand,
  exportCommand,
  receiptVerifyCommand,
  publishCommand,
  forkCommand,
  forkRmCommand,
  forksCommand,
  replayCommand,
  showCommand,
  diffCommand,
  reportCommand,
  runRecordCommand,
  runCapabilityCommand,
  runMutationCommand,
  runIngestCommand,
  runVerifyCommand,
  runDiffCommand,
  checkCommand,
  auditVerifyCommand,
  auditQueryCommand,
  initClaudeCommand,
  hookClaudeCommand,
  demoCommand,
];
