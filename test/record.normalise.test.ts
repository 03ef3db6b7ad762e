import path from 'node:path';
import fc from 'fast-check';
import { parse, type JsonValue } from '../src/canonical';
import { CLAUDE_RULES } from '../src/agents/claude/proxy';
import { claudeSlug, firstDifference, normalise, PATHS_RULE } from '../src/proxy/normalise';
import { claudeBinary, runClaude, startScriptedServer } from './helpers/claude';
import { git, initRepo } from './helpers/git';
import { tempDir } from './helpers/tmp';

jest.setTimeout(120_000);

const measuredDir = tempDir('stepchain-normalise-');
const ctx = (...paths: string[]) => ({ paths });

test('each Claude Code rule, on the text it is for', () => {
  const apply = (text: string, at = 'system[2].text', paths: string[] = []): string =>
    normalise(text, CLAUDE_RULES, ctx(...paths), at) as string;
  expect(apply('{"device_id":"d1","account_uuid":"","session_id":"5d1e-aa"}', 'metadata.user_id')).toBe(
    '{"device_id":"d1","account_uuid":"","session_id":"<session>"}',
  );
  // The session id rule is for metadata.user_id only: the same text elsewhere is the conversation's.
  expect(apply('"session_id":"x"', 'messages[0].content')).toBe('"session_id":"x"');
  expect(apply("Today's date is 2026-12-03.")).toBe("Today's date is <date>.");
  expect(
    apply(
      'env:\n - Primary working directory: /w/p/.sdd/worktrees/f1\n - This is a git worktree — an isolated copy.\n - The git stash stack is shared with the main checkout.\n - Is a git repository: true',
      'messages[1].content',
      ['/w/p', '/w/p/.sdd/worktrees/f1'],
    ),
  ).toBe('env:\n - Primary working directory: <dir>\n - Is a git repository: true');
  expect(
    apply(
      'status.\n\nCurrent branch: fork/main/f1\n\nMain branch (you will usually use this for PRs): main\n\nStatus:\n?? .sdd/\n M a.txt\n\nRecent commits:\nabc123 stepchain snapshot\ndef456 initial\n\nClaude Code attached this context',
    ),
  ).toBe(
    'status.\n\nCurrent branch: <branch>\n\nMain branch (you will usually use this for PRs): main\n\nStatus:\n<status>\n\nRecent commits:\n<commits>\n\nClaude Code attached this context',
  );
  // The memory path: the slug of the main repository root, under Claude's config dir.
  expect(apply('memory at `/h/.claude/projects/-w-p/memory/`', 'system[3].text', ['/w/p'])).toBe(
    'memory at `/h/.claude/projects/<dir-slug>/memory/`',
  );
  expect(claudeSlug('/tmp/a.b/c_d')).toBe('-tmp-a-b-c-d');
});

test('paths: longest first, so a worktree inside the root is not half-replaced', () => {
  const root = '/srv/proj';
  const wt = '/srv/proj/.sdd/worktrees/fork-1';
  expect(PATHS_RULE.apply(`cd ${wt} && ls ${root}`, '', ctx(root, wt))).toBe('cd <dir> && ls <dir>');
});

test('firstDifference names the first differing field as a path', () => {
  const a = parse('{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","content":"one"}]}]}');
  const b = parse('{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","content":"two"}]}]}');
  expect(firstDifference(a, b)).toBe('messages[0].content[0].content');
  expect(firstDifference(a, a)).toBeUndefined();
  expect(firstDifference(parse('{"a":[1,2]}'), parse('{"a":[1,2,3]}'))).toBe('a[2]');
  expect(firstDifference(parse('{"a":1}'), parse('{"a":1,"b":2}'))).toBe('b');
  expect(firstDifference(parse('{"x-y":1}'), parse('{"x-y":2}'))).toBe('["x-y"]');
});

test('property: normalising is idempotent and a value never differs from itself', () => {
  const json = fc.jsonValue() as fc.Arbitrary<JsonValue>;
  fc.assert(
    fc.property(json, fc.array(fc.constantFrom('/a/b', '/a', '/x/.sdd/w'), { maxLength: 3 }), (v, paths) => {
      const once = normalise(v, CLAUDE_RULES, ctx(...paths));
      expect(firstDifference(normalise(once, CLAUDE_RULES, ctx(...paths)), once)).toBeUndefined();
      expect(firstDifference(v, v)).toBeUndefined();
    }),
  );
});

test('measured: the first request of a real Claude Code run in the main tree and in a linked worktree on another branch differ only where the rules say', async () => {
  const dir = measuredDir;
  const main = initRepo(path.join(dir, 'proj'), { 'a.txt': 'a\n' });
  const wt = path.join(main, '.sdd', 'worktrees', 'fork-x');
  git(main, ['worktree', 'add', '-q', '-b', 'fork/main/fork-x', wt]);
  git(wt, ['commit', '-q', '--allow-empty', '-m', 'a commit only the fork has']);
  const server = await startScriptedServer({ 'Say hi.': [{ text: 'hi' }] });
  const binary = claudeBinary();
  const home = path.join(dir, 'home');
  try {
    for (const cwd of [main, wt]) {
      const r = await runClaude({ binary, cwd, home, port: server.port, prompt: 'Say hi.' });
      expect(r.code).toBe(0);
    }
  } finally {
    await server.close();
  }
  const [a, b] = server.raw.map((x) => parse(x.request.toString('utf8')));
  expect(firstDifference(a!, b!)).toBeDefined();
  const n = (v: JsonValue) => normalise(v, CLAUDE_RULES, ctx(main, wt));
  expect(firstDifference(n(a!), n(b!))).toBeUndefined();
});
