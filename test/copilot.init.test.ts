import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exitCodeOf } from '../src/agents/copilot/hook';
import { findOpenCall } from '../src/agents/copilot/transcript';
import { folderTrust } from '../src/agents/copilot/home';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { cli, expectNoStack } from './helpers/cli';
import { tempDir } from './helpers/tmp';
import { agentProject } from './helpers/project';

/** `init copilot` on files a user already has, and the hook's reading of Copilot's own files, without the agent. */
const dir = tempDir('stepchain-copilot-init-');
function project(files: Record<string, string> = {}): { root: string; home: string; file: string } {
  const { root, home } = agentProject(dir, { 'README.md': '# p\n', ...files });
  return { root, home, file: path.join(root, '.github', 'hooks', 'stepchain.json') };
}

const sc = (args: string[], root: string, home: string) =>
  cli(args, { cwd: root, env: { HOME: home, PATH: process.env.PATH ?? '' } });

const USER_FILE = `{"version": 1,
 "hooks": {"PreToolUse": [{"type": "command", "bash": "./guard.sh", "timeoutSec": 5}],
           "PostToolUse": [{"type": "command", "bash": "./log.sh"}]},
 "note": "mine"}
`;

test('init copilot keeps every other hook and key, is idempotent, and --remove gives the bytes back', () => {
  const p = project({ '.github/hooks/stepchain.json': USER_FILE });
  const r = sc(['init', 'copilot'], p.root, p.home);
  expect(r.code).toBe(0);
  const doc = JSON.parse(readFileSync(p.file, 'utf8')) as { note: string; hooks: Record<string, unknown[]> };
  expect(doc.note).toBe('mine');
  expect(doc.hooks.PreToolUse).toEqual([{ type: 'command', bash: './guard.sh', timeoutSec: 5 }]);
  expect(doc.hooks.PostToolUse).toEqual([
    { type: 'command', bash: './log.sh' },
    { type: 'command', bash: 'stepchain hook copilot' },
  ]);
  expect(doc.hooks.SessionEnd).toEqual([{ type: 'command', bash: 'stepchain hook copilot' }]);
  const once = readFileSync(p.file, 'utf8');
  expect(sc(['init', 'copilot'], p.root, p.home).stdout).toContain('already installed; unchanged');
  expect(readFileSync(p.file, 'utf8')).toBe(once);
  const rm = sc(['init', 'copilot', '--remove', '--json'], p.root, p.home);
  expect(JSON.parse(rm.stdout)).toMatchObject({ removed: true, changed: true });
  expect(readFileSync(p.file, 'utf8')).toBe(USER_FILE);
});

test('an entry of ours with another command is updated; one with an env it may not record under is repaired', () => {
  const p = project({
    '.github/hooks/stepchain.json': JSON.stringify({
      version: 1,
      hooks: {
        PostToolUse: [{ type: 'command', bash: 'npx stepchain hook copilot' }],
        Stop: [{ type: 'command', bash: 'stepchain hook copilot', env: { PATH: '/nowhere' } }],
      },
    }),
  });
  const r = sc(['init', 'copilot', '--json'], p.root, p.home);
  const out = JSON.parse(r.stdout) as { updated: string[]; repaired: string[]; findings: string[] };
  expect(out.updated).toEqual(['PostToolUse']);
  expect(out.repaired).toEqual(['Stop']);
  const doc = JSON.parse(readFileSync(p.file, 'utf8')) as { hooks: Record<string, unknown[]> };
  expect(doc.hooks.PostToolUse).toEqual([{ type: 'command', bash: 'stepchain hook copilot' }]);
  expect(doc.hooks.Stop).toEqual([{ type: 'command', bash: 'stepchain hook copilot' }]);
});

test('a file of another shape is refused, naming it; a symlinked one is not followed; nothing is written', () => {
  const v2 = project({ '.github/hooks/stepchain.json': '{"version": 2, "hooks": {}}\n' });
  const r2 = sc(['init', 'copilot'], v2.root, v2.home);
  expectNoStack(r2);
  expect(r2.code).toBe(2);
  expect(r2.stderr).toContain(`${v2.file}: "version" is 2, not 1`);
  const bad = project({ '.github/hooks/stepchain.json': '{"version": 1,\n "hooks": [\n' });
  const rb = sc(['init', 'copilot'], bad.root, bad.home);
  expect(rb.code).toBe(2);
  expect(rb.stderr).toContain(`${bad.file}:`);
  expect(readFileSync(bad.file, 'utf8')).toBe('{"version": 1,\n "hooks": [\n');
  const link = project();
  mkdirSync(path.dirname(link.file), { recursive: true });
  writeFileSync(path.join(link.root, 'elsewhere.json'), '{}');
  symlinkSync(path.join(link.root, 'elsewhere.json'), link.file);
  const rl = sc(['init', 'copilot'], link.root, link.home);
  expect(rl.code).toBe(1);
  expect(rl.stderr).toContain('symlink');
  expect(readFileSync(path.join(link.root, 'elsewhere.json'), 'utf8')).toBe('{}');
});

test('folder trust is read as Copilot keeps it: comment lines, a trusted folder above, COPILOT_HOME', () => {
  const home = path.join(dir, 'trust-home');
  mkdirSync(path.join(home, '.copilot'), { recursive: true });
  const config = path.join(home, '.copilot', 'config.json');
  expect(folderTrust('/srv/p', { HOME: home })).toMatchObject({ trusted: false });
  writeFileSync(config, '// managed\n{"trustedFolders": ["/srv"]}\n');
  expect(folderTrust('/srv/p', { HOME: home })).toEqual({ trusted: true });
  expect(folderTrust('/srvx', { HOME: home })).toMatchObject({ trusted: false });
  expect(folderTrust('/srv/p', { HOME: home, COPILOT_HOME: path.join(dir, 'none') })).toMatchObject({ trusted: false });
});

test('the exit code is the one of the line Copilot appends, and only that', () => {
  expect(exitCodeOf('hello\n<shellId: 0 completed with exit code 0>')).toBe(0);
  expect(exitCodeOf('oops\n<shellId: 1 completed with exit code 3>\n')).toBe(3);
  expect(exitCodeOf('x\n<detached command with shellId: 7 completed with exit code -1>')).toBe(-1);
  expect(exitCodeOf('x\n<shellId: 1 completed with exit code 2>\n<sandbox is active here>')).toBe(2);
  // Output that merely contains such a line, followed by anything else, has no exit code.
  expect(exitCodeOf('<shellId: 1 completed with exit code 0>\nstill running')).toBeUndefined();
  expect(exitCodeOf('Created file /x with 8 characters')).toBeUndefined();
  expect(exitCodeOf('')).toBeUndefined();
});

test('the call id: the one open call with those arguments; none when two are open, or the log is a link or a FIFO', () => {
  const log = path.join(dir, 'events.jsonl');
  const start = (id: string, command: string) =>
    JSON.stringify({
      type: 'tool.execution_start',
      data: { toolCallId: id, toolName: 'bash', arguments: { command }, model: 'm' },
    });
  const done = (id: string) => JSON.stringify({ type: 'tool.execution_complete', data: { toolCallId: id } });
  writeFileSync(log, [start('c1', 'ls'), done('c1'), start('c2', 'ls'), '{"torn'].join('\n'));
  expect(findOpenCall(log, { command: 'ls' }, { tries: 1 })).toEqual({ match: { id: 'c2', model: 'm' } });
  writeFileSync(log, [start('c1', 'ls'), start('c2', 'ls')].join('\n'));
  expect(findOpenCall(log, { command: 'ls' }, { tries: 2, pauseMs: 1 })).toMatchObject({
    problem: expect.stringContaining('2 open calls'),
  });
  const link = path.join(dir, 'events-link.jsonl');
  symlinkSync(log, link);
  expect(findOpenCall(link, { command: 'ls' }, { tries: 1 })).toMatchObject({
    problem: expect.stringContaining('symbolic link'),
  });
  const fifo = path.join(dir, 'events-fifo.jsonl');
  execFileSync('mkfifo', [fifo]);
  expect(findOpenCall(fifo, { command: 'ls' }, { tries: 1 })).toMatchObject({
    problem: expect.stringContaining('FIFO'),
  });
});

test('hook copilot with a session log that is a FIFO: the step is recorded without a call id, never hanging', () => {
  const p = project();
  const sid = '0b6c1c5e-2f1c-4a7e-9d55-5a1f1c2b3d4e';
  const state = path.join(p.home, '.copilot', 'session-state', sid);
  mkdirSync(state, { recursive: true });
  execFileSync('mkfifo', [path.join(state, 'events.jsonl')]);
  const payload = {
    hook_event_name: 'PostToolUse',
    session_id: sid,
    cwd: p.root,
    tool_name: 'Bash',
    tool_input: { command: 'true' },
    tool_result: { result_type: 'success', text_result_for_llm: '<shellId: 0 completed with exit code 0>' },
  };
  const r = cli(['hook', 'copilot', '--no-snapshot'], {
    cwd: p.root,
    input: JSON.stringify(payload),
    env: { HOME: p.home, COPILOT_PROJECT_DIR: p.root },
  });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain('the step names no call id');
  const rows = readVerifiedJournal(journalFile(p.root, `copilot-${sid}`)).entries.map((e) => e.row);
  expect(rows.map((x) => x.tool_call)).toEqual([{ id: null, input: { command: 'true' }, name: 'Bash' }]);
  expect(rows[0]!.tool_result).toMatchObject({ exit_code: 0 });
});

test('hook copilot refuses a session id that is not safe as a path, exit 1, nothing written', () => {
  const p = project();
  const r = cli(['hook', 'copilot'], {
    cwd: p.root,
    input: JSON.stringify({ hook_event_name: 'SessionStart', session_id: '../x', cwd: p.root }),
    env: { HOME: p.home },
  });
  expectNoStack(r);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('unsafe session_id');
});
