/**
 * A Claude Code session, as Claude Code 2.1.328 reported it to its hooks and
 * wrote it to its transcript (recorded against a scripted model; the field
 * names, event order and transcript layout are the binary's, checked by the
 * test suite against the real binary). Paths and times are filled in for the
 * demo's temporary project. The agent runs the failing test, fixes `mean()`,
 * runs the test again, and its context is compacted.
 */
export const DEMO_SESSION_ID = '7d3a9c1e-5b2f-4c8d-9e0a-1f2b3c4d5e6f';
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

/** The session's transcript (`<config>/projects/<dir>/<session_id>.jsonl`), one JSON object per line. */
export function demoTranscript(cwd: string): string {
  const t0 = Date.parse('2026-12-02T09:00:00.000Z');
  let k = 0;
  const ts = (): string => new Date(t0 + 250 * k++).toISOString();
  const meta = {
    userType: 'external',
    entrypoint: 'cli',
    cwd,
    sessionId: DEMO_SESSION_ID,
    version: '2.1.328',
    gitBranch: 'main',
  };
  const uuid = (n: number): string => `5f0c${String(n).padStart(4, '0')}-1d2e-4f3a-8b4c-5d6e7f8a9b0c`;
  const assistant = (
    n: number,
    parent: number,
    id: string,
    content: unknown[],
    stop: string,
  ): Record<string, unknown> => ({
    parentUuid: uuid(parent),
    isSidechain: false,
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 1200, output_tokens: 40 },
    },
    type: 'assistant',
    uuid: uuid(n),
    timestamp: ts(),
    ...meta,
  });
  const result = (
    n: number,
    parent: number,
    toolUseId: string,
    content: string,
    isError: boolean,
    toolUseResult: unknown,
  ): Record<string, unknown> => ({
    parentUuid: uuid(parent),
    isSidechain: false,
    promptId: PROMPT_ID,
    type: 'user',
    message: { role: 'user', content: [{ tool_use_id: toolUseId, type: 'tool_result', content, is_error: isError }] },
    uuid: uuid(n),
    timestamp: ts(),
    toolUseResult,
    sourceToolAssistantUUID: uuid(parent),
    ...meta,
  });
  const calc = `${cwd}/src/stats.py`;
  const lines: Record<string, unknown>[] = [
    { type: 'queue-operation', operation: 'enqueue', timestamp: ts(), sessionId: DEMO_SESSION_ID, content: PROMPT },
    { type: 'queue-operation', operation: 'dequeue', timestamp: ts(), sessionId: DEMO_SESSION_ID },
    {
      parentUuid: null,
      isSidechain: false,
      promptId: PROMPT_ID,
      type: 'user',
      message: { role: 'user', content: PROMPT },
      uuid: uuid(1),
      timestamp: ts(),
      permissionMode: 'acceptEdits',
      ...meta,
    },
    assistant(
      2,
      1,
      'msg_01A',
      [
        {
          type: 'tool_use',
          id: 'toolu_01TestRun',
          name: 'Bash',
          input: { command: 'pytest -q', description: 'Run the test suite' },
        },
      ],
      'tool_use',
    ),
    result(3, 2, 'toolu_01TestRun', FAIL, true, `Error: ${FAIL}`),
    { type: 'last-prompt', lastPrompt: PROMPT, leafUuid: uuid(3), sessionId: DEMO_SESSION_ID },
    assistant(
      4,
      3,
      'msg_02B',
      [
        {
          type: 'tool_use',
          id: 'toolu_02FixAdd',
          name: 'Edit',
          input: { replace_all: false, file_path: calc, old_string: OLD, new_string: NEW },
        },
      ],
      'tool_use',
    ),
    result(5, 4, 'toolu_02FixAdd', `The file ${calc} has been updated successfully.`, false, {
      filePath: calc,
      oldString: OLD,
      newString: NEW,
    }),
    assistant(
      6,
      5,
      'msg_03C',
      [
        {
          type: 'tool_use',
          id: 'toolu_03TestAgain',
          name: 'Bash',
          input: { command: 'pytest -q', description: 'Run the test suite again' },
        },
      ],
      'tool_use',
    ),
    result(
      7,
      6,
      'toolu_03TestAgain',
      '.                                                                        [100%]\n1 passed in 0.01s',
      false,
      { stdout: '1 passed in 0.01s', stderr: '', interrupted: false },
    ),
    assistant(
      8,
      7,
      'msg_04D',
      [{ type: 'text', text: 'mean() divided by n - 1; it divides by n now and the test passes.' }],
      'end_turn',
    ),
    {
      parentUuid: null,
      logicalParentUuid: uuid(8),
      isSidechain: false,
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      timestamp: ts(),
      uuid: uuid(9),
      level: 'info',
      compactMetadata: { trigger: 'auto', preTokens: 167353, postTokens: 4123 },
      ...meta,
    },
    {
      parentUuid: uuid(9),
      isSidechain: false,
      promptId: PROMPT_ID,
      type: 'user',
      message: {
        role: 'user',
        content:
          'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nThe test of mean() failed: it divided by n - 1. It was fixed and the test passes.',
      },
      isCompactSummary: true,
      uuid: uuid(10),
      timestamp: ts(),
      ...meta,
    },
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}
