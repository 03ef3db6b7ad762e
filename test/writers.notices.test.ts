/**
 * A torn tail moved aside is told to whoever asked (docs/journal.md, "Recovery on open"), for every file a write
 * touches: the step's journal, its run journal (what the step changed) and the audit log. A command tells it on its
 * own stderr, run in-process too (where the process's stderr is not the command's); a library caller through its
 * `onTornTail`; nothing of it reaches the process's stderr. Each case tears every file the write will extend first.
 */
import { appendFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { auditDir } from '../src/audit';
import { journalDir, journalFile, type TornTailMoved } from '../src/journal';
import { recordStep } from '../src/record';
import { runJournalFile } from '../src/runs';
import { cliInProcess } from './helpers/cli-in-process';
import { initRepo } from './helpers/git';
import { startChatServer } from './helpers/chat-server';
import { closing, recordArgs, runStepchain } from './helpers/record';
import { freshDir, tempDir } from './helpers/tmp';

const dir = tempDir('stepchain-notices-');
/** The audit log on (its key under the test's own state directory). */
const env = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '',
  HOME: path.join(dir, 'home'),
  XDG_STATE_HOME: path.join(dir, 'state'),
  STEPCHAIN_AUDIT: 'on',
});
const TORN = '{"ts": 1.0, "ela';

/** The day file the audit log appends to now (one per test: they run within a day, or a test crosses midnight). */
function auditDay(root: string): string {
  const days = readdirSync(auditDir(root)).filter((f) => f.endsWith('.jsonl'));
  return path.join(auditDir(root), days.sort().at(-1)!);
}

/** Appends a write cut short to each file. */
function tear(...files: string[]): void {
  for (const f of files) appendFileSync(f, TORN);
}

/** Lines written to the process's stderr while `run` runs (the process's, not a command's captured one). */
async function processStderr(run: () => Promise<void> | void): Promise<string> {
  const seen: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    seen.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return seen.join('');
}

/** The notice lines of `stderr`, the file each names. */
function toldFiles(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.includes('moved a torn tail'))
    .map((l) => {
      const m = /^stepchain: (.+): moved a torn tail of 16 bytes \(a write that never finished\) to \1\.torn-\d+$/.exec(
        l,
      );
      if (m === null) throw new Error(`not a notice line: ${l}`);
      return m[1]!;
    });
}

/** A project with one agent step recorded that changed a file: its journal, run journal and audit log all exist. */
async function project(): Promise<string> {
  const root = initRepo(freshDir(dir), { 'a.txt': 'one\n' });
  expect((await cliInProcess(['append', 'agent', '--prompt', 'p0', '--root', root], { env: env() })).code).toBe(0);
  writeFileSync(path.join(root, 'a.txt'), 'two\n');
  expect((await cliInProcess(['append', 'agent', '--prompt', 'p1', '--root', root], { env: env() })).code).toBe(0);
  writeFileSync(path.join(root, 'a.txt'), 'three\n');
  return root;
}

test('`append` in-process: the journal, the run journal and the audit log, each told on the command’s stderr', async () => {
  const root = await project();
  const files = [journalFile(root, 'agent'), runJournalFile(root, 'agent'), auditDay(root)];
  tear(...files);
  const r = await cliInProcess(['append', 'agent', '--prompt', 'p2', '--root', root], { env: env() });
  expect(r.code).toBe(0);
  expect(toldFiles(r.stderr).sort()).toEqual([...files].sort());
});

test('`recordStep`: the caller’s onTornTail hears of all three files, the process’s stderr of none', async () => {
  const root = await project();
  const files = [journalFile(root, 'agent'), runJournalFile(root, 'agent'), auditDay(root)];
  tear(...files);
  const told: TornTailMoved[] = [];
  const outside = await processStderr(() => {
    const r = recordStep(
      journalDir(root, 'agent'),
      { prompt: 'p2' },
      { root, env: env(), onTornTail: (m) => told.push(m) },
    );
    expect(r.warnings).toEqual([]);
    expect(r.changes).toBeDefined();
  });
  expect(told.map((m) => m.file).sort()).toEqual([...files].sort());
  for (const m of told) expect(m.bytes).toBe(TORN.length);
  expect(outside).toBe('');
});

test('`run record`, `run mutation` and `hook claude` in-process: told on the command’s stderr', async () => {
  const root = await project();
  const run = runJournalFile(root, 'agent');
  const cases: { args: string[]; input?: string; torn: () => string[] }[] = [
    { args: ['run', 'record', 'agent', '--event', 'note', '--root', root], torn: () => [run] },
    {
      args: ['run', 'mutation', 'agent', '--agent', 'agent', '--kind', 'compact_boundary', '--root', root],
      torn: () => [run, auditDay(root)],
    },
    {
      args: ['hook', 'claude'],
      input: JSON.stringify({
        session_id: 's1',
        cwd: root,
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'echo x' },
        tool_response: { stdout: 'x', stderr: '' },
        tool_use_id: 't1',
      }),
      // The hook's journal exists once its first call is in: the second call finds it torn.
      torn: () => [journalFile(root, 'claude-s1')],
    },
  ];
  for (const c of cases) {
    const options = { env: env(), cwd: root, ...(c.input === undefined ? {} : { input: c.input }) };
    if (c.args[0] === 'hook') expect((await cliInProcess(c.args, options)).code).toBe(0);
    const files = c.torn();
    tear(...files);
    const r = await cliInProcess(c.args, options);
    expect({ args: c.args, code: r.code }).toEqual({ args: c.args, code: 0 });
    expect(toldFiles(r.stderr).sort()).toEqual([...files].sort());
  }
});

test('`fork`, `export` and `publish` in-process: the audit log each extends, told on the command’s stderr', async () => {
  const root = await project();
  const cases = [
    ['fork', 'agent', '--from-step', '1', '--root', root],
    ['export', 'agent', '-o', path.join(dir, `r${Date.now()}.tar`), '--root', root],
    ['publish', 'agent', '-o', path.join(dir, `p${Date.now()}.tar`), '--opt-in', '--root', root],
  ];
  for (const args of cases) {
    tear(auditDay(root));
    const r = await cliInProcess(args, { env: env(), cwd: root });
    expect({ args, code: r.code }).toEqual({ args, code: 0 });
    expect(toldFiles(r.stderr)).toEqual([auditDay(root)]);
  }
});

test('`audit verify` in-process checks the rollback against the checkpoint mirror its writers kept under the same environment', async () => {
  const root = await project();
  const day = auditDay(root);
  const first = readFileSync(day, 'utf8').split('\n')[0]!;
  // The log cut back to its first entry, and its checkpoint beside it removed: the mirror still knows better.
  writeFileSync(day, `${first}\n`);
  rmSync(path.join(auditDir(root), 'audit.checkpoint'));
  const r = await cliInProcess(['audit', 'verify', '--root', root], { env: env(), cwd: root });
  expect(r.code).toBe(1);
  expect(r.stdout + r.stderr).toMatch(/rollback/);
});

/** One model request through the recording proxy, as an agent makes it. */
const CLIENT = `
const r = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
  body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
});
await r.text();
`;

test('`record` and `fork --replay`: the audit log they extend, told on the command’s stderr in-process and once by the bin (whose appends run on a worker thread)', async () => {
  const root = await project();
  const client = path.join(dir, 'client.mjs');
  writeFileSync(client, CLIENT);
  // The scripted Chat Completions server: a request that offers no tools gets a short text.
  await closing(startChatServer({}, { model: 'gpt-test' }), async (server) => {
    const url = server.baseUrl;
    tear(auditDay(root));
    const r = await cliInProcess(
      [...recordArgs('codex', 'rec-1', url), '--root', root, '--', process.execPath, client],
      {
        env: env(),
        cwd: root,
      },
    );
    expect(r.code).toBe(0);
    expect(toldFiles(r.stderr)).toEqual([auditDay(root)]);

    tear(auditDay(root));
    const bin = await runStepchain(
      [...recordArgs('codex', 'rec-2', url), '--root', root, '--', process.execPath, client],
      root,
      env(),
    );
    expect(bin.code).toBe(0);
    expect(toldFiles(bin.stderr)).toEqual([auditDay(root)]);

    // fork --replay: the fork it makes and the recording it runs write the audit log; the first write moves the tail.
    tear(auditDay(root));
    const f = await cliInProcess(
      [
        'fork',
        'rec-1',
        '--from-step',
        '0',
        '--replay',
        '--upstream',
        url,
        '--root',
        root,
        '--',
        process.execPath,
        client,
      ],
      { env: env(), cwd: root },
    );
    expect(f.code).toBe(0);
    expect(toldFiles(f.stderr)).toEqual([auditDay(root)]);
  });
});
