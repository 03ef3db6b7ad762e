import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isJsonObject, parse, type JsonObject, type JsonValue } from '../../canonical';
import { InputError } from '../../errors';
import type { ProtocolName } from '../../proxy/protocols/types';
import { readRegularFile } from '../../util/nofollow';
import { ownValue } from '../../util/records';

/**
 * The model providers OpenCode's configuration declares, read the way OpenCode 1.18.33 merges it (its
 * Config.loadInstanceState): the global files (`<XDG_CONFIG_HOME or ~/.config>/opencode/config.json`,
 * `opencode.json`, `opencode.jsonc`), `OPENCODE_CONFIG`, the project's `opencode.jsonc` / `opencode.json` from the
 * git worktree's top down to the directory it runs in (unless OPENCODE_DISABLE_PROJECT_CONFIG), the
 * `opencode.json(c)` of every `.opencode` directory on that way, of `~/.opencode` and of `OPENCODE_CONFIG_DIR`,
 * then `OPENCODE_CONFIG_CONTENT`, each merged over the ones before. Remote (`.well-known`) and managed
 * configurations are not read: their providers are not pointed at the proxy (docs/record.md).
 */
export interface OpenCodeProvider {
  id: string;
  /** The wire protocol of its SDK package (`npm`), or of the built-in provider of that id; undefined: unknown. */
  protocol: ProtocolName | undefined;
  /** `options.baseURL` as configured (with `{env:NAME}` filled in), if any. */
  baseURL: string | undefined;
}

/** OpenCode's built-in providers whose base URL record sets, and the protocol each speaks. */
export const BUILT_IN: Readonly<Record<string, ProtocolName>> = {
  anthropic: 'anthropic-messages',
  openai: 'openai-responses',
  google: 'gemini',
};

/** The AI SDK packages whose wire protocol the proxy reads. */
const PACKAGES: Readonly<Record<string, ProtocolName>> = {
  '@ai-sdk/openai-compatible': 'openai-chat',
  '@ai-sdk/openai': 'openai-responses',
  '@ai-sdk/anthropic': 'anthropic-messages',
  '@ai-sdk/google': 'gemini',
};

/** JSON with comments and trailing commas (OpenCode reads its files with jsonc-parser) as plain JSON. */
export function jsoncToJson(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      out += text.slice(start, ++i);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
      out += ' ';
    } else {
      out += c;
      i++;
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

function parseConfig(text: string, where: string): JsonObject {
  let v: JsonValue;
  try {
    v = parse(jsoncToJson(text.replace(/^\uFEFF/, '')));
  } catch (e) {
    throw new InputError(
      `${where}: not JSON (${(e as Error).message.split('\n')[0]}); record cannot tell which model providers OpenCode uses`,
    );
  }
  if (!isJsonObject(v)) throw new InputError(`${where}: not a JSON object; record cannot read its providers`);
  return v;
}

/** The top of the git worktree `dir` is in (a directory holding `.git`), or the filesystem root. */
function worktreeTop(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, '.git'))) return d;
    if (path.dirname(d) === d) return d;
  }
}

/** The configuration files OpenCode reads for a run in `cwd`, lowest precedence first (those that exist). */
export function opencodeConfigFiles(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? os.homedir();
  const xdg =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : path.join(home, '.config');
  const global = path.join(xdg, 'opencode');
  const files = ['config.json', 'opencode.json', 'opencode.jsonc'].map((f) => path.join(global, f));
  if (env.OPENCODE_CONFIG !== undefined && env.OPENCODE_CONFIG !== '')
    files.push(path.resolve(cwd, env.OPENCODE_CONFIG));
  const dir = path.resolve(cwd);
  const top = worktreeTop(dir);
  const way: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    way.unshift(d);
    if (d === top || path.dirname(d) === d) break;
  }
  if (env.OPENCODE_DISABLE_PROJECT_CONFIG === undefined || env.OPENCODE_DISABLE_PROJECT_CONFIG === '')
    for (const d of way) files.push(path.join(d, 'opencode.jsonc'), path.join(d, 'opencode.json'));
  const packs = [...way.map((d) => path.join(d, '.opencode')), path.join(home, '.opencode')];
  if (env.OPENCODE_CONFIG_DIR !== undefined && env.OPENCODE_CONFIG_DIR !== '') packs.push(env.OPENCODE_CONFIG_DIR);
  for (const d of packs) files.push(path.join(d, 'opencode.json'), path.join(d, 'opencode.jsonc'));
  return files.filter((f) => existsSync(f));
}

/** `{env:NAME}` in a configured value, as OpenCode fills it in. */
function withEnv(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\{env:([^}]+)\}/g, (_m, name: string) => env[name] ?? '');
}

/** Larger than any configuration a person keeps (the bound of every agent settings file stepchain edits). */
const MAX_CONFIG_FILE_BYTES = 64 * 1024 * 1024;

/** Every provider the configuration for a run in `cwd` declares, and the built-in ones, with their protocol and base URL. */
export function opencodeProviders(cwd: string, env: NodeJS.ProcessEnv): OpenCodeProvider[] {
  const merged = new Map<string, { npm?: string; baseURL?: string }>();
  const take = (config: JsonObject): void => {
    const providers = config.provider;
    if (!isJsonObject(providers)) return;
    for (const [id, p] of Object.entries(providers)) {
      if (!isJsonObject(p)) continue;
      const was = merged.get(id) ?? {};
      const options = isJsonObject(p.options) ? p.options : {};
      merged.set(id, {
        ...was,
        ...(typeof p.npm === 'string' ? { npm: p.npm } : {}),
        ...(typeof options.baseURL === 'string' ? { baseURL: withEnv(options.baseURL, env) } : {}),
      });
    }
  };
  for (const f of opencodeConfigFiles(cwd, env)) {
    // The project's files are the project's (an agent's, a pull request's): a FIFO there would hang the read, a
    // device or a huge file be held whole. A link is followed, as OpenCode follows it (a dotfiles manager's); what it
    // reaches must be a regular file of at most MAX_CONFIG_FILE_BYTES, else one line naming it.
    const bytes = readRegularFile(f, { follow: true, maxBytes: MAX_CONFIG_FILE_BYTES });
    if (bytes !== undefined) take(parseConfig(bytes.toString('utf8'), f));
  }
  const inline = env.OPENCODE_CONFIG_CONTENT;
  if (inline !== undefined && inline.trim() !== '') take(parseConfig(inline, 'OPENCODE_CONFIG_CONTENT'));
  for (const id of Object.keys(BUILT_IN)) if (!merged.has(id)) merged.set(id, {});
  return [...merged].map(([id, p]) => ({
    id,
    protocol: p.npm !== undefined ? ownValue(PACKAGES, p.npm) : ownValue(BUILT_IN, id),
    baseURL: p.baseURL,
  }));
}
