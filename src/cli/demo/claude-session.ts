import TRANSCRIPT_ROWS from './claude-transcript.json';

/**
 * A Claude Code session, as Claude Code 2.1.328 reported it to its hooks and
 * wrote it to its transcript (recorded against a scripted model; the field
 * names, event order and transcript layout are the binary's, checked by the
 * test suite against the real binary). Paths and times are filled in for the
 * demo's temporary project. The agent runs the failing test, fixes `mean()`,
 * runs the test again, and its context is compacted.
 */
export const DEMO_SESSION_ID = '7d3a9c1e-5b2f-4c8d-9e0a-1f2b3c4d5e6f';
/** What stands for the project folder in the recorded transcript. */
const PROJECT = '{{project}}';
const MODEL = 'claude-sonnet-4-5-20250929';
const PROMPT = 'tests/test_stats.py fails. Fix it.';
/** The project files the session starts from (a new module with a bug, and its test). */
export const STATS_BUGGY = 'def mean(xs):\n    return sum(xs) / (len(xs) - 1)\n';
const STATS_FIXED = 'def mean(xs):\n    return sum(xs) / len(xs)\n';
export const DEMO_SESSION_FILES: Record<string, string> = {
  'src/stats.py': STATS_BUGGY,
  'tests/test_stats.py': 'from src.stats import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2.0\n',
};
const OLD = 'sum(xs) / (len(xs) - 1)';
const NEW = 'sum(xs) / len(xs)';
const PROMPT_ID = '2c9e4b1a-8f3d-4e6a-b1c7-0d5f9a8e7b6c';
const FAIL =
  'Exit code 1\nF                                                                        [100%]\nFAILED tests/test_stats.py::test_mean - assert 3.0 == 2.0\n1 failed in 0.02s';

/** What a tool call does to the project before its PostToolUse hook runs. */
export interface DemoHook {
  /** One-line description for the demo's output. */
  label: string;
  payload: Record<string, unknown>;
  writes?: Record<string, string>;
}

export function demoHooks(cwd: string, transcriptPath: string): DemoHook[] {
  const base = { session_id: DEMO_SESSION_ID, transcript_path: transcriptPath, cwd };
  const turn = { ...base, prompt_id: PROMPT_ID, permission_mode: 'acceptEdits' };
  const calc = `${cwd}/src/stats.py`;
  return [
    { label: 'SessionStart (startup)', payload: { ...base, hook_event_name: 'SessionStart', source: 'startup' } },
    {
      label: 'UserPromptSubmit (the prompt)',
      payload: { ...turn, hook_event_name: 'UserPromptSubmit', prompt: PROMPT },
    },
    {
      label: 'PostToolUseFailure Bash "pytest -q" (exit 1)',
      payload: {
        ...turn,
        hook_event_name: 'PostToolUseFailure',
        tool_name: 'Bash',
        tool_input: { command: 'pytest -q', description: 'Run the test suite' },
        tool_use_id: 'toolu_01TestRun',
        error: FAIL,
        is_interrupt: false,
        duration_ms: 412,
      },
    },
    {
      label: 'PostToolUse Edit src/stats.py',
      writes: { 'src/stats.py': STATS_FIXED },
      payload: {
        ...turn,
        hook_event_name: 'PostToolUse',
        tool_name: 'Edit',
        tool_input: {
          file_path: calc,
          old_string: OLD,
          new_string: NEW,
          replace_all: false,
        },
        tool_response: {
          filePath: calc,
          oldString: OLD,
          newString: NEW,
          originalFile: STATS_BUGGY,
          structuredPatch: [
            {
              oldStart: 1,
              oldLines: 2,
              newStart: 1,
              newLines: 2,
              lines: [' def mean(xs):', '-    return sum(xs) / (len(xs) - 1)', '+    return sum(xs) / len(xs)'],
            },
          ],
          userModified: false,
          replaceAll: false,
        },
        tool_use_id: 'toolu_02FixAdd',
        duration_ms: 6,
      },
    },
    {
      label: 'PostToolUse Bash "pytest -q"',
      payload: {
        ...turn,
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'pytest -q', description: 'Run the test suite again' },
        tool_response: {
          stdout: '.                                                                        [100%]\n1 passed in 0.01s',
          stderr: '',
          interrupted: false,
          isImage: false,
          noOutputExpected: false,
        },
        tool_use_id: 'toolu_03TestAgain',
        duration_ms: 398,
      },
    },
    {
      label: 'PreCompact (auto)',
      payload: { ...turn, hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: null },
    },
    {
      label: 'SessionStart (compact)',
      payload: { ...base, prompt_id: PROMPT_ID, hook_event_name: 'SessionStart', source: 'compact', model: MODEL },
    },
    {
      label: 'Stop',
      payload: {
        ...turn,
        hook_event_name: 'Stop',
        stop_hook_active: false,
        last_assistant_message: 'mean() divided by n - 1; it divides by n now and the test passes.',
      },
    },
    { label: 'SessionEnd', payload: { ...base, prompt_id: PROMPT_ID, hook_event_name: 'SessionEnd', reason: 'other' } },
  ];
}

/** The session's transcript (`<config>/projects/<dir>/<session_id>.jsonl`), one JSON object per line: the rows of
 * `claude-transcript.json`, as the binary wrote them, with the demo's project folder for `{{project}}`. */
export function demoTranscript(cwd: string): string {
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string') return v.split(PROJECT).join(cwd);
    if (Array.isArray(v)) return v.map(fill);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return TRANSCRIPT_ROWS.map((row) => `${JSON.stringify(fill(row))}\n`).join('');
}
