import { randomBytes } from 'node:crypto';
import { lstatSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeUtf8, encode, JsonFloat, JsonParseError, parse, whyNotText, type JsonValue } from '../canonical';
import { InputError, IntegrityError, isOsError, osError } from '../errors';
import { ensureDir, removeFile } from '../util/fs';
import { readRegularFile } from '../util/nofollow';
import { unifiedDiff } from './line-diff';

/**
 * The reading and writing under every `init <agent>` that edits a file (`./hook-file.ts` plans the merge): never
 * through a link, never blocking on a FIFO, a file refused naming its line, written atomically and only when it is
 * still what the plan read.
 */

export interface HookFilePlan {
  file: string;
  /** The project root when the file is the project's own: no link between the two is followed (`refuseLinksTo`). */
  root?: string;
  /** The file's text before (null: it does not exist). */
  before: string | null;
  /** The text after; empty where `--remove` leaves nothing of a file that was stepchain's own (it is deleted). */
  after: string;
  changed: boolean;
  /** Events a hook entry was added for (or, with remove, removed from). */
  events: string[];
  /** Events whose entry's command was updated to the requested one. */
  updated: string[];
  /**
   * Events where an entry that looked like stepchain's could not record every occurrence (a matcher that
   * misses tools, a condition) and was replaced by stepchain's own.
   */
  repaired: string[];
  /** Why, one line per entry updated or repaired (`PostToolUse: its matcher "Bash" does not match every tool`). */
  findings: string[];
  /** What keeps the hooks from running that `init` does not change (`disableAllHooks`). */
  warnings: string[];
  diff: string[];
}

/** A plan from the file's text before and after, what changed in words, and its warnings (the diff derived). */
export function hookFilePlan(
  file: string,
  text: string | null,
  after: string,
  said: Pick<HookFilePlan, 'events' | 'updated' | 'repaired' | 'findings' | 'warnings'>,
  root?: string,
): HookFilePlan {
  const changed = after !== (text ?? '');
  return {
    file,
    ...(root === undefined ? {} : { root }),
    before: text,
    after,
    changed,
    ...said,
    // A file created shows as from /dev/null; a file left empty (then deleted) as to /dev/null.
    diff: changed
      ? unifiedDiff(text ?? '', after, text === null ? '/dev/null' : file, after === '' ? '/dev/null' : file)
      : [],
  };
}

export type Obj = Map<string, JsonValue>;

export function isObj(v: JsonValue | undefined): v is Obj {
  return v instanceof Map;
}

/** JSON with `indent` spaces per level, keys in their order, numbers exactly as read, non-ASCII kept. */
export function stringifyIndented(v: JsonValue, indent: string, level = ''): string {
  const inner = level + indent;
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((x) => inner + stringifyIndented(x, indent, inner)).join(',\n')}\n${level}]`;
  }
  if (v instanceof Map) {
    if (v.size === 0) return '{}';
    const items = [...v].map(([k, x]) => `${inner}${JSON.stringify(k)}: ${stringifyIndented(x, indent, inner)}`);
    return `{\n${items.join(',\n')}\n${level}}`;
  }
  if (typeof v === 'string') return JSON.stringify(v);
  if (v !== null && typeof v === 'object' && !(v instanceof JsonFloat)) {
    return stringifyIndented(new Map(Object.entries(v)), indent, level);
  }
  return encode(v, { allowNonFinite: true });
}

function lineOf(text: string, column: number): number {
  let line = 1;
  for (let i = 0; i < column - 1 && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function refuseSymlink(p: string): void {
  try {
    if (lstatSync(p).isSymbolicLink()) throw new IntegrityError(`${p}: is a symlink; refusing to follow it`);
  } catch (e) {
    if (e instanceof IntegrityError) throw e;
  }
}

/**
 * Refuses a link on the way to `file`. Below `root` (a project's own hook file) that is every directory between the
 * root and the file, and the file: a repository can commit `.github` as a link to anywhere, and the file written
 * under `.github/hooks/` would land there. Outside any root (a `--settings` file of the user's own, whose path is
 * theirs to lay out) only the file and its directory.
 */
export function refuseLinksTo(file: string, root: string | undefined): void {
  const rel = root === undefined ? '..' : path.relative(path.resolve(root), path.resolve(file));
  const inside = rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
  if (!inside) {
    refuseSymlink(path.dirname(file));
    refuseSymlink(file);
    return;
  }
  let at = path.resolve(root!);
  for (const part of rel.split(path.sep)) refuseSymlink((at = path.join(at, part)));
}

/** Larger than any settings or config file a person keeps: refused rather than read whole. */
const MAX_HOOK_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The bytes of a file an agent's init edits (undefined: there is none): never through a link, never blocking on a
 * FIFO or a device (a user's config path can be anything), a regular file or a one-line refusal naming it.
 */
export function readHookFileBytes(file: string): Buffer | undefined {
  return readRegularFile(file, { maxBytes: MAX_HOOK_FILE_BYTES });
}

/** A hook settings file: its text (null: absent) and its JSON object; anything else is refused, naming the line. */
export function readSettings(file: string, root?: string): { text: string | null; doc: Obj } {
  refuseLinksTo(file, root);
  const bytes = readHookFileBytes(file);
  if (bytes === undefined) return { text: null, doc: new Map() };
  let text: string;
  try {
    text = decodeUtf8(bytes);
  } catch (e) {
    throw new InputError(`${file}: settings file is ${whyNotText(e)}`);
  }
  if (text.trim() === '') return { text, doc: new Map() };
  let v: JsonValue;
  try {
    v = parse(text, { objects: 'map' });
  } catch (e) {
    if (e instanceof JsonParseError) throw new InputError(`${file}:${lineOf(text, e.column)}: not JSON: ${e.reason}`);
    throw new InputError(`${file}: not JSON: too large or too deeply nested`);
  }
  if (!isObj(v)) throw new InputError(`${file}: settings file is not a JSON object`);
  return { text, doc: v };
}

type WritePlan = Pick<HookFilePlan, 'file' | 'root' | 'before' | 'after' | 'changed'>;

/** The file must still be what the plan read: a concurrent edit is not overwritten (nor deleted). */
function assertUnchanged(plan: WritePlan): void {
  let now: string | null;
  try {
    now = readHookFileBytes(plan.file)?.toString('utf8') ?? null;
  } catch {
    now = null;
  }
  if (now !== plan.before) throw new IntegrityError(`${plan.file}: changed while it was being updated; run it again`);
}

/** Writes a plan's new text (atomically: a temporary file in the same directory, then a rename). */
export function writeHookFile(plan: WritePlan): void {
  if (!plan.changed) return;
  const dir = path.dirname(plan.file);
  refuseLinksTo(plan.file, plan.root);
  ensureDir(dir);
  let mode = 0o644;
  try {
    mode = lstatSync(plan.file).mode & 0o777;
  } catch {
    /* a new file */
  }
  assertUnchanged(plan);
  const tmp = path.join(dir, `.${path.basename(plan.file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, plan.after, { flag: 'wx', mode });
    renameSync(tmp, plan.file);
  } catch (e) {
    removeFile(tmp);
    if (isOsError(e)) throw osError(e, plan.file, 'cannot write');
    throw e;
  }
}

/**
 * Writes the plan of a file that is stepchain's own: its new text atomically, or, when nothing of it is left
 * (`after` empty), deletes it.
 */
export function writeOwnHookFile(plan: WritePlan): void {
  if (!plan.changed) return;
  if (plan.after !== '') {
    writeHookFile(plan);
    return;
  }
  refuseLinksTo(plan.file, plan.root);
  assertUnchanged(plan);
  removeFile(plan.file);
}
