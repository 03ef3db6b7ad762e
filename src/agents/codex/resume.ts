import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, rmSync } from 'node:fs';
import path from 'node:path';
import { decodeUtf8, isJsonObject } from '../../canonical';
import { InputError, IntegrityError, isOsError, osError } from '../../errors';
import { forkWorktreePath } from '../../forks/names';
import { journalFile, readVerifiedJournal } from '../../journal';
import { ensureDirUnder, fsyncDir, writeAll } from '../../util/fs';
import { lstatUnder } from '../../util/nofollow';
import { parseHookPayload, field, type HookPayload } from '../claude/payload';
import { shellWord } from '../claude/resume';
import { forkAndPlace, payloadBlob, readTranscriptWhole } from '../resume-kit';
import type { ResumeRequest, ResumeResult } from '../types';
import { CODEX, codexAgentId } from './hook';
import { planCodexInit } from './init';
import { rolloutRelPath } from './rollout';
import { codexHome } from './trust';

/**
 * `stepchain fork codex-<id> --from-step N --resume` (docs/agents.md, "Codex"): besides the fork, a copy of the
 * session's rollout that ends right after the `function_call_output` of step N's call, under a new session id,
 * where Codex looks for sessions (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`); `codex exec
 * resume <id>` started in the fork's worktree continues it there, and its hooks record into the fork's journal
 * `codex-<id>`, which continues at step N+1. The copy keeps every line byte for byte but for the session id.
 * Refused, with the reason, whenever the cut would not leave a conversation Codex can continue:
 * - the first line is not the session's `session_meta`, or a line up to the cut is not a JSON object;
 * - the call's output is not in the rollout, or is there twice;
 * - a call of the conversation so far has no output before the cut (parallel calls split by the cut), or the copy
 *   would hold the output of a call the journal records after step N.
 */
export interface RolloutCut {
  bytes: Buffer;
  /** 1-based line of the call's output (the copy's last line). */
  line: number;
}

type Entry = Record<string, unknown>;

function parseEntry(text: string): Entry | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Entry) : undefined;
  } catch {
    return undefined;
  }
}

const CALLS = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);
const OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output']);

function item(entry: Entry): Entry | undefined {
  const p = entry.payload;
  return entry.type === 'response_item' && typeof p === 'object' && p !== null ? (p as Entry) : undefined;
}

/** The copy of a rollout (`file`'s bytes, session `sessionId`) that ends with the output of `callId`. */
export function cutRollout(
  rollout: Buffer,
  file: string,
  sessionId: string,
  callId: string,
  newSessionId: string,
  laterCallIds: Iterable<string> = [],
): RolloutCut {
  const refuse = (why: string, line?: number): never => {
    throw new IntegrityError(`${file}${line === undefined ? '' : `:${line}`}: ${why}; the conversation is not forked`);
  };
  let text = '';
  try {
    text = decodeUtf8(rollout);
  } catch {
    refuse('not valid UTF-8');
  }
  const raw = text.split('\n');
  const calls = new Map<string, number>();
  const outputs = new Set<string>();
  let cut = -1;
  const needle = JSON.stringify(callId);
  for (let i = 0; i < raw.length; i++) {
    const line = raw[i]!;
    if (cut >= 0) {
      // After the cut only a second output of the same call matters (a torn last line is fine).
      if (!line.includes(needle)) continue;
      const later = parseEntry(line);
      const it = later === undefined ? undefined : item(later);
      if (it !== undefined && OUTPUTS.has(String(it.type)) && it.call_id === callId)
        refuse(`the output of call ${callId} appears twice (lines ${cut + 1} and ${i + 1})`, i + 1);
      continue;
    }
    if (line === '') {
      if (i === raw.length - 1) break;
      refuse('an empty line', i + 1);
    }
    const entry = parseEntry(line);
    if (entry === undefined) refuse('not a JSON object (Codex rollouts have one per line)', i + 1);
    if (i === 0) {
      const meta = entry!.payload as Entry | undefined;
      if (entry!.type !== 'session_meta' || typeof meta !== 'object' || meta === null || meta.id !== sessionId)
        refuse(`the first line is not the session_meta of session ${sessionId}`, 1);
    } else if (entry!.type === 'session_meta') refuse('a second session_meta', i + 1);
    const it = item(entry!);
    if (it === undefined) continue;
    const kind = String(it.type);
    const id = typeof it.call_id === 'string' ? it.call_id : undefined;
    if (CALLS.has(kind)) {
      if (id === undefined) refuse(`a ${kind} without a call_id`, i + 1);
      calls.set(id!, i + 1);
    } else if (OUTPUTS.has(kind)) {
      if (id === undefined) refuse(`a ${kind} without a call_id`, i + 1);
      outputs.add(id!);
      if (id === callId) cut = i;
    }
  }
  if (cut < 0)
    refuse(
      `no output of call ${callId} in this rollout (if the session is still running, try again once it has moved on)`,
    );
  if (!calls.has(callId)) refuse(`the output of call ${callId} has no function_call before it`, cut + 1);
  for (const [id, line] of calls)
    if (!outputs.has(id))
      refuse(
        `call ${id} (line ${line}) has no output before the cut: it ran in parallel with ${callId}, ` +
          'and a conversation cut between their outputs cannot be continued',
        line,
      );
  for (const id of laterCallIds)
    if (outputs.has(id) && id !== callId)
      refuse(
        `the conversation before the cut already holds the output of ${id}, which the journal records after ${callId} ` +
          '(parallel calls whose hooks ran in another order); fork at the later step instead',
      );
  const from = JSON.stringify(sessionId);
  const to = JSON.stringify(newSessionId);
  const lines = raw.slice(0, cut + 1).map((l) => l.split(from).join(to));
  const meta = parseEntry(lines[0]!)?.payload as Entry | undefined;
  if (meta?.id !== newSessionId) refuse('cannot rewrite the session id of its session_meta', 1);
  return { bytes: Buffer.from(`${lines.join('\n')}\n`, 'utf8'), line: cut + 1 };
}

export interface CodexResumePlan {
  sessionId: string;
  forkId: string;
  parentRollout: string;
  cut: RolloutCut;
  callId: string;
  /** `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` under `$CODEX_HOME`. */
  rolloutRel: string;
  home: string;
  worktree: string;
  /** `CODEX_HOME` for the resume command, when the environment sets one. */
  codexHome: string | undefined;
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/** Where Codex would write a new session's rollout now (its own layout, in UTC). */
function rolloutRelFor(sessionId: string, now = new Date()): string {
  const d = [String(now.getUTCFullYear()), two(now.getUTCMonth() + 1), two(now.getUTCDate())];
  const t = `${d.join('-')}T${two(now.getUTCHours())}-${two(now.getUTCMinutes())}-${two(now.getUTCSeconds())}`;
  return ['sessions', ...d, `rollout-${t}-${sessionId}.jsonl`].join('/');
}

export function planCodexResume(request: ResumeRequest, sessionId = randomUUID()): CodexResumePlan {
  const root = path.resolve(request.root);
  const file = journalFile(root, request.agent);
  if (!existsSync(file)) throw new InputError(`no journal for ${JSON.stringify(request.agent)} (looked for ${file})`);
  const journal = readVerifiedJournal(file);
  if (!Number.isSafeInteger(request.fromStep) || request.fromStep < 0 || request.fromStep >= journal.steps)
    throw new InputError(
      `${file}: step ${request.fromStep} is out of range (the journal has ${journal.steps} step${journal.steps === 1 ? '' : 's'})`,
    );
  const row = journal.entries[request.fromStep]!.row;
  const later = journal.entries
    .slice(request.fromStep + 1)
    .map((e) => (isJsonObject(e.row.tool_call) ? e.row.tool_call.id : undefined))
    .filter((id): id is string => typeof id === 'string');
  const where = `${file}:${request.fromStep + 1}`;
  const blob = payloadBlob(root, request.agent, row.input_hash, request.fromStep, CODEX);
  let p: HookPayload;
  try {
    p = parseHookPayload(blob, `${where}: input`, CODEX);
  } catch (e) {
    if (e instanceof InputError)
      throw new InputError(
        `fork --resume: step ${request.fromStep} of ${request.agent} was not recorded by \`stepchain hook codex\`; fork it without --resume`,
      );
    throw e;
  }
  if (p.event !== 'PostToolUse')
    throw new IntegrityError(
      `${where}: step ${request.fromStep} was recorded from a ${p.event} payload, not a tool call`,
    );
  const callId = field(p, 'tool_use_id');
  const call = row.tool_call;
  if (callId === undefined || !isJsonObject(call) || call.id !== callId)
    throw new IntegrityError(`${where}: the step's tool call and its stored payload do not name the same tool_use_id`);
  const home = codexHome(request.env);
  // The payload is recorded data: it never decides which directory stepchain reads or writes.
  const rel = p.transcriptPath === undefined ? undefined : rolloutRelPath(p.transcriptPath, p.sessionId, request.env);
  if (rel === undefined)
    throw new IntegrityError(
      `${where}: the step's payload names the rollout ${p.transcriptPath ?? '(none)'}, which is not where Codex keeps ` +
        `the session in this environment (${home}/sessions/YYYY/MM/DD/rollout-*-${p.sessionId}.jsonl, from ` +
        `${request.env.CODEX_HOME ? 'CODEX_HOME' : 'HOME'}); set CODEX_HOME to the directory the session ran with`,
    );
  const st = lstatUnder(home, rel);
  if (st.kind === 'symlink')
    throw new InputError(`${path.join(home, st.at)}: is a symbolic link; refusing to follow it`);
  const parentRollout = path.join(home, rel);
  const bytes = st.kind === 'file' ? readTranscriptWhole(parentRollout, 'rollout') : undefined;
  if (bytes === undefined) throw new InputError(`${parentRollout}: cannot read the session's rollout: no such file`);
  const cut = cutRollout(bytes, parentRollout, p.sessionId, callId, sessionId, later);
  const forkId = codexAgentId(sessionId);
  return {
    sessionId,
    forkId,
    parentRollout,
    cut,
    callId,
    rolloutRel: rolloutRelFor(sessionId),
    home,
    worktree: forkWorktreePath(root, forkId),
    codexHome: request.env.CODEX_HOME ? home : undefined,
  };
}

/** Writes the planned rollout (never over an existing file). */
function placeRollout(plan: CodexResumePlan): void {
  const target = path.join(plan.home, plan.rolloutRel);
  const dir = path.dirname(target);
  let fd: number;
  try {
    // No link on the way down from CODEX_HOME.
    ensureDirUnder(plan.home, dir);
    fd = openSync(target, 'wx', 0o600);
  } catch (e) {
    if (isOsError(e)) throw osError(e, target, "cannot create the fork's rollout");
    throw e;
  }
  try {
    writeAll(fd, plan.cut.bytes);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(target, { force: true });
    if (isOsError(e)) throw osError(e, target, 'cannot write');
    throw e;
  }
  closeSync(fd);
  fsyncDir(dir);
}

export function resumeCommand(plan: Pick<CodexResumePlan, 'worktree' | 'sessionId' | 'codexHome'>): string {
  const env = plan.codexHome === undefined ? '' : `CODEX_HOME=${shellWord(plan.codexHome)} `;
  return `cd ${shellWord(plan.worktree)} && ${env}codex exec resume ${plan.sessionId}`;
}

export async function resumeCodex(request: ResumeRequest): Promise<ResumeResult> {
  const plan = planCodexResume(request);
  const lines: string[] = [];
  const { fork, warnings } = await forkAndPlace(request, plan.forkId, () => {
    placeRollout(plan);
    // The resumed session runs the worktree's hooks, which Codex keys by their path: they are trusted as
    // `init codex` trusts the project's, so the resumed session records too.
    const init = planCodexInit({ root: plan.worktree, cwd: plan.worktree, env: request.env, remove: false });
    init.write();
    lines.push(...init.notes);
    return init.warnings;
  });
  return {
    fork,
    warnings,
    command: resumeCommand(plan),
    lines: [
      `rollout ${path.join(plan.home, plan.rolloutRel)} (lines 1..${plan.cut.line} of ${plan.parentRollout}, ending with the output of ${plan.callId})`,
      ...lines,
    ],
    details: {
      codex_session_id: plan.sessionId,
      codex_rollout: path.join(plan.home, plan.rolloutRel),
      resumes_after_call_id: plan.callId,
    },
  };
}
