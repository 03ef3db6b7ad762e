import { lstatSync, rmSync } from 'node:fs';
import type { JsonValue } from '../canonical';
import { InputError, IntegrityError } from '../errors';
import {
  readSettings,
  runsStepchainHook,
  stringifyIndented,
  writeHookFile,
  type HookFilePlan,
  hookFilePlan,
  readHookFileBytes,
  requestedHookCommand,
} from './hook-file';
import { JsonEditor, memberOf, readSpans, type RenderValue, type SpanNode } from './json-spans';

/**
 * `stepchain init <agent>` for agents whose hook files list the commands of each event directly, with no
 * matcher groups (GitHub Copilot CLI's `.github/hooks/*.json`):
 *
 *   {"version": 1, "hooks": {"PostToolUse": [{"type": "command", "bash": "..."}], ...}}
 *
 * The same guarantees as the matcher-group merge (`hook-file.ts`), whose reading and writing it shares: every
 * other key and entry is kept as it was, running it twice changes nothing, `--remove` gives the original bytes
 * back, a file of another shape (or another `version`) is refused, never rewritten.
 */
export interface FlatHookFileSpec {
  agent: string;
  title: string;
  events: readonly string[];
  /** The key of an entry that holds the command (`bash`). */
  commandKey: string;
  /** The top-level members a new file starts with, before `hooks` (`version: 1`); an existing one must agree. */
  header: readonly [string, string | number][];
}

/** The keys of stepchain's own entry; another (an `env`, a `cwd`) may keep it from recording. */
function refuseSymlink(p: string): void {
  let link = false;
  try {
    link = lstatSync(p).isSymbolicLink();
  } catch {
    /* absent */
  }
  if (link) throw new IntegrityError(`${p}: is a symlink; refusing to follow it`);
}

function ownKeys(spec: FlatHookFileSpec): Set<string> {
  return new Set(['type', spec.commandKey, 'timeoutSec']);
}

function stringAt(node: SpanNode | undefined): string | undefined {
  return node?.kind === 'string' ? node.value : undefined;
}

function items(node: SpanNode | undefined): SpanNode[] {
  return node?.kind === 'array' ? node.items : [];
}

function looksLikeOurs(spec: FlatHookFileSpec, entry: SpanNode): boolean {
  const c = stringAt(memberOf(entry, spec.commandKey)?.value);
  return stringAt(memberOf(entry, 'type')?.value) === 'command' && c !== undefined && runsStepchainHook(spec.agent, c);
}

function ourEntry(spec: FlatHookFileSpec, command: string): Map<string, RenderValue> {
  return new Map<string, RenderValue>([
    ['type', 'command'],
    [spec.commandKey, command],
  ]);
}

function checkShape(spec: FlatHookFileSpec, file: string, doc: Map<string, JsonValue>): void {
  const shape: (what: string) => never = (what) => {
    throw new InputError(`${file}: ${what}; not the ${spec.title} hook file format, so it is left as it is`);
  };
  for (const [key, want] of spec.header) {
    const have = doc.get(key);
    if (have !== undefined && have !== want && !(typeof want === 'number' && Number(have) === want))
      shape(`"${key}" is ${JSON.stringify(have)}, not ${JSON.stringify(want)}`);
  }
  const hooks = doc.get('hooks');
  if (hooks === undefined) return;
  if (!(hooks instanceof Map)) shape('"hooks" is not an object');
  for (const event of spec.events) {
    const entries = hooks.get(event);
    if (entries === undefined) continue;
    if (!Array.isArray(entries)) shape(`"hooks.${event}" is not a list`);
    for (const e of entries) if (!(e instanceof Map)) shape(`an entry of "hooks.${event}" is not an object`);
  }
}

/** What `init <agent>` would do to `file` (nothing is written). */
export function planFlatHookFile(
  file: string,
  spec: FlatHookFileSpec,
  options: { command?: string; remove?: boolean } = {},
): HookFilePlan {
  const command = requestedHookCommand(spec.agent, options.command);
  const { text, doc } = readSettings(file);
  checkShape(spec, file, doc);
  const events: string[] = [];
  const updated: string[] = [];
  const repaired: string[] = [];
  const findings: string[] = [];
  const hooksOf = (evs: readonly string[]) =>
    new Map<string, RenderValue>(evs.map((e) => [e, [ourEntry(spec, command)]]));
  let after: string;
  if (text === null || text.trim() === '') {
    if (!options.remove) {
      const fresh = new Map<string, JsonValue>(spec.header.map(([k, v]) => [k, v]));
      fresh.set('hooks', hooksOf(spec.events) as unknown as JsonValue);
      events.push(...spec.events);
      after = `${stringifyIndented(fresh, '  ')}\n`;
    } else after = text ?? '';
  } else {
    const root = readSpans(text);
    const edit = new JsonEditor(text, root);
    const hooksMember = memberOf(root, 'hooks');
    if (options.remove) {
      let whole = false;
      if (hooksMember?.value.kind === 'object') {
        const hooks = hooksMember.value;
        const dropEvents = new Set<number>();
        const inner: (() => void)[] = [];
        for (const event of spec.events) {
          const member = memberOf(hooks, event);
          if (member === undefined) continue;
          const list = items(member.value);
          const drop = new Set(list.flatMap((e, i) => (looksLikeOurs(spec, e) ? [i] : [])));
          if (drop.size === 0) continue;
          events.push(event);
          if (drop.size === list.length) dropEvents.add(hooks.members.indexOf(member));
          else inner.push(() => edit.remove(member.value, drop));
        }
        if (events.length > 0) {
          // A file left with nothing but stepchain's header and an empty `hooks` was stepchain's: it goes whole.
          const onlyOurs =
            dropEvents.size === hooks.members.length &&
            root.kind === 'object' &&
            root.members.every((m) => m.key === 'hooks' || spec.header.some(([k]) => k === m.key));
          if (onlyOurs) whole = true;
          else {
            if (dropEvents.size === hooks.members.length && root.kind === 'object')
              edit.remove(root, new Set([root.members.indexOf(hooksMember)]));
            else {
              for (const f of inner) f();
              edit.remove(hooks, dropEvents);
            }
          }
        }
      }
      // An empty text: the file is deleted (see `writeFlatHookFile`).
      after = whole ? '' : edit.result();
    } else {
      const missingHeader = spec.header.filter(([k]) => memberOf(root, k) === undefined);
      if (hooksMember === undefined) {
        edit.append(root, [...missingHeader, ['hooks', hooksOf(spec.events)]]);
        events.push(...spec.events);
      } else {
        if (missingHeader.length > 0) edit.append(root, [...missingHeader]);
        const hooks = hooksMember.value;
        const added: string[] = [];
        for (const event of spec.events) {
          const member = memberOf(hooks, event);
          if (member === undefined) {
            added.push(event);
            continue;
          }
          const list = items(member.value);
          const drop = new Set<number>();
          let ok = 0;
          list.forEach((e, i) => {
            if (!looksLikeOurs(spec, e)) return;
            const extra =
              e.kind === 'object' ? e.members.filter((m) => !ownKeys(spec).has(m.key)).map((m) => m.key) : [];
            if (extra.length > 0) {
              drop.add(i);
              findings.push(
                `${event}: the entry has ${extra.map((k) => JSON.stringify(k)).join(', ')}, which may keep it from recording`,
              );
              return;
            }
            ok++;
            const c = stringAt(memberOf(e, spec.commandKey)?.value)!;
            if (c !== command) {
              edit.replace(memberOf(e, spec.commandKey)!.value, command);
              if (!updated.includes(event)) updated.push(event);
              findings.push(`${event}: the entry runs ${JSON.stringify(c)}, not ${JSON.stringify(command)}`);
            }
          });
          if (drop.size > 0) repaired.push(event);
          if (ok > 0) edit.remove(member.value, drop);
          else if (drop.size > 0 && drop.size === list.length) edit.replace(member.value, [ourEntry(spec, command)]);
          else {
            edit.remove(member.value, drop);
            edit.append(member.value, [ourEntry(spec, command)]);
            if (drop.size === 0) events.push(event);
          }
        }
        edit.append(
          hooks,
          added.map((e): [string, RenderValue] => [e, [ourEntry(spec, command)]]),
        );
        events.push(...added);
      }
      after = edit.result();
    }
  }
  return hookFilePlan(file, text, after, { events, updated, repaired, findings, warnings: [] });
}

/** Writes a plan: the new text atomically, or, when nothing of the file is left (`after` empty), deletes it. */
export function writeFlatHookFile(plan: Pick<HookFilePlan, 'file' | 'before' | 'after' | 'changed'>): void {
  if (!plan.changed) return;
  if (plan.after !== '') {
    writeHookFile(plan);
    return;
  }
  refuseSymlink(plan.file);
  let now: string | null;
  try {
    now = readHookFileBytes(plan.file)?.toString('utf8') ?? null;
  } catch {
    now = null;
  }
  if (now !== plan.before) throw new IntegrityError(`${plan.file}: changed while it was being updated; run it again`);
  rmSync(plan.file, { force: true });
}
