import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { cutRollout, handleCodexHook, planTrust, type TrustedHandler } from '../src/agents/codex';
import { scanToml } from '../src/agents/codex/toml';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { python } from './helpers/python';
import { tempDir } from './helpers/tmp';
import { agentProject } from './helpers/project';

/**
 * `hook codex` on hostile payloads and rollouts, the rollout cut's refusals, and the config.toml edit against
 * Python's TOML reader (the same bytes read the same way, whatever the user's file holds).
 */
const dir = tempDir('stepchain-codex-hook-');
const SID = '01a23c97-383d-7131-9535-6ac509ff97f5';

function rollout(lines: Record<string, unknown>[]): Buffer {
  return Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}
const meta = { type: 'session_meta', payload: { id: SID, session_id: SID, cwd: '/p' } };
const call = (id: string) => ({
  type: 'response_item',
  payload: { type: 'function_call', name: 'exec_command', arguments: '{}', call_id: id },
});
const output = (id: string, code = 0) => ({
  type: 'response_item',
  payload: { type: 'function_call_output', call_id: id, output: `Process exited with code ${code}\nOutput:\nx\n` },
});

test('the cut ends with the call output, names the new session, and refuses what cannot be continued', () => {
  const NEW = 'b9bb8501-dd63-4ab3-a3f9-1d7e173e611b';
  const ok = cutRollout(rollout([meta, call('c1'), output('c1'), call('c2'), output('c2')]), 'r', SID, 'c1', NEW);
  expect(ok.line).toBe(3);
  const lines = ok.bytes.toString('utf8').trimEnd().split('\n');
  expect(lines).toHaveLength(3);
  expect(JSON.parse(lines[0]!).payload).toEqual({ id: NEW, session_id: NEW, cwd: '/p' });
  expect(ok.bytes.toString('utf8')).not.toContain(SID);

  const refuse = (lines: Record<string, unknown>[], why: RegExp, later: string[] = []) =>
    expect(() => cutRollout(rollout(lines), 'r', SID, 'c1', NEW, later)).toThrow(why);
  refuse([call('c1'), output('c1')], /r:1: the first line is not the session_meta/);
  refuse([meta, call('c1')], /no output of call c1/);
  refuse([meta, call('c1'), output('c1'), output('c1')], /appears twice/);
  // The second output spells the id with an escape: the same call, JSON-wise.
  const escaped = `${rollout([meta, call('c1'), output('c1')]).toString()}${JSON.stringify(output('c1')).replace('"c1"', '"\\u00631"')}\n`;
  expect(() => cutRollout(Buffer.from(escaped), 'r', SID, 'c1', NEW)).toThrow(/appears twice \(lines 3 and 4\)/);
  // Parallel calls: c0 still open at the cut.
  refuse([meta, call('c0'), call('c1'), output('c1'), output('c0')], /call c0 \(line 2\) has no output before the cut/);
  // The journal records c0 after c1, but its output is before the cut.
  refuse([meta, call('c0'), call('c1'), output('c0'), output('c1')], /holds the output of c0/, ['c0']);
  expect(() => cutRollout(Buffer.from(`${JSON.stringify(meta)}\nnot json\n`), 'r', SID, 'c1', NEW)).toThrow(
    /r:2: not a JSON object/,
  );
});

function payload(root: string, home: string, extra: Record<string, unknown>): Buffer {
  return Buffer.from(
    JSON.stringify({
      session_id: SID,
      turn_id: 't1',
      transcript_path: path.join(home, 'sessions', '2026', '12', '03', `rollout-2026-12-03T15-47-53-${SID}.jsonl`),
      cwd: root,
      hook_event_name: 'PostToolUse',
      model: 'gpt-test',
      tool_name: 'Bash',
      tool_input: { command: 'false' },
      tool_response: 'x\n',
      tool_use_id: 'c1',
      ...extra,
    }),
  );
}

test('the exit code comes from the rollout where Codex keeps it, and never through a link', () => {
  const { root, home } = agentProject(dir);
  const day = path.join(home, 'sessions', '2026', '12', '03');
  mkdirSync(day, { recursive: true });
  const file = path.join(day, `rollout-2026-12-03T15-47-53-${SID}.jsonl`);
  const completed = {
    type: 'event_msg',
    payload: { type: 'item_completed', item: { type: 'CommandExecution', id: 'c1', exit_code: 1 } },
  };
  writeFileSync(file, rollout([meta, call('c1'), completed]));
  const env = { CODEX_HOME: home, STEPCHAIN_AUDIT: 'off' };
  const r = handleCodexHook(payload(root, home, {}), { env, snapshot: false });
  expect(r.errors).toEqual([]);
  expect(r.row!.tool_result).toEqual({ exit_code: 1, response: 'x\n' });

  // A rollout path outside CODEX_HOME is not read: the step stands, with no exit code.
  const elsewhere = handleCodexHook(payload(root, home, { tool_use_id: 'c2', transcript_path: '/etc/passwd' }), {
    env,
    snapshot: false,
  });
  expect(elsewhere.errors).toEqual([]);
  expect(elsewhere.row!.tool_result).toEqual({ exit_code: null, response: 'x\n' });

  // A linked day directory is refused, named, and costs the step only its exit code.
  const linked = agentProject(dir);
  const real = path.join(dir, 'real-day');
  mkdirSync(real, { recursive: true });
  writeFileSync(path.join(real, `rollout-2026-12-03T15-47-53-${SID}.jsonl`), rollout([meta, call('c1'), completed]));
  mkdirSync(path.join(linked.home, 'sessions', '2026', '12'), { recursive: true });
  symlinkSync(real, path.join(linked.home, 'sessions', '2026', '12', '03'));
  const viaLink = handleCodexHook(payload(linked.root, linked.home, {}), {
    env: { CODEX_HOME: linked.home, STEPCHAIN_AUDIT: 'off' },
    snapshot: false,
  });
  expect(viaLink.errors).toEqual([]);
  expect(viaLink.row!.tool_result).toEqual({ exit_code: null, response: 'x\n' });
  expect(viaLink.warnings.join('\n')).toContain('symbolic link');
  expect(readVerifiedJournal(journalFile(linked.root, `codex-${SID}`)).steps).toBe(1);
});

test('a session id that is not safe as a path is refused; nothing is written', () => {
  const { root, home } = agentProject(dir);
  for (const sid of ['../x', '.hidden', 'a/b', 'x'.repeat(200), '']) {
    const r = handleCodexHook(payload(root, home, { session_id: sid }), { env: { CODEX_HOME: home } });
    expect(r.errors).toHaveLength(1);
    expect(r.row).toBeUndefined();
  }
});

/** Each text as Python's TOML reader reads it (null: not TOML), in one python3 process. */
const tomlJson = (texts: string[]): unknown[] =>
  JSON.parse(
    python(
      'import json,sys,tomllib\n' +
        'def read(t):\n' +
        '  try: return tomllib.loads(t)\n' +
        '  except Exception: return None\n' +
        'print(json.dumps([read(t) for t in json.load(sys.stdin)], default=str))',
      JSON.stringify(texts),
    ),
  ) as unknown[];

test('config.toml: the edit keeps every other value as Python reads it, and adding then removing gives the bytes back', () => {
  const want: TrustedHandler[] = [
    { event: 'PostToolUse', key: '/p/.codex/hooks.json:post_tool_use:0:0', hash: 'sha256:aa' },
    { event: 'Stop', key: '/p "q"\\.codex/hooks.json:stop:1:0', hash: 'sha256:bb' },
  ];
  const samples = fc.sample(
    fc.array(
      fc.oneof(
        fc.constant('model = "o4"\n'),
        fc.constant('a = [\n  [1, 2],\n  "[x]",\n]\n'),
        fc.constant("s = '''\n[hooks.state.\"no\"]\n'''\n"),
        fc.constant('# [hooks]\n'),
        fc.constant('\n'),
        fc.constant('[tui]\nnotifications = true\n'),
        fc.constant('[projects."/p"]\ntrust_level = "trusted"\n'),
        fc.constant('t = { a = 1, b = "}" }\n'),
        fc.constant('d = 1979-05-27 07:32:00Z\n'),
      ),
      { maxLength: 8 },
    ),
    60,
  );
  // Tables come last in TOML (root keys after a header would belong to it): keep the samples valid.
  const texts = samples.map(
    (parts) => parts.filter((p) => !p.startsWith('[')).join('') + parts.filter((p) => p.startsWith('[')).join(''),
  );
  const befores = tomlJson(texts);
  // A sample Python does not read (a key defined twice) is not a file Codex would have.
  const valid = texts.filter((_, i) => befores[i] !== null);
  const added = valid.map((text) => planTrust('c', text, want, []).after);
  const afters = tomlJson(added) as (Record<string, unknown> & {
    hooks: { state: Record<string, { trusted_hash: string }> };
  })[];
  let tried = 0;
  valid.forEach((text, i) => {
    tried++;
    expect(() => scanToml(text, 'c')).not.toThrow();
    const { hooks, ...rest } = afters[i]!;
    expect(rest).toEqual(befores[texts.indexOf(text)]);
    expect(hooks.state).toEqual({
      [want[0]!.key]: { trusted_hash: 'sha256:aa' },
      [want[1]!.key]: { trusted_hash: 'sha256:bb' },
    });
    expect(planTrust('c', added[i]!, want, []).after).toBe(added[i]);
    const removed = planTrust(
      'c',
      added[i]!,
      [],
      want.map((w) => w.key),
    ).after;
    expect(removed).toBe(text.length === 0 || text.endsWith('\n') ? text : `${text}\n`);
  });
  expect(tried).toBeGreaterThan(20);
});

test('an exit code past 2^53 in the call output is no exit code, never another number than the one written', () => {
  const { root, home } = agentProject(dir);
  const day = path.join(home, 'sessions', '2026', '12', '03');
  mkdirSync(day, { recursive: true });
  const file = path.join(day, `rollout-2026-12-03T15-47-53-${SID}.jsonl`);
  const env = { CODEX_HOME: home, STEPCHAIN_AUDIT: 'off' };
  const cases: [string, string, number | null][] = [
    ['c1', '99999999999999999999999', null],
    ['c2', '9007199254740993', null],
    ['c3', '-9007199254740991', -9007199254740991],
    ['c4', '255', 255],
  ];
  for (const [id, digits, want] of cases) {
    const out = {
      type: 'response_item',
      payload: {
        type: 'function_call_output',
        call_id: id,
        output: `Process exited with code ${digits}\nOutput:\nx\n`,
      },
    };
    writeFileSync(file, rollout([meta, call(id), out]));
    const r = handleCodexHook(payload(root, home, { tool_use_id: id }), { env, snapshot: false });
    expect(r.errors).toEqual([]);
    expect(r.row!.tool_result).toEqual({ exit_code: want, response: 'x\n' });
  }
});
