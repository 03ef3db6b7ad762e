import { anthropicMessages } from './anthropic';
import { gemini } from './gemini';
import { openaiChat } from './openai-chat';
import { openaiResponses } from './openai-responses';
import type { Protocol, ProtocolName } from './types';

export type { Protocol, ProtocolName, ProviderSignal, RequestView, ToolResult } from './types';

export const PROTOCOLS: readonly Protocol[] = [anthropicMessages, openaiResponses, openaiChat, gemini];

/** The protocol whose model call a `POST` to this path is, if any. */
export function protocolOf(method: string, pathname: string): Protocol | undefined {
  if (method !== 'POST') return undefined;
  return PROTOCOLS.find((p) => p.matches(pathname));
}

export function protocolNamed(name: ProtocolName): Protocol {
  return PROTOCOLS.find((p) => p.name === name)!;
}
