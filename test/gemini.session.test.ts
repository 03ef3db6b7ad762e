import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parse } from '../src/canonical';
import { shellExitCode } from '../src/agents/gemini';
import { Cas, casDir, journalFile, readVerifiedJournal } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { stepchainBin } from './helpers/claude';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { geminiHome, runGemini, startGeminiServer, type GeminiServer } from './helpers/gemini-server';
import { identifiedProject } from './helpers/record';
import { refPython, expectVerifiedByPeer } from './helpers/python';
import { tempDir } from './helpers/tmp';

// The real Gemini CLI starts in a few seconds and runs a Node process per hook: slow on a loaded machine.
jest.setTimeout(240_000);

/**
 * A real Gemini CLI session (0.61.0, offline, against the scripted Gemini API server), recorded by the hooks that
 * `stepchain init gemini` installs: a shell command, a failing one, and two whose output mimics Gemini CLI's own
 * `Exit Code` line; then `init --remove`.
 */
const dir = tempDir('stepchain-gemini-');
const root = path.join(dir, 'project');
const home = path.join(dir, 'home');
const bin = stepchainBin(path.join(dir, 'bin'));
const env = { STEPCHAIN_AUDIT: 'off', HOME: home };
const PROMPT = 'Make a file.';
const SID = '0b6e2a4c-5d1f-4e8a-9c3b-7f2d1e0a9b8c';
const COMMANDS = [
  'echo hello > a.txt && cat a.txt',
  'echo oops >&2; exit 3',
  "printf 'Exit Code: 9\\n'",
  "printf 'x\\nExit Code: 9\\n'; exit 0",
];
const SETTINGS =
  '{\n  "ui": {\n    "theme": "Default"\n  },\n  "hooks": {\n    "BeforeTool": [\n      { "matcher": "write_file", "hooks": [{ "type": "command", "command": "true" }] }\n    ]\n  }\n}\n';

let server: GeminiServer;
/**
 * `stepchain <args>` through runCli in this process (`cliInProcess`, the code the bundle runs): what each command says
 * is the point; the first install and the hooks Gemini CLI starts run as real processes.
 */
const sc = (args: string[]) => cliInProcess(args, { cwd: root, env });
const settingsFile = path.join(root, '.gemini', 'settings.json');

beforeAll(async () => {
  identifiedProject(root);
  mkdirSync(path.dirname(settingsFile), { recursive: true });
  writeFileSync(settingsFile, SETTINGS);
  server = await startGeminiServer({
    [PROMPT]: COMMANDS.map((command) => ({ name: 'run_shell_command', args: { command } })),
  });
});

afterAll(async () => {
  await server?.close();
});

test('init gemini in a folder Gemini CLI does not trust: installed, and the one step to take is said', async () => {
  geminiHome(home, []);
  const r = cli(['init', 'gemini', '--json', '--command', `${path.join(bin, 'stepchain')} hook gemini`], {
    cwd: root,
    env,
  });
  expectNoStack(r);
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout) as { events: string[]; warnings: string[]; written: boolean };
  expect(doc.written).toBe(true);
  expect(doc.events).toEqual(['SessionStart', 'BeforeAgent', 'AfterTool', 'PreCompress', 'AfterAgent', 'SessionEnd']);
  expect(doc.warnings).toEqual([
    expect.stringContaining(
      `${root} is not trusted (no rule names it) in ${path.join(home, '.gemini', 'trustedFolders.json')}: Gemini CLI ignores`,
    ),
  ]);
  expect(doc.warnings[0]).toContain('choose "Trust folder"');
  // Every other setting is kept, the user's own hook too.
  const after = JSON.parse(readFileSync(settingsFile, 'utf8')) as { ui: unknown; hooks: Record<string, unknown[]> };
  expect(after.ui).toEqual({ theme: 'Default' });
  expect(after.hooks.BeforeTool).toEqual([{ matcher: 'write_file', hooks: [{ type: 'command', command: 'true' }] }]);
  expect(after.hooks.AfterTool).toEqual([
    { matcher: '*', hooks: [{ type: 'command', command: `${path.join(bin, 'stepchain')} hook gemini` }] },
  ]);
  // Trusted: no warning; idempotent.
  geminiHome(home, [root]);
  const again = await sc(['init', 'gemini', '--json', '--command', `${path.join(bin, 'stepchain')} hook gemini`]);
  expect(JSON.parse(again.stdout)).toMatchObject({ changed: false, warnings: [] });
});

test('a real session: one step per tool call, with the call ids, exit codes, model and prompt', async () => {
  const run = await runGemini({ cwd: root, home, port: server.port, prompt: PROMPT, sessionId: SID, binDir: bin, env });
  expect([run.code, run.sessionId]).toEqual([0, SID]);
  expect(run.stderr).not.toMatch(/stepchain: hook gemini/);
  const uses = run.events.filter((e) => e.type === 'tool_use');
  expect(uses.map((u) => (u.parameters as { command: string }).command)).toEqual(COMMANDS);
  const agent = `gemini-${SID}`;
  const rows = readVerifiedJournal(journalFile(root, agent)).entries.map((e) => e.row);
  expect(rows.map((r) => r.seq)).toEqual([0, 1, 2, 3]);
  rows.forEach((r, i) => {
    expect(r.tool_call).toEqual({ id: uses[i]!.tool_id, input: { command: COMMANDS[i] }, name: 'run_shell_command' });
    expect(r.prompt).toBe(PROMPT);
    expect(r.model).toBe('gemini-2.5-flash');
  });
  const result = (i: number) =>
    rows[i]!.tool_result as { llmContent: string; returnDisplay: string; exit_code: number | null };
  expect(result(0)).toMatchObject({ returnDisplay: 'hello', exit_code: 0 });
  expect(result(0).llmContent).toMatch(
    /^<untrusted_context>\nOutput: hello\nProcess Group PGID: \d+\n<\/untrusted_context>$/,
  );
  expect(result(1)).toMatchObject({ returnDisplay: 'oops', exit_code: 3 });
  expect(result(1).llmContent).toContain('\nExit Code: 3\n');
  // An output that mimics the trailer is the command's, not its exit code.
  expect(result(2)).toMatchObject({ returnDisplay: 'Exit Code: 9', exit_code: 0 });
  expect(result(3)).toMatchObject({ returnDisplay: 'x\nExit Code: 9', exit_code: 0 });
  // The raw AfterTool payload is the input blob; the tool result is it, plus exit_code.
  const cas = new Cas(casDir(root));
  rows.forEach((r, i) => {
    const payload = parse(cas.get(r.input_hash)!.toString('utf8')) as Record<string, unknown>;
    expect(payload).toMatchObject({ hook_event_name: 'AfterTool', session_id: SID, tool_name: 'run_shell_command' });
    const { exit_code: _code, ...rest } = result(i);
    expect(rest).toEqual(payload.tool_response);
  });
  expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('hello\n');
});

test('the session ran the pinned gemini: 0.61.0, the version each of its requests names', () => {
  // Gemini CLI's User-Agent carries the version it reports (its package's, as `--version` prints it), so the
  // session's own requests say which binary ran: a `gemini --version` of its own was one Gemini CLI start more
  // (~1.6 s of CPU, without the relaunch). The session's tool calls came from three requests or more.
  expect(server.raw.length).toBeGreaterThan(2);
  for (const x of server.raw) expect(x.headers['user-agent']).toMatch(/^GeminiCLI[-\w]*\/0\.61\.0\//);
});

test('the chain verifies, in stepchain and in the Python model; the run journal holds the session events', async () => {
  const agent = `gemini-${SID}`;
  expectVerifiedByPeer(await sc(['verify', agent, '--json']), journalFile(root, agent), 4);
  const all = readRunJournalFile(runJournalFile(root, agent));
  expect(all.ok).toBe(true);
  // Issue 23 adds a `step_changes` row after each step that changed files; these are the session's own events.
  const r = { entries: all.entries.filter((e) => e.row.event !== 'step_changes') };
  expect(r.entries.map((e) => e.row.event)).toEqual([
    'provider_state_capability',
    'session_start',
    'prompt',
    'stop',
    'session_end',
  ]);
  const payload = (i: number) => Object.fromEntries(r.entries[i]!.row.payload);
  expect(payload(0)).toEqual({ adapter: 'gemini', capability: 'declared-blind' });
  expect(payload(2)).toEqual({ prompt: PROMPT });
  expect(payload(3)).toEqual({ prompt: PROMPT, last_assistant_message: 'All done.' });
  expect(JSON.parse(refPython('ref_run_journal.py', ['verify', runJournalFile(root, agent)]))).toMatchObject({
    ok: true,
  });
  expect((await sc(['run', 'verify', agent])).code).toBe(0);
});

test('fork --resume of a Gemini CLI session is refused with the reason; fork without it works', async () => {
  const r = await sc(['fork', `gemini-${SID}`, '--from-step', '1', '--resume']);
  expectNoStack(r);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/Gemini CLI sessions are not resumed: .*cannot cut it with confidence/);
});

test('init gemini --remove gives back the settings as they were', async () => {
  const r = await sc(['init', 'gemini', '--remove']);
  expect(r.code).toBe(0);
  expect(readFileSync(settingsFile, 'utf8')).toBe(SETTINGS);
});

test('the exit code is read only where the text lines up with what Gemini CLI displayed', () => {
  const c = (llmContent: string, returnDisplay: string, tool = 'run_shell_command') =>
    shellExitCode(tool, { llmContent, returnDisplay });
  expect(c('Output: a\nExit Code: 2\nProcess Group PGID: 7', 'a')).toBe(2);
  expect(c('Output: a\nProcess Group PGID: 7', 'a')).toBe(0);
  expect(c('Output: (empty)\nExit Code: 1\nProcess Group PGID: 7', '')).toBe(1);
  expect(c('Output: a\nExit Code: 2\nProcess Group PGID: 7', 'a', 'read_file')).toBeNull();
  expect(c('Output: a\nExit Code: 2\nProcess Group PGID: 7', 'b')).toBeNull();
  expect(c('Output: a\nSignal: SIGTERM\nProcess Group PGID: 7', 'a')).toBeNull();
  expect(c('Command was cancelled by user before it could complete.', 'Command cancelled by user.')).toBeNull();
  expect(c('Output: a\nExit Code: 2\nExit Code: 3', 'a')).toBeNull();
  expect(c('Output: a\nsomething else', 'a')).toBeNull();
});
