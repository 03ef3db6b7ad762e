import { isJsonObject, type JsonValue } from '../../canonical/value';
import { PATHS_RULE, regexRule, type NormaliseRule } from '../../proxy/normalise';
import { GEMINI_API } from '../../proxy/providers';
import { baseUrlVarProxy } from '../proxy-kit';
import type { AgentProxy } from '../types';

const TREE_HEADER = '\n- **Directory Structure:**\n';
// Box-drawing characters as escapes: the bin carries its programs as pure ASCII (scripts/build-launcher.mjs).
const TREE_ENTRY = /^((?:[\u2502 ] {3})*)[\u251c\u2514]\u2500{3}(.*)$/;

/**
 * The directory listing Gemini CLI sends at start, without what differs between the recorded tree and a fork's:
 * stepchain's own `.sdd/` (the run journal being written, forks' worktrees), `.git` (a directory in a main tree, a
 * file in a linked worktree, so listed in one and not the other), the sentence that says whether anything was left
 * out, and the tree's connectors (removing an entry changes its siblings' `├`/`└`).
 */
function directoryTree(text: string): string {
  const at = text.indexOf(TREE_HEADER);
  if (at < 0) return text;
  const close = text.indexOf('</session_context>', at);
  const stop = close < 0 ? text.length : close;
  const out: string[] = [];
  let skipBelow: number | undefined;
  for (const line of text.slice(at, stop).split('\n')) {
    const m = TREE_ENTRY.exec(line);
    if (m === null) {
      out.push(line.startsWith('Showing up to ') ? 'Showing up to <n> items' : line);
      continue;
    }
    const depth = m[1]!.length / 4;
    if (skipBelow !== undefined && depth > skipBelow) continue;
    skipBelow = undefined;
    const name = m[2]!;
    if (depth === 0 && /^\.sdd(\/|$)/.test(name)) {
      skipBelow = depth;
      continue;
    }
    if (depth === 0 && /^\.git(\/\.\.\.)?$/.test(name)) continue;
    out.push(`${'    '.repeat(depth)}\u2500\u2500\u2500${name}`);
  }
  return text.slice(0, at) + out.join('\n') + text.slice(stop);
}

/**
 * Each `<skill>` entry of an `<available_skills>` block, in sorted order (a block not of entries is left as it is).
 * Each block is its open and the nearest close after it, found by indexOf: a lazy regex looked for the close after
 * every open to the text's end (any string of a request goes through here: many opens with no close were quadratic).
 */
function sortedSkills(text: string): string {
  const open = '<available_skills>\n';
  const close = '\n</available_skills>';
  let out = '';
  let at = 0;
  for (;;) {
    const start = text.indexOf(open, at);
    const end = start < 0 ? -1 : text.indexOf(close, start + open.length);
    if (end < 0) return at === 0 ? text : out + text.slice(at); // no later open has a close either
    out += text.slice(at, start + open.length) + sortedEntries(text.slice(start + open.length, end)) + close;
    at = end + close.length;
  }
}

/** The `<skill>` entries of a block's body in sorted order, or the body as it is when it is not only entries. */
function sortedEntries(body: string): string {
  const skills = body.split(/\n(?= {2}<skill>\n)/);
  if (!skills.every((x) => x.startsWith('  <skill>\n') && x.endsWith('  </skill>'))) return body;
  return [...skills].sort().join('\n');
}

/** The names of the activate_skill tool's description, `(Available: 'a', 'b')`, in sorted order. */
function sortedAvailable(text: string): string {
  return text.replace(
    /\(Available: ('[^'\n]*'(?:, '[^'\n]*')*)\)/g,
    (_, list: string) => `(Available: ${list.split(', ').sort().join(', ')})`,
  );
}

/** A tool list of a request: its declarations, where activate_skill's enum of skill names is. */
const DECLARATIONS = /^tools\[\d+\]\.functionDeclarations$/;

function field(v: JsonValue | undefined, key: string): JsonValue | undefined {
  if (v instanceof Map) return v.get(key);
  return isJsonObject(v) && Object.hasOwn(v, key) ? v[key] : undefined;
}

function withField(v: JsonValue, key: string, x: JsonValue): JsonValue {
  if (v instanceof Map) return new Map(v).set(key, x);
  return Object.defineProperty({ ...(v as object) }, key, {
    value: x,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * The declarations with activate_skill's `name` enum (the skills) in sorted order; undefined when none is there.
 * Only that tool's: another tool's parameter may be called `name` too, and the order of its enum is compared.
 */
function sortedSkillEnum(declarations: JsonValue[]): JsonValue[] | undefined {
  let changed = false;
  const out = declarations.map((d) => {
    if (field(d, 'name') !== 'activate_skill') return d;
    for (const key of ['parametersJsonSchema', 'parameters']) {
      const schema = field(d, key);
      const props = field(schema, 'properties');
      const name = field(props, 'name');
      const names = field(name, 'enum');
      if (!Array.isArray(names) || !names.every((x) => typeof x === 'string')) continue;
      const sorted = [...(names as string[])].sort();
      d = withField(
        d,
        key,
        withField(schema!, 'properties', withField(props!, 'name', withField(name!, 'enum', sorted))),
      );
      changed = true;
    }
    return d;
  });
  return changed ? out : undefined;
}

/** Gemini CLI 0.61.0 (`-p`, API key), measured by diffing the raw requests of runs in two directories and a linked worktree. */
export const GEMINI_RULES: readonly NormaliseRule[] = [
  regexRule(
    "the date: Today's date is <weekday, month day, year> (to the line's end)",
    /(Today's date is )[^\n]*/g,
    '$1<date>',
  ),
  regexRule(
    "the project's temporary directory, <home>/.gemini/tmp/<the working directory's name>",
    /(\.gemini\/tmp\/)[^/\s`'"]+/g,
    '$1<project>',
  ),
  PATHS_RULE,
  {
    what: 'the directory structure: stepchain\'s .sdd/ entry and everything under it, the .git entry, the "Showing up to ..." sentence, the tree\'s connectors',
    apply: directoryTree,
  },
  {
    what: 'the order of the skills: Gemini CLI lists its skills in the order its file search finds their SKILL.md, which varies from run to run (its system prompt\'s <available_skills> entries, the activate_skill tool\'s "(Available: ...)" names and its enum of them: each sorted)',
    apply: (text) => sortedAvailable(sortedSkills(text)),
    arrange: (items, path) => (DECLARATIONS.test(path) ? sortedSkillEnum(items) : undefined),
  },
  regexRule(
    'the ids Gemini CLI gives function calls the response gave none: <tool>_<epoch ms>_<n>',
    /^([A-Za-z0-9_.-]+)_\d{13}_(\d+)$/,
    '$1_<time>_$2',
    /\.function(Call|Response)\.id$/,
  ),
  regexRule(
    'run_shell_command output: the "Process Group PGID: <n>" line',
    /^(Process Group PGID: )\d+$/gm,
    '$1<pgid>',
    /\.functionResponse\.response\.output$/,
  ),
];

/** Gemini CLI's API-key client takes its base URL from GOOGLE_GEMINI_BASE_URL (measured with 0.61.0). */
export const geminiProxy: AgentProxy = baseUrlVarProxy({
  agent: 'gemini',
  protocol: 'gemini',
  variable: 'GOOGLE_GEMINI_BASE_URL',
  api: GEMINI_API,
  normalise: GEMINI_RULES,
  baseUrlSource: 'measured',
  // Its model requests name no session (measured: no header nor field of the body carries it): the one Gemini CLI
  // hook session that ran under the recording (../hook-session.ts).
  hookSession: () => ({ single: true }),
});
