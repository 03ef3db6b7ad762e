import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { canonical, parse, type JsonValue } from '../src/canonical';
import { handleClaudeHook } from '../src/agents/claude';
import { Cas, casDir, journalFile, readVerifiedJournal } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { sha256Hex } from '../src/util/hash';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { claudeBinary, runClaude, startScriptedServer, stepchainBin } from './helpers/claude';
import { freshDir, tempDir } from './helpers/tmp';
import { identifiedProject } from './helpers/record';

// The real binary starts once per session and runs a Node process per hook: slow on a loaded machine.
jest.setTimeout(180_000);

const dir = tempDir('stepchain-claude-hook-');
const SID = '11111111-2222-4333-8444-555555555555';
const AGENT = `claude-${SID}`;
const off = { STEPCHAIN_AUDIT: 'off' };

/** A new project each call, whose git names who commits (as a user's does: the hooks' snapshots take git's short way). */
function project(): string {
  return identifiedProject(freshDir(dir, 'repo'));
}

function payload(root: string, event: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: SID,
    transcript_path: path.join(dir, 'no-transcript', `${SID}.jsonl`),
    cwd: root,
    hook_event_name: event,
    ...extra,
  });
}

function tool(root: string, id: string, extra: Record<string, unknown> = {}): string {
  return payload(root, 'PostToolUse', {
    prompt_id: 'p1',
    tool_name: 'Bash',
    tool_input: { command: `echo ${id}` },
    tool_response: { stdout: id, stderr: '' },
    tool_use_id: id,
    ...extra,
  });
}

/** `stepchain hook claude` as Claude Code starts it: a process (its exit code, its streams). */
const hook = (input: string | Buffer, cwd = dir, env: NodeJS.ProcessEnv = off) =>
  cli(['hook', 'claude'], { cwd, input, env });
/**
 * The same command through runCli in this process (`cliInProcess`, the code the bundle runs), for the tests about
 * what the hook records: a Node start per call was most of their time. The process's contract (exit 1 never 2, one
 * line on stderr, no stack) keeps real processes above, and the real session at the end starts the hooks itself.
 */
const hookIn = (input: string | Buffer, cwd = dir, env: NodeJS.ProcessEnv = off) =>
  cliInProcess(['hook', 'claude'], { cwd, input, env });

describe('a bad payload is one line on stderr and exit 1, never 2, never a stack, nothing written', () => {
  const root = project();
  // The process's contract (its exit code, its streams) is held by real processes of the bin for what reaches it
  // differently there (no bytes, bytes that are not text, a nesting as deep as the process's stack); the rest are
  // the payload's rules, the same code in this process (`hookIn`), as every test below does.
  const cases: [string, 'process' | 'in-process', string | Buffer][] = [
    ['empty input', 'process', ''],
    ['not JSON', 'in-process', 'PostToolUse please'],
    ['not an object', 'in-process', '[1, 2]'],
    ['invalid UTF-8', 'process', Buffer.from([0x7b, 0xff, 0x7d])],
    ['no hook_event_name', 'in-process', JSON.stringify({ session_id: SID, cwd: root })],
    ['no session_id', 'in-process', JSON.stringify({ hook_event_name: 'PostToolUse', cwd: root })],
    ['a session id that is a path', 'in-process', payload(root, 'PostToolUse').replace(SID, '../../etc')],
    ['a relative cwd', 'in-process', JSON.stringify({ hook_event_name: 'Stop', session_id: SID, cwd: 'project' })],
    // A cwd that does not exist (or is a file) is refused: a payload never makes a project where there was none.
    ['a cwd that does not exist', 'in-process', tool(path.join(root, 'gone', 'away'), 't-gone')],
    ['a cwd that is a file', 'in-process', tool(path.join(root, 'README.md'), 't-file')],
    ['a deeply nested payload', 'process', `{"hook_event_name":"Stop","x":${'['.repeat(100000)}${']'.repeat(100000)}}`],
  ];
  test.each(cases)('%s (%s)', async (_name, how, input) => {
    const r = how === 'process' ? hook(input, root) : await hookIn(input, root);
    expectNoStack(r);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^stepchain: hook claude: /);
    expect(existsSync(path.join(root, '.sdd'))).toBe(false);
    expect(existsSync(path.join(root, 'gone'))).toBe(false);
  });
});

test('a bad command line never exits 2 either (Claude Code reads 2 as "block"): unknown options, stray arguments', async () => {
  const root = project();
  // The first as a process of the bin (the hook entry leaves such a command line to the whole CLI), the others
  // through runCli in this process: the same parsing.
  for (const argv of [['--bogus'], ['--root'], ['extra', 'words'], ['--no-snapshot=yes']]) {
    const args = ['hook', 'claude', ...argv];
    const input = payload(root, 'Stop');
    const r =
      argv[0] === '--bogus'
        ? cli(args, { cwd: root, input, env: off })
        : await cliInProcess(args, { cwd: root, input, env: off });
    expectNoStack(r);
    expect([argv.join(' '), r.code]).toEqual([argv.join(' '), 1]);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  }
});

test('events stepchain does not record are accepted silently (exit 0, nothing written)', async () => {
  const root = project();
  // Issue 22 records SubagentStop and PostCompact (they were in this list): a SubagentStop without agent_id is
  // still nothing to record.
  for (const ev of ['PreToolUse', 'Notification', 'SubagentStop']) {
    const r = await hookIn(payload(root, ev), root);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
  }
  expect(existsSync(path.join(root, '.sdd'))).toBe(false);
});

test('the project root is found from the payload cwd: a subdirectory records into its project', async () => {
  const root = project();
  mkdirSync(path.join(root, 'src', 'deep'), { recursive: true });
  const r = await hookIn(tool(path.join(root, 'src', 'deep'), 'toolu_a'), dir);
  expect([r.code, r.stderr]).toEqual([0, '']);
  expect(readVerifiedJournal(journalFile(root, AGENT)).steps).toBe(1);
  expect(existsSync(path.join(root, 'src', 'deep', '.sdd'))).toBe(false);
});

test('the prompt of a step is the one its prompt_id names; another prompt id records none', async () => {
  const root = project();
  expect((await hookIn(payload(root, 'UserPromptSubmit', { prompt_id: 'p1', prompt: 'Fix the bug' }), root)).code).toBe(
    0,
  );
  expect((await hookIn(tool(root, 'toolu_1'), root)).code).toBe(0);
  expect((await hookIn(tool(root, 'toolu_2', { prompt_id: 'p2' }), root)).code).toBe(0);
  const rows = readVerifiedJournal(journalFile(root, AGENT)).entries.map((e) => e.row);
  expect(rows.map((r) => r.prompt)).toEqual(['Fix the bug', null]);
  expect(rows[0]!.tool_call).toEqual({ id: 'toolu_1', input: { command: 'echo toolu_1' }, name: 'Bash' });
  expect(rows[0]!.tool_result).toEqual({ stdout: 'toolu_1', stderr: '' });
  // The run journal has the prompt as an event, after the capability.
  const run = readRunJournalFile(runJournalFile(root, AGENT));
  expect(run.entries.map((e) => e.row.event)).toEqual(['provider_state_capability', 'prompt']);
});

test('a tampered journal is never extended: the hook exits 1 naming the line, and keeps the payload in the CAS', async () => {
  const root = project();
  expect((await hookIn(tool(root, 'toolu_1'), root)).code).toBe(0);
  const file = journalFile(root, AGENT);
  const before = readFileSync(file, 'utf8').replace('echo toolu_1', 'echo toolu_X');
  writeFileSync(file, before);
  const input = tool(root, 'toolu_2');
  const r = await hookIn(input, root);
  expectNoStack(r);
  expect(r.code).toBe(1);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toContain(`${file}:1`);
  const digest = sha256Hex(Buffer.from(input));
  expect(r.stderr).toContain(`kept as ${digest}`);
  expect(new Cas(casDir(root)).get(digest)?.toString()).toBe(input);
  expect(readFileSync(file, 'utf8')).toBe(before);
});

test('a broken run journal does not stop steps from being recorded', async () => {
  const root = project();
  expect((await hookIn(payload(root, 'SessionStart', { source: 'startup' }), root)).code).toBe(0);
  const run = runJournalFile(root, AGENT);
  writeFileSync(run, readFileSync(run, 'utf8').replace('"startup"', '"resume"'));
  const stop = await hookIn(payload(root, 'Stop', { last_assistant_message: 'done' }), root);
  expect(stop.code).toBe(1);
  expect(stop.stderr).toMatch(/run event stop not recorded in the run journal .*journal\.jsonl:2/);
  expect((await hookIn(tool(root, 'toolu_1'), root)).code).toBe(0);
  expect(readVerifiedJournal(journalFile(root, AGENT)).steps).toBe(1);
});

test('one compaction is one mutation: PreCompact chains it, SessionStart(compact) only its event', async () => {
  const root = project();
  expect((await hookIn(payload(root, 'SessionStart', { source: 'startup' }), root)).code).toBe(0);
  expect((await hookIn(payload(root, 'PreCompact', { trigger: 'auto', custom_instructions: null }), root)).code).toBe(
    0,
  );
  expect((await hookIn(payload(root, 'SessionStart', { source: 'compact', model: 'm' }), root)).code).toBe(0);
  // A compaction whose PreCompact was not recorded is still chained, at SessionStart(compact), trigger unknown.
  expect((await hookIn(payload(root, 'SessionStart', { source: 'compact' }), root)).code).toBe(0);
  const rows = readRunJournalFile(runJournalFile(root, AGENT)).entries.map((e) => e.row);
  expect(rows.map((r) => r.event)).toEqual([
    'provider_state_capability',
    'session_start',
    'provider_state_mutation',
    'session_start',
    'provider_state_mutation',
    'session_start',
  ]);
  expect(Object.fromEntries(rows[3]!.payload)).toEqual({ source: 'compact', model: 'm' });
  const m = (i: number) => Object.fromEntries(rows[i]!.payload);
  expect(m(2)).toMatchObject({ mutation_kind: 'compact_boundary', step_index: 0, flagged: false });
  expect(m(2).after_digest).toBe(sha256Hex(Buffer.from(canonical({ trigger: 'auto' }))));
  expect(m(4)).toMatchObject({ mutation_kind: 'compact_boundary', step_index: 1 });
  expect(m(4).after_digest).toBe(sha256Hex(Buffer.from(canonical({}))));
  // What the hooks wrote, read by runCli in this process (the hooks, the subject, ran as processes).
  expect((await cliInProcess(['run', 'verify', AGENT], { cwd: root })).code).toBe(0);
});

test('outside a git repository a step is recorded without a snapshot', async () => {
  const root = freshDir(dir, 'plain');
  const r = await hookIn(tool(root, 'toolu_1'), root);
  expect([r.code, r.stderr]).toEqual([0, '']);
  expect(readVerifiedJournal(journalFile(root, AGENT)).steps).toBe(1);
});

test('property: any tool input and response round-trips into the step, and the library never throws', () => {
  const root = freshDir(dir, 'prop');
  let expected = 0;
  fc.assert(
    fc.property(
      fc.jsonValue({ maxDepth: 6 }),
      fc.jsonValue({ maxDepth: 6 }),
      fc.constantFrom('PostToolUse', 'PostToolUseFailure', 'Stop', 'Bogus'),
      (input, response, event) => {
        const bytes = Buffer.from(
          JSON.stringify({
            session_id: SID,
            cwd: root,
            hook_event_name: event,
            tool_name: 'T',
            tool_use_id: `toolu_${expected}`,
            tool_input: input,
            tool_response: response,
            error: 'e',
          }),
        );
        const out = handleClaudeHook(bytes, { env: off, snapshot: false });
        expect(out.errors).toEqual([]);
        if (event === 'PostToolUse' || event === 'PostToolUseFailure') {
          expected++;
          expect(canonical(out.row!.tool_call as JsonValue)).toBe(
            canonical({ id: `toolu_${expected - 1}`, input: parse(JSON.stringify(input)), name: 'T' }),
          );
          if (event === 'PostToolUse')
            expect(canonical(out.row!.tool_result as JsonValue)).toBe(canonical(parse(JSON.stringify(response))));
        }
      },
    ),
    { numRuns: 40 },
  );
  expect(readVerifiedJournal(journalFile(root, AGENT)).steps).toBe(expected);
});

test('a real session whose recording fails everywhere still runs to the end: hooks exit 1, never 2', async () => {
  const binary = claudeBinary();
  const root = project();
  const home = path.join(dir, 'home-broken');
  const bin = stepchainBin(path.join(dir, 'bin'));
  // The install through runCli in this process: the hooks Claude Code starts from it are the processes in question.
  expect((await cliInProcess(['init', 'claude'], { cwd: root })).code).toBe(0);
  // Neither journals nor run journals can be created: their directories are files.
  mkdirSync(path.join(root, '.sdd', 'runtime'), { recursive: true });
  writeFileSync(path.join(root, '.sdd', 'runtime', 'journal'), 'not a directory');
  writeFileSync(path.join(root, '.sdd', 'runs'), 'not a directory');
  const server = await startScriptedServer({
    'Write it.': [{ tools: [{ name: 'Bash', input: { command: 'echo done > out.txt' } }] }, { text: 'Written.' }],
  });
  try {
    const r = await runClaude({
      binary,
      cwd: root,
      home,
      port: server.port,
      prompt: 'Write it.',
      binDir: bin,
      env: off,
    });
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(root, 'out.txt'), 'utf8')).toBe('done\n');
    expect(r.events.find((e) => e.type === 'result')).toMatchObject({ is_error: false, result: 'Written.' });
    // stream-json reports the SessionStart hook; the transcript records every hook's non-blocking failure.
    const start = r.events.find((e) => e.subtype === 'hook_response' && e.hook_event === 'SessionStart');
    expect(start).toMatchObject({ exit_code: 1 });
    const transcript = path.join(
      home,
      '.claude',
      'projects',
      root.replace(/[^A-Za-z0-9]/g, '-'),
      `${r.sessionId}.jsonl`,
    );
    const attachments = readFileSync(transcript, 'utf8')
      .split('\n')
      .filter((l) => l.includes('hook_'))
      .map((l) => (JSON.parse(l) as { attachment?: { type: string; hookEvent: string; stderr: string } }).attachment)
      .filter((a) => a !== undefined && a.type.startsWith('hook_'));
    expect(attachments.map((a) => a!.type)).not.toContain('hook_blocking_error');
    const failed = attachments.filter((a) => a!.type === 'hook_non_blocking_error');
    // Issue 22 installs PostToolBatch too: its hook fails the same way.
    expect(failed.map((a) => a!.hookEvent)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PostToolUse',
      'PostToolBatch',
      'Stop',
    ]);
    expect(failed[2]!.stderr).toMatch(
      /stepchain: hook claude: step not recorded in claude-.*; its payload is kept as [0-9a-f]{64}/,
    );
    // In the words of every other message, naming the file in the way (it was Node's `ENOTDIR: ..., stat '...'`).
    expect(failed[2]!.stderr).toContain(`${path.join(root, '.sdd', 'runtime', 'journal')} is a file, not a directory`);
    expect(failed[2]!.stderr).not.toMatch(/ENOTDIR: not a directory/);
    expect(readdirSync(casDir(root)).length).toBeGreaterThan(0);
  } finally {
    await server.close();
  }
});

test('the session state (raw prompts) is 0600 in a 0700 directory, as private as the journals (issue 20)', async () => {
  const root = project();
  const stateDir = path.join(root, '.sdd', 'runtime', 'claude');
  mkdirSync(stateDir, { recursive: true, mode: 0o755 });
  chmodSync(stateDir, 0o755); // as an earlier version left it
  expect(
    (await hookIn(payload(root, 'UserPromptSubmit', { prompt_id: 'p1', prompt: 'the secret plan' }), root)).code,
  ).toBe(0);
  const file = path.join(stateDir, `${SID}.json`);
  expect(readFileSync(file, 'utf8')).toContain('the secret plan');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(stateDir).mode & 0o777).toBe(0o700);
});

test('Claude Code names the project in the environment: a payload cwd elsewhere does not move the record (issue 20)', async () => {
  const started = project();
  const other = project();
  mkdirSync(path.join(other, '.sdd'));
  // The agent ran `cd` into another project: the payload's cwd follows it, CLAUDE_PROJECT_DIR does not.
  const r = await hookIn(tool(other, 'toolu_1'), started, { ...off, CLAUDE_PROJECT_DIR: started });
  expect([r.code, r.stderr]).toEqual([0, '']);
  expect(readVerifiedJournal(journalFile(started, AGENT)).steps).toBe(1);
  expect(existsSync(journalFile(other, AGENT))).toBe(false);
});

test('the model is read only from where Claude Code keeps the session, never from a path the payload names (issue 20)', async () => {
  const root = project();
  const home = freshDir(dir, 'home');
  const entry = JSON.stringify({
    type: 'assistant',
    uuid: 'a1',
    parentUuid: null,
    sessionId: SID,
    message: { id: 'm1', role: 'assistant', model: 'claude-from-file', content: [{ type: 'tool_use', id: 'toolu_1' }] },
  });
  const own = path.join(home, '.claude', 'projects', 'any-dir', `${SID}.jsonl`);
  const elsewhere = path.join(freshDir(dir, 'elsewhere'), 'projects', 'any-dir', `${SID}.jsonl`);
  for (const f of [own, elsewhere]) {
    mkdirSync(path.dirname(f), { recursive: true });
    writeFileSync(f, `${entry}\n`);
  }
  const env = { ...off, HOME: home, CLAUDE_CONFIG_DIR: '' };
  expect((await hookIn(tool(root, 'toolu_1', { transcript_path: elsewhere }), root, env)).code).toBe(0);
  expect((await hookIn(tool(root, 'toolu_1', { transcript_path: own }), root, env)).code).toBe(0);
  const rows = readVerifiedJournal(journalFile(root, AGENT)).entries.map((e) => e.row);
  expect(rows.map((r) => r.model)).toEqual([null, 'claude-from-file']);
});
