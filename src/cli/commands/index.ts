import { AGENTS } from '../../agents/registry';
import type { Command } from '../command';
import { appendCommand } from './append';
import { auditQueryCommand } from './audit-query';
import { auditVerifyCommand } from './audit-verify';
import { blameCommand } from './blame';
import { checkCommand } from './check';
import { demoCommand } from './demo';
import { diffCommand } from './diff';
import { exportCommand } from './export';
import { forkCommand } from './fork';
import { forkRmCommand } from './fork-rm';
import { forksCommand } from './forks';
import { hookCommands } from './hooks';
import { initCommandFor } from './init-agent';
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
  blameCommand,
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
  // One `init <agent>` and one `hook <agent>` per recorded agent (src/agents/registry.ts).
  ...AGENTS.map(initCommandFor),
  ...hookCommands,
  demoCommand,
];
