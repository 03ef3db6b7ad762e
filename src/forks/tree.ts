import { existsSync } from 'node:fs';
import path from 'node:path';
import { compareCodePoints, isJsonObject, type JsonObject, type JsonValue } from '../canonical';
import { JOURNAL_FILE, journalDir } from '../journal';
import { isSafeId } from '../util/ids';
import { sanitize } from '../util/terminal';
import { gitText } from '../git/exec';
import { FORK_ID, readSessionFile, sessionFile, worktreesDir } from './names';
import { liveCreator, readIntents, type ForkIntent } from './pending';
import { requireRepo } from '../git/repo';
import { forkTreeMermaid, type ForkTreeNode } from './mermaid';
import { forestOf } from '../util/forest';
import { plural } from '../util/words';
import { readForkJournal, type ParentJournals } from './since';

/**
 * The fork registry is git's own list of worktrees plus each fork's session
 * file: a fork is a worktree at `<some root>/.sdd/worktrees/<fork_id>` holding
 * `.sdd/runtime/sessions/<fork_id>.json` with a `fork` block. Nothing else is
 * kept, so the tree can never disagree with what is on disk, and `fork rm` (or
 * `git worktree remove`) takes a fork out of it. A fork whose creation did not
 * finish (its creator was killed: an intent `.sdd/worktrees/<fork_id>.pending.json`
 * is left, or a `fork-*` worktree has no session file) is listed as `incomplete`.
 */

export interface ForkNode {
  fork_session_id: string;
  /** The session it was forked from (a fork id for a fork of a fork). */
  parent_session_id: string | null;
  label: string | null;
  branch: string | null;
  worktree: string;
  /** The last parent step the fork kept (null for a session-level fork). */
  from_step: number | null;
  parent_step_hash: string | null;
  branched_from_commit: string | null;
  restored_from_snapshot: string | null;
  created_at: string | null;
  /** The worktree's current commit. */
  head_commit: string | null;
  /** Steps in the fork's journal, and how many were recorded after the fork (null without a journal). */
  steps: number | null;
  steps_since: number | null;
  /** Why the session file's fork point disagrees with the journals (since.ts); null when it agrees or is unknown. */
  fork_point_disputed: string | null;
  /** Whether the fork's journal verifies (null without a journal). */
  journal_ok: boolean | null;
  /** The worktree's directory is gone (git lists it as prunable). */
  missing: boolean;
  /** git keeps the worktree locked (`git worktree lock`): its reason, '' when none was given; null when not locked. */
  locked: string | null;
  /** Creation did not finish: its intent is still there (a half-made fork: `stepchain fork rm` removes it). */
  incomplete: boolean;
  /** Its worktree is there but its session file is not, and no intent says it is half-made (fork block unknown). */
  session_file_missing: boolean;
  /** The pid still creating it, while creation is in progress. */
  creator_pid: number | null;
  children: ForkNode[];
}

interface WorktreeRecord {
  path: string;
  head: string | null;
  branch: string | null;
  prunable: boolean;
  locked: string | null;
}

/**
 * `git worktree list --porcelain`: records of `key value` lines. With `-z`
 * (git 2.36+) lines end in NUL and records in an empty line, so a worktree path
 * holding a newline reads whole; older git gives newline-separated lines.
 */
function parseWorktreeList(text: string, z: boolean): WorktreeRecord[] {
  const out: WorktreeRecord[] = [];
  for (const block of z ? text.split('\0\0') : text.split(/\n\n+/)) {
    const rec: WorktreeRecord = { path: '', head: null, branch: null, prunable: false, locked: null };
    for (const line of block.split(z ? '\0' : '\n')) {
      if (line.startsWith('worktree ')) rec.path = line.slice('worktree '.length);
      else if (line.startsWith('HEAD ')) rec.head = line.slice('HEAD '.length);
      else if (line.startsWith('branch ')) rec.branch = line.slice('branch '.length).replace(/^refs\/heads\//, '');
      else if (line === 'prunable' || line.startsWith('prunable ')) rec.prunable = true;
      else if (line === 'locked' || line.startsWith('locked ')) rec.locked = line.slice('locked '.length);
    }
    if (rec.path) out.push(rec);
  }
  return out;
}

const str = (o: JsonObject, k: string): string | null => (typeof o[k] === 'string' ? (o[k] as string) : null);
function int(o: JsonObject, k: string): number | null {
  const v = o[k];
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'bigint' && v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
  return null;
}

function nodeOf(rec: WorktreeRecord, intent: ForkIntent | undefined, parents: ParentJournals): ForkNode | undefined {
  const id = path.basename(rec.path);
  const parentDir = path.dirname(rec.path);
  if (!isSafeId(id) || path.basename(parentDir) !== 'worktrees' || path.basename(path.dirname(parentDir)) !== '.sdd')
    return undefined;
  const missing = rec.prunable || !existsSync(rec.path);
  let block: JsonObject | undefined;
  if (!missing) {
    try {
      const s = readSessionFile(sessionFile(rec.path, id));
      const f: JsonValue | undefined = s?.fork;
      if (f !== undefined && isJsonObject(f)) block = f;
    } catch {
      block = undefined;
    }
    // A worktree in .sdd/worktrees without a fork block is not a fork, unless it is a half-made one.
    if (block === undefined && intent === undefined && !FORK_ID.test(id)) return undefined;
  } else if (!id.startsWith('fork-') && intent === undefined) {
    return undefined;
  }
  const b = block ?? intentBlock(intent);
  const fromStep = int(b, 'from_step');
  let steps: number | null = null;
  let journalOk: boolean | null = null;
  const jf = path.join(journalDir(rec.path, id), JOURNAL_FILE);
  let since: number | null = null;
  let disputed: string | null = null;
  if (!missing && existsSync(jf)) {
    // Its own steps as `fork rm` counts them (since.ts): from the parent's journal, not the session file's claim.
    const j = readForkJournal(jf, rec.path, id, str(b, 'parent_session_id'), fromStep, parents);
    steps = j.result.steps;
    journalOk = j.result.ok;
    since = j.progress?.since ?? steps;
    disputed = j.progress?.disputed ?? null;
  }
  return {
    fork_session_id: id,
    parent_session_id: str(b, 'parent_session_id'),
    label: str(b, 'label'),
    branch: rec.branch ?? str(b, 'branch'),
    worktree: rec.path,
    from_step: fromStep,
    parent_step_hash: str(b, 'parent_step_hash'),
    branched_from_commit: str(b, 'branched_from_commit'),
    restored_from_snapshot: str(b, 'restored_from_snapshot'),
    created_at: str(b, 'created_at'),
    head_commit: rec.head,
    steps,
    steps_since: since,
    fork_point_disputed: disputed,
    journal_ok: journalOk,
    missing,
    locked: rec.locked,
    // A half-made fork is one its intent still describes; a worktree merely without its session file is another
    // thing (its agent removed .sdd/, or an earlier release's creation, which left no intent, was cut short).
    incomplete: intent !== undefined,
    session_file_missing: intent === undefined && !missing && block === undefined,
    creator_pid: intent === undefined ? null : (liveCreator(intent) ?? null),
    children: [],
  };
}

/** What an intent says about a fork whose session file may not exist yet. */
function intentBlock(intent: ForkIntent | undefined): JsonObject {
  if (intent === undefined) return {};
  return {
    parent_session_id: intent.parent_session_id,
    branch: intent.branch,
    branched_from_commit: intent.base,
    created_at: intent.created_at,
    ...(intent.from_step === null ? {} : { from_step: intent.from_step }),
  };
}

/** A half-made fork whose worktree git never registered (killed before or during `git worktree add`). */
function intentOnlyNode(intent: ForkIntent): ForkNode {
  return {
    fork_session_id: intent.fork_session_id,
    parent_session_id: intent.parent_session_id,
    label: null,
    branch: intent.branch,
    worktree: intent.worktree,
    from_step: intent.from_step,
    parent_step_hash: null,
    branched_from_commit: intent.base,
    restored_from_snapshot: null,
    created_at: intent.created_at,
    head_commit: null,
    steps: null,
    steps_since: null,
    fork_point_disputed: null,
    journal_ok: null,
    missing: !existsSync(intent.worktree),
    locked: null,
    incomplete: true,
    session_file_missing: false,
    creator_pid: liveCreator(intent) ?? null,
    children: [],
  };
}

/**
 * Every fork of the repository containing `root` (from any of its worktrees),
 * as a forest: the top-level nodes are forks of sessions that are not forks,
 * each fork's forks are its `children`. Sorted by creation time, then id.
 */
export async function listForks(root: string, env: NodeJS.ProcessEnv = process.env): Promise<ForkNode[]> {
  requireRepo(root, env);
  const args = ['worktree', 'list', '--porcelain', '-z'];
  let z = true;
  let text: string;
  try {
    text = await gitText(root, args, env);
  } catch {
    // git before 2.36 has no -z here.
    z = false;
    const old = args.slice(0, 3);
    text = await gitText(root, old, env);
  }
  const records = parseWorktreeList(text, z);
  // Intents live beside the worktrees they describe, under each worktree's .sdd/worktrees/.
  const intents = new Map<string, ForkIntent>();
  for (const rec of records) {
    // The worktree is where the intent sits, whatever path it names (an intent is not trusted to point elsewhere).
    for (const { intent } of readIntents(worktreesDir(rec.path))) {
      const worktree = path.join(worktreesDir(rec.path), intent.fork_session_id);
      intents.set(worktree, { ...intent, worktree });
    }
  }
  const nodes = new Map<string, ForkNode>();
  const parents: ParentJournals = new Map();
  for (const rec of records) {
    const n = nodeOf(rec, intents.get(path.resolve(rec.path)), parents);
    if (n !== undefined && !nodes.has(n.fork_session_id)) nodes.set(n.fork_session_id, n);
  }
  for (const intent of intents.values()) {
    if (!nodes.has(intent.fork_session_id)) nodes.set(intent.fork_session_id, intentOnlyNode(intent));
  }
  return forestOf(
    nodes.values(),
    (n) => (n.parent_session_id === null ? undefined : nodes.get(n.parent_session_id)),
    (a, b) =>
      compareCodePoints(a.created_at ?? '', b.created_at ?? '') ||
      compareCodePoints(a.fork_session_id, b.fork_session_id),
  );
}

/** Every node of a forest, parents before children. */
export function flattenForks(nodes: ForkNode[]): ForkNode[] {
  return nodes.flatMap((n) => [n, ...flattenForks(n.children)]);
}

function summary(n: ForkNode): string {
  const parts: string[] = [n.fork_session_id];
  if (n.label) parts.push(sanitize(JSON.stringify(n.label)));
  parts.push(n.from_step === null ? 'session-level fork' : `from step ${n.from_step}`);
  if (n.steps_since !== null) parts.push(`+${plural(n.steps_since, 'step')} since`);
  if (n.restored_from_snapshot) parts.push(`files of step ${n.from_step}`);
  if (n.journal_ok === false) parts.push('JOURNAL DOES NOT VERIFY');
  if (n.fork_point_disputed !== null) parts.push(`FORK POINT DISPUTED (${sanitize(n.fork_point_disputed)})`);
  if (n.missing) parts.push('WORKTREE MISSING');
  if (n.locked !== null) parts.push(`LOCKED${n.locked ? ` (${sanitize(JSON.stringify(n.locked))})` : ''}`);
  if (n.incomplete)
    parts.push(
      n.creator_pid !== null
        ? `BEING CREATED (pid ${n.creator_pid})`
        : `INCOMPLETE (creation interrupted; remove it: stepchain fork rm ${n.fork_session_id})`,
    );
  else if (n.session_file_missing)
    parts.push(
      `SESSION FILE MISSING (.sdd/runtime/sessions/${n.fork_session_id}.json is gone from its worktree; ` +
        `its changes are kept: stepchain fork rm ${n.fork_session_id} refuses uncommitted ones without --force)`,
    );
  return parts.join('  ');
}

/** The forest drawn for a terminal, grouped under the sessions the top-level forks came from. */
export function drawForks(nodes: ForkNode[]): string[] {
  if (nodes.length === 0) return ['no forks'];
  const lines: string[] = [];
  const draw = (list: ForkNode[], prefix: string): void => {
    list.forEach((n, i) => {
      const last = i === list.length - 1;
      lines.push(`${prefix}${last ? '└── ' : '├── '}${summary(n)}`);
      const inner = `${prefix}${last ? '    ' : '│   '}`;
      const bar = n.children.length > 0 ? '│ ' : '  ';
      // Branch names and paths come from git and the file system: shown, never acted on.
      lines.push(`${inner}${bar}  branch   ${sanitize(n.branch ?? '(none)')}`);
      lines.push(`${inner}${bar}  worktree ${sanitize(n.worktree)}`);
      draw(n.children, inner);
    });
  };
  const bySession = new Map<string, ForkNode[]>();
  for (const n of nodes) {
    const k = n.parent_session_id ?? '(unknown session)';
    bySession.set(k, [...(bySession.get(k) ?? []), n]);
  }
  for (const [session, list] of bySession) {
    lines.push(sanitize(session));
    draw(list, '');
  }
  return lines;
}

/** The forest as a Mermaid flowchart (sessions and forks as nodes, fork steps on the edges): src/forks/mermaid.ts. */
export function forksMermaid(nodes: ForkNode[]): string {
  return forkTreeMermaid(forkTreeNodes(nodes), { direction: 'TD', fenced: false, maxForks: Infinity });
}

/** The fork forest `listForks` returns, as the nodes of a fork tree (a fork's branch and steps since as notes). */
export function forkTreeNodes(nodes: ForkNode[]): ForkTreeNode[] {
  const out: ForkTreeNode[] = [];
  const walk = (n: ForkNode, parent: string): void => {
    const notes = [n.branch ?? '', n.steps_since === null ? '' : `+${plural(n.steps_since, 'step')}`].filter(Boolean);
    out.push({ id: n.fork_session_id, parent, fromStep: n.from_step, label: n.label ?? null, notes });
    for (const c of n.children) walk(c, n.fork_session_id);
  };
  for (const n of nodes) walk(n, n.parent_session_id ?? '(unknown session)');
  return out;
}
