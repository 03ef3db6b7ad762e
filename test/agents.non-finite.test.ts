/**
 * A hook payload holding a number JSON cannot write (`1e999` reads as Infinity; `NaN`, `-Infinity` tokens, read as
 * the reference reads them) lost its tool call: the step was refused at write time and only the payload blob was
 * kept. Every agent's hook records the step through one recorder (src/agents/kit.ts), which now writes such numbers
 * as strings, with a warning; the step's input is the payload as sent. The journal verifies here and in the Python
 * model of the reference. The class: every agent whose payload carries the tool's input (Claude Code, Codex; the
 * CLI process for Claude Code's exit code and lines).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { handleClaudeHook } from '../src/agents/claude';
import { handleCodexHook } from '../src/agents/codex';
import { journalFile } from '../src/journal';
import { cli } from './helpers/cli';
import { agentProject } from './helpers/project';
import { expectVerifiedByPeer } from './helpers/python';
import { tempDir } from './helpers/tmp';

const dir = tempDir('stepchain-non-finite-');
const env = { STEPCHAIN_AUDIT: 'off' };
// The numbers as an agent's JSON may spell them: an overflowing exponent, and the tokens Python writes.
const INPUT = '{"command":"sleep 1","n":1e999,"m":-1e999,"q":NaN,"deep":[{"x":Infinity}],"fine":1.5}';

function claudePayload(root: string, session: string): Buffer {
  return Buffer.from(
    `{"hook_event_name":"PostToolUse","session_id":"${session}","cwd":${JSON.stringify(root)},` +
      `"tool_name":"Bash","tool_input":${INPUT},"tool_response":{"out":NaN},"tool_use_id":"t1"}`,
  );
}

function lastRow(root: string, journal: string): Record<string, unknown> {
  const lines = readFileSync(journalFile(root, journal), 'utf8').trimEnd().split('\n');
  return JSON.parse(lines.at(-1)!) as Record<string, unknown>;
}

test("Claude Code's and Codex's hooks record the step, the numbers as strings, the payload as its input", () => {
  const { root, home } = agentProject(dir);
  const claude = handleClaudeHook(claudePayload(root, 's1'), { env, snapshot: false });
  expect(claude.errors).toEqual([]);
  expect(claude.recorded).toEqual(['step 0']);
  expect(claude.warnings.join('\n')).toContain(
    'claude-s1: tool_call, tool_result: a number JSON cannot write (NaN or an infinity) recorded as a string',
  );
  const row = lastRow(root, 'claude-s1');
  expect(row['tool_call']).toMatchObject({
    input: { command: 'sleep 1', n: 'Infinity', m: '-Infinity', q: 'NaN', deep: [{ x: 'Infinity' }], fine: 1.5 },
  });

  const codexPayload = Buffer.from(
    `{"session_id":"c1","turn_id":"t1","transcript_path":${JSON.stringify(path.join(home, 'none.jsonl'))},` +
      `"cwd":${JSON.stringify(root)},"hook_event_name":"PostToolUse","model":"gpt-test","tool_name":"Bash",` +
      `"tool_input":${INPUT},"tool_response":"ok","tool_use_id":"u1"}`,
  );
  const codex = handleCodexHook(codexPayload, { env: { ...env, CODEX_HOME: home }, snapshot: false });
  expect(codex.errors).toEqual([]);
  expect(codex.warnings.join('\n')).toContain('tool_call: a number JSON cannot write');
  const codexJournal = 'codex-c1';
  expect(codex.recorded).toEqual(['step 0']);
  expect(JSON.stringify(lastRow(root, codexJournal)['tool_call'])).toContain('"n":"Infinity"');

  // Both journals verify here and in the reference's model, which re-derives every hash from the rows.
  for (const j of ['claude-s1', codexJournal])
    expectVerifiedByPeer(cli(['verify', journalFile(root, j), '--json']), journalFile(root, j), 1);
});

test('through the CLI: exit 0, the warning on stderr, the step in the journal', () => {
  const { root } = agentProject(dir);
  const r = cli(['hook', 'claude'], { cwd: root, input: claudePayload(root, 's2'), env });
  expect(r.code).toBe(0);
  expect(r.stderr).toContain('a number JSON cannot write (NaN or an infinity) recorded as a string');
  expect(lastRow(root, 'claude-s2')['seq']).toBe(0);
});
