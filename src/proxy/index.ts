export { AGENT_NAMES, AGENTS, agentSpec } from './agents';
export type { AgentSpec } from './agents';
export {
  DROPPED_HEADERS,
  DROPPED_QUERY_PARAMS,
  isCredentialHeader,
  recordableHeaders,
  recordablePath,
} from './credentials';
export { EXCHANGE_FORMAT, exchangeRecord, PROMPT_CAP_BYTES, readExchange } from './exchange';
export type { Exchange, ExchangeReading } from './exchange';
export { forkReplay } from './fork-replay';
export type { ForkReplayOptions, ForkReplayResult } from './fork-replay';
export { firstDifference, GENERIC_RULES, normalise, PATHS_RULE, regexRule } from './normalise';
export { CLAUDE_RULES } from '../agents/claude/proxy';
export { CODEX_RULES } from '../agents/codex/proxy';
export type { NormaliseContext, NormaliseRule } from './normalise';
export { responsePayloads, sseEvents } from './payloads';
export { PROTOCOLS, protocolOf } from './protocols';
export type { Protocol, ProtocolName, ToolResult } from './protocols';
export { recordAgent } from './record-agent';
export type { RecordAgentOptions, RecordAgentResult } from './record-agent';
export { Recorder } from './recorder';
export { recordedExchange, Replayer } from './replay';
export type { Divergence, RecordedExchange } from './replay';
export { parseUpstream, runProxied } from './run';
export type { ProxiedRunOptions, ProxiedRunResult } from './run';
export { startProxy } from './server';
export type { ProxyOptions, RunningProxy } from './server';
export { readStartCommit, startRef, takeStartSnapshot } from './start';
