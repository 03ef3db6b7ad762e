import type { JsonValue } from '../canonical';
import { InputError } from '../errors';
import { hookFilePlan, isObj, readSettings, stringifyIndented, type HookFilePlan, type Obj } from './hook-file-io';
import { JsonEditor, memberOf, readSpans, type RenderValue, type SpanMember, type SpanNode } from './json-spans';

export type { HookFilePlan } from './hook-file-io';

/**
 * `stepchain init <agent>` for agents whose hooks live in a JSON file of Claude Code's schema (Claude Code's
 * `.claude/settings.json`, Codex's `.codex/hooks.json`, and the like):
 *
 *   {"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "..."}]}], ...}}
 *
 * or of its flat variant, whose events list their entries directly (GitHub Copilot CLI's `.github/hooks/*.json`):
 *
 *   {"version": 1, "hooks": {"PostToolUse": [{"type": "command", "bash": "..."}], ...}}
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
  /**
   * The setting that, set to `disableWhen` (default true), turns every hook off: a key, or a dotted path of keys
   * (Claude Code's `disableAllHooks`; Gemini CLI's `hooksConfig.enabled`, with `disableWhen` false).
   */
  disableKey?: string;
  disableWhen?: boolean;
  /**
   * The timeout, in seconds, stepchain's entry carries for an event whose agent default is too short to record a
   * step on a loaded machine (Codex gives SessionEnd hooks 1 s): a hook killed mid-run loses its record.
   */
  timeouts?: Partial<Record<string, number>>;
  /**
   * `flat`: an event lists its entries directly, with no matcher groups (Copilot); default `groups`, Claude Code's
   * `[{"matcher": ..., "hooks": [entry]}]`.
   */
  layout?: 'groups' | 'flat';
  /** The key of an entry that holds its command (default `command`; Copilot: `bash`). */
  commandKey?: string;
  /** The key of an entry that holds its timeout (default `timeout`; Copilot: `timeoutSec`). */
  timeoutKey?: string;
  /** The top-level members a new file starts with, before `hooks` (`version: 1`); an existing one must agree. */
  header?: readonly [string, string | number][];
  /**
   * The file is stepchain's own (Copilot's `.github/hooks/stepchain.json`): left with nothing but the header and
   * an empty `hooks` by `--remove`, it goes whole (the plan's `after` is empty; `writeOwnHookFile` deletes it).
   */
  ownFile?: boolean;
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

/** The command stepchain's hooks are to run: the one asked for, refused unless it runs `stepchain hook <agent>`. */
export function requestedHookCommand(agent: string, command: string | undefined): string {
  const c = command ?? defaultHookCommand(agent);
  if (!runsStepchainHook(agent, c))
    throw new InputError(`${JSON.stringify(c)} does not run \`stepchain hook ${agent}\``, 'command');
  return c;
}

/** Matchers Claude Code reads as "every tool" (or every occurrence): omitted, "", "*", and the regex ".*". */
const MATCH_ALL = new Set(['', '*', '.*']);

const commandKey = (spec: HookFileSpec): string => spec.commandKey ?? 'command';
const timeoutKey = (spec: HookFileSpec): string => spec.timeoutKey ?? 'timeout';
const flat = (spec: HookFileSpec): boolean => spec.layout === 'flat';

/** The keys of stepchain's own entry; another key (an `if` condition, `async`, an `env`) may keep it from recording. */
function entryKeys(spec: HookFileSpec): Set<string> {
  return new Set(['type', commandKey(spec), timeoutKey(spec)]);
}

function stringAt(node: SpanNode | undefined): string | undefined {
  return node?.kind === 'string' ? node.value : undefined;
}

/** The elements of an array node (empty for anything else). */
function items(node: SpanNode | undefined): SpanNode[] {
  return node?.kind === 'array' ? node.items : [];
}

/**
 * The entries of one element of an event's list: a matcher group's `hooks` list (its node, to edit), or, in the
 * flat layout, the element itself, an entry standing alone (dropping it drops the element).
 */
function entriesOf(spec: HookFileSpec, group: SpanNode): { list: SpanNode | undefined; entries: SpanNode[] } {
  if (flat(spec)) return { list: undefined, entries: [group] };
  const list = memberOf(group, 'hooks')!.value;
  return { list, entries: items(list) };
}

/** An entry that looks like stepchain's (a command hook whose command mentions `stepchain hook <agent>`). */
function looksLikeOurs(spec: HookFileSpec, entry: SpanNode): boolean {
  const c = stringAt(memberOf(entry, commandKey(spec))?.value);
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
  const matcher = flat(spec) ? undefined : memberOf(group, 'matcher')?.value;
  if (!spec.matcherIgnored.has(event) && matcher !== undefined && !MATCH_ALL.has(stringAt(matcher) ?? '\0')) {
    const what = spec.matchers[event] !== undefined ? 'tool' : 'occurrence';
    const shown = stringAt(matcher) === undefined ? 'that is not a string' : JSON.stringify(stringAt(matcher));
    return { kind: 'repair', why: `${event}: its matcher ${shown} does not match every ${what}` };
  }
  const own = entryKeys(spec);
  const extra = entry.kind === 'object' ? entry.members.filter((m) => !own.has(m.key)).map((m) => m.key) : [];
  if (extra.length > 0)
    return {
      kind: 'repair',
      why: `${event}: the entry has ${extra.map((k) => JSON.stringify(k)).join(', ')}, which may keep it from running`,
    };
  const c = stringAt(memberOf(entry, commandKey(spec))?.value)!;
  if (c !== command)
    return { kind: 'update', why: `${event}: the entry runs ${JSON.stringify(c)}, not ${JSON.stringify(command)}` };
  return { kind: 'ok', why: '' };
}

/** stepchain's element of an event's list: its group, or in the flat layout its entry. */
function ourGroup(spec: HookFileSpec, event: string, command: string): Map<string, RenderValue> {
  const entry = new Map<string, RenderValue>([
    ['type', 'command'],
    [commandKey(spec), command],
  ]);
  const timeout = spec.timeouts?.[event];
  if (timeout !== undefined) entry.set(timeoutKey(spec), timeout);
  if (flat(spec)) return entry;
  const group = new Map<string, RenderValue>();
  const matcher = spec.matchers[event];
  if (matcher !== undefined) group.set('matcher', matcher);
  group.set('hooks', [entry]);
  return group;
}

/** The timeout an entry of stepchain's should carry for `event`, when its own is missing or shorter (else none). */
function timeoutWanted(spec: HookFileSpec, event: string, entry: SpanNode, text: string): number | undefined {
  const wanted = spec.timeouts?.[event];
  if (wanted === undefined) return undefined;
  const own = memberOf(entry, timeoutKey(spec))?.value;
  const seconds = own?.kind === 'other' ? Number(text.slice(own.start, own.end)) : NaN;
  return Number.isFinite(seconds) && seconds >= wanted ? undefined : wanted;
}

/** Checks the hook schema (refusing, naming what is wrong, anything else). */
function checkShape(spec: HookFileSpec, file: string, doc: Obj): void {
  const shape: (what: string) => never = (what) => {
    // A file of stepchain's own is a hook file (Copilot's); the others are settings the user shares with it.
    const format = spec.ownFile ? 'hook file' : 'hook settings';
    throw new InputError(`${file}: ${what}; not the ${spec.title} ${format} format, so it is left as it is`);
  };
  for (const [key, want] of spec.header ?? []) {
    const have = doc.get(key);
    if (have !== undefined && have !== want && !(typeof want === 'number' && Number(have) === want))
      shape(`"${key}" is ${JSON.stringify(have)}, not ${JSON.stringify(want)}`);
  }
  const hooks = doc.get('hooks');
  if (hooks === undefined) return;
  if (!isObj(hooks)) shape('"hooks" is not an object');
  for (const event of spec.events) {
    const groups = hooks.get(event);
    if (groups === undefined) continue;
    if (!Array.isArray(groups)) shape(`"hooks.${event}" is not a list`);
    for (const g of groups) {
      if (!isObj(g)) shape(`an entry of "hooks.${event}" is not an object`);
      if (flat(spec)) continue;
      const entries = g.get('hooks');
      if (!Array.isArray(entries)) shape(`an entry of "hooks.${event}" has no "hooks" list`);
      for (const e of entries) if (!isObj(e)) shape(`a hook of "hooks.${event}" is not an object`);
    }
  }
}

/** What a plan says it did, filled in as the merge goes. */
type Said = Pick<HookFilePlan, 'events' | 'updated' | 'repaired' | 'findings'>;

/** What `init <agent>` would do to `file` (nothing is written). */
export function planHookFile(
  file: string,
  spec: HookFileSpec,
  options: { command?: string; remove?: boolean; root?: string } = {},
): HookFilePlan {
  const command = requestedHookCommand(spec.agent, options.command);
  const { text, doc } = readSettings(file, options.root);
  checkShape(spec, file, doc);
  const said: Said = { events: [], updated: [], repaired: [], findings: [] };
  const header = spec.header ?? [];
  let after: string;
  if (text === null || text.trim() === '') {
    // Nothing to keep: a new file, in the agent's own layout.
    const fresh = new Map<string, JsonValue>(header);
    if (!options.remove) {
      const hooks: Obj = new Map();
      for (const event of spec.events) {
        hooks.set(event, [ourGroup(spec, event, command)]);
        said.events.push(event);
      }
      fresh.set('hooks', hooks);
    }
    after = said.events.length > 0 ? `${stringifyIndented(fresh, '  ')}\n` : (text ?? '');
  } else {
    const root = readSpans(text);
    const edit = new JsonEditor(text, root);
    const hooksMember = memberOf(root, 'hooks');
    const missingHeader = header.filter(([k]) => memberOf(root, k) === undefined);
    if (options.remove) {
      // An empty text: the file is deleted (see `writeOwnHookFile`).
      after = planRemove(spec, edit, root, hooksMember, said.events) === 'whole' ? '' : edit.result();
    } else if (hooksMember === undefined) {
      edit.append(root, [
        ...missingHeader,
        ['hooks', new Map(spec.events.map((e) => [e, [ourGroup(spec, e, command)]]))],
      ]);
      said.events.push(...spec.events);
      after = edit.result();
    } else {
      if (missingHeader.length > 0) edit.append(root, [...missingHeader]);
      const hooks = hooksMember.value;
      const added: [string, RenderValue][] = [];
      for (const event of spec.events) {
        const member = memberOf(hooks, event);
        if (member === undefined) {
          added.push([event, [ourGroup(spec, event, command)]]);
          said.events.push(event);
        } else mergeEvent(spec, edit, text, event, member, command, said);
      }
      edit.append(hooks, added);
      after = edit.result();
    }
  }
  return hookFilePlan(
    file,
    text,
    after,
    { ...said, warnings: options.remove ? [] : disabledWarning(spec, file, doc) },
    options.root,
  );
}

/** What the file says when a setting of it turns every hook off (the hooks are installed, but never run). */
function disabledWarning(spec: HookFileSpec, file: string, doc: Obj): string[] {
  if (spec.disableKey === undefined) return [];
  const when = spec.disableWhen ?? true;
  let v: JsonValue | undefined = doc;
  for (const key of spec.disableKey.split('.')) v = isObj(v) ? v.get(key) : undefined;
  return v === when
    ? [`${file} sets "${spec.disableKey}": ${when}: ${spec.title} runs none of its hooks, so nothing is recorded`]
    : [];
}

/**
 * One event the file already lists: stepchain's entries kept, updated (command, timeout) or repaired (replaced
 * by stepchain's own), or stepchain's added when it has none.
 */
function mergeEvent(
  spec: HookFileSpec,
  edit: JsonEditor,
  text: string,
  event: string,
  member: SpanMember,
  command: string,
  said: Said,
): void {
  const update = (why: string): void => {
    if (!said.updated.includes(event)) said.updated.push(event);
    said.findings.push(why);
  };
  const groups = items(member.value);
  let ok = 0;
  let repairs = 0;
  const dropGroups = new Set<number>();
  groups.forEach((g, gi) => {
    const { list, entries } = entriesOf(spec, g);
    const drop = new Set<number>();
    entries.forEach((e, ei) => {
      if (!looksLikeOurs(spec, e)) return;
      const v = verdict(spec, event, g, e, command);
      if (v.kind === 'repair') {
        drop.add(ei);
        repairs++;
        said.findings.push(v.why);
        return;
      }
      ok++;
      if (v.kind === 'update') {
        edit.replace(memberOf(e, commandKey(spec))!.value, command);
        update(v.why);
      }
      const timeout = timeoutWanted(spec, event, e, text);
      if (timeout !== undefined) {
        const own = memberOf(e, timeoutKey(spec));
        if (own === undefined) edit.append(e, [[timeoutKey(spec), timeout]]);
        else edit.replace(own.value, timeout);
        update(`${event}: the entry's timeout is not the ${timeout} s stepchain needs to record`);
      }
    });
    if (drop.size > 0 && drop.size === entries.length) dropGroups.add(gi);
    else if (list !== undefined) edit.remove(list, drop);
  });
  if (repairs > 0) said.repaired.push(event);
  if (ok > 0) edit.remove(member.value, dropGroups);
  else if (dropGroups.size > 0 && dropGroups.size === groups.length)
    edit.replace(member.value, [ourGroup(spec, event, command)]);
  else {
    edit.remove(member.value, dropGroups);
    edit.append(member.value, [ourGroup(spec, event, command)]);
    if (repairs === 0) said.events.push(event);
  }
}

/**
 * `--remove`: every entry that looks like stepchain's, and the groups, events and `hooks` left empty by that;
 * `whole` where the file is stepchain's own and nothing else is left of it.
 */
function planRemove(
  spec: HookFileSpec,
  edit: JsonEditor,
  root: SpanNode,
  hooksMember: SpanMember | undefined,
  events: string[],
): 'edited' | 'whole' {
  if (hooksMember === undefined || hooksMember.value.kind !== 'object') return 'edited';
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
      const { list, entries } = entriesOf(spec, g);
      const drop = new Set(entries.flatMap((e, ei) => (looksLikeOurs(spec, e) ? [ei] : [])));
      if (drop.size === 0) return;
      any = true;
      if (drop.size === entries.length) dropGroups.add(gi);
      else within.push(() => edit.remove(list!, drop));
    });
    if (!any) continue;
    events.push(event);
    if (dropGroups.size === groups.length) dropEvents.add(hooks.members.indexOf(member));
    else inner.push(...within, () => edit.remove(member.value, dropGroups));
  }
  if (events.length === 0) return 'edited';
  if (root.kind === 'object' && dropEvents.size === hooks.members.length) {
    // A file of stepchain's own left with nothing but its header and an empty `hooks` was stepchain's: it goes whole.
    // Each member once: a key written twice (a `hooks` the last one hides) holds bytes that are not ours.
    const keys = root.members.map((m) => m.key);
    const onlyOurs = root.members.every((m) => m === hooksMember || spec.header?.some(([k]) => k === m.key));
    if (spec.ownFile && onlyOurs && new Set(keys).size === keys.length) return 'whole';
    edit.remove(root, new Set([root.members.indexOf(hooksMember)]));
    return 'edited';
  }
  for (const f of inner) f();
  edit.remove(hooks, dropEvents);
  return 'edited';
}
