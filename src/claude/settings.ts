import { randomBytes } from 'node:crypto';
import { lstatSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeUtf8, encode, JsonFloat, JsonParseError, parse, type JsonValue } from '../canonical';
import { InputError, IntegrityError, isOsError, osError } from '../errors';
import { ensureDir } from '../util/fs';
import { RECORDED_EVENTS } from './hook';
import { unifiedDiff } from './line-diff';

/**
 * `stepchain init claude`: merges stepchain's hook entries into a Claude Code
 * settings file (default `<root>/.claude/settings.json`), or removes them.
 * Every other key, hook and matcher group is kept as it was (order included);
 * running it twice changes nothing the second time. The Claude Code schema:
 *
 *   {"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "..."}]}], ...}}
 *
 * A file that does not have that shape is refused (exit 2), never rewritten
 * into it; a symlinked settings file or `.claude` directory is refused too.
 */
export const DEFAULT_HOOK_COMMAND = 'stepchain hook claude';

/** Tool events take a tool-name matcher; the others match every occurrence without one. */
const MATCHER: Partial<Record<string, string>> = { PostToolUse: '*', PostToolUseFailure: '*' };

/** Whether a hook command runs `stepchain hook claude` (by name or through the bundle). */
export function isStepchainHookCommand(command: string): boolean {
  return /(?:^|[\s/'"=])(?:stepchain|cli\.js)['"]?\s+hook\s+claude(?:\s|$)/.test(command);
}

export interface ClaudeSettingsPlan {
  file: string;
  /** The file's text before (null: it does not exist). */
  before: string | null;
  after: string;
  changed: boolean;
  /** Events a hook entry was added for (or, with remove, removed from). */
  events: string[];
  /** Entries whose command was updated to the requested one. */
  updated: string[];
  diff: string[];
}

type Obj = Map<string, JsonValue>;

function isObj(v: JsonValue | undefined): v is Obj {
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

function readSettings(file: string): { text: string | null; doc: Obj } {
  refuseSymlink(path.dirname(file));
  refuseSymlink(file);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { text: null, doc: new Map() };
    throw new InputError(`${file}: cannot read settings: ${code ?? (e as Error).message}`);
  }
  let text: string;
  try {
    text = decodeUtf8(bytes);
  } catch {
    throw new InputError(`${file}: settings file is not valid UTF-8`);
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

/** The indentation the file already uses (two spaces when it has none). */
function indentOf(text: string | null): string {
  const m = text === null ? null : /\n([ \t]+)\S/.exec(text);
  return m?.[1] ?? '  ';
}

/** What `init claude` would do to `file` (nothing is written). */
export function planClaudeSettings(
  file: string,
  options: { command?: string; remove?: boolean } = {},
): ClaudeSettingsPlan {
  const command = options.command ?? DEFAULT_HOOK_COMMAND;
  if (!isStepchainHookCommand(command))
    throw new InputError(`--command ${JSON.stringify(command)} does not run \`stepchain hook claude\``);
  const { text, doc } = readSettings(file);
  const shape: (what: string) => never = (what) => {
    throw new InputError(`${file}: ${what}; not the Claude Code hook settings format, so it is left as it is`);
  };
  let hooks = doc.get('hooks');
  if (hooks !== undefined && !isObj(hooks)) shape('"hooks" is not an object');
  const events: string[] = [];
  const updated: string[] = [];
  if (hooks === undefined && !options.remove) {
    hooks = new Map();
    doc.set('hooks', hooks);
  }
  for (const event of RECORDED_EVENTS) {
    if (hooks === undefined) break;
    const h = hooks as Obj;
    const groups = h.get(event);
    if (groups !== undefined && !Array.isArray(groups)) shape(`"hooks.${event}" is not a list`);
    const list = (groups ?? []) as JsonValue[];
    let ours = 0;
    for (const g of list) {
      if (!isObj(g)) shape(`an entry of "hooks.${event}" is not an object`);
      const entries = (g as Obj).get('hooks');
      if (!Array.isArray(entries)) shape(`an entry of "hooks.${event}" has no "hooks" list`);
      for (const e of entries as JsonValue[]) {
        if (!isObj(e)) shape(`a hook of "hooks.${event}" is not an object`);
        const c = e.get('command');
        if (e.get('type') === 'command' && typeof c === 'string' && isStepchainHookCommand(c)) {
          ours++;
          if (!options.remove && options.command !== undefined && c !== command) {
            e.set('command', command);
            updated.push(event);
          }
        }
      }
    }
    if (options.remove) {
      if (ours === 0) continue;
      const kept: JsonValue[] = [];
      for (const g of list as Obj[]) {
        const entries = g.get('hooks') as JsonValue[];
        const rest = entries.filter((e) => {
          const c = (e as Obj).get('command');
          return !((e as Obj).get('type') === 'command' && typeof c === 'string' && isStepchainHookCommand(c));
        });
        if (rest.length === entries.length) kept.push(g);
        else if (rest.length > 0) {
          g.set('hooks', rest);
          kept.push(g);
        }
      }
      if (kept.length > 0) h.set(event, kept);
      else h.delete(event);
      events.push(event);
    } else if (ours === 0) {
      const group: Obj = new Map();
      const matcher = MATCHER[event];
      if (matcher !== undefined) group.set('matcher', matcher);
      group.set('hooks', [
        new Map<string, JsonValue>([
          ['type', 'command'],
          ['command', command],
        ]),
      ]);
      h.set(event, [...list, group]);
      events.push(event);
    }
  }
  if (options.remove && isObj(hooks) && hooks.size === 0 && events.length > 0) doc.delete('hooks');
  const changed = events.length > 0 || updated.length > 0;
  const after = changed ? `${stringifyIndented(doc, indentOf(text))}\n` : (text ?? '');
  return {
    file,
    before: text,
    after,
    changed,
    events,
    updated,
    diff: changed ? unifiedDiff(text ?? '', after, text === null ? '/dev/null' : file, file) : [],
  };
}

/** Writes a plan's new text (atomically: a temporary file in the same directory, then a rename). */
export function writeClaudeSettings(plan: ClaudeSettingsPlan): void {
  if (!plan.changed) return;
  const dir = path.dirname(plan.file);
  refuseSymlink(dir);
  refuseSymlink(plan.file);
  ensureDir(dir);
  let mode = 0o644;
  try {
    mode = lstatSync(plan.file).mode & 0o777;
  } catch {
    /* a new file */
  }
  // The file must still be what the plan read: a concurrent edit is not overwritten.
  let now: string | null;
  try {
    now = readFileSync(plan.file, 'utf8');
  } catch {
    now = null;
  }
  if (now !== plan.before) throw new IntegrityError(`${plan.file}: changed while it was being updated; run it again`);
  const tmp = path.join(dir, `.${path.basename(plan.file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, plan.after, { flag: 'wx', mode });
    renameSync(tmp, plan.file);
  } catch (e) {
    rmSync(tmp, { force: true });
    if (isOsError(e)) throw osError(e, plan.file, 'cannot write');
    throw e;
  }
}
