import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { handlerHash, planCodexInit, planTrust, type TrustedHandler } from '../src/agents/codex';
import { cliPath } from './helpers/paths';
import { python } from './helpers/python';
import { tempDir } from './helpers/tmp';

/**
 * What `init <agent>` does with the user's own files when they are not what it expects: a FIFO where a settings
 * or config file should be (init must refuse it, not wait for a writer forever), and Codex's config.toml holding a
 * trust table already, in any layout (the edit must leave TOML that Python reads, every other value kept).
 */
const dir = tempDir('stepchain-agents-hostile-');

function initAgent(agent: string, root: string, home: string): { code: number | null; stderr: string } {
  const r = spawnSync(
    process.execPath,
    [cliPath, 'init', agent, '--root', root, '--command', `stepchain hook ${agent}`],
    {
      env: { ...process.env, STEPCHAIN_AUDIT: 'off', HOME: home, CODEX_HOME: home },
      encoding: 'utf8',
      // A read that blocks on the FIFO never returns: the process is killed and the test fails on its code.
      timeout: 30_000,
      killSignal: 'SIGKILL',
    },
  );
  return { code: r.status, stderr: r.stderr };
}

test.each([
  ['codex', 'codex-home/config.toml'],
  ['codex', 'project/.codex/hooks.json'],
  ['claude', 'project/.claude/settings.json'],
])('init %s: a FIFO at %s is refused, naming it; init does not wait on it', (agent, rel) => {
  const base = path.join(dir, `fifo-${agent}-${path.basename(rel)}`);
  const root = path.join(base, 'project');
  const home = path.join(base, 'codex-home');
  mkdirSync(root, { recursive: true });
  mkdirSync(home, { recursive: true });
  const fifo = path.join(base, rel);
  mkdirSync(path.dirname(fifo), { recursive: true });
  execFileSync('mkfifo', [fifo]);
  const r = initAgent(agent, root, home);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(`${fifo}: cannot read: it is a FIFO, not a regular file`);
});

const KEY = '/p/.codex/hooks.json:post_tool_use:0:0';
const want: TrustedHandler[] = [{ event: 'PostToolUse', key: KEY, hash: 'sha256:aa' }];
const header = `[hooks.state."${KEY}"]`;

test.each([
  ['a header that ends the file, with no line end', `model = "x"\n${header}`],
  ['a header with a comment that ends the file', `model = "x"\n${header} # approved later`],
  ['a header and a key of its own, no line end', `model = "x"\n${header}\nenabled = true`],
  ['a CRLF file', `model = "x"\r\n${header}\r\n\r\n[tui]\r\nx = 1\r\n`],
  ['a stale hash, no line end', `${header}\ntrusted_hash = "sha256:00"`],
])(
  'a trust table already there (%s) is completed in place: Python reads the result, every other value kept',
  (_, text) => {
    const after = planTrust('c', text, want, []).after;
    const read = (t: string): Record<string, unknown> =>
      JSON.parse(python('import json,sys,tomllib\nprint(json.dumps(tomllib.loads(sys.stdin.read())))', t)) as Record<
        string,
        unknown
      >;
    const before = read(text) as { hooks: { state: Record<string, Record<string, unknown>> } };
    const expected = structuredClone(before);
    expected.hooks.state[KEY] = { ...before.hooks.state[KEY], trusted_hash: 'sha256:aa' };
    expect(read(after)).toEqual(expected);
    // Planned again, nothing is left to change.
    expect(planTrust('c', after, want, []).after).toBe(after);
  },
);

test('an edit that would leave a key with two tables (a file Codex cannot read) is refused, naming the file', () => {
  const twice = `${header}\nenabled = true\n\n${header}\nx = 1\n`;
  expect(() => planTrust('c', twice, want, [])).toThrow(/^c: the trust of .* could not be written as one table/);
});

test("init codex --remove moves the trust of the user's own hook that followed stepchain's, so it still runs", () => {
  const root = path.join(dir, 'moved', 'project');
  const home = path.join(dir, 'moved', 'codex-home');
  mkdirSync(root, { recursive: true });
  mkdirSync(home, { recursive: true });
  const env = { ...process.env, CODEX_HOME: home, HOME: home };
  const init = (remove: boolean) => planCodexInit({ root, cwd: root, env, remove, command: 'stepchain hook codex' });
  init(false).write();
  // The user adds a hook of their own after stepchain's, and approves it in Codex (its trust at group 1).
  const hooksFile = path.join(root, '.codex', 'hooks.json');
  const doc = JSON.parse(readFileSync(hooksFile, 'utf8')) as { hooks: Record<string, unknown[]> };
  doc.hooks.PostToolUse!.push({ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo mine' }] });
  writeFileSync(hooksFile, JSON.stringify(doc, null, 2));
  const key = (g: number) => `${realpathSync(hooksFile)}:post_tool_use:${g}:0`;
  const hash = handlerHash('PostToolUse', 'Bash', 'echo mine', 600);
  const config = path.join(home, 'config.toml');
  writeFileSync(
    config,
    `${readFileSync(config, 'utf8')}\n[hooks.state.${JSON.stringify(key(1))}]\ntrusted_hash = "${hash}"\n`,
  );
  const plan = init(true);
  plan.write();
  expect(plan.notes.join('\n')).toContain('the trust you gave 1 of your own hook moved with it');
  // Only the user's hook is left, now group 0: its trust is there, under the key Codex now gives it.
  const state = JSON.parse(
    python('import json,sys,tomllib\nprint(json.dumps(tomllib.load(open(sys.argv[1],"rb"))))', '', [config]),
  ) as { hooks: { state: Record<string, unknown> } };
  expect(state.hooks.state).toEqual({ [key(0)]: { trusted_hash: hash } });
});

// A repository can commit any directory on the way to a hook file as a link (`.github` -> somewhere outside):
// init writes nothing through it, for the agents whose file sits two directories down as for the others.
test.each([
  ['copilot', '.github', '.github/hooks/stepchain.json'],
  ['copilot', '.github/hooks', '.github/hooks/stepchain.json'],
  ['opencode', '.opencode', '.opencode/plugins/stepchain.js'],
  ['claude', '.claude', '.claude/settings.json'],
  ['gemini', '.gemini', '.gemini/settings.json'],
  ['codex', '.codex', '.codex/hooks.json'],
])('init %s: a link at %s is refused, naming it; nothing is written where it points', (agent, linkRel, fileRel) => {
  const base = path.join(dir, `link-${agent}-${linkRel.replace(/\//g, '_')}`);
  const root = path.join(base, 'project');
  const home = path.join(base, 'home');
  const outside = path.join(base, 'outside');
  for (const d of [root, home, outside]) mkdirSync(d, { recursive: true });
  execFileSync('git', ['init', '-q', root]);
  mkdirSync(path.dirname(path.join(root, linkRel)), { recursive: true });
  symlinkSync(outside, path.join(root, linkRel));
  for (const args of [[], ['--remove']]) {
    const r = spawnSync(
      process.execPath,
      [cliPath, 'init', agent, '--root', root, '--command', `stepchain hook ${agent}`, ...args],
      { env: { ...process.env, STEPCHAIN_AUDIT: 'off', HOME: home, CODEX_HOME: home }, encoding: 'utf8' },
    );
    expect(r.stderr).toContain(`${path.join(root, linkRel)}: is a symlink; refusing to follow it`);
    expect(r.status).not.toBe(0);
  }
  expect(readdirSync(outside)).toEqual([]);
  expect(existsSync(path.join(root, fileRel))).toBe(false);
});

// Node's recursive mkdir goes back to the parent on every ENOENT, and under /proc a mkdir says ENOENT with its parent
// there: init and the hook, making their directories, never returned. Each now ends, naming the directory.
test('init and hook under /proc end with one line naming the directory they could not make, never a hang', () => {
  const run = (args: string[], input?: string) =>
    spawnSync(process.execPath, [cliPath, ...args], {
      env: { ...process.env, STEPCHAIN_AUDIT: 'off', HOME: dir },
      encoding: 'utf8',
      input: input ?? '',
      timeout: 60_000,
      killSignal: 'SIGKILL',
    });
  const init = run(['init', 'claude', '--root', '/proc', '--command', 'stepchain hook claude']);
  expect(init.error).toBeUndefined(); // not killed by the timeout
  expect(init.stderr).toBe('stepchain: /proc/.claude: cannot create directory: no such file or directory (ENOENT)\n');
  expect(init.status).toBe(2);
  const project = path.join(dir, 'proc-hook');
  mkdirSync(project, { recursive: true });
  const payload = JSON.stringify({
    hook_event_name: 'PostToolUse',
    session_id: 's1',
    cwd: project,
    tool_name: 'Bash',
    tool_input: {},
    tool_response: {},
    tool_use_id: 't1',
  });
  // /proc exists (a root that does not is refused before anything is made: hook.missing-root); its .sdd cannot be made.
  const hook = run(['hook', 'claude', '--root', '/proc', '--no-snapshot'], payload);
  expect(hook.error).toBeUndefined();
  expect(hook.stderr).toContain('/proc/.sdd: cannot create directory: no such file or directory (ENOENT)');
  expect(hook.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(hook.status).toBe(1);
});
