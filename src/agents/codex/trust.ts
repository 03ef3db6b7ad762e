import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { decodeUtf8, parse, whyNotText, type JsonValue } from '../../canonical';
import { InputError } from '../../errors';
import { runsStepchainHook } from '../hook-file';
import { readHookFileBytes } from '../hook-file-io';
import { scanToml, tomlBasicString, tomlStringValue, type TomlStatement } from './toml';

/**
 * Codex runs a project's hooks only once each is trusted, and keeps that trust in `$CODEX_HOME/config.toml`
 * (default `~/.codex/config.toml`), one table per hook handler:
 *
 *   [hooks.state."<absolute path of hooks.json>:<event in snake_case>:<group index>:<handler index>"]
 *   trusted_hash = "sha256:<hex>"
 *
 * the hex being the SHA-256 of the compact, key-sorted JSON of the handler's group as Codex normalises it, with
 * that one handler: `{"event_name":"post_tool_use","hooks":[{"async":false,"command":"...","timeout":600,
 * "type":"command"}],"matcher":"*"}` (no `matcher` where there is none, or where the event ignores it). This is
 * what Codex itself writes when the user approves a hook, and what `codex app-server` reports as each hook's
 * `key` and `currentHash` (the tests check the two against the real binary). `init codex` writes the tables of
 * stepchain's own handlers, by text, keeping every other byte of the file.
 */

/** Codex's home directory in this environment: `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(env: NodeJS.ProcessEnv): string {
  return path.resolve(env.CODEX_HOME || path.join(env.HOME || homedir(), '.codex'));
}

export function codexConfigFile(env: NodeJS.ProcessEnv): string {
  return path.join(codexHome(env), 'config.toml');
}

/** `PostToolUse` -> `post_tool_use`, as Codex names events in its trust keys. */
export function snakeEvent(event: string): string {
  return event.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** One handler of stepchain's in a hooks file, and the trust Codex would record for it. */
export interface TrustedHandler {
  event: string;
  key: string;
  hash: string;
}

/** Codex's hook timeouts, in seconds: its default, and the SessionEnd hook's own default and ceiling. */
const DEFAULT_TIMEOUT = 600;
const SESSION_END_TIMEOUT = { default: 1, max: 3 };

/** The timeout Codex gives a handler (and hashes): the entry's own, else the default, SessionEnd's clamped. */
function effectiveTimeout(event: string, t: JsonValue | undefined): number {
  const given = typeof t === 'number' && Number.isSafeInteger(t) && t >= 0 ? t : undefined;
  if (event === 'SessionEnd') return Math.min(given ?? SESSION_END_TIMEOUT.default, SESSION_END_TIMEOUT.max);
  return given ?? DEFAULT_TIMEOUT;
}

type Obj = Map<string, JsonValue>;

function isObj(v: JsonValue | undefined): v is Obj {
  return v instanceof Map;
}

/** The trust hash of one handler (`sha256:<hex>`), as Codex computes it. */
export function handlerHash(event: string, matcher: string | undefined, command: string, timeout: number): string {
  const handler = `{"async":false,"command":${JSON.stringify(command)},"timeout":${timeout},"type":"command"}`;
  const m = matcher === undefined ? '' : `,"matcher":${JSON.stringify(matcher)}`;
  const json = `{"event_name":${JSON.stringify(snakeEvent(event))},"hooks":[${handler}]${m}}`;
  return `sha256:${createHash('sha256').update(json, 'utf8').digest('hex')}`;
}

/**
 * stepchain's handlers in the text of a hooks file (`hooksFile` its absolute path as Codex keys it), with the
 * trust Codex would record for each. Text that is not a hooks object yields none (the file's own plan refuses it).
 */
export function stepchainHandlers(
  text: string | null,
  hooksFile: string,
  agent: string,
  events: readonly string[],
  matcherIgnored: ReadonlySet<string>,
): TrustedHandler[] {
  return hookHandlers(text, hooksFile, events, matcherIgnored, (command) => runsStepchainHook(agent, command));
}

/**
 * Handlers that are not stepchain's (the user's own) whose place in the hooks file changed with an edit, and
 * whose trust config.toml holds at their old key with the hash they still have: that trust, moved to their new
 * key. Codex keys a hook by its group's and its own index, so taking stepchain's group out from before the
 * user's would otherwise leave the user's hook untrusted, and skipped without a word.
 */
export function movedTrust(
  before: string | null,
  after: string,
  hooksFile: string,
  agent: string,
  events: readonly string[],
  matcherIgnored: ReadonlySet<string>,
  trusted: ReadonlyMap<string, string | undefined>,
): { want: TrustedHandler[]; drop: string[] } {
  const theirs = (text: string | null) =>
    hookHandlers(text, hooksFile, events, matcherIgnored, (command) => !runsStepchainHook(agent, command));
  const was = theirs(before);
  const now = theirs(after);
  const want: TrustedHandler[] = [];
  const drop: string[] = [];
  for (const event of events) {
    const a = was.filter((h) => h.event === event);
    const b = now.filter((h) => h.event === event);
    // The user's handlers keep their order: the k-th before is the k-th after, when it is the same handler.
    a.forEach((h, k) => {
      const to = b[k];
      if (to === undefined || to.key === h.key || to.hash !== h.hash || trusted.get(h.key) !== h.hash) return;
      want.push(to);
      drop.push(h.key);
    });
  }
  return { want, drop };
}

/** The handlers of a hooks file's text whose command passes `select`, with the trust Codex would record for each. */
function hookHandlers(
  text: string | null,
  hooksFile: string,
  events: readonly string[],
  matcherIgnored: ReadonlySet<string>,
  select: (command: string) => boolean,
): TrustedHandler[] {
  if (text === null || text.trim() === '') return [];
  let doc: JsonValue;
  try {
    doc = parse(text, { objects: 'map' });
  } catch {
    return [];
  }
  const hooks = isObj(doc) ? doc.get('hooks') : undefined;
  if (!isObj(hooks)) return [];
  const out: TrustedHandler[] = [];
  for (const event of events) {
    const groups = hooks.get(event);
    if (!Array.isArray(groups)) continue;
    groups.forEach((g, gi) => {
      if (!isObj(g)) return;
      const list = g.get('hooks');
      if (!Array.isArray(list)) return;
      const m = g.get('matcher');
      const matcher = typeof m === 'string' && !matcherIgnored.has(event) ? m : undefined;
      list.forEach((h, hi) => {
        if (!isObj(h)) return;
        const command = h.get('command');
        if (h.get('type') !== 'command' || typeof command !== 'string' || !select(command)) return;
        const timeout = effectiveTimeout(event, h.get('timeout'));
        out.push({
          event,
          key: `${hooksFile}:${snakeEvent(event)}:${gi}:${hi}`,
          hash: handlerHash(event, matcher, command, timeout),
        });
      });
    });
  }
  return out;
}

/** The path Codex keys a project's files by: the real path of the directory, when it exists. */
export function codexPath(p: string): string {
  try {
    return path.join(realpathSync(path.dirname(p)), path.basename(p));
  } catch {
    return path.resolve(p);
  }
}

/** The text of config.toml, or null when it does not exist. */
export function readConfigText(file: string): string | null {
  const bytes = readHookFileBytes(file);
  if (bytes === undefined) return null;
  try {
    return decodeUtf8(bytes);
  } catch (e) {
    throw new InputError(`${file}: ${whyNotText(e)}; the file is left as it is`);
  }
}

interface Table {
  header: TomlStatement;
  /** The statements up to the next header. */
  body: TomlStatement[];
  /** Offset just past the table's last statement. */
  end: number;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

function startsWith(a: readonly string[], b: readonly string[]): boolean {
  return a.length >= b.length && b.every((k, i) => k === a[i]);
}

/** The tables of a scanned document, each with its statements. */
function tablesOf(statements: TomlStatement[]): Table[] {
  const tables: Table[] = [];
  for (const st of statements) {
    if (st.kind === 'table' || st.kind === 'array-table') tables.push({ header: st, body: [], end: st.end });
    else if (tables.length > 0) {
      const t = tables[tables.length - 1]!;
      t.body.push(st);
      t.end = st.end;
    }
  }
  return tables;
}

/** Every key/value with its table's key path and its full key path (the table's keys, then its own). */
function fullKeys(statements: TomlStatement[]): { st: TomlStatement; table: string[]; keys: string[] }[] {
  const out: { st: TomlStatement; table: string[]; keys: string[] }[] = [];
  let table: string[] = [];
  for (const st of statements) {
    if (st.kind === 'table' || st.kind === 'array-table') table = st.keys;
    else if (st.kind === 'keyval') out.push({ st, table, keys: [...table, ...st.keys] });
  }
  return out;
}

export interface TrustEdit {
  before: string | null;
  after: string;
  /** Keys whose table was added or whose hash was set. */
  trusted: string[];
  /** Keys whose trust was taken out. */
  removed: string[];
}

/**
 * config.toml with `want` trusted and `drop` no longer (keys of `want` win over `drop`). Tables are edited in
 * place or appended at the end, in Codex's own layout; a hook key written in another form (a dotted key, an
 * inline table) is refused rather than written twice, which would make the file invalid TOML.
 */
export function planTrust(
  file: string,
  text: string | null,
  want: readonly TrustedHandler[],
  drop: readonly string[],
): TrustEdit {
  const src = text ?? '';
  const statements = scanToml(src, file);
  const tables = tablesOf(statements);
  const tableOf = new Map<string, Table>();
  for (const t of tables) {
    const k = t.header.keys;
    if (t.header.kind === 'table' && k.length === 3 && k[0] === 'hooks' && k[1] === 'state') tableOf.set(k[2]!, t);
  }
  const wanted = new Set(want.map((w) => w.key));
  const dropping = drop.filter((k) => !wanted.has(k));
  // Our keys must be tables of their own, and `hooks.state` a table: any other form is refused, not written twice.
  const ours = new Set([...wanted, ...dropping]);
  for (const { st, table, keys } of fullKeys(statements)) {
    const other =
      keys.length >= 3 && keys[0] === 'hooks' && keys[1] === 'state' && ours.has(keys[2]!) && table.length !== 3;
    const asValue = keys.length <= 2 && keys[0] === 'hooks' && (keys.length === 1 || keys[1] === 'state');
    if (other || (asValue && want.length > 0))
      throw new InputError(
        `${file}:${st.line}: Codex's hook trust is written there in a form stepchain does not edit ` +
          '(a dotted key or an inline table); the file is left as it is',
      );
  }
  for (const t of tables)
    if (t.header.kind === 'array-table' && startsWith(t.header.keys, ['hooks']) && t.header.keys.length <= 3)
      throw new InputError(`${file}:${t.header.line}: "hooks" is an array of tables here; the file is left as it is`);

  type Edit = { from: number; to: number; text: string };
  const edits: Edit[] = [];
  const trusted: string[] = [];
  const removed: string[] = [];
  let appended = '';
  for (const w of want) {
    const t = tableOf.get(w.key);
    const value = tomlBasicString(w.hash);
    if (t === undefined) {
      appended += `\n[hooks.state.${tomlBasicString(w.key)}]\ntrusted_hash = ${value}\n`;
      trusted.push(w.key);
      continue;
    }
    const hashes = t.body.filter((st) => st.kind === 'keyval' && sameKeys(st.keys, ['trusted_hash']));
    if (hashes.length === 0) {
      // A header that ends the file has no line end of its own: the key goes on a line of its own all the same.
      const nl = src[t.header.end - 1] === '\n' ? '' : '\n';
      edits.push({ from: t.header.end, to: t.header.end, text: `${nl}trusted_hash = ${value}\n` });
      trusted.push(w.key);
    } else {
      const h = hashes[0]!;
      if (tomlStringValue(src.slice(h.valueStart, h.valueEnd)) !== w.hash) {
        edits.push({ from: h.valueStart, to: h.valueEnd, text: value });
        trusted.push(w.key);
      }
    }
  }
  const tablesOut: { from: number; to: number }[] = [];
  for (const key of dropping) {
    const t = tableOf.get(key);
    if (t === undefined) continue;
    removed.push(key);
    const others = t.body.filter((st) => st.kind === 'keyval' && !sameKeys(st.keys, ['trusted_hash']));
    if (others.length > 0) {
      for (const st of t.body)
        if (st.kind === 'keyval' && sameKeys(st.keys, ['trusted_hash']))
          edits.push({ from: st.start, to: st.end, text: '' });
      continue;
    }
    tablesOut.push({ from: t.header.start, to: t.end });
  }
  // Whole tables out, neighbours merged; a run that ends the file takes the one blank line before it along (the
  // separator an append writes), so adding and removing again gives the file back byte for byte.
  tablesOut.sort((x, y) => x.from - y.from);
  const merged: { from: number; to: number }[] = [];
  for (const r of tablesOut) {
    const last = merged[merged.length - 1];
    if (last !== undefined && r.from <= last.to) last.to = Math.max(last.to, r.to);
    else merged.push({ ...r });
  }
  for (const r of merged) {
    const prev = src.lastIndexOf('\n', r.from - 2) + 1;
    if (r.to === src.length && r.from > 0 && src[r.from - 1] === '\n' && src.slice(prev, r.from).trim() === '')
      r.from = prev;
    edits.push({ from: r.from, to: r.to, text: '' });
  }
  edits.sort((a, b) => b.from - a.from);
  let after = src;
  for (const e of edits) after = after.slice(0, e.from) + e.text + after.slice(e.to);
  if (appended !== '') {
    if (after === '') appended = appended.slice(1);
    else if (!after.endsWith('\n')) after += '\n';
    after += appended;
  }
  checkTrustEdit(file, after, want, dropping);
  return { before: text, after, trusted, removed };
}

/**
 * What an edit wrote, read back: the file still scans, each wanted key holds its hash in one table of its own,
 * and no dropped key is left with one. Any edit that would not is refused before a byte is written, rather than
 * leaving the user a config Codex cannot read, or hooks it silently does not trust.
 */
function checkTrustEdit(file: string, after: string, want: readonly TrustedHandler[], drop: readonly string[]): void {
  const hashes = trustTables(file, after);
  const bad =
    want.find((w) => hashes.get(w.key)?.length !== 1 || hashes.get(w.key)![0] !== w.hash)?.key ??
    drop.find((k) => hashes.get(k)?.some((h) => h !== undefined));
  if (bad !== undefined)
    throw new InputError(
      `${file}: the trust of ${JSON.stringify(bad)} could not be written as one table stepchain reads back; the file is left as it is`,
    );
}

/** The `trusted_hash` a config.toml records for a hook key (undefined: none, or not a string). */
export function trustedHashes(file: string, text: string | null): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  if (text !== null) for (const [k, v] of trustTables(file, text)) out.set(k, v[0]);
  return out;
}

/** Each `[hooks.state."<key>"]` table of a config.toml, in order, with its `trusted_hash` (undefined: none). */
function trustTables(file: string, text: string): Map<string, (string | undefined)[]> {
  const hashes = new Map<string, (string | undefined)[]>();
  let table: string[] = [];
  for (const st of scanToml(text, file)) {
    if (st.kind === 'table' || st.kind === 'array-table') {
      table = st.keys;
      const k = st.keys;
      if (st.kind === 'table' && k.length === 3 && k[0] === 'hooks' && k[1] === 'state')
        hashes.set(k[2]!, [...(hashes.get(k[2]!) ?? []), undefined]);
    } else if (st.kind === 'keyval' && table.length === 3 && table[0] === 'hooks' && table[1] === 'state') {
      const list = hashes.get(table[2]!)!;
      if (sameKeys(st.keys, ['trusted_hash']))
        list[list.length - 1] = tomlStringValue(text.slice(st.valueStart, st.valueEnd));
    }
  }
  return hashes;
}

/** Whether config.toml trusts the project `dir` (`[projects."<dir>"] trust_level = "trusted"`). */
export function projectTrusted(file: string, text: string | null, dirs: readonly string[]): boolean {
  if (text === null) return false;
  let statements: TomlStatement[];
  try {
    statements = scanToml(text, file);
  } catch {
    return false;
  }
  return fullKeys(statements).some(
    ({ st, keys }) =>
      keys.length === 3 &&
      keys[0] === 'projects' &&
      dirs.includes(keys[1]!) &&
      keys[2] === 'trust_level' &&
      tomlStringValue(text.slice(st.valueStart, st.valueEnd)) === 'trusted',
  );
}
