import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pluginSource, PROC_WAIT, PS_WAIT } from '../src/agents/opencode/plugin';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { initRepo } from './helpers/git';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/** `hook opencode` on payloads its plugin did not send as it should, and the plugin's text, without the agent. */
const dir = tempDir('stepchain-opencode-hook-');
const root = path.join(dir, 'project');
initRepo(root, { 'README.md': '# p\n' });

/** `stepchain hook opencode` as the plugin starts it: a process (its exit code, its streams). */
const hook = (payload: unknown) =>
  cli(['hook', 'opencode', '--no-snapshot'], { cwd: dir, input: JSON.stringify(payload), env: { HOME: dir } });
/**
 * The same through runCli in this process (`cliInProcess`, the code the bundle runs), for what the hook and `init`
 * decide: a Node start per call was most of those tests' time. The first refusal keeps a real process, the plugin's
 * tests below start the hooks as OpenCode's process would, and opencode.session runs `init opencode` as a process.
 */
const hookIn = (payload: unknown) =>
  cliInProcess(['hook', 'opencode', '--no-snapshot'], { cwd: dir, input: JSON.stringify(payload), env: { HOME: dir } });
const initIn = (args: string[]) => cliInProcess(['init', 'opencode', ...args], { cwd: root, env: { HOME: dir } });

test('a payload without an absolute directory, or with an unsafe session id, is refused: exit 1, nothing written', async () => {
  for (const [payload, why, i] of [
    [{ hook_event_name: 'session.idle', session_id: 'ses_1', directory: 'project' }, 'no absolute directory', 0],
    [{ hook_event_name: 'session.idle', session_id: '../../x', directory: root }, 'unsafe session_id', 1],
    [{ hook_event_name: 'session.idle', directory: root }, 'no session_id', 2],
  ] as const) {
    const r = i === 0 ? hook(payload) : await hookIn(payload);
    expectNoStack(r);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(why);
  }
});

test('the step of a tool call records the directory the plugin names, whatever the process cwd', async () => {
  const r = await hookIn({
    hook_event_name: 'tool.execute.after',
    session_id: 'ses_x1',
    directory: root,
    call_id: 'call_1',
    tool: 'bash',
    args: { command: 'false' },
    output: { title: 'false', output: '', metadata: { exit: 1, output: '', truncated: false } },
    prompt: 'p',
    model: 'm',
  });
  expect(r.code).toBe(0);
  const rows = readVerifiedJournal(journalFile(root, 'opencode-ses_x1')).entries.map((e) => e.row);
  expect(rows.map((x) => [x.tool_call, x.tool_result, x.prompt, x.model])).toEqual([
    [
      { id: 'call_1', input: { command: 'false' }, name: 'bash' },
      { exit_code: 1, metadata: { exit: 1, output: '', truncated: false }, output: '', title: 'false' },
      'p',
      'm',
    ],
  ]);
});

test('init opencode --command: the command is a JS string literal of the plugin, and must run the hook', async () => {
  const text = pluginSource(`npx "stepchain" hook opencode # it's`);
  expect(text).toContain(`const COMMAND = "npx \\"stepchain\\" hook opencode # it's";`);
  const bad = await initIn(['--command', 'echo hi']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('does not run `stepchain hook opencode`');
  const ok = await initIn(['--command', 'npx stepchain hook opencode']);
  expect(ok.code).toBe(0);
  expect(readFileSync(path.join(root, '.opencode', 'plugins', 'stepchain.js'), 'utf8')).toContain(
    'const COMMAND = "npx stepchain hook opencode";',
  );
  const again = await initIn(['--json']);
  expect(JSON.parse(again.stdout)).toMatchObject({ changed: true, updated: ['plugin'] });
});

test("the plugin as OpenCode's process exits: what it queued is written in order, the hook in flight first, then the stop", () => {
  // `opencode run` exits as its session goes idle or fails, not awaiting the plugin's `event` handler: events still
  // queued were lost, and a hook in flight landed after the stop. The generated plugin, in a Node process standing
  // in for OpenCode's (the plugin needs nothing but node:child_process), exits with one hook in flight and two queued.
  const project = initRepo(path.join(dir, 'exiting'), { 'README.md': '# p\n' });
  const plugin = path.join(dir, 'exiting-plugin.mjs');
  writeFileSync(
    plugin,
    pluginSource(`${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)} hook opencode --no-snapshot`),
  );
  const host = `
    const hooks = await (await import(${JSON.stringify(plugin)})).StepchainRecorder({ directory: ${JSON.stringify(project)} });
    const sid = 'ses_exit';
    await hooks['chat.message']({ sessionID: sid }, { parts: [{ type: 'text', text: 'hi' }], message: { model: { modelID: 'm' } } });
    const part = (callID) => ({ event: { type: 'message.part.updated', properties: { part: { type: 'tool', sessionID: sid, callID, tool: 'bash', state: { status: 'error', input: {}, error: 'boom' } } } } });
    hooks.event(part('c1'));
    hooks.event(part('c2'));
    hooks.event({ event: { type: 'session.error', properties: { sessionID: sid, error: {} } } });
    hooks.event({ event: { type: 'message.part.updated', properties: { part: { type: 'tool', state: { status: 'error' } } } } });
    process.exit(1);
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', host], {
    encoding: 'utf8',
    env: { ...process.env, HOME: dir },
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(1);
  const steps = readVerifiedJournal(journalFile(project, 'opencode-ses_exit')).entries.map((e) => e.row.tool_call);
  expect(steps).toEqual([expect.objectContaining({ id: 'c1' }), expect.objectContaining({ id: 'c2' })]);
  const events = readRunJournalFile(runJournalFile(project, 'opencode-ses_exit')).entries.map((e) => [
    e.row.event,
    Object.fromEntries(e.row.payload),
  ]);
  expect(events.map(([event]) => event)).toEqual(['provider_state_capability', 'prompt', 'error', 'stop']);
  expect(events[3]![1]).toEqual({ on: 'process.exit' });
});

describe("the plugin's wait for the hook in flight, by /proc (Linux) and by ps (where there is no /proc)", () => {
  /** Process `pid`'s state as ps reports it ('' when there is no such process). */
  const state = (pid: number): string =>
    spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim();

  test.each([
    ['/proc', PROC_WAIT],
    ['ps', PS_WAIT],
  ])(
    '%s: it returns once the process has ended (a zombie: its parent reaps no more), at once for one gone',
    (_, wait) => {
      const waitFor = (pid: number) =>
        spawnSync('/bin/sh', ['-c', wait, 'sh', String(pid)], { stdio: 'ignore', timeout: 20_000 });
      // A child this process does not reap while it is blocked below: a zombie once it ends.
      const child = spawn('sleep', ['0.5'], { stdio: 'ignore' });
      const pid = child.pid!;
      expect(state(pid)).toMatch(/^[SR]/); // running when the wait starts
      const r = waitFor(pid);
      expect(r.error).toBeUndefined(); // not the timeout
      expect(state(pid)).toMatch(/^Z/); // it ended (this process has not reaped it yet)
      // A zombie: the wait returns (it does not wait for a reaping that never comes).
      expect(waitFor(pid).error).toBeUndefined();
      return new Promise<void>((resolve) =>
        child.on('exit', () => {
          setImmediate(() => {
            // Reaped: no such process any more.
            expect(state(pid)).toBe('');
            expect(waitFor(pid).error).toBeUndefined();
            resolve();
          });
        }),
      );
    },
  );

  test('/proc: a process whose name holds ") Z " is waited for until it ends (its state is read after the name)', () => {
    // /proc/<pid>/stat is `pid (name) state ...`, the name as the process has it (any bytes, spaces and parentheses
    // too): a match of ") Z " anywhere took a live process named so for a zombie, and the wait ended at once.
    const named = path.join(dir, 'x) Z y');
    copyFileSync(spawnSync('sh', ['-c', 'command -v sleep'], { encoding: 'utf8' }).stdout.trim(), named);
    chmodSync(named, 0o755);
    const child = spawn(named, ['0.5'], { stdio: 'ignore' });
    const pid = child.pid!;
    expect(readFileSync(`/proc/${pid}/stat`, 'latin1')).toContain(`${pid} (x) Z y) `);
    expect(state(pid)).toMatch(/^[SR]/);
    const r = spawnSync('/bin/sh', ['-c', PROC_WAIT, 'sh', String(pid)], { stdio: 'ignore', timeout: 20_000 });
    expect(r.error).toBeUndefined();
    expect(state(pid)).toMatch(/^Z/); // it ended before the wait returned (not reaped yet)
    return new Promise<void>((resolve) => child.on('exit', () => resolve()));
  });
});

test("a payload is written once: what a tool reported is not serialized twice in OpenCode's process", () => {
  // Every event's payload was stringified to learn whether it could be, then again to be sent: twice the work, in
  // OpenCode's own event loop, for a tool output of megabytes. A toJSON counts how often it is written.
  const project = initRepo(path.join(dir, 'once'), { 'README.md': '# p\n' });
  const plugin = path.join(dir, 'once-plugin.mjs');
  writeFileSync(
    plugin,
    pluginSource(`${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)} hook opencode --no-snapshot`),
  );
  const host = `
    const hooks = await (await import(${JSON.stringify(plugin)})).StepchainRecorder({ directory: ${JSON.stringify(project)} });
    let written = 0;
    const args = { command: { toJSON() { written++; return 'ls'; } } };
    await hooks['tool.execute.after'](
      { sessionID: 'ses_once', callID: 'c1', tool: 'bash', args },
      { title: 't', output: 'o', metadata: {} },
    );
    console.log(JSON.stringify({ written }));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', host], {
    encoding: 'utf8',
    env: { ...process.env, HOME: dir },
    timeout: 60_000,
  });
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)).toEqual({ written: 1 });
  const rows = readVerifiedJournal(journalFile(project, 'opencode-ses_once')).entries.map((e) => e.row);
  expect(rows.map((row) => row.tool_call)).toEqual([{ id: 'c1', input: { command: 'ls' }, name: 'bash' }]);
});

test('a value JSON cannot write in what a tool reported costs that value only: the call and every later one are recorded', () => {
  // A tool's metadata or arguments can hold a BigInt or a cycle (a plugin's own tool): JSON.stringify threw in the
  // plugin, the rejection reached OpenCode, and the plugin's queue, rejected, skipped every event after it.
  const project = initRepo(path.join(dir, 'unwritable'), { 'README.md': '# p\n' });
  const plugin = path.join(dir, 'unwritable-plugin.mjs');
  writeFileSync(
    plugin,
    pluginSource(`${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)} hook opencode --no-snapshot`),
  );
  const host = `
    const hooks = await (await import(${JSON.stringify(plugin)})).StepchainRecorder({ directory: ${JSON.stringify(project)} });
    const sid = 'ses_unwritable';
    const cyclic = { exit: 3 };
    cyclic.self = cyclic;
    const after = (callID, args, metadata) =>
      hooks['tool.execute.after']({ sessionID: sid, callID, tool: 'bash', args }, { title: 't', output: 'o', metadata });
    const said = [];
    for (const [id, args, metadata] of [['c1', { n: 1n }, {}], ['c2', {}, cyclic], ['c3', { n: 1 }, { exit: 0 }]]) {
      try {
        await after(id, args, metadata);
        said.push('ok');
      } catch (e) {
        said.push(String(e));
      }
    }
    console.log(JSON.stringify(said));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', host], {
    encoding: 'utf8',
    env: { ...process.env, HOME: dir },
    timeout: 60_000,
  });
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)).toEqual(['ok', 'ok', 'ok']);
  const rows = readVerifiedJournal(journalFile(project, 'opencode-ses_unwritable')).entries.map((e) => e.row);
  expect(rows.map((row) => row.tool_call)).toEqual([
    { id: 'c1', input: { n: { unserializable: 'Do not know how to serialize a BigInt' } }, name: 'bash' },
    { id: 'c2', input: {}, name: 'bash' },
    { id: 'c3', input: { n: 1 }, name: 'bash' },
  ]);
  const cyclicResult = rows[1]!.tool_result as Record<string, unknown>;
  expect(cyclicResult.output).toBe('o');
  expect(Object.keys(cyclicResult.metadata as object)).toEqual(['exit', 'self']);
  expect(rows[2]!.tool_result).toEqual({ exit_code: 0, metadata: { exit: 0 }, output: 'o', title: 't' });
});
