import { homedir } from 'node:os';
import path from 'node:path';

/**
 * Gemini CLI's own directory in an environment: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini` (its `homedir()`).
 * Only the environment decides it, never a recorded path.
 */
export function geminiDir(env: NodeJS.ProcessEnv): string {
  return path.resolve(env.GEMINI_CLI_HOME || env.HOME || homedir(), '.gemini');
}

/** The user's trusted folders file: `$GEMINI_CLI_TRUSTED_FOLDERS_PATH`, else `<gemini dir>/trustedFolders.json`. */
export function trustedFoldersFile(env: NodeJS.ProcessEnv): string {
  const override = env.GEMINI_CLI_TRUSTED_FOLDERS_PATH;
  return override !== undefined && path.isAbsolute(override)
    ? override
    : path.join(geminiDir(env), 'trustedFolders.json');
}
