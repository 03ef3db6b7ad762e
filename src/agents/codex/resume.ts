import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { InputError, IntegrityError } from '../../errors';
import { forkWorktreePath } from '../../forks/names';
import { ensureDirUnder } from '../../util/fs';
import { lstatUnder } from '../../util/nofollow';
import { shellWord } from '../claude/resume';
import { forkAndPlace, readTranscriptWhole, toolCallStep, writeConversationCopy } from '../resume-kit';
import { parseEntry, requireAnswers, scanToCut, transcriptLines, type CallWords, type Entry } from '../transcript-cut';
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

const WORDS: CallWords = { call: 'call', answer: 'output' };

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
  const { raw, refuse } = transcriptLines(rollout, file);
  const calls = new Map<string, number>();
  const outputs = new Set<string>();
  const answers = (e: Entry): string | undefined => {
    const it = item(e);
    return it !== undefined && OUTPUTS.has(String(it.type)) && typeof it.call_id === 'string' ? it.call_id : undefined;
  };
  const cut = scanToCut(raw, refuse, {
    callId,
    words: WORDS,
    notObject: 'not a JSON object (Codex rollouts have one per line)',
    again: (later) => answers(later) === callId,
    visit: (entry, i) => {
      if (i === 0) {
        const meta = entry.payload as Entry | undefined;
        if (entry.type !== 'session_meta' || typeof meta !== 'object' || meta === null || meta.id !== sessionId)
          refuse(`the first line is not the session_meta of session ${sessionId}`, 1);
      } else if (entry.type === 'session_meta') refuse('a second session_meta', i + 1);
      const it = item(entry);
      if (it === undefined) return false;
      const kind = String(it.type);
      if (!CALLS.has(kind) && !OUTPUTS.has(kind)) return false;
      const id = typeof it.call_id === 'string' ? it.call_id : undefined;
      if (id === undefined) return refuse(`a ${kind} without a call_id`, i + 1);
      if (CALLS.has(kind)) calls.set(id, i + 1);
      else outputs.add(id);
      return OUTPUTS.has(kind) && id === callId;
    },
  });
  if (cut < 0)
    refuse(
      `no output of call ${callId} in this rollout (if the session is still running, try again once it has moved on)`,
    );
  if (!calls.has(callId)) refuse(`the output of call ${callId} has no function_call before it`, cut + 1);
  const open = [...calls].find(([id]) => !outputs.has(id));
  requireAnswers(
    refuse,
    WORDS,
    callId,
    open === undefined ? undefined : { id: open[0], line: open[1] },
    outputs,
    [...laterCallIds].filter((id) => id !== callId),
  );
  const from = JSON.stringify(sessionId);
  const to = JSON.stringify(newSessionId);
  const lines: string[] = [];
  for (let i = 0; i <= cut; i++) lines.push(raw.line(i).split(from).join(to));
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

/** Codex's hook payloads (`ResumeAgent`). */
const CODEX_RESUME = { hook: CODEX, title: 'Codex', toolEvents: ['PostToolUse'] } as const;

export function planCodexResume(request: ResumeRequest, sessionId = randomUUID()): CodexResumePlan {
  const root = path.resolve(request.root);
  const { step, payload: p, callId } = toolCallStep(root, request.agent, request.fromStep, CODEX_RESUME);
  const { later, where } = step;
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
  // No link on the way down from CODEX_HOME.
  writeConversationCopy(target, plan.cut.bytes, "the fork's rollout", () =>
    ensureDirUnder(plan.home, path.dirname(target)),
  );
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
