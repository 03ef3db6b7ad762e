import { spawn } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalFile, readVerifiedJournal, type JournalEntry } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { EXCHANGE_LINK_EVENT, recordExchangeLinks, type ExchangeLink } from '../src/runs/exchange-links';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { claudeBinary, startScriptedServer, stepchainBin, type ScriptedServer } from './helpers/claude';
import { initRepo } from './helpers/git';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';

// The real Claude Code binary with stepchain's hooks installed AND run under `stepchain record`: each hook step is
// linked to the model exchange that asked for its tool call, replay shows that exchange, and a link that does not
// hold stops the display.
jest.setTimeout(180_000);

const dir = tempDir('stepchain-record-links-');
const root = path.join(dir, 'project');
const home = path.join(dir, 'home');
const bin = stepchainBin(path.join(dir, 'bin'));
const MAKE = 'Make the files.';
const SCRIPTS = {
  [MAKE]: [
    {
      tools: [
        { name: 'Bash', input: { command: 'printf one > one.txt', description: 'first file' } },
        { name: 'Bash', input: { command: 'printf two > two.txt', description: 'second file' } },
      ],
    },
    { tools: [{ name: 'Bash', input: { command: 'cat one.txt two.txt > three.txt', description: 'third' } }] },
    { text: 'Done.' },
  ],
};

let binary: string;
let server: ScriptedServer;
let hookJournal: string;

const env: NodeJS.ProcessEnv = {
  PATH: [bin, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
  HOME: home,
  ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_AUTOUPDATER: '1',
  STEPCHAIN_AUDIT: 'off',
};

function record(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const sc = (args: string[], at = root) => cli(args, { cwd: at, env });
/** The same through runCli in this process: for commands whose output is the point (a Node start each, ~0.1 s). */
const scIn = (args: string[], at = root) => cliInProcess(args, { cwd: at, env });

function steps(id: string, at = root): JournalEntry[] {
  return readVerifiedJournal(journalFile(at, id)).entries;
}

function links(at = root): ExchangeLink[] {
  return readRunJournalFile(runJournalFile(at, hookJournal))
    .entries.filter((e) => e.row.event === EXCHANGE_LINK_EVENT)
    .map((e) => Object.fromEntries(e.row.payload) as unknown as ExchangeLink);
}

beforeAll(async () => {
  binary = claudeBinary();
  initRepo(root, { 'README.md': '# project\n' });
  writeFileSync(path.join(root, '.gitignore'), '.sdd/\n');
  server = await startScriptedServer(SCRIPTS);
});

afterAll(async () => {
  await server.close();
});

test('hooks installed and record: every hook step is linked to the exchange that asked for its tool call', async () => {
  expect((await scIn(['init', 'claude'])).code).toBe(0);
  const r = await record([
    'record',
    '--agent',
    'claude',
    '--journal',
    'rec',
    '--upstream',
    `http://127.0.0.1:${server.port}`,
    '--json',
    '--',
    binary,
    '-p',
    MAKE,
    '--output-format',
    'stream-json',
    '--verbose',
    '--allowedTools',
    'Bash',
  ]);
  expectNoStack(r);
  expect(r.code).toBe(0);
  expect(readFileSync(path.join(root, 'three.txt'), 'utf8')).toBe('onetwo');
  const doc = JSON.parse(r.stdout) as { hook_links: number; unlinked_tool_calls: string[] };
  expect(doc.hook_links).toBe(3);
  expect(doc.unlinked_tool_calls).toEqual([]);

  const sid = /"session_id":"([0-9a-f-]{36})"/.exec(r.stderr)?.[1];
  expect(sid).toBeDefined();
  hookJournal = `claude-${sid}`;
  const hooks = steps(hookJournal);
  const exchanges = steps('rec');
  expect(hooks).toHaveLength(3);
  expect(exchanges).toHaveLength(3);
  const ids = server.toolUseIds;
  expect(ids).toHaveLength(3);
  // One link per tool call: the hook step that ran it, the exchange that asked for it, both by hash.
  const got = links().sort((a, b) => a.hook_seq - b.hook_seq);
  expect(got).toHaveLength(3);
  const exchangeOf = [0, 0, 1];
  got.forEach((l, i) => {
    const hook = hooks.find((h) => (h.row.tool_call as { id: string }).id === ids[i])!;
    expect(l).toEqual({
      tool_use_id: ids[i],
      hook_journal: hookJournal,
      hook_seq: hook.row.seq,
      hook_step_hash: hook.row.step_hash,
      exchange_journal: 'rec',
      exchange_seq: exchangeOf[i],
      exchange_step_hash: exchanges[exchangeOf[i]!]!.row.step_hash,
    });
  });
});

test('replay of the hook journal shows, for each tool call, the exchange and what the model saw', async () => {
  // replay --json as a real process (its exit and its stdout); the table and show in this process.
  const json = sc(['replay', hookJournal, '--json']);
  expect(json.code).toBe(0);
  const doc = JSON.parse(json.stdout) as {
    exchanges: {
      seq: number;
      tool_use_id: string;
      exchange: {
        journal: string;
        seq: number;
        model: string;
        request_blob: string;
        messages: number;
        last_messages: { role: string; summary: string }[];
      };
    }[];
  };
  const exchanges = steps('rec');
  expect(doc.exchanges.map((x) => [x.seq, x.tool_use_id, x.exchange.seq])).toEqual([
    [0, server.toolUseIds[0], 0],
    [1, server.toolUseIds[1], 0],
    [2, server.toolUseIds[2], 1],
  ]);
  for (const x of doc.exchanges) {
    const row = exchanges[x.exchange.seq]!.row;
    expect(x.exchange.journal).toBe('rec');
    expect(x.exchange.model).toBe(row.model);
    // The request blob is the exact body the model received.
    expect(x.exchange.request_blob).toBe(row.input_hash);
    expect(x.exchange.messages).toBe((row.prompt as unknown[]).length);
  }
  // The third call's exchange saw the first two calls' results.
  const third = doc.exchanges[2]!.exchange.last_messages;
  expect(third.at(-1)!.role).toBe('user');
  expect(third.at(-1)!.summary).toContain(`[tool_result ${server.toolUseIds[0]}`);

  const table = await scIn(['replay', hookJournal]);
  expect(table.code).toBe(0);
  expect(table.stdout).toMatch(/model exchanges behind the tool calls .*links verified/);
  expect(table.stdout).toMatch(/step 2: exchange 1 of rec/);

  const show = await scIn(['show', hookJournal, '2']);
  expect(show.code).toBe(0);
  expect(show.stdout).toContain('asked for by the model exchange (link verified):');
  expect(show.stdout).toContain(`what the model saw: request blob ${exchanges[1]!.row.input_hash}`);
});

describe('a link that does not hold fails closed', () => {
  let n = 0;
  /** A copy of the project, for one tampering. */
  function copy(): string {
    const at = path.join(dir, `tampered-${n++}`);
    cpSync(root, at, { recursive: true });
    return at;
  }
  const forged = (at: string, change: Partial<ExchangeLink>): void => {
    const [l] = links(at);
    // A well-chained run journal row (appended as the library appends it): only the claim is false.
    expect(recordExchangeLinks(at, [{ ...l!, ...change }], { env })).toHaveLength(1);
  };
  /** replay, replay --json and show refuse `at`'s hook journal (through runCli in this process: what they refuse and
   * say is the point; the test above runs replay --json as a real process). */
  const refused = async (at: string, pattern: RegExp): Promise<void> => {
    for (const args of [
      ['replay', hookJournal],
      ['replay', hookJournal, '--json'],
      ['show', hookJournal, '0'],
    ]) {
      const r = await cliInProcess(args, { cwd: at, env });
      expectNoStack(r);
      expect(r.code).toBe(1);
      expect(`${r.stderr}${r.stdout}`).toMatch(pattern);
      expect(r.stdout).not.toContain('model exchanges behind');
    }
  };

  test('an exchange step that does not exist', async () => {
    const at = copy();
    forged(at, { exchange_seq: 7 });
    await refused(at, /exchange_step_mismatch: it names step 7 of rec, which does not exist/);
  });

  test('a hook step hash that differs', async () => {
    const at = copy();
    forged(at, { hook_step_hash: 'a'.repeat(64) });
    await refused(at, /hook_step_mismatch: step 0 of claude-.* has step_hash [0-9a-f]{64}, the link names a{64}/);
  });

  test('an exchange journal that is gone or rewritten', async () => {
    const gone = copy();
    rmSync(journalFile(gone, 'rec'));
    await refused(gone, /exchange_step_mismatch: the exchange journal rec cannot be used: no journal/);
    const rewritten = copy();
    const file = journalFile(rewritten, 'rec');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"model":"', '"model":"x'));
    await refused(rewritten, /exchange_step_mismatch: the exchange journal rec cannot be used/);
  });

  test('a run journal whose chain was edited', async () => {
    const at = copy();
    const file = runJournalFile(at, hookJournal);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"exchange_seq": ?1/, '"exchange_seq": 0'));
    await refused(at, /run_journal_broken: the run journal's chain does not verify/);
  });
});
