import {
  agentSessionStateFile,
  agentStateDir,
  readAgentSessionState,
  writeAgentSessionState,
  type SessionState,
} from '../state';

/**
 * Claude Code's session state (`<root>/.sdd/runtime/claude/<session_id>.json`): the shared per-session cache of
 * `../state.ts` under the agent name `claude`.
 */
export { EMPTY_STATE, type SessionState } from '../state';

export function claudeStateDir(root: string): string {
  return agentStateDir(root, 'claude');
}

export function sessionStateFile(root: string, sessionId: string): string {
  return agentSessionStateFile(root, 'claude', sessionId);
}

export function readSessionState(root: string, sessionId: string): { state: SessionState; warning?: string } {
  return readAgentSessionState(root, 'claude', sessionId);
}

export function writeSessionState(root: string, sessionId: string, state: SessionState): void {
  writeAgentSessionState(root, 'claude', sessionId, state);
}
