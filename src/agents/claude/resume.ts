import { randomUUID } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { InputError, IntegrityError, isOsError, osError } from '../../errors';
import type { ForkResult } from '../../forks/fork';
import { forkWorktreePath } from '../../forks/names';
import { ensureDir } from '../../util/fs';
import { forkAndPlace, readTranscriptWhole, toolCallStep, writeConversationCopy } from '../resume-kit';
import { cutTranscript, type TranscriptCut } from './cut';
import { claudeAgentId, field } from './payload';
import { planClaudeSettings } from './settings';
import { claudeConfigDir, expectedTranscriptPath, projectDirName, sessionTranscriptDir } from './transcript';

/**
 * `stepchain fork <session> --from-step N --resume` (docs/claude.md "Fork and
 * resume"): besides the fork itself, a Claude Code conversation that ends
 * right after step N's tool result, under a new session id, where Claude Code
 * looks for sessions started in the fork's worktree. The fork's id is
 * `claude-<new session id>`, so the resumed session's hooks record into the
 * fork's journal, which continues at step N+1.
 *
 * Everything is planned (and everything refusable refused) before the fork is
 * created; placing the transcript is the one step after it.
 */
export interface ResumePlan {
  /** The new Claude Code session id (a UUID). */
  sessionId: string;
  /** The fork id: `claude-<sessionId>`. */
  forkId: string;
  /** The parent session's transcript. */
  parentTranscript: string;
  cut: TranscriptCut;
  /** The tool call step N answered. */
  toolUseId: string;
  /** Where the copy goes. */
  transcript: string;
  /** The fork's worktree. */
  worktree: string;
  /** The directory to start Claude Code in (the fork's worktree, or the same subdirectory of it). */
  cwd: string;
  /**
   * `CLAUDE_CONFIG_DIR` for the resume command: the environment's own value when it sets one (so the
   * command finds the session from any shell), never a directory recorded data names.
   */
  configDir: string | undefined;
  warnings: string[];
}

/** A path as one shell word, safe to paste (no control characters reach the terminal raw). */
export function shellWord(s: string): string {
  if (/^[A-Za-z0-9_/.,:@%+=-]+$/.test(s)) return s;
  if (/^[\x20-\x7e]*$/.test(s)) return `'${s.replace(/'/g, `'\\''`)}'`;
  let out = "$'";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === "'" || ch === '\\') out += `\\${ch}`;
    else if (c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0)) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}'`;
}

/** The command that resumes the fork's conversation. */
export function resumeCommand(plan: Pick<ResumePlan, 'cwd' | 'sessionId' | 'configDir'>): string {
  const env = plan.configDir === undefined ? '' : `CLAUDE_CONFIG_DIR=${shellWord(plan.configDir)} `;
  return `cd ${shellWord(plan.cwd)} && ${env}claude --resume ${plan.sessionId}`;
}

/** The tool-call step to resume after; a subagent's is refused (its conversation is not one Claude Code resumes). */
function toolCallPayload(root: string, agent: string, fromStep: number) {
  const r = toolCallStep(root, agent, fromStep, CLAUDE_RESUME);
  const p = r.payload;
  // A subagent's conversation lives in its own transcript and ends with its hand-back: not a session to resume.
  const subagentId = field(p, 'agent_id');
  if (subagentId !== undefined)
    throw new InputError(
      `fork --resume: step ${fromStep} of ${agent} is a tool call of subagent ` +
        `${JSON.stringify(subagentId)}, whose conversation Claude Code does not resume; fork ` +
        `${claudeAgentId(p.sessionId)} at the step that launched it (\`stepchain forks\` shows it) or fork without --resume`,
    );
  return r;
}

/** Claude Code's hook payloads (`ResumeAgent`). */
const CLAUDE_RESUME = {
  hook: 'claude',
  title: 'Claude Code',
  toolEvents: ['PostToolUse', 'PostToolUseFailure'],
} as const;

/** Plans the resume of `agent`'s conversation after step `fromStep`. Throws with the reason when it cannot be done safely. */
export function planClaudeResume(options: {
  root: string;
  agent: string;
  fromStep: number;
  env: NodeJS.ProcessEnv;
  /** The new session id (default a fresh UUID). */
  sessionId?: string;
}): ResumePlan {
  const root = path.resolve(options.root);
  const { step, payload: p, callId: toolUseId } = toolCallPayload(root, options.agent, options.fromStep);
  const { later, where } = step;
  if (p.transcriptPath === undefined) throw new IntegrityError(`${where}: the step's payload names no transcript_path`);
  // The payload is recorded data (anyone who can write .sdd can recompute the chain): it never decides which
  // config directory stepchain reads, writes into or tells the operator to start Claude Code with.
  const dirName = sessionTranscriptDir(p.transcriptPath, p.sessionId, options.env);
  if (dirName === undefined)
    throw new IntegrityError(
      `${where}: the step's payload names the transcript ${p.transcriptPath}, which is not where Claude Code keeps ` +
        `the session in this environment (${expectedTranscriptPath(options.env, p.sessionId)}, from ` +
        `${options.env.CLAUDE_CONFIG_DIR ? 'CLAUDE_CONFIG_DIR' : 'HOME'}); refusing to use a directory the journal ` +
        'names (set CLAUDE_CONFIG_DIR to the config directory the session ran with)',
    );
  const projectsDir = path.join(claudeConfigDir(options.env), 'projects');
  const parentTranscript = path.join(projectsDir, dirName, `${p.sessionId}.jsonl`);
  // Never through a link, never blocking on a FIFO, never more than the file's size.
  const bytes = readTranscriptWhole(parentTranscript, 'transcript');
  if (bytes === undefined)
    throw new InputError(`${parentTranscript}: cannot read the session's transcript: no such file`);
  const sessionId = options.sessionId ?? randomUUID();
  const cut = cutTranscript(bytes, parentTranscript, p.sessionId, toolUseId, sessionId, later);

  // Where the session was started: the directory whose name Claude Code stored it under.
  const started = [cut.firstCwd, p.cwd, cut.cutCwd].find((c) => c !== undefined && projectDirName(c) === dirName);
  if (started === undefined)
    throw new IntegrityError(
      `${parentTranscript}: stored under ${dirName}, which is not the name of the session's working ` +
        'directory as stepchain derives it; refusing to guess where Claude Code would look for the fork',
    );
  const rel = path.relative(root, started);
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel))
    throw new IntegrityError(`the session ran in ${started}, outside the project root ${root}`);
  const forkId = claudeAgentId(sessionId);
  const worktree = forkWorktreePath(root, forkId);
  const cwd = path.join(worktree, rel);
  const name = projectDirName(cwd);
  if (name === undefined)
    throw new IntegrityError(
      `${cwd}: Claude Code names its session directory for this path in a way stepchain cannot reproduce ` +
        '(longer than 200 characters, or not plain ASCII); the conversation is not forked',
    );
  const warnings: string[] = [];
  const companion = path.join(projectsDir, dirName, p.sessionId);
  try {
    if (lstatSync(companion).isDirectory())
      warnings.push(
        `${companion} (subagent transcripts) is not copied; the resumed conversation has their results as the main transcript recorded them`,
      );
  } catch {
    /* none */
  }
  return {
    sessionId,
    forkId,
    parentTranscript,
    cut,
    toolUseId,
    transcript: path.join(projectsDir, name, `${sessionId}.jsonl`),
    worktree,
    cwd,
    configDir: options.env.CLAUDE_CONFIG_DIR ? claudeConfigDir(options.env) : undefined,
    warnings,
  };
}

/**
 * The resume command starts Claude Code in `plan.cwd`, whose `.claude/settings.json` hooks it runs: a
 * directory of the fork's own files, never one reached through a link. A directory the step's files do not
 * have (an empty or untracked one) is made, so the command can start there.
 */
function prepareResumeDir(plan: ResumePlan): void {
  let at = plan.worktree;
  for (const part of [
    '',
    ...path
      .relative(plan.worktree, plan.cwd)
      .split(path.sep)
      .filter((x) => x !== ''),
  ]) {
    at = path.join(at, part);
    let st;
    try {
      st = lstatSync(at);
    } catch {
      mkdirSync(at, 0o755);
      continue;
    }
    if (st.isSymbolicLink() || !st.isDirectory())
      throw new IntegrityError(
        `${at}: ${st.isSymbolicLink() ? 'a symlink' : 'not a directory'} in the fork, where the resume command ` +
          'would start Claude Code; refusing to follow it',
      );
  }
}

/** Writes the planned transcript (never over an existing file); returns warnings about the fork's hooks. */
export function placeClaudeResume(plan: ResumePlan): string[] {
  try {
    prepareResumeDir(plan);
  } catch (e) {
    if (isOsError(e)) throw osError(e, plan.cwd, 'cannot create the directory to resume in');
    throw e;
  }
  writeConversationCopy(plan.transcript, plan.cut.bytes, "the fork's transcript", () =>
    ensureDir(path.dirname(plan.transcript), 0o700),
  );
  // The resumed session records only if the fork's settings run the hook.
  const settings = path.join(plan.cwd, '.claude', 'settings.json');
  try {
    if (planClaudeSettings(settings).changed)
      return [
        `${settings} does not run \`stepchain hook claude\` for every event; run \`stepchain init claude --root ${shellWord(plan.cwd)}\` before resuming to keep recording`,
      ];
  } catch (e) {
    return [`${settings}: ${(e as Error).message}`];
  }
  return [];
}

export interface ClaudeForkResult {
  fork: ForkResult;
  plan: ResumePlan;
  /** `cd <worktree> && claude --resume <id>`. */
  command: string;
  warnings: string[];
}

/**
 * Forks `agent` at `fromStep` (a worktree with the files of that step and the
 * journal prefix, as `createFork`) under the id `claude-<new session id>`, and
 * places the conversation to resume. If placing it fails, the fork is removed
 * again, so nothing is left behind.
 */
export async function forkClaudeSession(options: {
  root: string;
  agent: string;
  fromStep: number;
  label?: string;
  env: NodeJS.ProcessEnv;
  /** The new session id (default a fresh UUID). */
  sessionId?: string;
}): Promise<ClaudeForkResult> {
  const plan = planClaudeResume(options);
  const { fork, warnings } = await forkAndPlace(options, plan.forkId, () => placeClaudeResume(plan));
  return { fork, plan, command: resumeCommand(plan), warnings: [...plan.warnings, ...warnings] };
}
