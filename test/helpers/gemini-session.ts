import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { identifiedProject } from './record';
import { freshDir } from './tmp';

/**
 * A Gemini CLI session for hook tests that drive `stepchain hook gemini` by hand: a project, the agent's chat file
 * (empty) where Gemini CLI keeps it for that project, and the environment a hook call gets.
 */
export interface GeminiSession {
  root: string;
  env: Record<string, string>;
  chat: string;
  sid: string;
}

export function geminiSession(tmp: string, name: string, sid: string): GeminiSession {
  const root = identifiedProject(freshDir(tmp, `p-${name}`));
  const home = freshDir(tmp, `home-${name}`);
  const chat = path.join(home, '.gemini', 'tmp', path.basename(root), 'chats', 'session-x.jsonl');
  mkdirSync(path.dirname(chat), { recursive: true });
  writeFileSync(chat, '');
  const env = { HOME: home, XDG_STATE_HOME: freshDir(tmp, `state-${name}`), GEMINI_PROJECT_DIR: root };
  return { root, chat, env, sid };
}

/** A hook payload of the session: its base fields, then `more`. */
export function geminiPayload(s: GeminiSession, event: string, more: Record<string, unknown> = {}): string {
  return JSON.stringify({ session_id: s.sid, transcript_path: s.chat, cwd: s.root, hook_event_name: event, ...more });
}
