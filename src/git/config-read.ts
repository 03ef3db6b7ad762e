import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../util/nofollow';

/**
 * `git config --null --get-regexp <pattern>` answered without starting git, for the one read every snapshot makes
 * (./exec.ts, `namedConfigOnce`: the names of the filter drivers and remotes whose programs are pinned off, and the
 * few keys ./loose.ts needs): a git process of its own on every hook call otherwise, its start and three reads of
 * every configuration file. Only where what git reads is known and read the way git reads it; anything else is
 * undefined, and the caller asks git, as it always did:
 *
 * - Linux, with the `git` the command's PATH finds being `/usr/bin/git` (a distribution's, whose system file is
 *   /etc/gitconfig: another git's system file is wherever it was built to look), GIT_CONFIG_NOSYSTEM unset, an
 *   absolute HOME and, when set, an absolute XDG_CONFIG_HOME (git's own variables other than those never reach
 *   git: ./exec.ts drops them);
 * - each file git reads (system, `$XDG_CONFIG_HOME/git/config` or `~/.config/git/config`, `~/.gitconfig`, the
 *   repository's `config`) missing or a regular file (never followed through a link), of at most 1 MiB;
 * - no include (`[include]`, `[includeIf ...]`: files of their own) and no per-worktree configuration
 *   (`extensions.worktreeConfig`: another file);
 * - the syntax git parses, as git 2.x parses it (config.c: `git_parse_source`, `get_base_var`, `get_value`,
 *   `parse_value`), without its rarer shapes: a byte git reads as a carriage return, a NUL, a vertical tab or a form
 *   feed, a byte-order mark, a backslash in a section header, a key before any section. A file git refuses is
 *   undefined too (git says why).
 *
 * test/git.config-read.test.ts holds the reader to git's own answer, shape by shape.
 */

/** Where a repository's configuration is: its git directory and the common one (the same but in a linked worktree). */
export interface ConfigPlaces {
  gitDir: string;
  commonDir: string;
}

/** The configuration files larger than this are left to git. */
const MAX_CONFIG_BYTES = 1 << 20;

/** `key\nvalue\0` for every entry whose key matches `pattern`, in git's order (`key\0`: a key with no `=`). */
export function readConfigInProcess(repo: ConfigPlaces, env: NodeJS.ProcessEnv, pattern: string): string | undefined {
  const files = configFiles(repo, env);
  if (files === undefined) return undefined;
  const match = new RegExp(pattern);
  let out = '';
  for (const file of files) {
    let bytes: Buffer | undefined;
    try {
      bytes = readRegularFile(file, { maxBytes: MAX_CONFIG_BYTES });
    } catch {
      return undefined; // a link, not a regular file, unreadable, too large: git decides
    }
    if (bytes === undefined) {
      // Missing: git skips it too; but every repository has its own (not there: not the repository git finds).
      if (file === files.at(-1)) return undefined;
      continue;
    }
    const entries = parseConfig(bytes.toString('utf8'));
    if (entries === undefined) return undefined;
    for (const [key, value] of entries) {
      if (/^(include|includeif)\./.test(key) || key === 'extensions.worktreeconfig') return undefined;
      if (match.test(key)) out += value === undefined ? `${key}\0` : `${key}\n${value}\0`;
    }
  }
  return out;
}

/** The files git reads for a command in the repository, in its order; undefined when they are not known for sure. */
function configFiles(repo: ConfigPlaces, env: NodeJS.ProcessEnv): string[] | undefined {
  if (process.platform !== 'linux' || env.GIT_CONFIG_NOSYSTEM !== undefined) return undefined;
  const home = env.HOME;
  const xdg = env.XDG_CONFIG_HOME;
  if (home === undefined || !path.isAbsolute(home)) return undefined;
  if (xdg !== undefined && xdg !== '' && !path.isAbsolute(xdg)) return undefined;
  if (gitOnPath(env.PATH) !== '/usr/bin/git') return undefined;
  return [
    '/etc/gitconfig',
    xdg !== undefined && xdg !== '' ? path.join(xdg, 'git', 'config') : path.join(home, '.config', 'git', 'config'),
    path.join(home, '.gitconfig'),
    path.join(repo.commonDir, 'config'),
  ];
}

/**
 * The program `spawn('git')` runs with this PATH, links resolved, as execvp finds it: the first `git` that is an
 * executable regular file, in order. Undefined when a directory before it is not absolute (the current directory's
 * `git` would depend on where the command runs) or none is found.
 */
function gitOnPath(searchPath: string | undefined): string | undefined {
  if (searchPath === undefined) return undefined;
  for (const dir of searchPath.split(':')) {
    if (!path.isAbsolute(dir)) return undefined;
    const file = path.join(dir, 'git');
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      return realpathSync.native(file);
    } catch {
      continue; // not there, or not one execvp runs
    }
  }
  return undefined;
}

type Entry = [key: string, value: string | undefined];

const isAlpha = (c: string): boolean => /^[A-Za-z]$/.test(c);
const isKeyChar = (c: string): boolean => /^[A-Za-z0-9-]$/.test(c);
const isSpace = (c: string): boolean => c === ' ' || c === '\t';

/**
 * A configuration file's entries as git reads them (canonical keys: section and name lower-cased, a quoted
 * subsection as written), or undefined for a file git refuses or a shape not read here (see the module's comment).
 */
export function parseConfig(text: string): Entry[] | undefined {
  if (/[\0\r\v\f]/.test(text) || text.startsWith('\uFEFF')) return undefined;
  const out: Entry[] = [];
  let base: string | undefined;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i++]!;
    if (c === '\n' || isSpace(c)) continue;
    if (c === '#' || c === ';') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? n : nl;
      continue;
    }
    if (c === '[') {
      const h = header(text, i);
      if (h === undefined) return undefined;
      base = h.base;
      i = h.end;
      continue;
    }
    if (!isAlpha(c) || base === undefined) return undefined;
    let j = i;
    while (j < n && isKeyChar(text[j]!)) j++;
    const key = base + text.slice(i - 1, j).toLowerCase();
    while (j < n && isSpace(text[j]!)) j++;
    if (j >= n || text[j] === '\n') {
      out.push([key, undefined]);
      i = j;
      continue;
    }
    if (text[j] !== '=') return undefined;
    const v = value(text, j + 1);
    if (v === undefined) return undefined;
    out.push([key, v.value]);
    i = v.end;
  }
  return out;
}

/** A section header from after its `[`: `section.` or `section.subsection.`, and where the line goes on. */
function header(text: string, from: number): { base: string; end: number } | undefined {
  let i = from;
  let name = '';
  for (;;) {
    const c = text[i++];
    if (c === undefined) return undefined;
    if (c === ']') return name === '' ? undefined : { base: `${name}.`, end: i };
    if (isSpace(c) || c === '\n') break;
    if (!isKeyChar(c) && c !== '.') return undefined;
    name += c.toLowerCase();
  }
  // `[section "subsection"]`: spaces, then the quoted name, then `]` at once.
  if (name === '' || text[i - 1] === '\n') return undefined;
  while (isSpace(text[i] ?? '')) i++;
  if (text[i] !== '"') return undefined;
  const close = text.indexOf('"', i + 1);
  if (close < 0) return undefined;
  const sub = text.slice(i + 1, close);
  if (/[\n\\]/.test(sub) || text[close + 1] !== ']') return undefined;
  return { base: `${name}.${sub}.`, end: close + 2 };
}

/** A value from after its `=` (git's parse_value): quotes, escapes, comments, inner spaces; and where it ended. */
function value(text: string, from: number): { value: string; end: number } | undefined {
  let out = '';
  let quote = false;
  let comment = false;
  let spaces = 0;
  let i = from;
  for (;;) {
    // git reads the end of the file as a newline.
    const c = i < text.length ? text[i++]! : '\n';
    if (c === '\n') return quote ? undefined : { value: out, end: i };
    if (comment) continue;
    if (isSpace(c) && !quote) {
      if (out.length > 0) spaces++;
      continue;
    }
    if (!quote && (c === ';' || c === '#')) {
      comment = true;
      continue;
    }
    out += ' '.repeat(spaces);
    spaces = 0;
    if (c === '\\') {
      const e = i < text.length ? text[i++]! : '\n';
      if (e === '\n') continue; // the value goes on on the next line
      const escaped = { t: '\t', b: '\b', n: '\n', '\\': '\\', '"': '"' }[e];
      if (escaped === undefined) return undefined; // git refuses any other escape
      out += escaped;
      continue;
    }
    if (c === '"') {
      quote = !quote;
      continue;
    }
    out += c;
  }
}
