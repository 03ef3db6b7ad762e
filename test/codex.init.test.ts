import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { agentBinary } from './helpers/agents';
import { stepchainBin } from './helpers/claude';
import { cli } from './helpers/cli';
import { initRepo } from './helpers/git';
import { python } from './helpers/python';
import { tempDir } from './helpers/tmp';

jest.setTimeout(120_000);

/**
 * `stepchain init codex`: stepchain's hooks in `.codex/hooks.json`, and their trust in `$CODEX_HOME/config.toml`
 * as Codex itself records it, checked against what the real Codex binary (`codex app-server`, `hooks/list`)
 * reports for each hook: its key, its hash and whether it is trusted.
 */
const dir = tempDir('stepchain-codex-init-');
const bin = stepchainBin(path.join(dir, 'bin'));

interface HookInfo {
  key: string;
  command: string;
  currentHash: string;
  trustStatus: string;
  eventName: string;
}

/** What the real Codex reports for the hooks of `cwd` (`codex app-server`, `hooks/list`). */
function codexHooks(home: string, cwd: string): Promise<{ hooks: HookInfo[]; warnings: string[]; errors: unknown[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(agentBinary('codex'), ['app-server', '--disable', 'plugins'], {
      env: { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: home },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('codex app-server did not answer hooks/list'));
    }, 60_000);
    let buf = '';
    const send = (o: Record<string, unknown>): boolean => child.stdin.write(`${JSON.stringify(o)}\n`);
    child.stdout.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let msg: { id?: number; result?: { data: { hooks: HookInfo[]; warnings: string[]; errors: unknown[] }[] } };
        try {
          msg = JSON.parse(line) as typeof msg;
        } catch {
          continue;
        }
        if (msg.id === 1) {
          send({ method: 'initialized' });
          send({ id: 2, method: 'hooks/list', params: { cwds: [cwd] } });
        } else if (msg.id === 2) {
          clearTimeout(timer);
          child.kill('SIGKILL');
          resolve(msg.result!.data[0]!);
        }
      }
    });
    child.on('error', reject);
    send({ id: 1, method: 'initialize', params: { clientInfo: { name: 'stepchain-test', version: '1' } } });
  });
}

function setup(name: string, config: string | null): { root: string; home: string; config: string } {
  const root = path.join(dir, name, 'project');
  const home = path.join(dir, name, 'codex-home');
  initRepo(root, { 'README.md': '# project\n' });
  mkdirSync(home, { recursive: true });
  const file = path.join(home, 'config.toml');
  if (config !== null) writeFileSync(file, config);
  return { root, home, config: file };
}

const USER_CONFIG = [
  '# my Codex settings',
  'model = "o4-mini"  # the one I like',
  'notify = [',
  '  "notify-send",',
  '  "[not a table]",',
  ']',
  '',
  '[projects."/elsewhere"]',
  "trust_level = 'trusted'",
  '',
  '[tui]',
  'theme = """',
  '[hooks.state."looks like a header"]',
  '"""',
  '',
].join('\n');

const initCodex = (root: string, home: string, args: string[] = []) =>
  cli(['init', 'codex', '--root', root, ...args], {
    cwd: root,
    env: { CODEX_HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}` },
  });

test('init writes the hooks and their trust; Codex reports every hook trusted, with the keys and hashes written', async () => {
  const { root, home, config } = setup('fresh', `${USER_CONFIG}\n[projects."PLACEHOLDER"]\ntrust_level = "trusted"\n`);
  writeFileSync(config, readFileSync(config, 'utf8').replace('PLACEHOLDER', root));
  const before = readFileSync(config, 'utf8');
  const r = initCodex(root, home);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  // The diff shows both files.
  expect(r.stdout).toContain('+++ ' + path.join(root, '.codex', 'hooks.json'));
  expect(r.stdout).toContain(`+++ ${config}`);
  expect(r.stdout).toContain(`+[hooks.state."${path.join(root, '.codex', 'hooks.json')}:post_tool_use:0:0"]`);
  const after = readFileSync(config, 'utf8');
  // Every byte of the user's file is kept; the tables are appended.
  expect(after.startsWith(before)).toBe(true);
  // Valid TOML (Python's reader), with the user's values as they were.
  const parsed = JSON.parse(
    python('import json,sys,tomllib; print(json.dumps(tomllib.load(open(sys.argv[1],"rb"))))', '', [config]),
  ) as { model: string; tui: { theme: string }; hooks: { state: Record<string, { trusted_hash: string }> } };
  expect(parsed.model).toBe('o4-mini');
  expect(parsed.tui.theme).toBe('[hooks.state."looks like a header"]\n');
  const info = await codexHooks(home, root);
  expect(info.errors).toEqual([]);
  const ours = info.hooks.filter((h) => h.command === 'stepchain hook codex');
  expect(ours.map((h) => h.eventName).sort()).toEqual(
    ['postCompact', 'postToolUse', 'preCompact', 'sessionEnd', 'sessionStart', 'stop', 'userPromptSubmit'].sort(),
  );
  for (const h of ours) {
    expect(h.trustStatus).toBe('trusted');
    expect(parsed.hooks.state[h.key]?.trusted_hash).toBe(h.currentHash);
  }
  expect(Object.keys(parsed.hooks.state)).toHaveLength(7);
  // SessionEnd gets the 3 s Codex allows it, not its 1 s default (the hash above covers the timeout).
  const file = JSON.parse(readFileSync(path.join(root, '.codex', 'hooks.json'), 'utf8')) as {
    hooks: Record<string, { hooks: { timeout?: number }[] }[]>;
  };
  expect(file.hooks.SessionEnd![0]!.hooks[0]!.timeout).toBe(3);
  expect(file.hooks.PostToolUse![0]!.hooks[0]!.timeout).toBeUndefined();

  // Idempotent: nothing changes the second time.
  const again = initCodex(root, home);
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('already installed; unchanged');
  expect(readFileSync(config, 'utf8')).toBe(after);
});

test("beside the user's own groups: stepchain's group has its own index, the user's trust is kept", async () => {
  const { root, home, config } = setup('beside', '');
  mkdirSync(path.join(root, '.codex'));
  writeFileSync(
    path.join(root, '.codex', 'hooks.json'),
    JSON.stringify(
      { hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo mine' }] }] } },
      null,
      2,
    ),
  );
  const userKey = `${path.join(root, '.codex', 'hooks.json')}:post_tool_use:0:0`;
  writeFileSync(config, `[projects.${JSON.stringify(root)}]\ntrust_level = "trusted"\n`);
  const user = (await codexHooks(home, root)).hooks.find((h) => h.key === userKey)!;
  writeFileSync(
    config,
    `[projects.${JSON.stringify(root)}]\ntrust_level = "trusted"\n\n[hooks.state.${JSON.stringify(userKey)}]\ntrusted_hash = "${user.currentHash}"\n`,
  );
  const r = initCodex(root, home, ['--json']);
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout) as { files: string[]; notes: string[]; written: boolean; warnings: string[] };
  expect(doc.files).toEqual([config, path.join(root, '.codex', 'hooks.json')]);
  expect(doc.written).toBe(true);
  expect(doc.warnings).toEqual([]);
  expect(doc.notes.join('\n')).toContain(config);
  const hooks = (await codexHooks(home, root)).hooks;
  const ours = hooks.find((h) => h.eventName === 'postToolUse' && h.command === 'stepchain hook codex')!;
  expect(ours.key).toBe(`${path.join(root, '.codex', 'hooks.json')}:post_tool_use:1:0`);
  expect(hooks.every((h) => h.trustStatus === 'trusted')).toBe(true);

  // A new command is trusted again at the same key (the old hash replaced, never a second table).
  const cmd = 'npx stepchain hook codex';
  expect(initCodex(root, home, ['--command', cmd]).code).toBe(0);
  const text = readFileSync(config, 'utf8');
  expect(text.split(`[hooks.state.${JSON.stringify(ours.key)}]`)).toHaveLength(2);
  const updated = (await codexHooks(home, root)).hooks.filter((h) => h.command === cmd);
  expect(updated).toHaveLength(7);
  expect(updated.every((h) => h.trustStatus === 'trusted')).toBe(true);

  // --dry-run writes nothing; --remove takes out the hooks and their trust, and keeps the user's.
  const dry = initCodex(root, home, ['--remove', '--dry-run']);
  expect(dry.code).toBe(0);
  expect(dry.stdout).toContain(`--- ${config}`);
  expect(readFileSync(config, 'utf8')).toBe(text);
  const rm = initCodex(root, home, ['--remove']);
  expect(rm.code).toBe(0);
  expect(readFileSync(config, 'utf8')).toBe(
    `[projects.${JSON.stringify(root)}]\ntrust_level = "trusted"\n\n[hooks.state.${JSON.stringify(userKey)}]\ntrusted_hash = "${user.currentHash}"\n`,
  );
  const left = (await codexHooks(home, root)).hooks;
  expect(left.map((h) => [h.command, h.trustStatus])).toEqual([['echo mine', 'trusted']]);
});

test('an untrusted project: the hooks are trusted, and init says the one step that is left', () => {
  const { root, home, config } = setup('untrusted', null);
  const r = initCodex(root, home);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain(
    `does not trust ${root}: start \`codex\` in ${root} once and answer that you trust the folder`,
  );
  expect(r.stderr).toContain(`add [projects.${JSON.stringify(root)}] trust_level = "trusted" to ${config}`);
  // CODEX_HOME is honoured: the file was created there.
  expect(readFileSync(config, 'utf8')).toContain('[hooks.state.');
});

test('a hook key written in a form stepchain does not edit is refused, naming the line; nothing is written', () => {
  const { root, home, config } = setup('dotted', 'model = "x"\n[hooks]\nstate = { }\n');
  const r = initCodex(root, home);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(`${config}:3:`);
  expect(readFileSync(config, 'utf8')).toBe('model = "x"\n[hooks]\nstate = { }\n');
  const bad = setup('bad', 'model = "x\n');
  const b = initCodex(bad.root, bad.home);
  expect(b.code).toBe(2);
  expect(b.stderr).toContain(`${bad.config}:1:`);
});

test("an earlier install's SessionEnd entry without a timeout gets one, and stays trusted", async () => {
  const { root, home, config } = setup('timeout', `[projects."PLACEHOLDER"]\ntrust_level = "trusted"\n`);
  writeFileSync(config, readFileSync(config, 'utf8').replace('PLACEHOLDER', root));
  mkdirSync(path.join(root, '.codex'));
  const hooksFile = path.join(root, '.codex', 'hooks.json');
  writeFileSync(
    hooksFile,
    JSON.stringify(
      { hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: 'stepchain hook codex' }] }] } },
      null,
      2,
    ),
  );
  const r = initCodex(root, home);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("SessionEnd: the entry's timeout is not the 3 s stepchain needs to record");
  const file = JSON.parse(readFileSync(hooksFile, 'utf8')) as {
    hooks: Record<string, { hooks: { timeout?: number }[] }[]>;
  };
  expect(file.hooks.SessionEnd).toHaveLength(1);
  expect(file.hooks.SessionEnd![0]!.hooks[0]!.timeout).toBe(3);
  const ours = (await codexHooks(home, root)).hooks.filter((h) => h.command === 'stepchain hook codex');
  expect(ours).toHaveLength(7);
  expect(ours.every((h) => h.trustStatus === 'trusted')).toBe(true);
  const again = initCodex(root, home);
  expect(again.stdout).toContain('already installed; unchanged');
});
