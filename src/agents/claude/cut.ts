import {
  requireAnswers,
  scanToCut,
  transcriptLines,
  type CallWords,
  type Entry,
  type Refuse,
  type TranscriptLines,
} from '../transcript-cut';

/**
 * Cutting a Claude Code transcript right after one tool result, for a fork
 * that resumes the conversation there (docs/claude.md "Fork and resume").
 *
 * The copy keeps every line up to and including the user entry that carries
 * the tool result, byte for byte, except that each `"sessionId":"<old>"` member
 * names the new session (Claude Code's own `--fork-session` does the same:
 * new session id, same uuids). Refused, with the reason, whenever the cut would
 * not leave a conversation Claude Code can continue:
 * - a line up to the cut is not a JSON object, or belongs to another session;
 * - the tool result is not in the transcript, is there twice, or is in a
 *   sidechain (a subagent's conversation);
 * - the conversation chain (`parentUuid`) of the cut entry is broken;
 * - a tool call of the conversation so far has no result before the cut, or
 *   the copy would hold the result of a call the journal records after the
 *   cut's step (parallel tool calls whose results would be split).
 */
export interface TranscriptCut {
  /** The new transcript's bytes. */
  bytes: Buffer;
  /** 1-based line of the tool result entry in the parent transcript (the copy's last line). */
  line: number;
  /** `cwd` of the first entry that has one (the directory the session was started in), if any. */
  firstCwd: string | undefined;
  /** `cwd` of the cut entry, if any. */
  cutCwd: string | undefined;
}

const WORDS: CallWords = { call: 'tool call', answer: 'result' };

function blocks(entry: Entry): Entry[] {
  const msg = entry.message;
  if (typeof msg !== 'object' || msg === null) return [];
  const content = (msg as Entry).content;
  return Array.isArray(content) ? content.filter((b): b is Entry => typeof b === 'object' && b !== null) : [];
}

function toolResultIds(entry: Entry): string[] {
  if (entry.type !== 'user') return [];
  return blocks(entry)
    .filter((b) => b.type === 'tool_result' && typeof b.tool_use_id === 'string')
    .map((b) => b.tool_use_id as string);
}

function messageIdOf(entry: Entry): string | undefined {
  if (entry.type !== 'assistant') return undefined;
  const msg = entry.message;
  const id = typeof msg === 'object' && msg !== null ? (msg as Entry).id : undefined;
  return typeof id === 'string' ? id : undefined;
}

function toolUseIds(entry: Entry): string[] {
  if (entry.type !== 'assistant') return [];
  return blocks(entry)
    .filter((b) => b.type === 'tool_use' && typeof b.id === 'string')
    .map((b) => b.id as string);
}

/**
 * What the cut asks of an entry up to it, kept instead of the entry (the entries of a long session hold its whole
 * conversation: kept parsed, a 304 MB transcript's took most of 2 GB).
 */
interface Seen {
  uuid: unknown;
  parentUuid: unknown;
  sidechain: boolean;
  hasSessionId: boolean;
  cwd: unknown;
  messageId: string | undefined;
  toolUseIds: string[];
  toolResultIds: string[];
}

const seenOf = (e: Entry): Seen => ({
  uuid: e.uuid,
  parentUuid: e.parentUuid,
  sidechain: e.isSidechain === true,
  hasSessionId: e.sessionId !== undefined,
  cwd: e.cwd,
  messageId: messageIdOf(e),
  toolUseIds: toolUseIds(e),
  toolResultIds: toolResultIds(e),
});

/** The transcript's entries up to the cut (the line holding the result of `toolUseId`), every one checked. */
function entriesToCut(
  raw: TranscriptLines,
  sessionId: string,
  toolUseId: string,
  refuse: Refuse,
): { entries: Seen[]; uuidLine: Map<string, number>; cut: number } {
  const entries: Seen[] = [];
  const uuidLine = new Map<string, number>();
  const cut = scanToCut(raw, refuse, {
    callId: toolUseId,
    words: WORDS,
    notObject: 'not a JSON object (Claude Code transcripts have one per line)',
    again: (later) => later.isSidechain !== true && toolResultIds(later).includes(toolUseId),
    visit: (entry, i) => {
      const sid = entry.sessionId;
      if (sid !== undefined && sid !== sessionId)
        refuse(`belongs to session ${JSON.stringify(sid)}, not ${sessionId}`, i + 1);
      const seen = seenOf(entry);
      entries.push(seen);
      if (typeof entry.uuid === 'string') uuidLine.set(entry.uuid, i);
      if (!seen.toolResultIds.includes(toolUseId)) return false;
      if (seen.sidechain)
        refuse(`the result of tool call ${toolUseId} is in a sidechain (a subagent's conversation)`, i + 1);
      if (typeof entry.uuid !== 'string') refuse('the tool result entry has no uuid', i + 1);
      return true;
    },
  });
  if (cut < 0)
    refuse(
      `no result of tool call ${toolUseId} in this transcript (Claude Code writes it asynchronously: ` +
        'if the session is still running, try again once it has moved on)',
    );
  return { entries, uuidLine, cut };
}

/**
 * The lines of the conversation chain, walked back from the cut entry: every link must be in the copy.
 * A set: the scan after it asks of every line whether it is on the chain (an array made that quadratic).
 */
function conversationChain(entries: Seen[], uuidLine: Map<string, number>, cut: number, refuse: Refuse): Set<number> {
  const onChain = new Set<number>();
  const seen = new Set<string>();
  for (let at: number | undefined = cut; at !== undefined;) {
    const entry = entries[at]!;
    const uuid = entry.uuid as string | undefined;
    if (uuid !== undefined) {
      if (seen.has(uuid)) refuse(`the conversation chain loops at ${uuid}`, at + 1);
      seen.add(uuid);
    }
    onChain.add(at);
    const parent = entry.parentUuid;
    if (parent === null || parent === undefined) break;
    if (typeof parent !== 'string') refuse('a parentUuid is not a string', at + 1);
    const next = uuidLine.get(parent as string);
    if (next === undefined || next >= at)
      refuse(`the conversation chain is broken: parent ${String(parent)} is not an earlier line`, at + 1);
    at = next;
  }
  return onChain;
}

/**
 * Every tool call of the conversation so far needs its result in the copy. Parallel calls share one assistant
 * message (one message id, one entry per block) and each result hangs off its own call, so the calls of every
 * assistant message on the chain are checked, wherever their results are. And the copy must not hold a result the
 * journal records after the cut's step (parallel calls whose hooks ran in another order).
 */
function requireResults(
  entries: Seen[],
  onChain: Set<number>,
  cut: number,
  toolUseId: string,
  laterToolUseIds: Iterable<string>,
  refuse: Refuse,
): void {
  const messageIds = new Set<string>();
  for (const at of onChain) {
    const id = entries[at]!.messageId;
    if (id !== undefined) messageIds.add(id);
  }
  const results = new Set<string>();
  const uses: { id: string; line: number }[] = [];
  for (let i = 0; i <= cut; i++) {
    const e = entries[i]!;
    if (e.sidechain) continue;
    for (const id of e.toolResultIds) results.add(id);
    const mid = e.messageId;
    if (onChain.has(i) || (mid !== undefined && messageIds.has(mid)))
      for (const id of e.toolUseIds) uses.push({ id, line: i + 1 });
  }
  requireAnswers(
    refuse,
    WORDS,
    toolUseId,
    uses.find((u) => !results.has(u.id)),
    results,
    laterToolUseIds,
  );
}

/**
 * The lines up to the cut with the session id rewritten, as Claude Code writes it (anything else is refused): each
 * line's bytes as they are where it names no session, and every line ended by a newline.
 */
function renamedLines(
  raw: TranscriptLines,
  entries: Seen[],
  cut: number,
  ids: { from: string; to: string },
  refuse: Refuse,
): Buffer {
  const from = `"sessionId":${JSON.stringify(ids.from)}`;
  const to = `"sessionId":${JSON.stringify(ids.to)}`;
  const out: Buffer[] = [];
  for (let i = 0; i <= cut; i++) {
    if (!entries[i]!.hasSessionId) out.push(raw.bytes(i), NEWLINE);
    else {
      const line = raw.line(i);
      if (!line.includes(from))
        refuse('cannot rewrite its sessionId (not written the way Claude Code writes it)', i + 1);
      out.push(Buffer.from(line.split(from).join(to), 'utf8'), NEWLINE);
    }
  }
  return Buffer.concat(out);
}

const NEWLINE = Buffer.from('\n');

/**
 * Plans the copy of `transcript` (the bytes of `file`, session `sessionId`)
 * that ends right after the result of `toolUseId`, as session `newSessionId`.
 * Throws IntegrityError (exit 1) naming the file, the line and the reason.
 */
export function cutTranscript(
  transcript: Buffer,
  file: string,
  sessionId: string,
  toolUseId: string,
  newSessionId: string,
  laterToolUseIds: Iterable<string> = [],
): TranscriptCut {
  const { raw, refuse } = transcriptLines(transcript, file);
  const { entries, uuidLine, cut } = entriesToCut(raw, sessionId, toolUseId, refuse);
  const onChain = conversationChain(entries, uuidLine, cut, refuse);
  requireResults(entries, onChain, cut, toolUseId, laterToolUseIds, refuse);
  const bytes = renamedLines(raw, entries, cut, { from: sessionId, to: newSessionId }, refuse);
  const firstCwd = entries.find((e) => typeof e.cwd === 'string')?.cwd as string | undefined;
  const cutCwd = entries[cut]!.cwd;
  return {
    bytes,
    line: cut + 1,
    firstCwd,
    cutCwd: typeof cutCwd === 'string' ? cutCwd : undefined,
  };
}
