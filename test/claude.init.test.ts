import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { planClaudeSettings, writeClaudeSettings } from '../src/agents/claude';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { claudeBinary, runClaude, startScriptedServer, stepchainBin } from './helpers/claude';
import { initRepo } from './helpers/git';
import { python3 } from './helpers/python';
import { freshDir, tempDir } from './helpers/tmp';

// The real binary starts once per session and runs a Node process per hook: slow on a loaded machine.
jest.setTimeout(180_000);

const dir = tempDir('stepchain-claude-init-');
let n = 0;
// Issue 22 changes this list explicitly: subagents (SubagentStart/SubagentStop), PostToolBatch and PostCompact are
// recorded too, so `init claude` installs them.
const EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'Stop',
  'SessionEnd',
];

function project(): string {
  return freshDir(dir);
}

/** `init claude` runs in this process (its logic is the point here; a Node start per call was most of this file's
 * time); the first test's first install runs it as a process (its exit code, its streams). */
const init = (root: string, args: string[] = [], env?: NodeJS.ProcessEnv) =>
  cliInProcess(['init', 'claude', ...args], { cwd: root, ...(env === undefined ? {} : { env }) });
const settingsOf = (root: string) => path.join(root, '.claude', 'settings.json');

/**
 * Hook commands per event, as Python's json module reads the file. One python3 for the file, asked a path a line (a
 * python3 started per call was 16 starts, ~0.7 s of the file's CPU); a file it cannot read is an error, as before.
 */
const READER = `import json,sys
for line in sys.stdin:
    try:
        d=json.load(open(json.loads(line)))
        r={"ok":{e:[h["command"] for g in gs for h in g["hooks"]] for e,gs in d.get("hooks",{}).items()}}
    except Exception as x:
        r={"error":repr(x)}
    print(json.dumps(r),flush=True)`;
let reader: { child: ChildProcessWithoutNullStreams; waiting: ((line: string) => void)[] } | undefined;

function commands(file: string): Promise<Record<string, string[]>> {
  if (reader === undefined) {
    const child = spawn(python3(), ['-c', READER]);
    const r = { child, waiting: [] as ((line: string) => void)[] };
    createInterface({ input: child.stdout }).on('line', (l) => r.waiting.shift()?.(l));
    // A reader that ended answers whatever still waits with why (else the test would wait out its time).
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('close', (code) => {
      for (const w of r.waiting.splice(0)) w(JSON.stringify({ error: `python3 exited ${code}: ${stderr}` }));
    });
    reader = r;
  }
  const r = reader;
  return new Promise((resolve, reject) => {
    r.waiting.push((l) => {
      const got = JSON.parse(l) as { ok?: Record<string, string[]>; error?: string };
      if (got.ok === undefined) reject(new Error(`python3 could not read ${file}: ${got.error}`));
      else resolve(got.ok);
    });
    r.child.stdin.write(`${JSON.stringify(file)}\n`);
  });
}

afterAll(async () => {
  const child = reader?.child;
  if (child === undefined || child.exitCode !== null) return;
  const ended = new Promise((resolve) => child.on('exit', resolve));
  child.stdin.end();
  await ended;
});

test('a project without settings gets them, with a diff; a second run changes nothing', async () => {
  const root = project();
  const r = cli(['init', 'claude'], { cwd: root });
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^--- \/dev\/null\n\+\+\+ .*settings\.json\n@@ -0,0 \+1,\d+ @@\n\+\{/);
  expect(r.stdout).toContain(`stepchain's hooks were added to .claude/settings.json for ${EVENTS.join(', ')}`);
  const text = readFileSync(settingsOf(root), 'utf8');
  expect(await commands(settingsOf(root))).toEqual(
    Object.fromEntries(EVENTS.map((e) => [e, ['stepchain hook claude']])),
  );
  const again = await init(root);
  expect([again.code, again.stdout]).toEqual([
    0,
    ".claude/settings.json: stepchain's hooks are already installed; unchanged\n",
  ]);
  expect(readFileSync(settingsOf(root), 'utf8')).toBe(text);
});

test('every other setting and hook is kept, in its order and indentation; --remove gives the file back byte for byte', async () => {
  const root = project();
  const original = `{
    "permissions": {
        "allow": ["Bash(npm test:*)"]
    },
    "hooks": {
        "PostToolUse": [
            {
                "matcher": "Write|Edit",
                "hooks": [
                    {
                        "type": "command",
                        "command": "prettier --write \\"$CLAUDE_FILE\\""
                    }
                ]
            }
        ],
        "Notification": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "notify-send claude"
                    }
                ]
            }
        ]
    },
    "zeta": 1.0,
    "10": 12345678901234567890,
    "name": "café"
}
`.replace(/\["Bash\(npm test:\*\)"\]/, '[\n            "Bash(npm test:*)"\n        ]');
  mkdirSync(path.join(root, '.claude'));
  writeFileSync(settingsOf(root), original);
  const r = await init(root);
  expect(r.code).toBe(0);
  // Only additions.
  const changes = r.stdout.split('\n').filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+) /.test(l));
  expect(changes.filter((l) => l.startsWith('-') && l.trim() !== '-')).toEqual([]);
  const after = readFileSync(settingsOf(root), 'utf8');
  expect(after).toContain('\n    "permissions": {\n        "allow": [');
  expect(after).toMatch(/"zeta": 1\.0,\n {4}"10": 12345678901234567890,\n {4}"name": "café"\n\}\n$/);
  const cmds = await commands(settingsOf(root));
  expect(cmds.PostToolUse).toEqual(['prettier --write "$CLAUDE_FILE"', 'stepchain hook claude']);
  expect(cmds.Notification).toEqual(['notify-send claude']);
  for (const e of EVENTS) expect(cmds[e]).toContain('stepchain hook claude');

  const removed = await init(root, ['--remove']);
  expect(removed.code).toBe(0);
  expect(removed.stdout).toContain("stepchain's hooks were removed from .claude/settings.json");
  expect(readFileSync(settingsOf(root), 'utf8')).toBe(original);
  expect((await init(root, ['--remove'])).stdout).toContain('no stepchain hooks to remove; unchanged');
});

test('--settings, --dry-run, --command and --json', async () => {
  const root = project();
  const local = path.join(root, '.claude', 'settings.local.json');
  const dry = await init(root, ['--settings', '.claude/settings.local.json', '--dry-run']);
  expect(dry.code).toBe(0);
  expect(dry.stdout).toContain("stepchain's hooks would be added");
  expect(existsSync(local)).toBe(false);
  const r = await init(root, [
    '--settings',
    '.claude/settings.local.json',
    '--command',
    'npx stepchain hook claude',
    '--json',
  ]);
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout) as Record<string, unknown>;
  expect(doc).toMatchObject({ file: local, changed: true, written: true, removed: false, events: EVENTS, updated: [] });
  expect((await commands(local)).Stop).toEqual(['npx stepchain hook claude']);
  // Re-running with another command updates stepchain's entries, and only them.
  const upd = await init(root, ['--settings', local, '--command', 'stepchain hook claude --no-snapshot', '--json']);
  expect(JSON.parse(upd.stdout)).toMatchObject({ changed: true, events: [], updated: EVENTS });
  expect((await commands(local)).Stop).toEqual(['stepchain hook claude --no-snapshot']);
  const bad = await init(root, ['--command', 'rm -rf /']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('does not run `stepchain hook claude`');
});

test('warns when the hooks could not run: no stepchain on the PATH, or Claude Code started elsewhere', async () => {
  // No `stepchain` on this PATH: the default command would fail in every hook, so say so (still installed, exit 0).
  const root = project();
  const bare = { PATH: path.dirname(process.execPath) };
  const r = await init(root, ['--json'], bare);
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout) as { warnings: string[]; written: boolean };
  expect(doc.written).toBe(true);
  expect(doc.warnings).toHaveLength(1);
  expect(doc.warnings[0]).toMatch(/no `stepchain` on this PATH/);
  expect(r.stderr).toMatch(
    /^stepchain: init claude: warning: no `stepchain` on this PATH.*--command "npx stepchain hook claude"/,
  );
  // With one on the PATH, or an explicit --command, nothing to warn about.
  const withBin = { PATH: `${stepchainBin(path.join(dir, 'bin'))}${path.delimiter}${bare.PATH}` };
  const quiet = await init(project(), [], withBin);
  expect([quiet.code, quiet.stderr]).toEqual([0, '']);
  const explicit = await init(project(), ['--command', 'npx stepchain hook claude'], bare);
  expect([explicit.code, explicit.stderr]).toEqual([0, '']);
  // From a subdirectory the project root's settings are written, and Claude Code must be started there.
  const top = project();
  mkdirSync(path.join(top, '.sdd'));
  mkdirSync(path.join(top, 'sub', 'deeper'), { recursive: true });
  const sub = await cliInProcess(['init', 'claude'], { cwd: path.join(top, 'sub', 'deeper'), env: withBin });
  expect(sub.code).toBe(0);
  expect(existsSync(settingsOf(top))).toBe(true);
  expect(sub.stderr).toContain(`only when started in ${top}: start \`claude\` there`);
});

describe('a settings file stepchain cannot merge into is left alone', () => {
  const cases: [string, string, number, RegExp][] = [
    ['not JSON', '{\n  "hooks": {\n    "Stop": [,]\n  }\n}\n', 2, /settings\.json:3: not JSON/],
    ['not an object', '[]\n', 2, /settings file is not a JSON object/],
    ['hooks not an object', '{"hooks": []}\n', 2, /"hooks" is not an object; not the Claude Code hook settings format/],
    ['an event not a list', '{"hooks": {"Stop": {}}}\n', 2, /"hooks\.Stop" is not a list/],
    ['a group without hooks', '{"hooks": {"Stop": [{"matcher": ""}]}}\n', 2, /has no "hooks" list/],
  ];
  test.each(cases)('%s', async (_name, text, code, message) => {
    const root = project();
    mkdirSync(path.join(root, '.claude'));
    writeFileSync(settingsOf(root), text);
    const r = await init(root);
    expectNoStack(r);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(readFileSync(settingsOf(root), 'utf8')).toBe(text);
  });

  test('a symlinked settings file or .claude directory', async () => {
    const root = project();
    const elsewhere = path.join(dir, `elsewhere${n++}`);
    mkdirSync(elsewhere);
    writeFileSync(path.join(elsewhere, 'settings.json'), '{}\n');
    symlinkSync(elsewhere, path.join(root, '.claude'));
    const r = await init(root);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\.claude: is a symlink; refusing to follow it/);
    expect(readFileSync(path.join(elsewhere, 'settings.json'), 'utf8')).toBe('{}\n');
  });
});

test("with the real binary, the user's own hook still runs beside stepchain's", async () => {
  const root = initRepo(project(), { 'README.md': 'x\n' });
  const log = path.join(dir, `user-hook-${n++}.log`);
  mkdirSync(path.join(root, '.claude'));
  writeFileSync(
    settingsOf(root),
    JSON.stringify(
      {
        hooks: {
          PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `cat >> ${JSON.stringify(log)}` }] }],
        },
      },
      null,
      2,
    ) + '\n',
  );
  // The install in this process (the first test runs it as a process): the hooks Claude Code starts are the point.
  expect((await init(root)).code).toBe(0);
  const server = await startScriptedServer({
    'Run it.': [{ tools: [{ name: 'Bash', input: { command: 'echo ran' } }] }, { text: 'Ran.' }],
  });
  try {
    const r = await runClaude({
      binary: claudeBinary(),
      cwd: root,
      home: path.join(dir, 'home'),
      port: server.port,
      prompt: 'Run it.',
      binDir: stepchainBin(path.join(dir, 'bin')),
      env: { STEPCHAIN_AUDIT: 'off' },
    });
    expect(r.code).toBe(0);
    expect(readFileSync(log, 'utf8')).toContain('"tool_name":"Bash"');
    expect(readVerifiedJournal(journalFile(root, `claude-${r.sessionId}`)).steps).toBe(1);
  } finally {
    await server.close();
  }
});

describe('--remove gives back the original bytes, whatever their formatting (issue 20)', () => {
  // One-line files as editors and tools write them, with and without a final newline, and indented ones.
  const originals: [string, string][] = [
    ['empty object', '{}'],
    ['empty object, newline', '{}\n'],
    ['compact', '{"permissions":{"allow":["Bash(npm test:*)"]},"model":"sonnet"}'],
    ['compact, newline', '{"permissions":{"allow":["Bash"]}}\n'],
    ['python json.dumps', '{"permissions": {"allow": ["Bash"]}, "n": 1.50, "big": 12345678901234567890}\n'],
    ['padded braces', '{ "env": { "A": "1" } }\n'],
    ['escapes kept', '{"name":"caf\\u00e9 \\"x\\"","path":"a\\/b"}'],
    [
      'one line with hooks of its own',
      '{"hooks":{"PostToolUse":[{"matcher":"Write|Edit","hooks":[{"type":"command","command":"prettier -w ."}]}],' +
        '"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}\n',
    ],
    ['tabs', '{\n\t"model": "opus",\n\t"hooks": {\n\t\t"Notification": []\n\t}\n}\n'],
    ['CRLF', '{\r\n  "model": "opus"\r\n}\r\n'],
  ];
  test.each(originals)('%s', async (_name, original) => {
    const root = project();
    mkdirSync(path.join(root, '.claude'));
    writeFileSync(settingsOf(root), original);
    const r = await init(root);
    expect(r.code).toBe(0);
    // What Claude Code reads: every event runs the hook, the user's settings are all still there.
    const cmds = await commands(settingsOf(root));
    for (const e of EVENTS) expect(cmds[e]).toContain('stepchain hook claude');
    const before = JSON.parse(original) as Record<string, unknown>;
    const after = JSON.parse(readFileSync(settingsOf(root), 'utf8')) as Record<string, unknown>;
    for (const k of Object.keys(before).filter((k) => k !== 'hooks')) expect(after[k]).toEqual(before[k]);
    expect((await init(root)).stdout).toContain('already installed; unchanged');
    const removed = await init(root, ['--remove']);
    expect(removed.code).toBe(0);
    expect(readFileSync(settingsOf(root), 'utf8')).toBe(original);
  });

  test('property: any settings object in any of the usual layouts round-trips byte for byte', () => {
    const key = fc.string({ minLength: 1, maxLength: 6 }).filter((k) => k !== 'hooks' && k !== '__proto__');
    const settings = fc.dictionary(key, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });
    const userGroup = fc.record({
      matcher: fc.constantFrom('Bash', 'Write|Edit', ''),
      hooks: fc.array(
        fc.record({ type: fc.constant('command'), command: fc.constantFrom('say hi', 'prettier -w .') }),
        {
          minLength: 1,
          maxLength: 2,
        },
      ),
    });
    // (An empty `hooks` object or event list is the one thing --remove does not give back: it cannot tell it from
    // one that only stepchain's entry made, and leaves neither.)
    const userHooks = fc.dictionary(
      fc.constantFrom(...EVENTS, 'Notification'),
      fc.array(userGroup, { minLength: 1, maxLength: 2 }),
      { minKeys: 1 },
    );
    const layout = fc.constantFrom<(v: unknown) => string>(
      (v) => JSON.stringify(v),
      (v) => JSON.stringify(v) + '\n',
      (v) => JSON.stringify(v, null, 2) + '\n',
      (v) => JSON.stringify(v, null, 4),
      (v) => JSON.stringify(v, null, '\t') + '\n',
    );
    const root = project();
    mkdirSync(path.join(root, '.claude'));
    const file = settingsOf(root);
    fc.assert(
      fc.property(settings, fc.option(userHooks, { nil: undefined }), layout, (s, hooks, show) => {
        const original = show(hooks === undefined ? s : { ...s, hooks });
        writeFileSync(file, original);
        const install = planClaudeSettings(file);
        expect(install.changed).toBe(true);
        writeClaudeSettings(install);
        const installed = JSON.parse(install.after) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
        for (const e of EVENTS)
          expect(installed.hooks[e]!.flatMap((g) => g.hooks.map((h) => h.command))).toContain('stepchain hook claude');
        expect(planClaudeSettings(file).changed).toBe(false);
        const remove = planClaudeSettings(file, { remove: true });
        expect(remove.after).toBe(original);
      }),
      { numRuns: 150 },
    );
  });
});

describe('only an entry that runs the hook for every occurrence counts as installed (issue 20)', () => {
  const entry = (command: string, extra: Record<string, unknown> = {}) => ({ type: 'command', command, ...extra });
  /** Every event already has a good entry, except what `override` says. */
  function settingsWith(override: Record<string, unknown>): string {
    const hooks: Record<string, unknown> = {};
    for (const e of EVENTS)
      hooks[e] = [
        { ...(e.startsWith('PostToolUse') ? { matcher: '*' } : {}), hooks: [entry('stepchain hook claude')] },
      ];
    return JSON.stringify({ hooks: { ...hooks, ...override } }, null, 2) + '\n';
  }
  /** For each event, the matchers of the groups that run exactly the hook. */
  function ours(file: string): Record<string, (string | null)[]> {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as {
      hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]>;
    };
    return Object.fromEntries(
      Object.entries(doc.hooks).map(([e, gs]) => [
        e,
        gs.filter((g) => g.hooks.some((h) => h.command === 'stepchain hook claude')).map((g) => g.matcher ?? null),
      ]),
    );
  }

  const everything: [string, Record<string, unknown>][] = [
    ['matcher "*"', { PostToolUse: [{ matcher: '*', hooks: [entry('stepchain hook claude')] }] }],
    ['matcher ""', { PostToolUse: [{ matcher: '', hooks: [entry('stepchain hook claude')] }] }],
    ['matcher ".*"', { PostToolUse: [{ matcher: '.*', hooks: [entry('stepchain hook claude')] }] }],
    ['no matcher', { PostToolUse: [{ hooks: [entry('stepchain hook claude')] }] }],
    ['a timeout', { PostToolUse: [{ matcher: '*', hooks: [entry('stepchain hook claude', { timeout: 60 })] }] }],
    [
      'a matcher on Stop, which Claude Code ignores',
      { Stop: [{ matcher: 'x', hooks: [entry('stepchain hook claude')] }] },
    ],
  ];
  test.each(everything)('%s: installed, unchanged', async (_name, override) => {
    const root = project();
    mkdirSync(path.join(root, '.claude'));
    writeFileSync(settingsOf(root), settingsWith(override));
    const r = await init(root);
    expect([r.code, r.stdout]).toEqual([
      0,
      ".claude/settings.json: stepchain's hooks are already installed; unchanged\n",
    ]);
  });

  const cannot: [string, Record<string, unknown>, RegExp][] = [
    [
      'a PostToolUse matcher that matches no tool',
      { PostToolUse: [{ matcher: 'NoSuchTool', hooks: [entry('stepchain hook claude'), entry('say hi')] }] },
      /PostToolUse: its matcher "NoSuchTool" does not match every tool/,
    ],
    [
      'a PostToolUseFailure matcher for one tool',
      { PostToolUseFailure: [{ matcher: 'Bash', hooks: [entry('stepchain hook claude')] }] },
      /PostToolUseFailure: its matcher "Bash" does not match every tool/,
    ],
    [
      'a SessionStart matcher for one source',
      { SessionStart: [{ matcher: 'startup', hooks: [entry('stepchain hook claude')] }] },
      /SessionStart: its matcher "startup" does not match every occurrence/,
    ],
    [
      'a condition on the entry',
      { PostToolUse: [{ matcher: '*', hooks: [entry('stepchain hook claude', { if: 'Bash(git *)' })] }] },
      /PostToolUse: the entry has "if", which may keep it from running/,
    ],
  ];
  test.each(cannot)('%s: repaired, saying why', async (_name, override, why) => {
    const root = project();
    mkdirSync(path.join(root, '.claude'));
    writeFileSync(settingsOf(root), settingsWith(override));
    const r = await init(root);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('already installed');
    expect(r.stdout).toMatch(/stepchain's entries were repaired for/);
    expect(r.stdout).toMatch(why);
    const matchers = ours(settingsOf(root));
    for (const e of EVENTS) expect(matchers[e]).toEqual([e.startsWith('PostToolUse') ? '*' : null]);
    // The user's own hooks stay where they were.
    if (JSON.stringify(override).includes('say hi'))
      expect((await commands(settingsOf(root))).PostToolUse).toContain('say hi');
    expect((await init(root)).stdout).toContain('already installed; unchanged');
  });

  test('a command that only mentions the hook (echo) is made the hook command', async () => {
    const root = project();
    mkdirSync(path.join(root, '.claude'));
    writeFileSync(
      settingsOf(root),
      settingsWith({ PostToolUse: [{ matcher: '*', hooks: [entry('echo stepchain hook claude')] }] }),
    );
    const r = await init(root, ['--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ changed: true, events: [], updated: ['PostToolUse'], repaired: [] });
    expect(doc.findings).toEqual([
      'PostToolUse: the entry runs "echo stepchain hook claude", not "stepchain hook claude"',
    ]);
    expect((await commands(settingsOf(root))).PostToolUse).toEqual(['stepchain hook claude']);
  });

  test('"disableAllHooks": true is reported: no hook runs', async () => {
    const root = project();
    mkdirSync(path.join(root, '.claude'));
    writeFileSync(settingsOf(root), '{"disableAllHooks": true}\n');
    const r = await init(root, ['--json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { warnings: string[] }).warnings[0]).toMatch(
      /sets "disableAllHooks": true: Claude Code runs none of its hooks/,
    );
  });
});
