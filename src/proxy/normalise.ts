import { canonical, isJsonObject, type JsonObject, type JsonValue } from '../canonical';

/**
 * Normalising a request before a replayed one is compared with its recording:
 * the parts an agent changes from run to run without the run being different
 * (its session id, the directory it runs in, today's date). Each agent has an
 * explicit list (docs/record.md); everything else must match byte for byte
 * once both sides are read as JSON.
 */
export interface NormaliseContext {
  /** Absolute directories of the recorded run and of the replay (the agent's cwd, the project root). */
  paths: string[];
}

/** One rule: a description for the docs and the list, and what it does to a string found at `path`. */
export interface NormaliseRule {
  what: string;
  /** Applied to every string in the request (its JSON path given, e.g. `metadata.user_id`). */
  apply(text: string, path: string, ctx: NormaliseContext): string;
  /** The placeholder of a value this rule replaces whole, whatever it holds (a time as a number), else undefined. */
  replace?(path: string): JsonValue | undefined;
  /** An array at `path` in an order of its own (its items normalised), when its order varies from run to run. */
  arrange?(items: JsonValue[], path: string): JsonValue[] | undefined;
}

/** Claude Code's slug of a directory (the name of its `projects/` entry): every character but [A-Za-z0-9] becomes `-`. */
export function claudeSlug(dir: string): string {
  return dir.replace(/[^A-Za-z0-9]/g, '-');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every recorded and replayed directory, and their slugs, longest first, as `<dir>` and `<dir-slug>`. */
export const PATHS_RULE: NormaliseRule = {
  what: 'the recorded and the replayed working directory and project root (and their slugs, as Claude Code names its projects/ entry), longest first',
  apply(text, _path, ctx) {
    const subs: [string, string][] = [];
    for (const p of ctx.paths) {
      if (p === '' || p === '/') continue;
      subs.push([p, '<dir>'], [claudeSlug(p), '<dir-slug>']);
    }
    subs.sort((a, b) => b[0].length - a[0].length);
    let out = text;
    for (const [from, to] of subs) if (out.includes(from)) out = out.replace(new RegExp(escapeRegExp(from), 'g'), to);
    return out;
  },
};

/** A rule replacing `re` with `to` in every string (only at JSON paths matching `onlyAt`, when given). */
export function regexRule(what: string, re: RegExp, to: string, onlyAt?: RegExp): NormaliseRule {
  return {
    what,
    apply: (text, path) => (onlyAt !== undefined && !onlyAt.test(path) ? text : text.replace(re, to)),
  };
}

/** A rule replacing the whole value at JSON paths matching `at` (a string, a number, anything) with `placeholder`. */
export function valueRule(what: string, at: RegExp, placeholder: string): NormaliseRule {
  return { what, apply: (text) => text, replace: (path) => (at.test(path) ? placeholder : undefined) };
}

/** Agents not measured: only the directories. Each agent's own list is in its integration (src/agents/<name>/proxy.ts). */
export const GENERIC_RULES: readonly NormaliseRule[] = [PATHS_RULE];

function fieldPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? base === ''
      ? key
      : `${base}.${key}`
    : `${base}[${JSON.stringify(key)}]`;
}

/** The value with every rule applied to every string in it (object keys are left as they are). */
export function normalise(v: JsonValue, rules: readonly NormaliseRule[], ctx: NormaliseContext, path = ''): JsonValue {
  for (const r of rules) {
    const whole = r.replace?.(path);
    if (whole !== undefined) return whole;
  }
  if (typeof v === 'string') return rules.reduce((s, r) => r.apply(s, path, ctx), v);
  if (Array.isArray(v)) {
    const items = v.map((x, i) => normalise(x, rules, ctx, fieldPath(path, i)));
    return rules.reduce((xs, r) => r.arrange?.(xs, path) ?? xs, items);
  }
  if (v instanceof Map) {
    const m = new Map<string, JsonValue>();
    for (const [k, x] of v) m.set(k, normalise(x, rules, ctx, fieldPath(path, k)));
    return m;
  }
  if (isJsonObject(v)) {
    const o: JsonObject = {};
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(o, k, {
        value: normalise(x, rules, ctx, fieldPath(path, k)),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return o;
  }
  return v;
}

function entries(v: JsonValue): [string, JsonValue][] | undefined {
  if (v instanceof Map) return [...v.entries()];
  if (isJsonObject(v)) return Object.entries(v);
  return undefined;
}

/** The first place two values differ (JSON path, `''` for the whole value), or undefined when they are the same. */
export function firstDifference(a: JsonValue, b: JsonValue, path = ''): string | undefined {
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const d = firstDifference(a[i]!, b[i]!, fieldPath(path, i));
      if (d !== undefined) return d;
    }
    return a.length === b.length ? undefined : fieldPath(path, n);
  }
  const ea = entries(a);
  const eb = entries(b);
  if (ea !== undefined && eb !== undefined) {
    const mb = new Map(eb);
    const ma = new Map(ea);
    for (const [k, x] of ea) {
      if (!mb.has(k)) return fieldPath(path, k);
      const d = firstDifference(x, mb.get(k)!, fieldPath(path, k));
      if (d !== undefined) return d;
    }
    for (const [k] of eb) if (!ma.has(k)) return fieldPath(path, k);
    return undefined;
  }
  return canonical(a) === canonical(b) ? undefined : path;
}
