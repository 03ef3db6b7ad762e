/** The providers' public APIs: the upstream of a protocol when neither --upstream nor the agent's own setting names one. */
export const ANTHROPIC_API = 'https://api.anthropic.com';
export const OPENAI_API = 'https://api.openai.com/v1';
export const GEMINI_API = 'https://generativelanguage.googleapis.com';

/** An environment setting's value, trimmed, or undefined when unset or blank. */
export function envSetting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v !== undefined && v.trim() !== '' ? v.trim() : undefined;
}
