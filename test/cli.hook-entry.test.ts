import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { runCli } from '../src/cli/main';
import { runCaptured } from '../src/cli/in-process';
import { hookCommands } from '../src/cli/commands/hooks';
import { AGENT_HOOKS } from '../src/agents/hooks';
import { AGENTS } from '../src/agents/registry';
import { journalFile } from '../src/journal';
import { snapshotRefFor } from '../src/git';
import { VERSION } from '../src/version';
import { git, initRepo } from './helpers/git';
import { cliPath } from './helpers/paths';
import { writeCompileCounter } from './helpers/proc';
import { tempDir } from './helpers/tmp';

/**
 * `stepchain hook <agent>` runs the hook entry (src/cli/hook-entry.ts), a small
 * program of the bin, instead of the whole CLI: an agent starts it on every tool
 * call. What it prints and its exit code must be what the whole CLI would give
 * for the same command line, on every path; and it must really compile only the
 * small program when it takes the command line.
 */
const tmp = tempDir('stepchain-hook-entry-');
const root = initRepo(path.join(tmp, 'repo'), { 'a.txt': 'a\n' });
const env: NodeJS.ProcessEnv = { ...process.env, STEPCHAIN_AUDIT: 'off' };
delete env.CLAUDE_PROJECT_DIR;

/** A preload that reports the size of every program the bin compiles, on stderr. */
const preload = writeCompileCounter(path.join(tmp, 'count-compiles.cjs'), { scripts: true });

function viaBin(argv: string[], input: string, extra: string[] = [], withEnv: NodeJS.ProcessEnv = env) {
  const r = spawnSync(process.execPath, [...extra, cliPath, ...argv], {
    input,
    env: withEnv,
    cwd: root,
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const payload = (event: string, id = 's-1'): string =>
  JSON.stringify({
    hook_event_name: event,
    session_id: id,
    cwd: root,
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
    tool_response: { ok: true },
    tool_use_id: 'toolu_1',
  });

describe('the hook entry', () => {
  test("every agent in the registry is a `hook <agent>` command of the CLI, with the integration's own hook", () => {
    expect(hookCommands.length).toBeGreaterThan(0);
    for (const c of hookCommands) expect(c.name).toEqual(['hook', c.name[1]]);
    // The commands are made from src/agents/hooks.ts (so the hook entry holds no integration): the same agents,
    // in the registry's order, each with its integration's hook, names and events.
    expect(hookCommands.map((c) => c.name[1])).toEqual(AGENTS.map((a) => a.name));
    expect(AGENT_HOOKS.map((h) => [h.name, h.title, h.events, h.hook])).toEqual(
      AGENTS.map((a) => [a.name, a.title, a.events, a.hook]),
    );
  });

  test('a hook call compiles only the hook program (a small part of the bin); other commands the whole CLI', () => {
    const bin = readFileSync(cliPath).length;
    const hook = viaBin(['hook', 'claude'], payload('PostToolUse'), ['-r', preload]);
    expect(hook.code).toBe(0);
    const sizes = [...hook.stderr.matchAll(/^compiled (\d+)$/gm)].map((m) => Number(m[1]));
    expect(sizes).toHaveLength(1);
    const version = viaBin(['--version'], '', ['-r', preload]);
    const whole = [...version.stderr.matchAll(/^compiled (\d+)$/gm)].map((m) => Number(m[1]));
    expect(whole).toHaveLength(1);
    // The whole CLI is carried packed: its text is longer than the bin; the hook's a small part of it.
    expect(whole[0]).toBeGreaterThan(bin);
    expect(sizes[0]).toBeLessThan(whole[0]! / 4);
    expect(readFileSync(journalFile(root, 'claude-s-1'), 'utf8')).toContain('toolu_1');
  });

  test('a hook call loads no node:perf_hooks nor node:child_process, and ends without tearing its heap down, with its exit code', () => {
    // The `performance` global loads node:perf_hooks on first use (a cost of every call; src/util/time.ts has the
    // clocks). The snapshot's git add starts without node:child_process (src/git/quiet-process.ts). The end: once nothing is left to do, process.exit (the 'exit' listeners still run) instead of Node's
    // teardown, which 'beforeExit' precedes.
    const probe = path.join(tmp, 'probe-exit.cjs');
    writeFileSync(
      probe,
      `process.on('exit', (code) => process.stderr.write('perf_hooks ' + process.moduleLoadList.some((m) => m.includes('perf_hooks')) + ' child_process ' + process.moduleLoadList.includes('NativeModule child_process') + ' exit ' + code + ' exitCode ' + process.exitCode + '\\n'));\n`,
    );
    const ok = viaBin(['hook', 'claude'], payload('PostToolUse', 's-probe'), ['-r', probe]);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toContain('perf_hooks false child_process false exit 0 exitCode 0\n');
    // It made its snapshot (the git add ran).
    expect(git(root, ['rev-parse', '--verify', '--quiet', snapshotRefFor(root, 'claude-s-probe', 0)!])).toMatch(
      /^[0-9a-f]{40}$/,
    );
    const bad = viaBin(['hook', 'claude'], '{', ['-r', probe]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain(`perf_hooks false child_process false exit ${bad.code} exitCode ${bad.code}\n`);
  });

  test.each([
    ['a tool call', ['hook', 'claude'], payload('PostToolUse', 's-2')],
    ['an event it does not record', ['hook', 'claude'], payload('Notification')],
    ['a payload that is not JSON', ['hook', 'claude'], '{'],
    ['--help', ['hook', 'claude', '--help'], ''],
    ['-h after an option', ['hook', 'claude', '--no-snapshot', '-h'], ''],
    ['an unknown option', ['hook', 'claude', '--bogus'], payload('PostToolUse')],
    ['--json (not an option of the hook)', ['hook', 'claude', '--json'], payload('PostToolUse')],
    ['a stray argument', ['hook', 'claude', 'extra'], payload('PostToolUse')],
    ['an option missing its value', ['hook', 'claude', '--root'], payload('PostToolUse')],
    ['an unknown agent', ['hook', 'nobody'], payload('PostToolUse')],
    ['no agent', ['hook'], ''],
  ])('%s: the same output and exit code as the whole CLI', async (_what, argv, input) => {
    const bin = viaBin(argv, input);
    const inProcess = await runCaptured(runCli, argv, { cwd: root, env, stdin: Buffer.from(input) });
    expect({ code: bin.code, stdout: bin.stdout, stderr: bin.stderr }).toEqual({
      code: inProcess.code,
      stdout: inProcess.stdout,
      stderr: inProcess.stderr,
    });
  });
});

describe("the hook entry's code cache", () => {
  /** A state directory of its own, and the cache files in it. */
  function state() {
    const dir = mkdtempSync(path.join(tmp, 'state-'));
    const cacheDir = path.join(dir, 'stepchain', 'code-cache');
    const files = (): string[] =>
      existsSync(cacheDir) ? readdirSync(cacheDir).map((f) => path.join(cacheDir, f)) : [];
    return { env: { ...env, XDG_STATE_HOME: dir }, files };
  }
  let id = 100;
  const call = (e: NodeJS.ProcessEnv) =>
    viaBin(['hook', 'claude'], payload('PostToolUse', `s-${id++}`), ['-r', preload], e);

  /**
   * A state directory of its own holding the hook entry's cache as a first call leaves it: that call made once, its
   * stepchain/ copied (modes kept) for each test that starts from it (a hook process each saved).
   */
  let withCache: string | undefined;
  function cachedState() {
    if (withCache === undefined) {
      const first = state();
      expect(call(first.env).code).toBe(0);
      expect(first.files()).toHaveLength(1);
      withCache = first.env.XDG_STATE_HOME!;
    }
    const s = state();
    cpSync(path.join(withCache, 'stepchain'), path.join(s.env.XDG_STATE_HOME!, 'stepchain'), { recursive: true });
    return s;
  }

  test('the first call keeps the compiled code; the next ones compile from it', () => {
    const s = state();
    const first = call(s.env);
    expect(first.code).toBe(0);
    expect(first.stderr).not.toContain('code cache used');
    expect(s.files()).toHaveLength(1);
    const second = call(s.env);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('code cache used');
  });

  test("a session's first call and then its tool calls: the cache comes to hold each agent's and event's code", () => {
    // A session starts with SessionStart: a cache written by that call alone left every tool call after it compiling
    // the rest of its path (src/cli/code-path.ts). A path not in the cache writes it again, once.
    const s = state();
    const paths = () => {
      const bytes = readFileSync(s.files()[0]!);
      const at = bytes.indexOf(0);
      // Empty lines after the paths are the pad that aligns the code (scripts/build-launcher.mjs), no path.
      const listed = bytes.toString('latin1', at + 1, bytes.indexOf(0, at + 1)).split('\n');
      return { listed: listed.filter((p) => p !== ''), bytes };
    };
    const hook = (agent: string, event: string) =>
      viaBin(['hook', agent], payload(event, 's-paths'), ['-r', preload], s.env);
    expect(hook('claude', 'SessionStart').code).toBe(0);
    expect(s.files()).toHaveLength(1);
    expect(paths().listed).toEqual(['hook claude SessionStart']);
    const tool = hook('claude', 'PostToolUse');
    expect(tool.code).toBe(0);
    expect(tool.stderr).toContain('code cache used');
    const both = paths();
    expect(both.listed).toEqual(['hook claude SessionStart', 'hook claude PostToolUse']);
    expect(hook('claude', 'PostToolUse').stderr).toContain('code cache used');
    expect(paths().bytes.equals(both.bytes)).toBe(true);
    // Another agent's event, and an event no agent records (one name for all of them).
    expect(hook('codex', 'PostToolUse').code).toBe(0);
    expect(hook('claude', 'NoSuchEvent').code).toBe(0);
    expect(hook('claude', 'AnotherUnknown').code).toBe(0);
    expect(s.files()).toHaveLength(1);
    expect(paths().listed).toEqual([
      'hook claude SessionStart',
      'hook claude PostToolUse',
      'hook codex PostToolUse',
      'hook claude other',
    ]);
    // A step without a snapshot, a call that fails early: paths of their own (most of a step's code not run; the
    // first call after an upgrade in a project outside git must not set the code every later tool call finds).
    const noSnap = viaBin(['hook', 'claude', '--no-snapshot'], payload('PostToolUse', 's-paths'), [], s.env);
    expect(noSnap.code).toBe(0);
    const bad = viaBin(['hook', 'claude'], '{not json', [], s.env);
    expect(bad.code).toBe(1);
    expect(paths().listed.slice(4)).toEqual(['hook claude PostToolUse (no snapshot)', 'hook claude other (exit 1)']);
  });

  test('a call in a repository with packs is a path of its own: a cache made in one without comes to hold their reading', () => {
    // After git's automatic gc a session's calls read HEAD and its objects from packs: with one path for both, a
    // cache made before the gc left every call after it compiling that reading anew (src/util/code-branches.ts).
    const s = state();
    const packed = initRepo(path.join(tmp, 'packed-repo'), { 'a.txt': 'a\n' });
    git(packed, ['gc', '-q']);
    const listed = () => {
      const bytes = readFileSync(s.files()[0]!);
      const at = bytes.indexOf(0);
      return bytes
        .toString('latin1', at + 1, bytes.indexOf(0, at + 1))
        .split('\n')
        .filter((p) => p !== '');
    };
    const callIn = (dir: string, sid: string) => {
      const input = JSON.stringify({ ...JSON.parse(payload('PostToolUse', sid)), cwd: dir });
      const r = spawnSync(process.execPath, [cliPath, 'hook', 'claude'], {
        input,
        env: s.env,
        cwd: dir,
        encoding: 'utf8',
      });
      expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    };
    callIn(root, 's-loose');
    expect(listed()).toEqual(['hook claude PostToolUse']);
    callIn(packed, 's-packed');
    expect(listed()).toEqual(['hook claude PostToolUse', 'hook claude PostToolUse (packed)']);
    const both = readFileSync(s.files()[0]!);
    callIn(packed, 's-packed');
    callIn(root, 's-loose');
    expect(readFileSync(s.files()[0]!).equals(both)).toBe(true);
  });

  test('the whole CLI keeps its compiled code too, in a file of its own; the next command compiles from it', () => {
    const s = state();
    const first = viaBin(['show', '--help'], '', ['-r', preload], s.env);
    expect(first.code).toBe(0);
    expect(first.stderr).not.toContain('code cache used');
    expect(s.files().map((f) => path.basename(f))).toEqual([
      // The whole CLI is carried packed: its file holds its text too (read there instead of unpacked).
      expect.stringMatching(/^main\+text-[0-9a-f]{32}-v[\d.]+-[a-z0-9]+\.bin$/),
    ]);
    const second = viaBin(['--version'], '', ['-r', preload], s.env);
    expect(second).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    expect(second.stderr).toContain('code cache used');
    // A hook call that falls back to the whole CLI (its help) uses the same cache, beside the hook entry's own.
    const help = viaBin(['hook', 'claude', '--help'], '', ['-r', preload], s.env);
    expect(help.code).toBe(0);
    expect(help.stderr).toContain('code cache used');
    expect(s.files()).toHaveLength(2);
    const off = state();
    expect(viaBin(['--version'], '', [], { ...off.env, STEPCHAIN_CODE_CACHE: 'off' }).code).toBe(0);
    expect(off.files()).toEqual([]);
  });

  test('the verify entry keeps its compiled code in a file of its own; the next verify compiles from it', () => {
    const s = state();
    const first = viaBin(['verify', '--json', path.join(tmp, 'no-such-journal.jsonl')], '', ['-r', preload], s.env);
    expect(first.code).toBe(2);
    expect(first.stderr).not.toContain('code cache used');
    expect(s.files().map((f) => path.basename(f))).toEqual([
      expect.stringMatching(/^verify\+text-[0-9a-f]{32}-v[\d.]+-[a-z0-9]+\.bin$/),
    ]);
    const second = viaBin(['verify', '--json', path.join(tmp, 'no-such-journal.jsonl')], '', ['-r', preload], s.env);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('code cache used');
  });

  test('a cache V8 rejects (not this program) is compiled past and rewritten', () => {
    const s = cachedState();
    const [file] = s.files();
    writeFileSync(file!, Buffer.alloc(4096, 7), { mode: 0o600 });
    const r = call(s.env);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('code cache used');
    expect(readFileSync(file!).equals(Buffer.alloc(4096, 7))).toBe(false);
    expect(call(s.env).stderr).toContain('code cache used');
  });

  test('a damaged cache (bytes changed inside, V8 would run them) is compiled past and rewritten, never crashes', () => {
    const s = cachedState();
    const [file] = s.files();
    const bytes = readFileSync(file!);
    for (let i = bytes.length >> 1; i < (bytes.length >> 1) + 2000; i++) bytes[i]! ^= 0x5a;
    writeFileSync(file!, bytes, { mode: 0o600 });
    const r = call(s.env);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('code cache used');
    expect(call(s.env).stderr).toContain('code cache used');
  });

  test('a cache others can write is not used; STEPCHAIN_CODE_CACHE=off uses and writes none', () => {
    const s = cachedState();
    const [file] = s.files();
    chmodSync(file!, 0o666);
    expect(call(s.env).stderr).not.toContain('code cache used');
    const off = state();
    const r = call({ ...off.env, STEPCHAIN_CODE_CACHE: 'off' });
    expect(r.code).toBe(0);
    expect(off.files()).toEqual([]);
  });

  test('a cache in a directory others can write, or reached through one, is not used', () => {
    const s = cachedState();
    expect(call(s.env).stderr).toContain('code cache used');
    // The state directory itself writable by others (not sticky): they could put their own stepchain/ there.
    chmodSync(s.env.XDG_STATE_HOME!, 0o777);
    expect(call(s.env).stderr).not.toContain('code cache used');
    chmodSync(s.env.XDG_STATE_HOME!, 0o700);
    // stepchain/ a link (made by whoever could write the state directory) to a tree of this user's own files.
    const linked = mkdtempSync(path.join(tmp, 'state-'));
    symlinkSync(path.join(s.env.XDG_STATE_HOME!, 'stepchain'), path.join(linked, 'stepchain'));
    chmodSync(linked, 0o777);
    expect(call({ ...s.env, XDG_STATE_HOME: linked }).stderr).not.toContain('code cache used');
  });

  test('a relative XDG_STATE_HOME is not a state directory (it would be the project, which a repository fills)', () => {
    const s = cachedState();
    // A repository that carries a cache where a relative state directory would find it.
    cpSync(path.join(s.env.XDG_STATE_HOME!, 'stepchain'), path.join(root, 'state', 'stepchain'), { recursive: true });
    const home = mkdtempSync(path.join(tmp, 'home-'));
    const r = call({ ...s.env, HOME: home, XDG_STATE_HOME: 'state' });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('code cache used');
    expect(existsSync(path.join(home, '.local', 'state', 'stepchain', 'code-cache'))).toBe(true);
  });
});
