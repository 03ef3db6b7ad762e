export { AGENTS, agentNamed, agentOfJournal } from './registry';
export type {
  AgentIntegration,
  AgentProxy,
  FileChange,
  HookOptions,
  HookOutcome,
  InitPlan,
  InitRequest,
  ResumeRequest,
  ResumeResult,
  ResumeSupport,
} from './types';
export { emptyOutcome, errorLine, runEvent, SessionRecorder } from './kit';
export { defaultHookCommand, planHookFile, runsStepchainHook } from './hook-file';
export { writeHookFile } from './hook-file-io';
export type { HookFilePlan, HookFileSpec } from './hook-file';
