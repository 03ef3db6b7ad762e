/** The embedded sample: a short agent run that fixes a bug in a tiny project. */
export const SAMPLE_AGENT = 'agent-demo';

export const SAMPLE_FILES: Record<string, string> = {
  'README.md': '# calc\n\nA tiny calculator the demo agent works on.\n',
  'src/calc.py': 'def add(a, b):\n    return a - b  # bug: should add\n',
  'tests/test_calc.py': 'from src.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
};

export interface SampleStep {
  prompt: string;
  model: string;
  tool_call: Record<string, unknown>;
  tool_result: Record<string, unknown>;
  /** Files the step writes into the project before it is recorded. */
  writes?: Record<string, string>;
}

export const SAMPLE_STEPS: SampleStep[] = [
  {
    model: 'claude-3-7-sonnet-20250219',
    prompt: 'The test suite fails. Find out why.',
    tool_call: { name: 'run', args: { cmd: 'pytest -q' } },
    tool_result: { exit_code: 1, stdout: 'FAILED tests/test_calc.py::test_add - assert -1 == 5' },
  },
  {
    model: 'claude-3-7-sonnet-20250219',
    prompt: 'Read the implementation of add().',
    tool_call: { name: 'read_file', args: { path: 'src/calc.py' } },
    tool_result: { content: 'def add(a, b):\n    return a - b  # bug: should add\n' },
  },
  {
    model: 'claude-3-7-sonnet-20250219',
    prompt: 'Fix the bug in add().',
    tool_call: { name: 'edit_file', args: { path: 'src/calc.py', old: 'a - b  # bug: should add', new: 'a + b' } },
    tool_result: { ok: true },
    writes: { 'src/calc.py': 'def add(a, b):\n    return a + b\n' },
  },
  {
    model: 'claude-3-7-sonnet-20250219',
    prompt: 'Run the tests again.',
    tool_call: { name: 'run', args: { cmd: 'pytest -q' } },
    tool_result: { exit_code: 0, stdout: '1 passed in 0.01s' },
  },
  {
    model: 'claude-3-7-sonnet-20250219',
    prompt: 'Summarise the change for the pull request. Résumé ✓',
    tool_call: null as unknown as Record<string, unknown>,
    tool_result: { summary: 'add() subtracted instead of adding; fixed and the test passes.' },
  },
];
