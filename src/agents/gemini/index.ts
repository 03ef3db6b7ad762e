export { geminiIntegration } from './integration';
export { GEMINI_ADAPTER, geminiAgentId, geminiToolStep, handleGeminiHook } from './hook';
export { GEMINI_EVENTS, GEMINI_HOOK_FILE, planGeminiSettings } from './settings';
export { shellExitCode } from './exit-code';
export { folderTrust } from './trust';
export type { FolderTrust } from './trust';
