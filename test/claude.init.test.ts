import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { cli, expectNoStack } from './helpers/cli';
import { claudeBinary, runClaude, startScriptedServer, stepchainBin } from './helpers/claude';
import { initRepo } from './helpers/git';
import { python } from './helpers/python';
import { tempDir } from './helpers/tmp';

// The real binary starts once per session and runs a Node process per hook: slow on a loaded machine.
jest.setTimeout(180_000);

const dir = tempDir('stepchain-claude-init-');
let n = 0;
const EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PostToolUse',
  'PostToolUseFailure',
  'PreCompact',
  'Stop',
  'SessionEnd',
];

function project(): string {
  const root = path.join(dir, `p${n++}`);
  mkdirSync(root, { recursive: true });
  return root;
}

const init = (root: string, args: string[] = [], env?: NodeJS.ProcessEnv) =>
  cli(['init', 'claude', ...args], { cwd: root, ...(env === undefined ? {} : { env }) });
const settingsOf = (root: string) => path.join(root, '.claude', 'settings.json');

/** Hook commands per event, as Python's json module reads the file. */
function commands(file: string): Record<string, string[]> {
  return JSON.parse(
    python(
      `import json,sys
d=json.load(open(sys.argv[1]))
print(json.dumps({e:[h["command"] for g in gs for h in g["hooks"]] for e,gs in d.get("hooks",{}).items()}))`,
      '',
      [file],
    ),
  ) as Record<string, string[]>;
}

test('a project without settings gets them, with a diff; a second run changes nothing', () => {
  const root = project();
  const r = init(root);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^--- \/dev\/null\n\+\+\+ .*settings\.json\n@@ -0,0 \+1,\d+ @@\n\+\{/);
  expect(r.stdout).toContain(`stepchain's hooks were added to .claude/settings.json for ${EVENTS.join(', ')}`);
  const text = readFileSync(settingsOf(root), 'utf8');
  expect(commands(settingsOf(root))).toEqual(Object.fromEntries(EVENTS.map((e) => [e, ['stepchain hook claude']])));
  const again = init(root);
  expect([again.code, again.stdout]).toEqual([
    0,
    ".claude/settings.json: stepchain's hooks are already installed; unchanged\n",
  ]);
  expect(readFileSync(settingsOf(root), 'utf8')).toBe(text);
});

test('every other setting and hook is kept, in its order and indentation; --remove gives the file back byte for byte', () => {
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
  const r = init(root);
  expect(r.code).toBe(0);
  // Only additions.
  const changes = r.stdout.split('\n').filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+) /.test(l));
  expect(changes.filter((l) => l.startsWith('-') && l.trim() !== '-')).toEqual([]);
  const after = readFileSync(settingsOf(root), 'utf8');
  expect(after).toContain('\n    "permissions": {\n        "allow": [');
  expect(after).toMatch(/"zeta": 1\.0,\n {4}"10": 12345678901234567890,\n {4}"name": "café"\n\}\n$/);
  const cmds = commands(settingsOf(root));
  expect(cmds.PostToolUse).toEqual(['prettier --write "$CLAUDE_FILE"', 'stepchain hook claude']);
  expect(cmds.Notification).toEqual(['notify-send claude']);
  for (const e of EVENTS) expect(cmds[e]).toContain('stepchain hook claude');

  const removed = init(root, ['--remove']);
  expect(removed.code).toBe(0);
  expect(removed.stdout).toContain("stepchain's hooks were removed from .claude/settings.json");
  expect(readFileSync(settingsOf(root), 'utf8')).toBe(original);
  expect(init(root, ['--remove']).stdout).toContain('no stepchain hooks to remove; unchanged');
});

test('--settings, --dry-run, --command and --json', () => {
  const root = project();
  const local = path.join(root, '.claude', 'settings.local.json');
  const dry = init(root, ['--settings', '.claude/settings.local.json', '--dry-run']);
  expect(dry.code).toBe(0);
  expect(dry.stdout).toContain("stepchain's hooks would be added");
  expect(existsSync(local)).toBe(false);
  const r = init(root, [
    '--settings',
    '.claude/settings.local.json',
    '--command',
    'npx stepchain hook claude',
    '--json',
  ]);
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout) as Record<string, unknown>;
  expect(doc).toMatchObject({ file: local, changed: true, written: true, removed: false, events: EVENTS, updated: [] });
  expect(commands(local).Stop).toEqual(['npx stepchain hook claude']);
  // Re-running with another command updates stepchain's entries, and only them.
  const upd = init(root, ['--settings', local, '--command', 'stepchain hook claude --no-snapshot', '--json']);
  expect(JSON.parse(upd.stdout)).toMatchObject({ changed: true, events: [], updated: EVENTS });
  expect(commands(local).Stop).toEqual(['stepchain hook claude --no-snapshot']);
  const bad = init(root, ['--command', 'rm -rf /']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('does not run `stepchain hook claude`');
});

test('warns when the hooks could not run: no stepchain on the PATH, or Claude Code started elsewhere', () => {
  // No `stepchain` on this PATH: the default command would fail in every hook, so say so (still installed, exit 0).
  const root = project();
  const bare = { PATH: path.dirname(process.execPath) };
  const r = init(root, ['--json'], bare);
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
  const quiet = init(project(), [], withBin);
  expect([quiet.code, quiet.stderr]).toEqual([0, '']);
  const explicit = init(project(), ['--command', 'npx stepchain hook claude'], bare);
  expect([explicit.code, explicit.stderr]).toEqual([0, '']);
  // From a subdirectory the project root's settings are written, and Claude Code must be started there.
  const top = project();
  mkdirSync(path.join(top, '.sdd'));
  mkdirSync(path.join(top, 'sub', 'deeper'), { recursive: true });
  const sub = cli(['init', 'claude'], { cwd: path.join(top, 'sub', 'deeper'), env: withBin });
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
  test.each(cases)('%s', (_name, text, code, message) => {
    const root = project();
    mkdirSync(path.join(root, '.claude'));
    writeFileSync(settingsOf(root), text);
    const r = init(root);
    expectNoStack(r);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(readFileSync(settingsOf(root), 'utf8')).toBe(text);
  });

  test('a symlinked settings file or .claude directory', () => {
    const root = project();
    const elsewhere = path.join(dir, `elsewhere${n++}`);
    mkdirSync(elsewhere);
    writeFileSync(path.join(elsewhere, 'settings.json'), '{}\n');
    symlinkSync(elsewhere, path.join(root, '.claude'));
    const r = init(root);
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
  expect(init(root).code).toBe(0);
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
