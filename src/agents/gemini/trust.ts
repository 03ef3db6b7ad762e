import { realpathSync } from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../../util/nofollow';
import { geminiDir, trustedFoldersFile } from './home';

/**
 * Whether Gemini CLI (0.61) trusts a folder, decided as it decides it (its `checkPathTrust`): with folder trust
 * enabled (`security.folderTrust.enabled` in the user's settings, default true), the longest rule of the user's
 * trusted folders file whose path contains the folder (`TRUST_FOLDER`: that path, `TRUST_PARENT`: its parent,
 * `DO_NOT_TRUST`) decides; no rule is not trusted. An untrusted folder's `.gemini/settings.json` is not read, so its
 * hooks do not run: `init gemini` says so, with the one step to take. (`GEMINI_CLI_TRUST_WORKSPACE=true` in the
 * agent's environment trusts any folder for one run; the IDE's trust signal is not seen here.)
 */
export interface FolderTrust {
  trusted: boolean;
  /** The file that decided (or would), for the message. */
  file: string;
  why: string;
}

const MAX_TRUST_FILE_BYTES = 16 * 1024 * 1024;

function readJsonObject(file: string): Record<string, unknown> | undefined {
  try {
    // A trust file a person keeps (a few folder rules): 16 MiB is far above one; larger is not used.
    const bytes = readRegularFile(file, { maxBytes: MAX_TRUST_FILE_BYTES });
    if (bytes === undefined) return undefined;
    const v: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function within(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export function folderTrust(folder: string, env: NodeJS.ProcessEnv): FolderTrust {
  const file = trustedFoldersFile(env);
  const settings = readJsonObject(path.join(geminiDir(env), 'settings.json'));
  const security = settings?.security as Record<string, unknown> | undefined;
  const folderTrustSetting = security?.folderTrust as Record<string, unknown> | undefined;
  if (folderTrustSetting?.enabled === false)
    return { trusted: true, file, why: 'folder trust is disabled in the user settings' };
  const rules = readJsonObject(file) ?? {};
  const target = real(path.resolve(folder));
  let best = -1;
  let level: unknown;
  for (const [rule, value] of Object.entries(rules)) {
    if (!path.isAbsolute(rule)) continue;
    const effective = value === 'TRUST_PARENT' ? path.dirname(rule) : rule;
    if (within(real(path.resolve(effective)), target) && rule.length > best) {
      best = rule.length;
      level = value;
    }
  }
  if (level === 'TRUST_FOLDER' || level === 'TRUST_PARENT') return { trusted: true, file, why: 'trusted' };
  return {
    trusted: false,
    file,
    why: level === 'DO_NOT_TRUST' ? 'marked "DO_NOT_TRUST"' : 'not trusted (no rule names it)',
  };
}
