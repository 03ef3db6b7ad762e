export { codexIntegration } from './integration';
export { CODEX_EVENTS, codexAgentId, codexToolStep, handleCodexHook } from './hook';
export { CODEX_HOOK_FILE, planCodexInit } from './init';
export { cutRollout, planCodexResume, resumeCodex } from './resume';
export type { CodexResumePlan, RolloutCut } from './resume';
export { exitCodeOf, rolloutRelPath } from './rollout';
export { codexConfigFile, codexHome, handlerHash, planTrust, projectTrusted, stepchainHandlers } from './trust';
export type { TrustedHandler, TrustEdit } from './trust';
