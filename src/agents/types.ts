import type { JsonValue } from '../canonical';
import type { ForkResult } from '../forks';
import type { StepRow, TornTailMoved } from '../journal';
import type { DeferredSnapshots } from '../record';
import type { HookSession, SessionRequest } from './hook-session';
import type { NormaliseRule } from '../proxy/normalise';
import type { ProtocolName } from '../proxy/protocols/types';

/**
 * The one small interface every agent integration implements (docs/agents.md):
 * install its recording into a project (`init <agent>`), turn one hook payload
 * into what it means (`hook <agent>`), and, where the agent's transcript can be
 * cut with confidence, resume a conversation after step N (`fork --resume`).
 * An integration lives in `src/agents/<name>/` and is listed once in
 * `src/agents/registry.ts`; the CLI's commands and the library's exports are
 * derived from that list, so adding an agent touches no door.
 */
export interface AgentIntegration {
  /** The CLI word and the journal prefix: journals are `<name>-<session_id>`. */
  readonly name: string;
  /** The agent's product name, for messages (`Claude Code`). */
  readonly title: string;
  /** The run journal's adapter name, recorded `observed` at the first session event. */
  readonly adapter: string;
  /** The project file `init` writes by default, relative to the root (`.claude/settings.json`). */
  readonly configFile: string;
  /** The hook events (or plugin events) recorded, for help texts. */
  readonly events: readonly string[];
  /** What `init` installs, and what `init --remove` takes out. */
  planInit(request: InitRequest): InitPlan;
  /** One hook payload (the bytes the agent wrote on stdin). Never throws. */
  hook(bytes: Uint8Array, options: HookOptions): HookOutcome;
  /** `fork --resume`, or why this agent's sessions are not resumed. */
  readonly resume: ResumeSupport;
  /** How `stepchain record` and `fork --replay` point the agent's model calls at the proxy (docs/record.md); absent: not recorded. */
  readonly proxy?: AgentProxy;
}

/**
 * An agent's model calls through the recording proxy: the child's base-URL setting, the default upstreams, and what
 * a replay normalises. The child's base URL is the proxy's origin plus the upstream's own path, so the request path
 * the agent sends is the path the upstream expects.
 */
export interface AgentProxy {
  /** The run journal's adapter name for the proxy's capability (`proxy-<agent>`). */
  readonly adapter: string;
  /** The protocols its model calls speak, the first the main one. */
  readonly protocols: readonly ProtocolName[];
  /**
   * Why this setup cannot be recorded (a setting that sends its model calls where the proxy cannot see them), or
   * undefined; asked before anything is recorded, and `record`'s error when given.
   */
  refuse?(env: NodeJS.ProcessEnv, cwd?: string): string | undefined;
  /**
   * The upstream of a protocol when no --upstream is given: the agent's own setting (in the environment, or in the
   * agent's configuration as read from `cwd`, where the command runs; the process's own when not given), else the
   * public API.
   */
  defaultUpstream(protocol: ProtocolName, env: NodeJS.ProcessEnv, cwd?: string): string;
  /** The environment the child gets on top of its own (`base(p)`: the proxy's base URL for protocol p). */
  childEnv(base: (protocol: ProtocolName) => string, env: NodeJS.ProcessEnv, cwd?: string): Record<string, string>;
  /**
   * Where the base URL is a command-line setting only: the command with it set, or undefined when the command is not
   * the agent's own executable (it then runs as given, and `record` warns that its calls may not reach the proxy).
   */
  childCommand?(
    command: readonly string[],
    base: (protocol: ProtocolName) => string,
    env: NodeJS.ProcessEnv,
  ): string[] | undefined;
  /** What a replay normalises before comparing a request with its recording (docs/record.md). */
  readonly normalise: readonly NormaliseRule[];
  /** How sure we are of the base-URL setting: measured with the real binary, or taken from its documentation. */
  readonly baseUrlSource: 'measured' | 'documented';
  /**
   * The hook session a model request's tool calls are recorded in (`./hook-session.ts`), so `record` links each hook
   * step to the exchange that asked for it; undefined: this request is not linked. Absent: the agent's exchanges
   * are never linked.
   */
  hookSession?(request: SessionRequest, env: NodeJS.ProcessEnv): HookSession | undefined;
}

export interface InitRequest {
  /** The project root. */
  root: string;
  /** The caller's directory (for messages and relative paths). */
  cwd: string;
  env: NodeJS.ProcessEnv;
  remove: boolean;
  /** The command the hooks run, when not `stepchain hook <name>`. */
  command?: string;
  /** The project file that holds the hooks, when not the agent's default. */
  file?: string;
}

/** One file `init` changes, before and after (null: absent). */
export interface FileChange {
  file: string;
  before: string | null;
  after: string | null;
}

/**
 * What `init` would do. Plain data except `write`, which carries the plan out (each file replaced atomically,
 * never through a link).
 */
export interface InitPlan {
  /** The project file that holds stepchain's hooks (or plugin). */
  file: string;
  /** Every file that changes, the agent's trust record included. Empty: nothing to do. */
  changes: FileChange[];
  changed: boolean;
  /** Events a hook entry was added for (or, with remove, removed from). */
  events: string[];
  /** Events whose entry's command was updated to the requested one. */
  updated: string[];
  /** Events whose look-alike entry could not record every occurrence and was replaced. */
  repaired: string[];
  /** Why, one line per entry updated or repaired. */
  findings: string[];
  /** What `init` wrote beyond the project's file and why (e.g. the hooks' trust in the agent's own config). */
  notes: string[];
  /** What keeps the hooks from running that `init` does not change (an untrusted folder: the step to take). */
  warnings: string[];
  /** A unified diff of every change. */
  diff: string[];
  write(): void;
}

export interface HookOptions {
  env: NodeJS.ProcessEnv;
  /** Record per-step worktree snapshots (default true). */
  snapshot?: boolean;
  /**
   * The project root (default: discovered from the agent's environment or the payload). It must be an existing
   * directory (nothing is recorded otherwise: a hook makes no project where there was none); `.sdd/` in it is made.
   */
  root?: string;
  /** Told whenever a torn tail of a journal the hook writes is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
  /**
   * The steps' snapshots finish here, after `hook` returns (`RecordOptions.deferSnapshots`): the outcome's warnings
   * are complete once it has settled. Absent: `hook` returns with everything done. One hook call's, as the CLI uses
   * it: a call may hold a session's lock until it has settled (Gemini CLI's flush lock), so a later call of the same
   * session given the queue before it settled finds the lock held and leaves its pending calls to a later call.
   */
  deferSnapshots?: DeferredSnapshots;
}

export interface HookOutcome {
  event: string | undefined;
  root: string | undefined;
  /** The journal id written (`<name>-<session_id>`). */
  agent: string | undefined;
  /** What was recorded, one short phrase each (`step 3`, `run event stop`). */
  recorded: string[];
  /** Ride-alongs that failed while the record stands (a snapshot, an audit event). */
  warnings: string[];
  /** What could not be recorded. */
  errors: string[];
  /** The step appended, when one was. */
  row?: StepRow;
}

export interface ResumeRequest {
  root: string;
  /** The journal id (`<name>-<session_id>`). */
  agent: string;
  fromStep: number;
  label?: string;
  env: NodeJS.ProcessEnv;
  /** Told whenever a torn tail of the audit log is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
}

export interface ResumeResult {
  fork: ForkResult;
  warnings: string[];
  /** The shell command that resumes the cut conversation in the fork's worktree. */
  command: string;
  /** Lines that say what was cut (`transcript <file> (lines 1..N ...)`). */
  lines: string[];
  /** Agent-specific fields of the `--json` document (`claude_session_id`, ...). */
  details: Record<string, JsonValue>;
}

export type ResumeSupport =
  { supported: true; fork(request: ResumeRequest): Promise<ResumeResult> } | { supported: false; reason: string };
