import { execFileSync } from 'node:child_process';
import { constants } from 'node:buffer';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cutTranscript, modelOfToolUse, projectDirName } from '../src/agents/claude';
import { forkClaudeSession, resumeCommand, shellWord } from '../src/agents/claude/resume';
import { readTranscriptWhole } from '../src/agents/resume-kit';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { cli, expectNoStack, type CliResult } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { claudeBinary, runClaude, startScriptedServer, stepchainBin, type ServerRequest } from './helpers/claude';
import { initRepo, repoState } from './helpers/git';
import { tempDir } from './helpers/tmp';

// The real binary starts once per session and runs a Node process per hook: slow on a loaded machine.
jest.setTimeout(180_000);

const dir = tempDir('stepchain-claude-resume-');
let n = 0;
const SID = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
const NEW = '99999999-8888-4777-8666-555555555555';

type E = Record<string, unknown>;
const user = (uuid: string, parent: string | null, content: unknown, extra: E = {}): E => ({
  parentUuid: parent,
  isSidechain: false,
  type: 'user',
  message: { role: 'user', content },
  uuid,
  cwd: '/home/dev/p',
  sessionId: SID,
  ...extra,
});
const assistant = (uuid: string, parent: string, msgId: string, blocks: unknown[]): E => ({
  parentUuid: parent,
  isSidechain: false,
  type: 'assistant',
  message: { id: msgId, role: 'assistant', model: 'claude-x', content: blocks },
  uuid,
  cwd: '/home/dev/p',
  sessionId: SID,
});
const use = (id: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command: id } });
const result = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: `out ${id}` });
const lines = (entries: E[]) => Buffer.from(entries.map((e) => JSON.stringify(e)).join('\n') + '\n');

/** A prompt, two sequential tool calls, and Claude Code's bookkeeping lines. */
function conversation(): E[] {
  return [
    { type: 'queue-operation', operation: 'enqueue', sessionId: SID, content: 'go' },
    user('u1', null, 'go'),
    assistant('a1', 'u1', 'm1', [use('t1')]),
    user('r1', 'a1', [result('t1')]),
    { type: 'last-prompt', lastPrompt: 'go', leafUuid: 'r1', sessionId: SID },
    assistant('a2', 'r1', 'm2', [use('t2')]),
    user('r2', 'a2', [result('t2')]),
    assistant('a3', 'r2', 'm3', [{ type: 'text', text: 'done' }]),
  ];
}

describe('cutting a transcript after one tool result', () => {
  test('keeps every line up to the result byte for byte, with the new session id', () => {
    const src = lines(conversation());
    const cut = cutTranscript(src, 'parent.jsonl', SID, 't1', NEW);
    expect(cut.line).toBe(4);
    const want = src
      .toString()
      .split('\n')
      .slice(0, 4)
      .map((l) => l.split(`"sessionId":"${SID}"`).join(`"sessionId":"${NEW}"`));
    expect(cut.bytes.toString()).toBe(want.join('\n') + '\n');
    expect(cut.bytes.toString()).not.toContain(SID);
    expect(cut).toMatchObject({ firstCwd: '/home/dev/p', cutCwd: '/home/dev/p' });
    expect(cutTranscript(src, 'p', SID, 't2', NEW).line).toBe(7);
  });

  test('a torn line after the cut does not matter; one before it does', () => {
    const src = Buffer.concat([lines(conversation()), Buffer.from('{"type":"assis')]);
    expect(cutTranscript(src, 'p', SID, 't2', NEW).line).toBe(7);
    const e = conversation();
    const bad = Buffer.from(lines(e).toString().replace(JSON.stringify(e[2]), '{"type":'));
    expect(() => cutTranscript(bad, 'p.jsonl', SID, 't2', NEW)).toThrow('p.jsonl:3: not a JSON object');
  });

  const refusals: [string, () => Buffer, string, RegExp][] = [
    ['no such result', () => lines(conversation()), 't9', /no result of tool call t9 in this transcript/],
    [
      'a result twice',
      () => lines([...conversation(), user('r1b', 'a3', [result('t1')])]),
      't1',
      /appears twice \(lines 4 and 9\)/,
    ],
    [
      'a result twice, the second spelling its id with an escape',
      () =>
        Buffer.from(
          lines([...conversation(), user('r1b', 'a3', [result('t1')])])
            .toString()
            .replace(/"tool_use_id":"t1"(?![^]*"tool_use_id":"t1")/, '"tool_use_id":"\\u00741"'),
        ),
      't1',
      /appears twice \(lines 4 and 9\)/,
    ],
    [
      'a result in a sidechain',
      () => lines([...conversation().slice(0, 3), user('r1', 'a1', [result('t1')], { isSidechain: true })]),
      't1',
      /:4: the result of tool call t1 is in a sidechain/,
    ],
    [
      'a broken chain',
      () => lines([user('u1', null, 'go'), assistant('a1', 'u0', 'm1', [use('t1')]), user('r1', 'a1', [result('t1')])]),
      't1',
      /:2: the conversation chain is broken: parent u0 is not an earlier line/,
    ],
    [
      'a line of another session',
      () => lines([user('u1', null, 'go', { sessionId: 'other' }), ...conversation().slice(2)]),
      't1',
      /:1: belongs to session "other"/,
    ],
    ['invalid UTF-8', () => Buffer.concat([lines(conversation()), Buffer.from([0xff])]), 't1', /not valid UTF-8/],
    [
      'a sessionId not written as Claude Code writes it',
      () => Buffer.from(lines(conversation()).toString().replace(`"sessionId":"${SID}"`, `"sessionId": "${SID}"`)),
      't1',
      /:1: cannot rewrite its sessionId/,
    ],
    [
      'a cut between parallel results',
      () =>
        lines([
          user('u1', null, 'go'),
          assistant('a1', 'u1', 'm1', [use('tA')]),
          assistant('a1b', 'a1', 'm1', [use('tB')]),
          user('rA', 'a1', [result('tA')]),
          user('rB', 'a1b', [result('tB')]),
        ]),
      'tA',
      /:3: tool call tB \(line 3\) has no result before the cut: it ran in parallel with tA/,
    ],
  ];
  test.each(refusals)('refuses %s', (_name, make, id, message) => {
    expect(() => cutTranscript(make(), 't.jsonl', SID, id, NEW)).toThrow(message);
  });

  test('parallel calls: the cut after the last result is fine, unless the journal has that result later', () => {
    const src = lines([
      user('u1', null, 'go'),
      assistant('a1', 'u1', 'm1', [use('tA')]),
      assistant('a1b', 'a1', 'm1', [use('tB')]),
      user('rA', 'a1', [result('tA')]),
      user('rB', 'a1b', [result('tB')]),
    ]);
    expect(cutTranscript(src, 't', SID, 'tB', NEW).line).toBe(5);
    expect(() => cutTranscript(src, 't', SID, 'tB', NEW, ['tA'])).toThrow(
      /already holds the result of tA, which the journal records after tB/,
    );
  });
});

test('a large transcript (35,000 tool calls) is cut correctly, in time linear in its size', () => {
  // fork --resume was quadratic in the transcript (issue 20: 2.8 s at 35k pairs, 22-29 s at 105k); no timing is asserted here.
  const pairs = 35_000;
  // The lines are serialized once: the expected copy and the variant below are made from them (serializing the
  // 70,001 entries again was a third of this test's time).
  const text: string[] = [JSON.stringify(user('u0', null, 'go'))];
  let prev = 'u0';
  for (let i = 0; i < pairs; i++) {
    text.push(
      JSON.stringify(assistant(`a${i}`, prev, `m${i}`, [use(`t${i}`)])),
      JSON.stringify(user(`r${i}`, `a${i}`, [result(`t${i}`)])),
    );
    prev = `r${i}`;
  }
  const src = Buffer.from(text.join('\n') + '\n');
  const at = pairs - 2; // the last but one call: its result is line 2 * (pairs - 1) + 1
  const cut = cutTranscript(src, 'big.jsonl', SID, `t${at}`, NEW, [`t${pairs - 1}`]);
  expect(cut.line).toBe(2 * at + 3);
  const want = text.slice(0, cut.line).map((l) => l.split(`"sessionId":"${SID}"`).join(`"sessionId":"${NEW}"`));
  expect(cut.bytes.equals(Buffer.from(want.join('\n') + '\n'))).toBe(true);
  // An open call anywhere in that history is still found: line 1001, the result of t499, answers nothing.
  const open = [...text];
  open[1000] = JSON.stringify(user('r499', 'a499', [{ type: 'text', text: 'no result' }]));
  expect(() => cutTranscript(Buffer.from(open.join('\n') + '\n'), 'big.jsonl', SID, `t${at}`, NEW)).toThrow(
    /tool call t499 \(line 1000\) has no result before the cut/,
  );
});

test('the session directory name Claude Code derives from a path, and where stepchain cannot be sure of it', () => {
  expect(projectDirName('/tmp/i14x/proj_a.b')).toBe('-tmp-i14x-proj-a-b');
  expect(projectDirName('/a/.sdd/worktrees/claude-x')).toBe('-a--sdd-worktrees-claude-x');
  expect(projectDirName(`/${'d'.repeat(199)}`)).toHaveLength(200);
  expect(projectDirName(`/${'d'.repeat(200)}`)).toBeUndefined();
  expect(projectDirName('/home/zoë/p')).toBeUndefined();
  expect(projectDirName('/tmp/a\nb')).toBeUndefined();
});

test('the model of a tool call is read from the end of the transcript, across chunk boundaries, within a window', () => {
  const f = path.join(dir, `t${n++}.jsonl`);
  const pad = Array.from({ length: 300 }, (_, i) => JSON.stringify({ type: 'progress', i, data: 'x'.repeat(1000) }));
  const entry = JSON.stringify(assistant('a1', 'u1', 'm1', [use('toolu_7')]));
  writeFileSync(f, [...pad, entry, ...pad].join('\n') + '\n');
  expect(modelOfToolUse(f, 'toolu_7')).toBe('claude-x');
  expect(modelOfToolUse(f, 'toolu_8')).toBeUndefined();
  expect(modelOfToolUse(f, 'toolu_7', 100_000)).toBeUndefined(); // beyond the window: unknown, never guessed
  expect(modelOfToolUse(path.join(dir, 'missing.jsonl'), 'toolu_7')).toBeUndefined();
});

test('the resume command is safe to paste', () => {
  expect(shellWord('/tmp/a b')).toBe("'/tmp/a b'");
  expect(shellWord("/tmp/it's")).toBe("'/tmp/it'\\''s'");
  expect(shellWord('/tmp/\x1b[31m')).toBe("$'/tmp/\\x1b[31m'");
  expect(resumeCommand({ cwd: '/w/x y', sessionId: NEW, configDir: '/h/.claude' })).toBe(
    `cd '/w/x y' && CLAUDE_CONFIG_DIR=/h/.claude claude --resume ${NEW}`,
  );
});

// The hook's steps and the refusals are the commands' logic: they run in this process (`cliInProcess`, the code the
// built CLI bundles), after the first case, which runs both as real processes.
describe('fork --resume refuses what it cannot do safely, and leaves nothing behind', () => {
  const home = path.join(dir, 'home');
  const hook = (root: string, body: E) =>
    cliInProcess(['hook', 'claude', '--no-snapshot'], { cwd: root, input: JSON.stringify(body) });
  const realHook = (root: string, body: E) =>
    cli(['hook', 'claude', '--no-snapshot'], { cwd: root, input: JSON.stringify(body) });
  const post = (root: string, transcript: string, id: string): E => ({
    session_id: SID,
    transcript_path: transcript,
    cwd: root,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: id },
    tool_response: { stdout: `out ${id}` },
    tool_use_id: id,
  });
  const forkEnv = { HOME: home, CLAUDE_CONFIG_DIR: '' };
  // Each case's project is a copy of one made once (three git processes a case before): the repository is the same,
  // its path (which the journal and the session's directory name) is the case's own.
  let template: string | undefined;
  const newProject = (): string => {
    template ??= initRepo(path.join(dir, 'template'), { 'README.md': 'x\n' });
    const root = path.join(dir, `f${n++}`);
    cpSync(template, root, { recursive: true });
    return root;
  };
  const fork = (root: string, args: string[]) => cliInProcess(['fork', ...args], { cwd: root, env: forkEnv });

  async function setup(
    transcriptDirName?: string,
    configDir = path.join(home, '.claude'),
    run: (root: string, body: E) => CliResult | Promise<CliResult> = hook,
  ): Promise<{ root: string; transcript: string }> {
    const root = newProject();
    const tdir = path.join(configDir, 'projects', transcriptDirName ?? root.replace(/[^A-Za-z0-9]/g, '-'));
    mkdirSync(tdir, { recursive: true });
    const transcript = path.join(tdir, `${SID}.jsonl`);
    const entries = conversation().map((e) => (e.cwd === undefined ? e : { ...e, cwd: root }));
    writeFileSync(transcript, lines(entries));
    expect((await run(root, post(root, transcript, 't1'))).code).toBe(0);
    expect((await run(root, post(root, transcript, 't2'))).code).toBe(0);
    return { root, transcript };
  }

  test('a step recorded by the hook resumes (the synthetic transcript is what the binary writes, in small)', async () => {
    // Real processes: the hook as Claude Code starts it, and the fork.
    const { root } = await setup(undefined, undefined, realHook);
    const r = cli(['fork', `claude-${SID}`, '--from-step', '0', '--resume'], { cwd: root, env: forkEnv });
    expectNoStack(r);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ending with the result of t1\)/);
    expect(r.stdout).toMatch(
      /\n {2}cd \S+\/\.sdd\/worktrees\/claude-[0-9a-f-]{36} && claude --resume [0-9a-f-]{36}\n$/,
    );
    expect(r.stderr).toMatch(/settings\.json does not run `stepchain hook claude`/);
  });

  const cases: [string, (root: string, transcript: string) => string[], number, RegExp][] = [
    ['--resume without --from-step', () => [`claude-${SID}`, '--resume'], 2, /give --from-step N/],
    ['a step out of range', () => [`claude-${SID}`, '--from-step', '5', '--resume'], 2, /step 5 is out of range/],
    [
      'a transcript that is gone',
      (_root, t) => {
        writeFileSync(t, ''); // emptied, as if rotated
        return [`claude-${SID}`, '--from-step', '0', '--resume'];
      },
      1,
      /no result of tool call t1 in this transcript/,
    ],
    [
      'a tampered journal',
      (root) => {
        const f = journalFile(root, `claude-${SID}`);
        writeFileSync(f, readFileSync(f, 'utf8').replace('out t1', 'out t0'));
        return [`claude-${SID}`, '--from-step', '1', '--resume'];
      },
      1,
      /000000\.jsonl:1: /,
    ],
  ];
  test.each(cases)('%s', async (_name, make, code, message) => {
    const { root, transcript } = await setup();
    const args = make(root, transcript);
    const before = repoState(root);
    const r = await fork(root, args);
    expectNoStack(r);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(repoState(root)).toEqual(before);
  });

  test('a transcript stored under a name stepchain does not derive from the session directory', async () => {
    const { root } = await setup('-some-other-dir');
    const before = repoState(root);
    const r = await fork(root, [`claude-${SID}`, '--from-step', '1', '--resume']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/stored under -some-other-dir, which is not the name of the session's working directory/);
    expect(repoState(root)).toEqual(before);
  });

  test('a journal not recorded by an agent is a usage error (exit 2) with a plain message', async () => {
    // Changed by issue 20: this was exit 1 with the payload parser's message. Changed by issue 22: --resume now
    // dispatches on the journal's agent prefix, so a journal named for no agent is refused by its name.
    const root = initRepo(path.join(dir, `f${n++}`), { 'README.md': 'x\n' });
    const input = path.join(root, 'in.txt');
    writeFileSync(input, 'not a hook payload');
    const append = (args: string[]) => cliInProcess(['append', ...args, '--no-snapshot'], { cwd: root });
    expect((await append(['agent-1', '--input', input])).code).toBe(0);
    expect((await append(['agent-1'])).code).toBe(0);
    const a = await fork(root, ['agent-1', '--from-step', '0', '--resume']);
    expectNoStack(a);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(
      /^stepchain: fork --resume: agent-1 is not an agent's session journal \(claude-<session_id>.*\); fork it without --resume\n$/,
    );
    // A claude- journal whose steps were not written by the hook is refused by what its steps hold.
    expect((await append(['claude-x1', '--input', input])).code).toBe(0);
    expect((await append(['claude-x1'])).code).toBe(0);
    const c = await fork(root, ['claude-x1', '--from-step', '0', '--resume']);
    expect(c.code).toBe(2);
    expect(c.stderr).toBe(
      'stepchain: fork --resume: step 0 of claude-x1 was not recorded by `stepchain hook claude` (its input is not a ' +
        'Claude Code hook payload); this journal is not a Claude Code session: fork it without --resume\n',
    );
  });

  test('a recorded transcript_path never decides the config directory: a planted one is refused, naming both', async () => {
    // Anyone who can write .sdd can recompute the chain: the payload names a "config directory" of theirs, whose
    // settings.json would run its hooks if the operator started Claude Code with it.
    const planted = path.join(dir, `planted${n++}`);
    mkdirSync(planted, { recursive: true });
    writeFileSync(
      path.join(planted, 'settings.json'),
      '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/pwned"}]}]}}\n',
    );
    const { root, transcript } = await setup(undefined, planted);
    const plantedFiles = () => readdirSync(planted, { recursive: true }).map(String).sort();
    const files = plantedFiles();
    const before = repoState(root);
    const r = await fork(root, [`claude-${SID}`, '--from-step', '0', '--resume']);
    expectNoStack(r);
    expect(r.code).toBe(1);
    const expected = path.join(home, '.claude', 'projects', '<dir>', `${SID}.jsonl`);
    expect(r.stderr).toBe(
      `stepchain: ${journalFile(root, `claude-${SID}`)}:1: the step's payload names the transcript ${transcript}, ` +
        `which is not where Claude Code keeps the session in this environment (${expected}, from HOME); refusing ` +
        'to use a directory the journal names (set CLAUDE_CONFIG_DIR to the config directory the session ran with)\n',
    );
    expect(r.stdout).toBe('');
    expect(plantedFiles()).toEqual(files);
    expect(repoState(root)).toEqual(before);
    // The environment decides: with CLAUDE_CONFIG_DIR naming that directory it is the session's, and the command
    // carries the environment's value.
    const ok = await cliInProcess(['fork', `claude-${SID}`, '--from-step', '0', '--resume', '--json'], {
      cwd: root,
      env: { HOME: home, CLAUDE_CONFIG_DIR: planted },
    });
    expect(ok.code).toBe(0);
    const doc = JSON.parse(ok.stdout) as { claude_transcript: string; resume_command: string };
    expect(doc.claude_transcript.startsWith(path.join(planted, 'projects') + path.sep)).toBe(true);
    expect(doc.resume_command).toContain(`CLAUDE_CONFIG_DIR=${planted} claude --resume`);
  });

  test('the resume command never names a config directory the environment does not', async () => {
    const { root } = await setup();
    const r = await fork(root, [`claude-${SID}`, '--from-step', '1', '--resume', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { claude_transcript: string; resume_command: string };
    expect(doc.resume_command).not.toContain('CLAUDE_CONFIG_DIR');
    expect(doc.claude_transcript.startsWith(path.join(home, '.claude', 'projects') + path.sep)).toBe(true);
  });

  test('a session directory that is a symlink in the fork is refused, and the fork removed', async () => {
    const root = initRepo(path.join(dir, `f${n++}`), { 'README.md': 'x\n' });
    const outside = path.join(dir, `outside${n++}`);
    mkdirSync(path.join(outside, '.claude'), { recursive: true });
    symlinkSync(outside, path.join(root, 'sub'));
    execFileSync('git', ['-C', root, 'add', 'sub']);
    execFileSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'link']);
    const sub = path.join(root, 'sub');
    const tdir = path.join(home, '.claude', 'projects', sub.replace(/[^A-Za-z0-9]/g, '-'));
    mkdirSync(tdir, { recursive: true });
    const transcript = path.join(tdir, `${SID}.jsonl`);
    writeFileSync(transcript, lines(conversation().map((e) => (e.cwd === undefined ? e : { ...e, cwd: sub }))));
    expect((await hook(root, { ...post(root, transcript, 't1'), cwd: sub })).code).toBe(0);
    const before = repoState(root);
    const r = await fork(root, [`claude-${SID}`, '--from-step', '0', '--resume']);
    expectNoStack(r);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\/sub: a symlink in the fork, where the resume command would start Claude Code/);
    expect(r.stderr).toMatch(/the fork was removed again/);
    expect(repoState(root)).toEqual(before);
  });

  test('when the transcript cannot be placed after the fork was made, the fork is removed again', async () => {
    const { root } = await setup();
    const before = repoState(root);
    const wt = path.join(root, '.sdd', 'worktrees', `claude-${NEW}`);
    // Something already sits where the fork's session directory must go.
    writeFileSync(path.join(home, '.claude', 'projects', wt.replace(/[^A-Za-z0-9]/g, '-')), 'in the way');
    await expect(
      forkClaudeSession({
        root,
        agent: `claude-${SID}`,
        fromStep: 0,
        env: { ...process.env, HOME: home, STEPCHAIN_AUDIT: 'off' },
        sessionId: NEW,
      }),
    ).rejects.toThrow(/cannot create the fork's transcript.*the fork was removed again/);
    expect(repoState(root)).toEqual(before);
  });
});

/** Every tool_use in an assistant message is answered by a tool_result in the next message, as the API requires. */
function expectWellFormed(messages: ServerRequest['body']['messages']): void {
  messages.forEach((m, i) => {
    if (m.role !== 'assistant' || typeof m.content === 'string') return;
    const ids = m.content.filter((b) => b.type === 'tool_use').map((b) => b.id);
    if (ids.length === 0) return;
    const next = messages[i + 1];
    const answered =
      next === undefined || typeof next.content === 'string'
        ? []
        : next.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
    expect(answered).toEqual(expect.arrayContaining(ids));
  });
}

test('real parallel tool calls: a fork between their results is refused, after both it resumes well-formed', async () => {
  const root = initRepo(path.join(dir, `par${n++}`), { 'README.md': 'x\n' });
  const home = path.join(dir, 'home-par');
  const bin = stepchainBin(path.join(dir, 'bin'));
  expect(cli(['init', 'claude'], { cwd: root }).code).toBe(0);
  const server = await startScriptedServer({
    'Both at once.': [
      {
        tools: [
          { name: 'Bash', input: { command: 'echo A > A.txt' } },
          { name: 'Bash', input: { command: 'echo B > B.txt' } },
        ],
      },
      { text: 'Both done.' },
    ],
    'And then?': [{ tools: [{ name: 'Bash', input: { command: 'echo C > C.txt' } }] }, { text: 'C done.' }],
  });
  try {
    const binary = claudeBinary();
    const env = { STEPCHAIN_AUDIT: 'off' };
    const r = await runClaude({
      binary,
      cwd: root,
      home,
      port: server.port,
      prompt: 'Both at once.',
      binDir: bin,
      env,
    });
    expect(r.code).toBe(0);
    const agent = `claude-${r.sessionId}`;
    const rows = readVerifiedJournal(journalFile(root, agent)).entries.map((e) => e.row.tool_call as { id: string });
    expect(rows.map((c) => c.id).sort()).toEqual(server.toolUseIds.slice(0, 2));
    const forkAt = (step: number) =>
      cli(['fork', agent, '--from-step', String(step), '--resume', '--json'], {
        cwd: root,
        env: { ...env, HOME: home },
      });
    const first = forkAt(0);
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/ran in parallel with|already holds the result of/);
    const second = forkAt(1);
    expect(second.code).toBe(0);
    const doc = JSON.parse(second.stdout) as { fork_worktree: string; claude_session_id: string };
    const before = server.requests.length;
    const resumed = await runClaude({
      binary,
      cwd: doc.fork_worktree,
      home,
      port: server.port,
      prompt: 'And then?',
      resume: doc.claude_session_id,
      binDir: bin,
      env,
    });
    expect(resumed.code).toBe(0);
    const messages = server.requests[before]!.body.messages;
    expectWellFormed(messages);
    const results = messages.flatMap((m) =>
      typeof m.content === 'string' ? [] : m.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id),
    );
    expect(results.sort()).toEqual(server.toolUseIds.slice(0, 2));
    expect(readVerifiedJournal(journalFile(doc.fork_worktree, `claude-${doc.claude_session_id}`)).steps).toBe(3);
  } finally {
    await server.close();
  }
});

const bigDir = tempDir('stepchain-big-transcript-');
test('a transcript longer than JavaScript can hold as text is refused for that reason, before it is read', () => {
  // A sparse file: its size is over the limit, its blocks are not on disk.
  const file = path.join(bigDir, 's.jsonl');
  writeFileSync(file, '');
  truncateSync(file, constants.MAX_STRING_LENGTH + 1);
  expect(() => readTranscriptWhole(file, 'rollout')).toThrow(
    `${file}: the session's rollout holds ${constants.MAX_STRING_LENGTH + 1} bytes; a conversation can be cut only from one of at most ${constants.MAX_STRING_LENGTH} bytes`,
  );
  truncateSync(file, 3);
  expect(readTranscriptWhole(file, 'rollout')).toEqual(Buffer.alloc(3));
  expect(readTranscriptWhole(`${file}.missing`, 'rollout')).toBeUndefined();
});
