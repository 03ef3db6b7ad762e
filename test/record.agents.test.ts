import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, type JsonObject, type JsonValue } from '../src/canonical';
import { CODEX_RULES, codexProvider, codexProxy } from '../src/agents/codex/proxy';
import { GEMINI_RULES } from '../src/agents/gemini/proxy';
import { AGENTS } from '../src/agents/registry';
import { resultsFor } from '../src/proxy/exchange';
import { firstDifference, normalise } from '../src/proxy/normalise';
import { gemini } from '../src/proxy/protocols/gemini';
import { tempDir } from './helpers/tmp';

/**
 * The Codex and Gemini CLI parts of the proxy, without the binaries: each normalisation rule on the request parts
 * it was measured for (docs/record.md; test/record.codex.test.ts and test/record.gemini.test.ts replay real runs),
 * where Codex's base URL goes, and a Gemini CLI tool result matched to the call it answers.
 */
const dir = tempDir('stepchain-record-agents-');
const json = (v: unknown): JsonValue => parse(JSON.stringify(v));
const norm = (v: unknown, rules: typeof CODEX_RULES, paths: string[]) => normalise(json(v), rules, { paths });

test('every agent with a proxy part is recorded; the measured ones say so', () => {
  const proxied = AGENTS.filter((a) => a.proxy !== undefined).map((a) => [a.name, a.proxy!.baseUrlSource]);
  expect(proxied).toEqual([
    ['claude', 'measured'],
    ['codex', 'measured'],
    ['gemini', 'measured'],
    ['copilot', 'measured'],
    ['opencode', 'measured'],
  ]);
});

test('Codex: two runs in two directories normalise to the same request, and a changed tool output does not', () => {
  const request = (dir: string, id: string, chunk: string, wall: string, out: string) => ({
    model: 'gpt-test',
    input: [
      { type: 'message', id: `msg_${id}-0b9d-5bac-b9b0-96e30323048b`, role: 'developer', content: [] },
      {
        type: 'message',
        id: `msg_${id}-479e-76e0-8395-0ff1e2350f2d`,
        role: 'user',
        content: [
          {
            type: 'input_text',
            text: `<environment_context>\n  <cwd>${dir}</cwd>\n  <current_date>2026-12-0${id.endsWith('e') ? 3 : 4}</current_date>\n  <filesystem><workspace_roots><root>${dir}</root></workspace_roots></filesystem>\n</environment_context>`,
          },
        ],
      },
      { type: 'function_call', id: 'fc_call_0000', call_id: 'call_0000', name: 'exec_command', arguments: '{}' },
      {
        type: 'function_call_output',
        id: `fco_${id}-4b9b-7821-bd2f-8a7e8dff59a8`,
        call_id: 'call_0000',
        output: `Chunk ID: ${chunk}\nWall time: ${wall} seconds\nProcess exited with code 0\nOutput:\n${out}`,
      },
    ],
    prompt_cache_key: `${id}-4408-72b2-819f-4ebc34a24f88`,
    client_metadata: {
      thread_id: id,
      'x-codex-turn-metadata': JSON.stringify({ workspaces: { [dir]: { latest_git_commit_hash: id } } }),
    },
  });
  const a = request('/w/p', '01a23d4e', '7aa5ab', '0.0000', 'one\n');
  const b = request('/w/p/.sdd/worktrees/f1', '01a23d4f', '72fdc4', '0.0012', 'one\n');
  const paths = ['/w/p', '/w/p/.sdd/worktrees/f1'];
  expect(firstDifference(norm(a, CODEX_RULES, paths), norm(b, CODEX_RULES, paths))).toBeUndefined();
  // Without the rules, those are the parts that differ.
  expect(firstDifference(json(a), json(b))).toBe('input[0].id');
  // The tool's output itself is compared.
  const c = request('/w/p', '01a23d4e', '7aa5ab', '0.0000', 'two\n');
  expect(firstDifference(norm(a, CODEX_RULES, paths), norm(c, CODEX_RULES, paths))).toBe('input[3].output');
  // The output header rule is for tool outputs only: the same lines in the conversation are compared.
  expect(normalise('Chunk ID: 7aa5ab', CODEX_RULES, { paths: [] }, 'input[1].content[0].text')).toBe(
    'Chunk ID: 7aa5ab',
  );
  // An id the model gave (not a UUID of Codex's) is compared.
  expect(normalise('fc_call_0000', CODEX_RULES, { paths: [] }, 'input[2].id')).toBe('fc_call_0000');
});

test("Codex's built-in openai provider: each input item's passthrough turn id and creation time (a number) are normalised, nothing else there", () => {
  const item = (turn: string, time: number, text: string) => ({
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text }],
    internal_chat_message_metadata_passthrough: { turn_id: turn, create_time: time },
  });
  const a = { input: [item('01a23e05-2c2b-72f0-953b-aff167b7097b', 1796336856.1636386, 'hi')] };
  const b = { input: [item('01a23e05-4905-74a0-8d14-3a1522b42fc4', 1796336863.5173037, 'hi')] };
  expect(firstDifference(json(a), json(b))).toBe('input[0].internal_chat_message_metadata_passthrough.turn_id');
  expect(firstDifference(norm(a, CODEX_RULES, []), norm(b, CODEX_RULES, []))).toBeUndefined();
  const c = { input: [item('01a23e05-4905-74a0-8d14-3a1522b42fc4', 1796336863.5173037, 'bye')] };
  expect(firstDifference(norm(a, CODEX_RULES, []), norm(c, CODEX_RULES, []))).toBe('input[0].content[0].text');
  // Only there: a turn_id elsewhere is compared.
  expect(normalise(json({ turn_id: 't1' }), CODEX_RULES, { paths: [] }, 'input[0]')).toEqual(json({ turn_id: 't1' }));
});

test("Codex: the base URL goes on the command line for the provider config.toml selects, and the default upstream is that provider's", () => {
  const home = path.join(dir, 'codex-home');
  const env = { CODEX_HOME: home, HOME: home };
  const base = () => 'http://127.0.0.1:4000/v1';
  // No config.toml: the built-in openai provider, its openai_base_url.
  expect(codexProvider(env)).toEqual({ id: 'openai', baseUrl: undefined });
  expect(codexProxy.defaultUpstream('openai-responses', env)).toBe('https://api.openai.com/v1');
  expect(codexProxy.childCommand!(['/bin/codex', 'exec', 'hi'], base, env)).toEqual([
    '/bin/codex',
    '-c',
    'openai_base_url="http://127.0.0.1:4000/v1"',
    'exec',
    'hi',
  ]);
  mkdirSync(home, { recursive: true });
  writeFileSync(
    path.join(home, 'config.toml'),
    'model_provider = "my.proxy"\nmodel = "m"\n\n[model_providers."my.proxy"]\nbase_url = "https://llm.example/v1"\nwire_api = "responses"\n',
  );
  expect(codexProvider(env)).toEqual({ id: 'my.proxy', baseUrl: 'https://llm.example/v1' });
  expect(codexProxy.defaultUpstream('openai-responses', env)).toBe('https://llm.example/v1');
  // Codex 0.171.0's -c splits its key at every dot, quoted or not (measured): such a provider cannot be named there.
  expect(() => codexProxy.childCommand!(['codex', 'exec', 'hi'], base, env)).toThrow(
    /config\.toml: the model provider "my\.proxy" cannot be given the proxy's base URL/,
  );
  writeFileSync(
    path.join(home, 'config.toml'),
    'model_provider = "my-proxy"\n[model_providers.my-proxy]\nbase_url = "https://llm.example/v1"\n',
  );
  expect(codexProxy.childCommand!(['codex', 'exec', 'hi'], base, env)).toEqual([
    'codex',
    '-c',
    'model_providers.my-proxy.base_url="http://127.0.0.1:4000/v1"',
    'exec',
    'hi',
  ]);
  // Not Codex's executable (a wrapper): left as it is, and record warns.
  expect(codexProxy.childCommand!(['sh', '-c', 'codex exec hi'], base, env)).toBeUndefined();
  // A provider of the user's without a base_url: nowhere to forward to by default.
  writeFileSync(path.join(home, 'config.toml'), 'model_provider = "local"\n');
  expect(() => codexProxy.defaultUpstream('openai-responses', env)).toThrow(/"local" has no base_url; give --upstream/);
  expect(codexProxy.childEnv(base, env)).toEqual({ OPENAI_BASE_URL: 'http://127.0.0.1:4000/v1' });
});

test('Gemini CLI: two runs (a main tree, a linked worktree) normalise to the same request, and a changed tool output does not', () => {
  const context = (dir: string, name: string, date: string, tree: string) =>
    `<session_context>\nToday's date is ${date} (formatted according to the user's locale).\nThe project's temporary directory is: /h/.gemini/tmp/${name}\n- **Workspace Directories:**\n  - ${dir}\n- **Directory Structure:**\n\n${tree}\n\n</session_context>`;
  const mainTree =
    'Showing up to 200 items (files + folders). Folders or files indicated with ... contain more items not shown, were ignored, or the display limit (200 items) was reached.\n\n/w/p/\n├───README.md\n├───.git/...\n└───.sdd/\n    ├───runs/\n    │   └───m0/\n    │       └───journal.jsonl\n    └───worktrees/\n        └───f1/\n            └───README.md';
  const forkTree =
    'Showing up to 200 items (files + folders).\n\n/w/p/.sdd/worktrees/f1/\n├───README.md\n└───.sdd/\n    └───runs/\n        └───f1/\n            └───journal.jsonl';
  const request = (dir: string, name: string, date: string, tree: string, ms: string, pgid: string, out: string) => ({
    contents: [
      { role: 'user', parts: [{ text: context(dir, name, date, tree) }, { text: 'Make the files.' }] },
      {
        role: 'model',
        parts: [{ functionCall: { id: `run_shell_command_${ms}_0`, name: 'run_shell_command', args: {} } }],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: `run_shell_command_${ms}_0`,
              name: 'run_shell_command',
              response: {
                output: `<untrusted_context>\nOutput: ${out}\nProcess Group PGID: ${pgid}\n</untrusted_context>`,
              },
            },
          },
        ],
      },
    ],
    systemInstruction: { parts: [{ text: `memory: \`/h/.gemini/tmp/${name}/memory/MEMORY.md\`` }] },
  });
  const a = request('/w/p', 'p', 'Thursday, December 3, 2026', mainTree, '1796324911531', '28774', 'one');
  const b = request(
    '/w/p/.sdd/worktrees/f1',
    'f1',
    'Friday, December 4, 2026',
    forkTree,
    '1796324944234',
    '30309',
    'one',
  );
  const paths = ['/w/p', '/w/p/.sdd/worktrees/f1'];
  expect(firstDifference(norm(a, GEMINI_RULES, paths), norm(b, GEMINI_RULES, paths))).toBeUndefined();
  const c = request('/w/p', 'p', 'Thursday, December 3, 2026', mainTree, '1796324911531', '28774', 'two');
  expect(firstDifference(norm(a, GEMINI_RULES, paths), norm(c, GEMINI_RULES, paths))).toBe(
    'contents[2].parts[0].functionResponse.response.output',
  );
  // A project file is compared: one more in the tree is a difference.
  const d = request(
    '/w/p',
    'p',
    'Thursday, December 3, 2026',
    mainTree.replace('README.md', 'README.md\n├───x.txt'),
    '1',
    '1',
    'one',
  );
  expect(firstDifference(norm(a, GEMINI_RULES, paths), norm(d, GEMINI_RULES, paths))).toBe('contents[0].parts[0].text');
});

test('Gemini CLI: its skills in another order (its file search finds them so, run to run) normalise to the same request; another skill does not', () => {
  // Gemini CLI 0.61.0 lists its skills in the order `glob` finds their SKILL.md: a fork --replay failed at exchange 0
  // (systemInstruction.parts[0].text) where the recording had skill-creator first and the replay antigravity-support.
  const skill = (name: string, what = `what ${name} does`) =>
    `  <skill>\n    <name>${name}</name>\n    <description>${what}</description>\n    <location>/g/bundle/builtin/${name}/SKILL.md</location>\n  </skill>`;
  const request = (names: string[], skills = names.map((n) => skill(n))) => ({
    contents: [{ role: 'user', parts: [{ text: 'Make the files.' }] }],
    systemInstruction: {
      parts: [
        {
          text: `# Available Agent Skills\n\n<available_skills>\n${skills.join('\n')}\n</available_skills>\n\n# Other`,
        },
      ],
    },
    tools: [
      {
        functionDeclarations: [
          {
            name: 'run_shell_command',
            parametersJsonSchema: { type: 'object', properties: { command: { enum: ['b', 'a'] } } },
          },
          {
            name: 'activate_skill',
            description: `Activates a specialized agent skill by name (Available: ${names.map((n) => `'${n}'`).join(', ')}). Returns ...`,
            parametersJsonSchema: { type: 'object', properties: { name: { type: 'string', enum: names } } },
          },
        ],
      },
    ],
  });
  const n = (v: unknown) => norm(v, GEMINI_RULES, ['/w/p']);
  const a = request(['skill-creator', 'antigravity-support']);
  const b = request(['antigravity-support', 'skill-creator']);
  expect(firstDifference(n(a), n(b))).toBeUndefined();
  // What a skill says is compared, and so is another tool's enum order.
  const c = request(
    ['skill-creator', 'antigravity-support'],
    [skill('skill-creator'), skill('antigravity-support', 'changed')],
  );
  expect(firstDifference(n(a), n(c))).toBe('systemInstruction.parts[0].text');
  const d = request(['skill-creator', 'antigravity-support', 'third']);
  expect(firstDifference(n(a), n(d))).toBe('systemInstruction.parts[0].text');
  const e = request(['skill-creator', 'antigravity-support']);
  e.tools[0]!.functionDeclarations[0]!.parametersJsonSchema.properties = { command: { enum: ['a', 'b'] } };
  expect(firstDifference(n(a), n(e))).toBe(
    'tools[0].functionDeclarations[0].parametersJsonSchema.properties.command.enum[0]',
  );
  // Another tool's `name` parameter is not a skill: its enum's order is compared (it was sorted too, as any tool's).
  const other = (order: string[]) => {
    const r = request(['skill-creator', 'antigravity-support']);
    r.tools[0]!.functionDeclarations[0]!.parametersJsonSchema.properties = {
      name: { type: 'string', enum: order },
    } as never;
    return r;
  };
  expect(firstDifference(n(other(['b', 'a'])), n(other(['a', 'b'])))).toBe(
    'tools[0].functionDeclarations[0].parametersJsonSchema.properties.name.enum[0]',
  );
});

test('Gemini CLI: the skills rule reads a text of many unclosed <available_skills> once (time linear in its size)', () => {
  // Every string of a recorded request goes through it (a file the agent read, a tool's output): the rule's lazy
  // regex looked for the close after each of N opens, N times to the text's end (quadratic: 200,000 opens, 3.8 MB,
  // took about a minute). No timing is asserted here; the block before them is still sorted, the rest kept.
  const block = (names: string[]) =>
    `<available_skills>\n${names.map((x) => `  <skill>\n    <name>${x}</name>\n  </skill>`).join('\n')}\n</available_skills>`;
  const tail = '<available_skills>\n'.repeat(200_000);
  const out = normalise(json({ text: `${block(['b', 'a'])}\n${tail}` }), GEMINI_RULES, { paths: ['/w/p'] });
  expect(out).toEqual(json({ text: `${block(['a', 'b'])}\n${tail}` }));
});

test("Gemini CLI: a result whose id Gemini CLI made up answers the id-less call by name, this turn's only", () => {
  const view = (contents: unknown) => ({ body: json({ contents }) as JsonObject, pathname: '/x', headers: {} });
  const result = (ms: string, out: string) => ({
    role: 'user',
    parts: [
      { functionResponse: { id: `run_shell_command_${ms}_0`, name: 'run_shell_command', response: { output: out } } },
    ],
  });
  const call = { role: 'model', parts: [{ functionCall: { name: 'run_shell_command', args: {} } }] };
  const calls = [json({ id: null, name: 'run_shell_command', args: {} }) as JsonObject];
  const results = gemini.toolResults(
    view([{ role: 'user', parts: [{ text: 'go' }] }, call, result('1', 'old'), call, result('2', 'new')]),
  );
  expect(resultsFor(calls, results).map((r) => r.value)).toEqual([results[1]!.value]);
  // A call the model gave an id is answered by that id only.
  const withId = [json({ id: 'c1', name: 'run_shell_command', args: {} }) as JsonObject];
  expect(resultsFor(withId, results)).toEqual([]);
});
