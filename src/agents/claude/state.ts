import {
  agentSessionStateFile,
  agentStateDir,
  readAgentSessionState,
  writeAgentSessionState,
  type SessionState,
} from '../state';

/**
 * Claude Code's session state (`<root>/.sdd/runtime/claude/<session_id>.json`): the shared per-session cache of
 * `../state.ts` under the agent name `claude` (an agent whose hook keeps the same state passes its own name).
 */
export { EMPTY_STATE, type SessionState } from '../state';

export function claudeStateDir(root: string, agent = 'claude'): string {
  return agentStateDir(root, agent);
}

export function sessionStateFile(root: string, sessionId: string, agent = 'claude'): string {
  return agentSessionStateFile(root, agent, sessionId);
}

export function readSessionState(
  root: string,
  sessionId: string,
  agent = 'claude',
): { state: SessionState; warning?: string } {
  return readAgentSessionState(root, agent, sessionId);
}

export function writeSessionState(root: string, sessionId: string, state: SessionState, agent = 'claude'): void {
  writeAgentSessionState(root, agent, sessionId, state);
}
