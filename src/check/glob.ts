import { lstatSync, readdirSync, statSync, type Dirent, type Stats } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors';
import { lstatUnder } from '../util/nofollow';

/**
 * Repository-relative glob patterns (the Action's `journals`, `runs`, `receipts`
 * inputs): `*` and `?` within one path segment, `**` for any number of segments,
 * `{a,b}` alternatives and `[...]` classes; a leading `!` excludes. Paths always use
 * `/`. The same matcher filters a working tree and a `git ls-tree` listing, so the
 * base commit and the head are selected by exactly the same rule.
 */
export interface GlobSet {
  include: RegExp[];
  exclude: RegExp[];
  /** The patterns as given (for messages). */
  patterns: string[];
}

function escapeRe(c: string): string {
  return /[.+^$()|\\\]{}[*?]/.test(c) ? `\\${c}` : c;
}

/** A regular expression matching the whole relative path. */
export function globToRegExp(pattern: string): RegExp {
  let p = pattern.trim().replace(/\\/g, '/');
  while (p.startsWith('./')) p = p.slice(2);
  if (p.startsWith('/'))
    throw new InputError(`glob ${JSON.stringify(pattern)}: patterns are relative to the repository`);
  if (p.split('/').includes('..'))
    throw new InputError(`glob ${JSON.stringify(pattern)}: patterns stay inside the repository (no "..")`);
  let re = '';
  let depth = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*') {
      if (p[i + 1] === '*') {
        const atStart = i === 0 || p[i - 1] === '/';
        const atEnd = i + 2 === p.length || p[i + 2] === '/';
        if (atStart && atEnd) {
          // `**/` matches zero or more whole segments; a trailing `**` matches the rest.
          if (i + 2 === p.length) re += '.*';
          else re += '(?:[^/]+/)*';
          i += 2; // skip the second `*` and the `/`
          continue;
        }
        i++;
      }
      re += '[^/]*';
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '[') {
      const close = p.indexOf(']', i + 2);
      if (close < 0) {
        re += '\\[';
        continue;
      }
      let body = p.slice(i + 1, close);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      i = close;
    } else if (c === '{') {
      re += '(?:';
      depth++;
    } else if (c === '}' && depth > 0) {
      re += ')';
      depth--;
    } else if (c === ',' && depth > 0) {
      re += '|';
    } else {
      re += escapeRe(c);
    }
  }
  if (depth > 0) throw new InputError(`glob ${JSON.stringify(pattern)}: unclosed "{"`);
  return new RegExp(`^${re}$`);
}

/** Patterns from an input: one per line or comma-separated at top level; blank lines ignored. */
export function parsePatterns(text: string | string[]): string[] {
  const lines = Array.isArray(text) ? text : text.split(/\r?\n/);
  const out: string[] = [];
  for (const line of lines) {
    let depth = 0;
    let cur = '';
    for (const c of line) {
      if (c === '{') depth++;
      if (c === '}') depth = Math.max(0, depth - 1);
      if (c === ',' && depth === 0) {
        if (cur.trim()) out.push(cur.trim());
        cur = '';
      } else cur += c;
    }
    if (cur.trim()) out.push(cur.trim());
  }
  return out;
}

export function globSet(patterns: string | string[]): GlobSet {
  const list = parsePatterns(patterns);
  const set: GlobSet = { include: [], exclude: [], patterns: list };
  for (const p of list) {
    if (p.startsWith('!')) set.exclude.push(globToRegExp(p.slice(1)));
    else set.include.push(globToRegExp(p));
  }
  return set;
}

export function matchesGlob(set: GlobSet, relPath: string): boolean {
  return set.include.some((r) => r.test(relPath)) && !set.exclude.some((r) => r.test(relPath));
}

/** Directories never descended into: git internals, dependencies, fork worktrees (their own checkouts). */
const SKIP_DIRS = new Set(['.git', 'node_modules']);
const SKIP_PATHS = new Set(['.sdd/worktrees']);

/** The literal leading directories of a pattern (where a walk can start). */
function staticPrefix(pattern: string): string {
  const segs = pattern.replace(/^(\.\/)+/, '').split('/');
  const out: string[] = [];
  for (const s of segs.slice(0, -1)) {
    if (/[*?[{]/.test(s)) break;
    out.push(s);
  }
  return out.join('/');
}

/**
 * A symbolic link met where a pattern could match: never followed. `error` when
 * a pattern names its position segment by segment (a journal or a directory on
 * the way to one would be there); `warning` when only a `**` reaches it (a
 * directory link elsewhere in the repository: not searched, and said so).
 */
export interface FoundLink {
  path: string;
  severity: 'error' | 'warning';
}

/** Directory listings shared by several scans of one checkout (each directory is read once). */
export type DirCache = Map<string, Dirent[] | null>;

export interface ScanResult {
  /** Regular files matching the set, sorted. */
  files: string[];
  /** Symbolic links not followed, sorted by path. */
  links: FoundLink[];
  /**
   * Entries whose name is not UTF-8 where a match could be (a matching file, or a directory that could hold one),
   * sorted, as the listing spells them (U+FFFD for the bytes): no path string opens them, so they are never read.
   */
  unnamed: string[];
}

/** How a name that is not UTF-8 is spoken of, wherever it is refused or left out (check, export, gather). */
export const NOT_UTF8_NAME = 'its name is not UTF-8 (shown with U+FFFD)';

/**
 * The spellings in a listing of `dir` that stand for names that are not UTF-8 (Node lists their bytes as U+FFFD).
 * Looked at byte for byte: a name that IS spelled so (a real U+FFFD, or a decoy beside the hidden one) does not
 * make the hidden one openable, and only the bytes tell the two apart.
 */
function nonUtf8Spellings(dir: string): Set<string> {
  const out = new Set<string>();
  let raw: Buffer[];
  try {
    raw = readdirSync(dir, { encoding: 'buffer' });
  } catch {
    return out;
  }
  for (const b of raw) {
    const s = b.toString('utf8');
    if (s.includes('\uFFFD') && !Buffer.from(s, 'utf8').equals(b)) out.add(s);
  }
  return out;
}

/** Whether some path below directory `dir` could match `pattern`: `exact` without relying on a `**`. */
function reachBelow(pattern: string, dir: string): 'exact' | 'globstar' | false {
  const p = pattern.replace(/^(\.\/)+/, '');
  // A brace alternative with a `/` in it is not segment-wise: assume it can reach anything.
  if (/\{[^}]*\/[^}]*\}/.test(p)) return 'globstar';
  const segs = p.split('/');
  const dirs = dir.split('/');
  for (let i = 0; i < dirs.length; i++) {
    if (segs[i] === '**') return 'globstar';
    if (i >= segs.length - 1) return false; // the pattern's file name is at or above this depth
    if (!globToRegExp(segs[i]!).test(dirs[i]!)) return false;
  }
  return segs.length > dirs.length ? 'exact' : false;
}

function linkSeverity(set: GlobSet, rel: string, isDirLink: boolean): FoundLink['severity'] | undefined {
  if (set.exclude.some((r) => r.test(rel) || r.test(`${rel}/`))) return undefined;
  if (set.include.some((r) => r.test(rel))) return 'error';
  if (!isDirLink) return undefined;
  let reach: FoundLink['severity'] | undefined;
  for (const p of set.patterns) {
    if (p.startsWith('!')) continue;
    const r = reachBelow(p, rel);
    if (r === 'exact') return 'error';
    if (r === 'globstar') reach = 'warning';
  }
  return reach;
}

/**
 * Files under `root` matching the set, as sorted `/`-separated relative paths,
 * and the symbolic links met where a match could be. Walks only from each
 * pattern's literal prefix, skips `.git`, `node_modules` and `.sdd/worktrees`,
 * and never follows a link (lstat throughout): a link is reported, not read.
 */
export function scanFiles(root: string, set: GlobSet, cache?: DirCache): ScanResult {
  const found = new Set<string>();
  const links = new Map<string, FoundLink['severity']>();
  const addLink = (rel: string, severity: FoundLink['severity']): void => {
    if (links.get(rel) !== 'error') links.set(rel, severity);
  };
  const unnamed = new Set<string>();
  const walk = (rel: string): void => {
    let entries = cache?.get(rel);
    if (entries === undefined) {
      try {
        entries = readdirSync(rel === '' ? root : path.join(root, rel), { withFileTypes: true });
      } catch {
        entries = null;
      }
      cache?.set(rel, entries);
    }
    if (entries === null) return;
    const dirAbs = rel === '' ? root : path.join(root, rel);
    let hidden: Set<string> | undefined;
    const spelledTwice = new Set<string>();
    for (const e of entries) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      let entry: Dirent | Stats = e;
      if (e.name.includes('\uFFFD') && (hidden ??= nonUtf8Spellings(dirAbs)).has(e.name)) {
        // A hostile checkout could hide a journal or receipt under such a name (next to a decoy spelled the same
        // with a real U+FFFD): where a match could be, a fault. Each spelling once.
        if (spelledTwice.has(e.name)) continue;
        spelledTwice.add(e.name);
        const same = entries.filter((x) => x.name === e.name);
        if (
          same.some((x) => (x.isDirectory() ? linkSeverity(set, child, true) !== undefined : matchesGlob(set, child)))
        )
          unnamed.add(child);
        // A name that is UTF-8 and spelled so is checked as usual: what is there by that spelling, by lstat.
        let st: Stats | undefined;
        try {
          st = lstatSync(path.join(root, child), { throwIfNoEntry: false });
        } catch {
          /* gone meanwhile */
        }
        if (st === undefined) continue;
        entry = st;
      }
      if (entry.isSymbolicLink()) {
        let isDir = false;
        try {
          isDir = statSync(path.join(root, child)).isDirectory(); // only to classify the link; never entered
        } catch {
          /* a dangling link */
        }
        const sev = linkSeverity(set, child, isDir);
        if (sev !== undefined) addLink(child, sev);
      } else if (entry.isDirectory()) {
        if (SKIP_DIRS.has(e.name) || SKIP_PATHS.has(child)) continue;
        walk(child);
      } else if (entry.isFile() && matchesGlob(set, child)) {
        found.add(child);
      }
    }
  };
  // Literal patterns (no wildcard anywhere) are looked up, not searched for.
  const literal = (p: string) => !/[*?[{]/.test(p);
  const includes = set.patterns.filter((p) => !p.startsWith('!'));
  for (const p of includes.filter(literal)) {
    const rel = p.replace(/^(\.\/)+/, '');
    const st = lstatUnder(root, rel);
    if (st.kind === 'symlink') addLink(st.at, 'error');
    else if (st.kind === 'file' && matchesGlob(set, rel)) found.add(rel);
  }
  const globbed = new Set(includes.filter((p) => !literal(p)).map(staticPrefix));
  const roots = [...globbed].filter((s) => ![...globbed].some((o) => o !== s && (o === '' || s.startsWith(`${o}/`))));
  // A prefix inside another prefix is walked by the outer one; a link on a prefix is never entered.
  for (const r of roots) {
    if (r !== '') {
      const st = lstatUnder(root, r);
      if (st.kind === 'symlink') {
        addLink(st.at, 'error');
        continue;
      }
      if (st.kind !== 'dir') continue;
    }
    walk(r);
  }
  return {
    files: [...found].sort(),
    links: [...links]
      .map(([p, severity]) => ({ path: p, severity }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    unnamed: [...unnamed].sort(),
  };
}

/** The matching regular files only (links are skipped; `scanFiles` reports them). */
export function findFiles(root: string, set: GlobSet): string[] {
  return scanFiles(root, set).files;
}
