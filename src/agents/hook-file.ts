import { randomBytes } from 'node:crypto';
import { lstatSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeUtf8, encode, JsonFloat, JsonParseError, parse, type JsonValue } from '../canonical';
import { InputError, IntegrityError, isOsError, osError } from '../errors';
import { ensureDir } from '../util/fs';
import { readRegularFile } from '../util/nofollow';
import { JsonEditor, memberOf, readSpans, type RenderValue, type SpanMember, type SpanNode } from './json-spans';
import { unifiedDiff } from './line-diff';

/**
 * `stepchain init <agent>` for agents whose hooks live in a JSON file of Claude Code's schema (Claude Code's
 * `.claude/settings.json`, Codex's `.codex/hooks.json`, and the like):
 *
 *   {"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "..."}]}], ...}}
 *
 * merges stepchain's hook entries in, or removes them. Every other key, hook and matcher group is kept as it
 * was (order included); running it twice changes nothing the second time. A file that does not have that shape
 * is refused (exit 2), never rewritten into it; a symlinked file or directory is refused too. What differs from
 * one agent to the next is a `HookFileSpec`.
 */
export interface HookFileSpec {
  /** The word in `stepchain hook <agent>`. */
  agent: string;
  /** The agent's product name, for messages. */
  title: string;
  /** The events stepchain installs a hook for, in the order they are written. */
  events: readonly string[];
  /** The matcher of stepchain's group per event (tool events match every tool); none where absent. */
  matchers: Partial<Record<string, string>>;
  /** Events whose matcher the agent ignores (they have nothing to match on). */
  matcherIgnored: ReadonlySet<string>;
  /** A top-level key that, set to true, turns every hook off (Claude Code's `disableAllHooks`). */
  disableKey?: string;
  /**
   * The timeout, in seconds, stepchain's entry carries for an event whose agent default is too short to record a
   * step on a loaded machine (Codex gives SessionEnd hooks 1 s): a hook killed mid-run loses its record.
   */
  timeouts?: Partial<Record<string, number>>;
}

/** The command stepchain's hooks run by default. */
export function defaultHookCommand(agent: string): string {
  return `stepchain hook ${agent}`;
}

/** Whether a hook command runs `stepchain hook <agent>` (by name or through the bundle). */
export function runsStepchainHook(agent: string, command: string): boolean {
  const word = agent.replace(/[^a-z0-9-]/g, '');
  return new RegExp(`(?:^|[\\s/'"=])(?:stepchain|cli\\.js)['"]?\\s+hook\\s+${word}(?:\\s|$)`).test(command);
}

export interface HookFilePlan {
  file: string;
  /** The file's text before (null: it does not exist). */
  before: string | null;
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
export function readSettings(file: string): { text: string | null; doc: Obj } {
  refuseSymlink(path.dirname(file));
  refuseSymlink(file);
  const bytes = readHookFileBytes(file);
  if (bytes === undefined) return { text: null, doc: new Map() };
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

/** Matchers Claude Code reads as "every tool" (or every occurrence): omitted, "", "*", and the regex ".*". */
const MATCH_ALL = new Set(['', '*', '.*']);
/** The keys of stepchain's own entry; another key (an `if` condition, `async`, ...) may keep it from recording. */
const ENTRY_KEYS = new Set(['type', 'command', 'timeout']);

function stringAt(node: SpanNode | undefined): string | undefined {
  return node?.kind === 'string' ? node.value : undefined;
}

/** An entry that looks like stepchain's (a command hook whose command mentions `stepchain hook <agent>`). */
function looksLikeOurs(spec: HookFileSpec, entry: SpanNode): boolean {
  const c = stringAt(memberOf(entry, 'command')?.value);
  return stringAt(memberOf(entry, 'type')?.value) === 'command' && c !== undefined && runsStepchainHook(spec.agent, c);
}

/**
 * Whether an entry that looks like stepchain's records every occurrence of its event: `ok`, its command to be
 * set to the requested one (`update`), or to be replaced by an entry of stepchain's own (`repair`), with why.
 */
function verdict(
  spec: HookFileSpec,
  event: string,
  group: SpanNode,
  entry: SpanNode,
  command: string,
): { kind: 'ok' | 'update' | 'repair'; why: string } {
  const matcher = memberOf(group, 'matcher')?.value;
  if (!spec.matcherIgnored.has(event) && matcher !== undefined && !MATCH_ALL.has(stringAt(matcher) ?? '\0')) {
    const what = spec.matchers[event] !== undefined ? 'tool' : 'occurrence';
    const shown = stringAt(matcher) === undefined ? 'that is not a string' : JSON.stringify(stringAt(matcher));
    return { kind: 'repair', why: `${event}: its matcher ${shown} does not match every ${what}` };
  }
  const extra = entry.kind === 'object' ? entry.members.filter((m) => !ENTRY_KEYS.has(m.key)).map((m) => m.key) : [];
  if (extra.length > 0)
    return {
      kind: 'repair',
      why: `${event}: the entry has ${extra.map((k) => JSON.stringify(k)).join(', ')}, which may keep it from running`,
    };
  const c = stringAt(memberOf(entry, 'command')?.value)!;
  if (c !== command)
    return { kind: 'update', why: `${event}: the entry runs ${JSON.stringify(c)}, not ${JSON.stringify(command)}` };
  return { kind: 'ok', why: '' };
}

/** stepchain's group for an event. */
function ourGroup(spec: HookFileSpec, event: string, command: string): Map<string, RenderValue> {
  const group = new Map<string, RenderValue>();
  const matcher = spec.matchers[event];
  if (matcher !== undefined) group.set('matcher', matcher);
  const entry = new Map<string, RenderValue>([
    ['type', 'command'],
    ['command', command],
  ]);
  const timeout = spec.timeouts?.[event];
  if (timeout !== undefined) entry.set('timeout', timeout);
  group.set('hooks', [entry]);
  return group;
}

/** The timeout an entry of stepchain's should carry for `event`, when its own is missing or shorter (else none). */
function timeoutWanted(spec: HookFileSpec, event: string, entry: SpanNode, text: string): number | undefined {
  const wanted = spec.timeouts?.[event];
  if (wanted === undefined) return undefined;
  const own = memberOf(entry, 'timeout')?.value;
  const seconds = own?.kind === 'other' ? Number(text.slice(own.start, own.end)) : NaN;
  return Number.isFinite(seconds) && seconds >= wanted ? undefined : wanted;
}

/** Checks the hook schema (refusing, naming what is wrong, anything else). */
function checkShape(spec: HookFileSpec, file: string, doc: Obj): void {
  const shape: (what: string) => never = (what) => {
    throw new InputError(`${file}: ${what}; not the ${spec.title} hook settings format, so it is left as it is`);
  };
  const hooks = doc.get('hooks');
  if (hooks === undefined) return;
  if (!isObj(hooks)) shape('"hooks" is not an object');
  for (const event of spec.events) {
    const groups = hooks.get(event);
    if (groups === undefined) continue;
    if (!Array.isArray(groups)) shape(`"hooks.${event}" is not a list`);
    for (const g of groups) {
      if (!isObj(g)) shape(`an entry of "hooks.${event}" is not an object`);
      const entries = g.get('hooks');
      if (!Array.isArray(entries)) shape(`an entry of "hooks.${event}" has no "hooks" list`);
      for (const e of entries) if (!isObj(e)) shape(`a hook of "hooks.${event}" is not an object`);
    }
  }
}

/** The elements of an array node (empty for anything else). */
function items(node: SpanNode | undefined): SpanNode[] {
  return node?.kind === 'array' ? node.items : [];
}

/** The command stepchain's hooks are to run: the one asked for, refused unless it runs `stepchain hook <agent>`. */
export function requestedHookCommand(agent: string, command: string | undefined): string {
  const c = command ?? defaultHookCommand(agent);
  if (!runsStepchainHook(agent, c))
    throw new InputError(`${JSON.stringify(c)} does not run \`stepchain hook ${agent}\``, 'command');
  return c;
}

/** A plan from the file's text before and after, what changed in words, and its warnings (the diff derived). */
export function hookFilePlan(
  file: string,
  text: string | null,
  after: string,
  said: Pick<HookFilePlan, 'events' | 'updated' | 'repaired' | 'findings' | 'warnings'>,
): HookFilePlan {
  const changed = after !== (text ?? '');
  return {
    file,
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

/** What `init <agent>` would do to `file` (nothing is written). */
export function planHookFile(
  file: string,
  spec: HookFileSpec,
  options: { command?: string; remove?: boolean } = {},
): HookFilePlan {
  const command = requestedHookCommand(spec.agent, options.command);
  const { text, doc } = readSettings(file);
  checkShape(spec, file, doc);
  const events: string[] = [];
  const updated: string[] = [];
  const repaired: string[] = [];
  const findings: string[] = [];
  let after: string;
  if (text === null || text.trim() === '') {
    // Nothing to keep: a new file, in Claude Code's own layout.
    if (!options.remove) {
      const hooks: Obj = new Map();
      for (const event of spec.events) {
        hooks.set(event, [ourGroup(spec, event, command)]);
        events.push(event);
      }
      doc.set('hooks', hooks);
    }
    after = events.length > 0 ? `${stringifyIndented(doc, '  ')}\n` : (text ?? '');
  } else {
    const root = readSpans(text);
    const edit = new JsonEditor(text, root);
    const hooksMember = memberOf(root, 'hooks');
    if (options.remove) planRemove(spec, edit, root, hooksMember, events);
    else if (hooksMember === undefined) {
      edit.append(root, [['hooks', new Map(spec.events.map((e) => [e, [ourGroup(spec, e, command)]]))]]);
      events.push(...spec.events);
    } else {
      const hooks = hooksMember.value;
      const added: [string, RenderValue][] = [];
      for (const event of spec.events) {
        const member = memberOf(hooks, event);
        if (member === undefined) {
          added.push([event, [ourGroup(spec, event, command)]]);
          events.push(event);
          continue;
        }
        const groups = items(member.value);
        let ok = 0;
        let repairs = 0;
        const dropGroups = new Set<number>();
        groups.forEach((g, gi) => {
          const list = memberOf(g, 'hooks')!.value;
          const drop = new Set<number>();
          items(list).forEach((e, ei) => {
            if (!looksLikeOurs(spec, e)) return;
            const v = verdict(spec, event, g, e, command);
            if (v.kind === 'repair') {
              drop.add(ei);
              repairs++;
              findings.push(v.why);
              return;
            }
            ok++;
            if (v.kind === 'update') {
              edit.replace(memberOf(e, 'command')!.value, command);
              if (!updated.includes(event)) updated.push(event);
              findings.push(v.why);
            }
            const timeout = timeoutWanted(spec, event, e, text);
            if (timeout !== undefined) {
              const own = memberOf(e, 'timeout');
              if (own === undefined) edit.append(e, [['timeout', timeout]]);
              else edit.replace(own.value, timeout);
              if (!updated.includes(event)) updated.push(event);
              findings.push(`${event}: the entry's timeout is not the ${timeout} s stepchain needs to record`);
            }
          });
          if (drop.size > 0 && drop.size === items(list).length) dropGroups.add(gi);
          else edit.remove(list, drop);
        });
        if (repairs > 0) repaired.push(event);
        if (ok > 0) edit.remove(member.value, dropGroups);
        else if (dropGroups.size > 0 && dropGroups.size === groups.length)
          edit.replace(member.value, [ourGroup(spec, event, command)]);
        else {
          edit.remove(member.value, dropGroups);
          edit.append(member.value, [ourGroup(spec, event, command)]);
          if (repairs === 0) events.push(event);
        }
      }
      edit.append(hooks, added);
    }
    after = edit.result();
  }
  return hookFilePlan(file, text, after, {
    events,
    updated,
    repaired,
    findings,
    warnings:
      spec.disableKey !== undefined && doc.get(spec.disableKey) === true && !options.remove
        ? [`${file} sets "${spec.disableKey}": true: ${spec.title} runs none of its hooks, so nothing is recorded`]
        : [],
  });
}

/** `--remove`: every entry that looks like stepchain's, and the groups, events and `hooks` left empty by that. */
function planRemove(
  spec: HookFileSpec,
  edit: JsonEditor,
  root: SpanNode,
  hooksMember: SpanMember | undefined,
  events: string[],
): void {
  if (hooksMember === undefined || hooksMember.value.kind !== 'object') return;
  const hooks = hooksMember.value;
  const dropEvents = new Set<number>();
  const inner: (() => void)[] = []; // removals inside events that stay
  for (const event of spec.events) {
    const member = memberOf(hooks, event);
    if (member === undefined) continue;
    const groups = items(member.value);
    const dropGroups = new Set<number>();
    const within: (() => void)[] = [];
    let any = false;
    groups.forEach((g, gi) => {
      const list = memberOf(g, 'hooks')!.value;
      const drop = new Set(
        items(list)
          .map((e, ei) => (looksLikeOurs(spec, e) ? ei : -1))
          .filter((ei) => ei >= 0),
      );
      if (drop.size === 0) return;
      any = true;
      if (drop.size === items(list).length) dropGroups.add(gi);
      else within.push(() => edit.remove(list, drop));
    });
    if (!any) continue;
    events.push(event);
    if (dropGroups.size === groups.length) dropEvents.add(hooks.members.indexOf(member));
    else inner.push(...within, () => edit.remove(member.value, dropGroups));
  }
  if (events.length === 0) return;
  if (root.kind === 'object' && dropEvents.size === hooks.members.length) {
    edit.remove(root, new Set([root.members.indexOf(hooksMember)]));
    return;
  }
  for (const f of inner) f();
  edit.remove(hooks, dropEvents);
}

/** Writes a plan's new text (atomically: a temporary file in the same directory, then a rename). */
export function writeHookFile(plan: Pick<HookFilePlan, 'file' | 'before' | 'after' | 'changed'>): void {
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
    now = readHookFileBytes(plan.file)?.toString('utf8') ?? null;
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
