import { lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { readRegularFile } from '../../util/nofollow';

/**
 * Where GitHub Copilot CLI keeps its own files in this environment (checked on the pinned binary, 1.0.102):
 * `$COPILOT_HOME`, else `~/.copilot`. Only the environment decides it, never a payload: the session's event log
 * (`session-state/<id>/events.jsonl`) and the folder trust (`config.json`, `trustedFolders`) are read there.
 */
export function copilotHome(env: NodeJS.ProcessEnv): string {
  const home = env.COPILOT_HOME;
  if (home !== undefined && home !== '' && path.isAbsolute(home)) return path.resolve(home);
  return path.join(env.HOME || homedir(), '.copilot');
}

/**
 * The session's event log, `<home>/session-state/<id>/events.jsonl`, or why it is not read: the session id is
 * a checked id (no separators), and neither the session's directory nor `session-state` may be a link (a file
 * elsewhere is never read as the agent's).
 */
export function sessionEventsFile(env: NodeJS.ProcessEnv, sessionId: string): { file: string } | { problem: string } {
  const stateDir = path.join(copilotHome(env), 'session-state');
  const dir = path.join(stateDir, sessionId);
  for (const d of [stateDir, dir]) {
    try {
      if (lstatSync(d).isSymbolicLink()) return { problem: `${d} is a symbolic link; not followed` };
    } catch {
      return { problem: `${d} does not exist` };
    }
  }
  return { file: path.join(dir, 'events.jsonl') };
}

/** The user's config.json is JSON with `//` comment lines on top (Copilot writes it so); at most 1 MiB is read. */
const CONFIG_MAX = 1 << 20;

export type FolderTrust = { trusted: true } | { trusted: false; why: string };

/**
 * Whether Copilot runs the hooks of a project in `dir`: it loads `.github/hooks/*.json` only in a trusted folder,
 * `dir` or a folder above it listed in `trustedFolders` of `<home>/config.json` (as the pinned binary does;
 * an untrusted folder's hooks are skipped without a word). Read only, never written: trusting a folder is the user's.
 */
export function folderTrust(dir: string, env: NodeJS.ProcessEnv): FolderTrust {
  const file = path.join(copilotHome(env), 'config.json');
  let bytes: Buffer | undefined;
  try {
    bytes = readRegularFile(file, { maxBytes: CONFIG_MAX });
  } catch (e) {
    return { trusted: false, why: `${(e as Error).message.split('\n')[0]}` };
  }
  if (bytes === undefined) return { trusted: false, why: `${file} does not exist` };
  const text = bytes
    .toString('utf8')
    .split('\n')
    .filter((l) => !/^\s*\/\//.test(l))
    .join('\n');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { trusted: false, why: `${file} does not read as JSON` };
  }
  const list = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>).trustedFolders : undefined;
  const folders = Array.isArray(list) ? list.filter((f): f is string => typeof f === 'string') : [];
  const target = path.resolve(dir);
  const under = (f: string) => {
    if (!path.isAbsolute(f)) return false;
    const rel = path.relative(path.resolve(f), target);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  if (folders.some(under)) return { trusted: true };
  return { trusted: false, why: `${target} is not in "trustedFolders" of ${file}` };
}
