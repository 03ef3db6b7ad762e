import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, type JsonValue } from '../src/canonical';
import { jsoncToJson, opencodeProviders } from '../src/agents/opencode/config';
import { OPENCODE_RULES, opencodeProxy } from '../src/agents/opencode/proxy';
import { normalise } from '../src/proxy/normalise';
import { type JournalEntry } from '../src/journal';
import { startChatServer, type ChatServer, type ChatTurn } from './helpers/chat-server';
import { expectNoStack } from './helpers/cli';
import { initRepo } from './helpers/git';
import { openCodeCommand, openCodeEnv } from './helpers/opencode';
import * as rec from './helpers/record';

// The real OpenCode (a custom openai-compatible provider in its global config), through `stepchain record` and
// `fork --replay`, against scripted Chat Completions servers on 127.0.0.1. It starts slowly on a loaded machine.
jest.setTimeout(300_000);

const { dir, root, home } = rec.recordPlaces('stepchain-record-opencode-');
const KEY = 'sk-local-scripted';
const MAKE = 'Make the files.';
const SCRIPTS: Record<string, ChatTurn[]> = {
  [MAKE]: [
    { tool: 'bash', args: { command: 'printf one > one.txt', description: 'first file' } },
    { tool: 'bash', args: { command: 'cat one.txt > two.txt', description: 'second file' } },
    { text: 'All done.' },
  ],
};

/** `stepchain <args> -- opencode run ...`, the provider's baseURL in OpenCode's global config being `baseUrl`. */
function stepchain(args: string[], baseUrl: string) {
  const env = openCodeEnv({ cwd: root, home, baseUrl, prompt: MAKE, env: { STEPCHAIN_AUDIT: 'off' } });
  return rec.runStepchain([...args, '--', ...openCodeCommand(MAKE)], root, env);
}

const blob = (digest: string): Buffer => rec.casBlob(root, digest);
/** Whether a recorded request offers tools (OpenCode's title request offers none). */
const offersTools = (request: Buffer): boolean => 'tools' in (parse(request.toString('utf8')) as object);

let serverA: ChatServer;
let recorded: JournalEntry[];

beforeAll(async () => {
  openCodeCommand(MAKE);
  serverA = await startChatServer(SCRIPTS, { model: 'scripted-model' });
});

afterAll(async () => {
  await serverA.close();
});

test("OpenCode's providers, read as OpenCode merges its files: JSONC, the project over the global, the inline config last", () => {
  const h = path.join(dir, 'cfg-home');
  const p = initRepo(path.join(dir, 'cfg-project'), {});
  const sub = path.join(p, 'sub');
  mkdirSync(path.join(h, '.config', 'opencode'), { recursive: true });
  mkdirSync(sub, { recursive: true });
  writeFileSync(
    path.join(h, '.config', 'opencode', 'opencode.json'),
    JSON.stringify({ provider: { local: { npm: '@ai-sdk/openai-compatible', options: { baseURL: 'http://a/v1' } } } }),
  );
  writeFileSync(
    path.join(p, 'opencode.jsonc'),
    '{\n  // the project moves it\n  "provider": { "local": { "options": { "baseURL": "http://b/v1", /* kept */ } },\n' +
      '    "other": { "npm": "@ai-sdk/openai-compatible", "options": { "baseURL": "{env:OTHER_URL}" } },\n' +
      '    "odd": { "npm": "some-sdk", "options": { "baseURL": "http://odd" } }, },\n}\n',
  );
  const env = { HOME: h, XDG_CONFIG_HOME: '', OTHER_URL: 'http://b/v1/' };
  const byId = Object.fromEntries(opencodeProviders(sub, env).map((x) => [x.id, x]));
  expect(byId).toEqual({
    local: { id: 'local', protocol: 'openai-chat', baseURL: 'http://b/v1' },
    other: { id: 'other', protocol: 'openai-chat', baseURL: 'http://b/v1/' },
    odd: { id: 'odd', protocol: undefined, baseURL: 'http://odd' },
    anthropic: { id: 'anthropic', protocol: 'anthropic-messages', baseURL: undefined },
    openai: { id: 'openai', protocol: 'openai-responses', baseURL: undefined },
    google: { id: 'google', protocol: 'gemini', baseURL: undefined },
  });
  // The upstream of a protocol is what its providers are configured with (one URL); the public API otherwise.
  expect(opencodeProxy.defaultUpstream('openai-chat', env, sub)).toBe('http://b/v1');
  expect(opencodeProxy.defaultUpstream('anthropic-messages', env, sub)).toBe('https://api.anthropic.com/v1');
  // The child's inline config points every provider of a known protocol at the proxy, and keeps the user's.
  const child = opencodeProxy.childEnv((x) => `http://proxy/${x}`, { ...env, OPENCODE_CONFIG_CONTENT: '{"a":1}' }, sub);
  expect(JSON.parse(child.OPENCODE_CONFIG_CONTENT!)).toEqual({
    a: 1,
    provider: {
      local: { options: { baseURL: 'http://proxy/openai-chat' } },
      other: { options: { baseURL: 'http://proxy/openai-chat' } },
      anthropic: { options: { baseURL: 'http://proxy/anthropic-messages' } },
      openai: { options: { baseURL: 'http://proxy/openai-responses' } },
      google: { options: { baseURL: 'http://proxy/gemini' } },
    },
  });
  // Two base URLs for one protocol: the proxy has one upstream per protocol, so the user must name it.
  const two = { ...env, OTHER_URL: 'http://c/v1' };
  expect(() => opencodeProxy.defaultUpstream('openai-chat', two, sub)).toThrow(
    /gives its openai-chat providers different base URLs \(http:\/\/b\/v1, http:\/\/c\/v1\).*give --upstream/,
  );
  // A file that is not JSON(C) is named.
  writeFileSync(path.join(sub, 'opencode.json'), '{"provider": ');
  expect(() => opencodeProviders(sub, env)).toThrow(/sub\/opencode\.json: not JSON/);
  expect(jsoncToJson('{"a//b": "/*x*/", // c\n "d": [1,2,],}')).toBe('{"a//b": "/*x*/", \n "d": [1,2]}');
});

test("OpenCode's normalisation list, on the texts it is for (measured: two directories, and a fork's worktree)", () => {
  const env =
    "<env>\n  Working directory: /w/p/.sdd/worktrees/f1\n  Workspace root folder: /w/p/.sdd/worktrees/f1\n  Is directory a git repo: yes\n  Platform: linux\n  Today's date: Thu Dec 03 2026\n</env>";
  expect(normalise(env, OPENCODE_RULES, { paths: ['/w/p', '/w/p/.sdd/worktrees/f1'] }, '')).toBe(
    "<env>\n  Working directory: <dir>\n  Workspace root folder: <dir>\n  Is directory a git repo: yes\n  Platform: linux\n  Today's date: <date>\n</env>",
  );
});

test('record: every exchange of a real OpenCode run is a step (its title request too), byte for byte, without credentials', async () => {
  // No --upstream: the upstream is the provider's own baseURL in OpenCode's config, which the child sees as the proxy.
  const r = await stepchain(rec.recordArgs('opencode', 'rec-1'), serverA.baseUrl);
  expectNoStack(r);
  expect(r.stderr).toMatch(/4 exchanges recorded/);
  expect(r.code).toBe(0);
  expect(readFileSync(path.join(root, 'two.txt'), 'utf8')).toBe('one');
  expect(r.stdout).toContain('All done.');

  // Measured: OpenCode 1.18.33 sends nothing but `POST /v1/chat/completions`, streamed: a title and three turns.
  expect(serverA.raw.map((x) => `${x.method} ${x.url}`)).toEqual(Array(4).fill('POST /v1/chat/completions'));
  expect(serverA.raw.filter((x) => !offersTools(x.request))).toHaveLength(1);
  recorded = rec.expectStepsAreExchanges(root, 'rec-1', serverA.raw, {
    count: 4,
    prompt: 'messages',
    model: 'scripted-model',
  });
  for (const raw of serverA.raw)
    expect((parse(raw.request.toString('utf8')) as { stream: JsonValue }).stream).toBe(true);
  const turns = recorded.filter((e) => offersTools(blob(e.row.input_hash))).map((e) => e.row);
  expect(turns.map((s) => s.tool_call)).toEqual([
    [{ id: serverA.calls[0]!.id, name: 'bash', arguments: serverA.calls[0]!.args }],
    [{ id: serverA.calls[1]!.id, name: 'bash', arguments: serverA.calls[1]!.args }],
    null,
  ]);
  expect(turns[0]!.tool_result).toEqual([
    expect.objectContaining({ role: 'tool', tool_call_id: serverA.calls[0]!.id }),
  ]);
  expect(serverA.raw[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(rec.everythingStored(root)).not.toContain(KEY);
  await rec.expectRecordingObserved(root, 'rec-1', 'opencode');
});

test('fork --replay from the first turn: server A is gone, server B gets only the requests after it, the files are right', async () => {
  await serverA.close();
  const n = recorded.findIndex((e) => offersTools(blob(e.row.input_hash)));
  await rec.closing(startChatServer(SCRIPTS, { model: 'scripted-model' }), async (serverB) => {
    const r = await stepchain(rec.replayArgs('rec-1', n, serverB.baseUrl), 'http://127.0.0.1:9/v1');
    // The replay answers up to the first turn (n + 1 exchanges); the other 3 - n go upstream.
    const doc = await rec.expectReplayedThenLive(r, {
      root,
      recorded,
      replayed: n + 1,
      upstream: serverB.raw,
      warnings: 'stepchain',
    });
    expect(serverB.raw.every((x) => offersTools(x.request))).toBe(true);
    expect(readFileSync(path.join(doc.fork_worktree, 'two.txt'), 'utf8')).toBe('one');
  });
});
