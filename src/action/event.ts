import { isObjectId } from '../git/object-id';

/**
 * What the triggering event says about history: the commit the checkout must
 * only have appended to (the base) and what to tell the user. Read from the
 * event payload the runner writes to GITHUB_EVENT_PATH (docs/action.md, "Events"):
 *
 * - `pull_request`, `pull_request_target`: the PR's `base.sha`;
 * - `push`: `before` (the branch tip before the push; a `forced` push that
 *   rewrote journals fails like any rewrite); a new branch has no `before`;
 * - `merge_group`: `merge_group.base_sha`;
 * - anything else: no base, append-only is not checked (and the summary says so).
 */
export interface EventBase {
  /** The event name (GITHUB_EVENT_NAME). */
  name: string;
  /** The commit to compare with (and to read trust anchors from), when the event has one. */
  base?: string;
  /** The head the event is about (a PR's head, a push's `after`, a merge group's head). */
  head?: string;
  /** The pull request number (for the comment). */
  pr?: number;
  /** A forced push. */
  forced: boolean;
  /** Why there is no base, or what is special about it (one line, for the log and the summary). */
  note?: string;
}

const ZERO = /^0+$/;

function str(v: unknown): string | undefined {
  // Upper case is taken, and given as git prints it.
  const id = typeof v === 'string' ? v.toLowerCase() : undefined;
  return id !== undefined && isObjectId(id) ? id : undefined;
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function eventBase(name: string, payload: unknown): EventBase {
  const p = obj(payload) ?? {};
  const out: EventBase = { name, forced: false };
  if (name === 'pull_request' || name === 'pull_request_target') {
    const pr = obj(p['pull_request']);
    const base = str(obj(pr?.['base'])?.['sha']);
    const head = str(obj(pr?.['head'])?.['sha']);
    if (base !== undefined) out.base = base;
    if (head !== undefined) out.head = head;
    const num = pr?.['number'] ?? p['number'];
    if (typeof num === 'number' && Number.isSafeInteger(num)) out.pr = num;
    if (base === undefined) out.note = `${name}: the event payload has no pull_request.base.sha`;
    return out;
  }
  if (name === 'push') {
    const before = typeof p['before'] === 'string' ? p['before'] : '';
    const after = typeof p['after'] === 'string' ? p['after'] : '';
    out.forced = p['forced'] === true;
    const head = str(after);
    if (head !== undefined && !ZERO.test(head)) out.head = head;
    if (p['deleted'] === true || ZERO.test(after)) {
      out.note = 'push: the ref was deleted; there is nothing to compare';
      return out;
    }
    const base = str(before);
    if (base === undefined || ZERO.test(base) || p['created'] === true) {
      out.note = 'push: a new branch or tag has no previous commit; append-only is not checked';
      return out;
    }
    out.base = base;
    if (out.forced)
      out.note = `push: a forced push; the journals are compared with the commit before it (${base.slice(0, 12)})`;
    return out;
  }
  if (name === 'merge_group') {
    const mg = obj(p['merge_group']);
    const base = str(mg?.['base_sha']);
    const head = str(mg?.['head_sha']);
    if (head !== undefined) out.head = head;
    if (base === undefined) out.note = 'merge_group: the event payload has no merge_group.base_sha';
    else out.base = base;
    return out;
  }
  out.note = `${name || 'this event'}: no base commit; append-only is not checked`;
  return out;
}
