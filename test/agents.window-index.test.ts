import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { canonical, parse } from '../src/canonical';
import { handleCopilotHook } from '../src/agents/copilot/hook';
import { indexedOpenCalls, readCalls } from '../src/agents/copilot/transcript';
import { callKey, keyedTranscriptCalls, transcriptCalls } from '../src/agents/gemini/transcript';
import { fullWindowLines, windowLinesFor } from '../src/agents/window-index';
import { tempDir } from './helpers/tmp';
import { lineTags } from './helpers/window-index';

/**
 * The hooks of Gemini CLI and Copilot keep an index of their session file (src/agents/window-index.ts) and read
 * only what was appended since: over any history of appends (torn lines finished later), rewrites in place,
 * replacements, truncations, bytes changed in place, and an index flipped, dropped or restored from earlier, what they find must be exactly
 * what the full read of the window finds.
 */
const dir = tempDir('stepchain-window-index-');
const KEY = Buffer.alloc(32, 7);
let n = 0;

type Op =
  | { op: 'append'; lines: string[]; torn: boolean }
  | { op: 'rewrite' | 'replace'; lines: string[] }
  | { op: 'truncate'; at: number }
  | { op: 'edit'; at: number; to: string }
  | { op: 'index'; how: 'flip' | 'drop' | 'stale' | 'save' }
  | { op: 'query'; window: number; pick: number[] };

/** Applies one operation that is not a query to the session file `f` and its index `idx`. */
function apply(o: Exclude<Op, { op: 'query' }>, f: string, idx: string, saved: string): void {
  const text = (lines: string[], torn = false) => (lines.length === 0 ? '' : lines.join('\n') + (torn ? '' : '\n'));
  if (o.op === 'append') appendFileSync(f, text(o.lines, o.torn));
  else if (o.op === 'rewrite') writeFileSync(f, text(o.lines));
  else if (o.op === 'replace') {
    writeFileSync(`${f}.new`, text(o.lines));
    renameSync(`${f}.new`, f);
  } else if (o.op === 'truncate') truncateSync(f, o.at % (statSync(f).size + 1));
  else if (o.op !== 'index') return;
  else if (o.how === 'save') {
    if (existsSync(idx)) copyFileSync(idx, saved);
  } else if (o.how === 'stale') {
    if (existsSync(saved)) copyFileSync(saved, idx);
  } else if (o.how === 'drop') rmSync(idx, { force: true });
  else if (existsSync(idx)) {
    const b = readFileSync(idx);
    b[b.length >> 1] ^= 1;
    writeFileSync(idx, b);
  }
}

function ops(line: fc.Arbitrary<string>): fc.Arbitrary<Op[]> {
  const lines = fc.array(line, { maxLength: 6 });
  const many = fc.array(line, { maxLength: 16 });
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ op: fc.constant('append' as const), lines, torn: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constantFrom('rewrite' as const, 'replace' as const), lines: many }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }) },
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('edit' as const),
        at: fc.nat(),
        to: fc.constantFrom('\n', 'x', '1', '"'),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant('index' as const),
        how: fc.constantFrom('flip', 'drop', 'stale', 'save'),
      }),
    },
    {
      weight: 5,
      arbitrary: fc.record({
        op: fc.constant('query' as const),
        window: fc.oneof(fc.integer({ min: 1, max: 900 }), fc.constant(16 << 20)),
        pick: fc.array(fc.nat(), { maxLength: 3 }),
      }),
    },
  );
  return fc.array(op, { minLength: 1, maxLength: 25 });
}

/** Runs `history` on a fresh file, checking each query with `check(file, index, query)`. */
function run(history: Op[], check: (f: string, idx: string, q: Extract<Op, { op: 'query' }>) => void): void {
  const f = path.join(dir, `s${n}.jsonl`);
  const idx = path.join(dir, `idx${n}`, 'session.index');
  const saved = path.join(dir, `saved${n++}`);
  writeFileSync(f, '');
  for (const o of history) {
    if (o.op === 'query') check(f, idx, o);
    else apply(o, f, idx, saved);
  }
}

const id = fc.constantFrom('c1', 'c2', 'c3', 'c/4', 'c\u00e95');
const args = fc.oneof(
  fc.record({ command: fc.constantFrom('ls', 'ls src', 'echo a/b', 'gr\u00fcn', '"q"') }),
  fc.constant({}),
  fc.constant({ n: 1 }),
);
/** A line, sometimes cut short or not JSON at all. */
const mangled = (line: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 8, arbitrary: line },
    { weight: 1, arbitrary: fc.tuple(line, fc.nat()).map(([l, k]) => l.slice(0, k % (l.length + 1))) },
    { weight: 1, arbitrary: fc.constantFrom('', 'not json', '{"toolCalls"', '\u00e9\u00e9') },
  );

test('gemini: the calls found through the index are those the full read of the window finds', () => {
  const call = fc.record({ id, name: fc.constantFrom('run_shell_command', 'write_file'), args });
  const line = mangled(
    fc.oneof(
      fc
        .record({ m: fc.constantFrom('m1', 'm2'), calls: fc.array(call, { maxLength: 3 }) })
        .map((r) =>
          JSON.stringify({ id: 'r', type: 'gemini', model: r.m, content: 'x'.repeat(40), toolCalls: r.calls }),
        ),
      args.map((a) => JSON.stringify({ id: 'u', type: 'user', content: a })),
    ),
  );
  const wanted = [
    ...['run_shell_command', 'write_file'].flatMap((name) =>
      [{ command: 'ls' }, { command: 'echo a/b' }, { command: '"q"' }, {}, { n: 1 }].map((a) => callKey(name, a)),
    ),
  ];
  fc.assert(
    fc.property(ops(line), (history) =>
      run(history, (f, idx, q) => {
        const keys = q.pick.map((p) => wanted[p % wanted.length]!);
        const full = transcriptCalls(f, q.window)
          .map((c) => ({ ...c, key: callKey(c.name, c.args) }))
          .filter((c) => c.key !== undefined && keys.includes(c.key));
        expect(keyedTranscriptCalls(f, keys, { file: idx, key: KEY }, q.window)).toEqual(full);
      }),
    ),
    { numRuns: 300 },
  );
});

test('copilot: the open calls found through the index are those the full read of the window finds', () => {
  const line = mangled(
    fc.oneof(
      fc.record({ id, a: args, m: fc.constantFrom('m1', 'm2') }).map((e) =>
        JSON.stringify({
          type: 'tool.execution_start',
          data: { toolCallId: e.id, toolName: 'bash', arguments: e.a, model: e.m },
        }),
      ),
      id.map((i) => JSON.stringify({ type: 'tool.execution_complete', data: { toolCallId: i, success: true } })),
      args.map((a) => JSON.stringify({ type: 'assistant.message', data: { content: a } })),
    ),
  );
  const wants = [{ command: 'ls' }, { command: 'echo a/b' }, {}, { n: 1 }];
  fc.assert(
    fc.property(ops(line), (history) =>
      run(history, (f, idx, q) => {
        const want = parse(JSON.stringify(wants[(q.pick[0] ?? 0) % wants.length]));
        const all = readCalls(f, q.window)!;
        const expected = all.started.filter((s) => s.args === canonical(want) && !all.completed.has(s.id));
        expect(indexedOpenCalls(f, want, { file: idx, key: KEY }, q.window)).toEqual(expected);
      }),
    ),
    { numRuns: 300 },
  );
});

/** Lines `{"t": [[id, key], ...]}`; what the index is asked is which lines a reader looking up some keys needs. */
const tags = lineTags;

/** Whether `a` is `b` with some lines left out. */
function subsequence(a: string[], b: string[]): boolean {
  let i = 0;
  for (const x of b) if (i < a.length && a[i] === x) i++;
  return i === a.length;
}

test('the lines the index gives are those of the full read that hold a wanted key, or an id of one', () => {
  const tag = fc.tuple(fc.constantFrom('i1', 'i2', 'i3', 'i4'), fc.constantFrom('k1', 'k2', 'k3'));
  const line = mangled(
    fc.array(tag, { maxLength: 3 }).map((t) => JSON.stringify({ t, pad: 'p'.repeat(t.length * 7) })),
  );
  const keys = ['k1', 'k2', 'k3'];
  fc.assert(
    fc.property(ops(line), (history) =>
      run(history, (f, idx, q) => {
        const want = q.pick.map((p) => keys[p % keys.length]!);
        const all = fullWindowLines(f, q.window)!;
        const ids = new Set(
          all.flatMap((l) =>
            tags(l)
              .filter(([, k]) => want.includes(k))
              .map(([i]) => i),
          ),
        );
        const needed = all.filter((l) => tags(l).some(([i]) => ids.has(i)));
        const got = windowLinesFor(f, q.window, tags, { file: idx, key: KEY }, want)!;
        // Every line needed, in the file's order, and nothing that is not a line of the window.
        expect(subsequence(needed, got)).toBe(true);
        expect(subsequence(got, all)).toBe(true);
      }),
    ),
    { numRuns: 300 },
  );
});

test('an index that is a link, a FIFO, or written with another key is not read: the full read answers', () => {
  const f = path.join(dir, 'links.jsonl');
  const line = (i: string, k: string) => JSON.stringify({ t: [[i, k]] });
  writeFileSync(f, [line('a', 'k1'), line('b', 'k2'), ''].join('\n'));
  const idx = path.join(dir, 'links-idx', 'session.index');
  const ask = (key: Buffer) => windowLinesFor(f, 1 << 20, tags, { file: idx, key }, ['k1']);
  expect(ask(KEY)).toEqual([line('a', 'k1')]);
  expect(existsSync(idx)).toBe(true);
  // Another key: the index does not verify, the window is read (and the index written anew).
  appendFileSync(f, `${line('c', 'k1')}\n`);
  expect(ask(Buffer.alloc(32, 9))).toEqual([line('a', 'k1'), line('c', 'k1')]);
  // A FIFO in its place: never opened to block; a link: never followed.
  rmSync(idx);
  execFileSync('mkfifo', [idx]);
  expect(ask(KEY)).toEqual([line('a', 'k1'), line('c', 'k1')]);
  rmSync(idx, { force: true });
  const elsewhere = path.join(dir, 'elsewhere.index');
  writeFileSync(elsewhere, 'x');
  symlinkSync(elsewhere, idx);
  expect(ask(KEY)).toEqual([line('a', 'k1'), line('c', 'k1')]);
  expect(readFileSync(elsewhere, 'utf8')).toBe('x');
  // No key (no checkpoint key to be had): the full read, every line.
  expect(windowLinesFor(f, 1 << 20, tags, { file: idx, key: undefined }, ['k1'])).toEqual(fullWindowLines(f, 1 << 20));
});

test("the earlier format's index beside it is removed when the index is written whole: a file or a link, nothing else", () => {
  const line = (i: string, k: string) => JSON.stringify({ t: [[i, k]] });
  const f = path.join(dir, 'earlier-format.jsonl');
  writeFileSync(f, [line('a', 'k1'), ''].join('\n'));
  const at = path.join(dir, 'earlier-idx');
  mkdirSync(at);
  const idx = path.join(at, 'session.v2.index');
  const earlier = path.join(at, 'session.index');
  const ask = () => windowLinesFor(f, 1 << 20, tags, { file: idx, key: KEY }, ['k1']);
  writeFileSync(earlier, 'the calls as an earlier stepchain indexed them');
  expect(ask()).toEqual([line('a', 'k1')]);
  expect([existsSync(idx), existsSync(earlier)]).toEqual([true, false]);
  // A link in its place: the link goes, what it points to stays.
  const target = path.join(dir, 'earlier-target');
  writeFileSync(target, 'x');
  symlinkSync(target, earlier);
  rmSync(idx);
  expect(ask()).toEqual([line('a', 'k1')]);
  expect([existsSync(earlier), readFileSync(target, 'utf8')]).toEqual([false, 'x']);
  // A directory by that name is not an index of ours: left, and the index works.
  mkdirSync(path.join(earlier, 'inside'), { recursive: true });
  rmSync(idx);
  expect(ask()).toEqual([line('a', 'k1')]);
  expect(existsSync(path.join(earlier, 'inside'))).toBe(true);
  // Looked for only when the index is written whole (no call that appends to it pays for the look).
  rmSync(earlier, { recursive: true });
  writeFileSync(earlier, 'x');
  appendFileSync(f, `${line('b', 'k1')}\n`);
  expect(ask()).toEqual([line('a', 'k1'), line('b', 'k1')]);
  expect(existsSync(earlier)).toBe(true);
});

test('a line the agent wrote with arguments no payload can have never stops the index: later calls are found', () => {
  // Copilot: a start whose arguments have no canonical form (1e999 reads as an infinity); Gemini CLI: a record
  // whose args are nested deeper than any JSON stepchain reads. Each is a line the indexed read tags (every new
  // line is), where the needle read skipped it: it must not fail every later look of the session.
  const log = path.join(dir, 'hostile-events.jsonl');
  const start = (id: string, args: string) =>
    `{"type":"tool.execution_start","data":{"toolCallId":"${id}","toolName":"bash","arguments":${args}}}\n`;
  writeFileSync(log, start('bad', '{"n":1e999}') + start('nan', '{"command":"ls","n":1e400}'));
  const want = parse('{"command":"ls"}');
  const idx = { file: path.join(dir, 'hostile-idx', 'copilot.index'), key: KEY };
  expect(indexedOpenCalls(log, want, idx)).toEqual([]);
  appendFileSync(log, start('good', '{"command":"ls"}'));
  expect(indexedOpenCalls(log, want, idx)).toEqual([{ id: 'good', args: '{"command":"ls"}', model: undefined }]);
  expect(readCalls(log)!.started.map((s) => s.id)).toEqual(['good']);

  const chat = path.join(dir, 'hostile-chat.jsonl');
  const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
  const rec = (id: string, args: string) =>
    `{"id":"r","type":"gemini","toolCalls":[{"id":"${id}","name":"run_shell_command","args":${args}}]}\n`;
  writeFileSync(chat, rec('deep', `{"a":${deep}}`));
  const key = callKey('run_shell_command', { command: 'ls' })!;
  const gidx = { file: path.join(dir, 'hostile-idx', 'transcript.index'), key: KEY };
  expect(keyedTranscriptCalls(chat, [key], gidx)).toEqual([]);
  appendFileSync(chat, rec('c1', '{"command":"ls"}'));
  expect(keyedTranscriptCalls(chat, [key], gidx).map((c) => c.id)).toEqual(['c1']);
  expect(callKey('run_shell_command', { a: JSON.parse(deep) as unknown })).toBeUndefined();
});

test('Copilot’s hook: after a start line with an infinity in its arguments, later calls keep their ids', () => {
  const home = path.join(dir, 'copilot-home');
  const sid = 'bbbbbbbb-cccc-4ddd-8eee-ffffffffffff';
  const sessionDir = path.join(home, 'session-state', sid);
  mkdirSync(sessionDir, { recursive: true });
  const root = path.join(dir, 'copilot-root');
  mkdirSync(path.join(root, '.git'), { recursive: true });
  const log = path.join(sessionDir, 'events.jsonl');
  const start = (id: string, args: string) =>
    `{"type":"tool.execution_start","data":{"toolCallId":"${id}","toolName":"bash","arguments":${args},"model":"m"}}\n`;
  writeFileSync(log, start('t0', '{"command":"a"}'));
  const env = { COPILOT_HOME: home, STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(dir, 'ck', 'k') };
  const post = (command: string) =>
    handleCopilotHook(
      Buffer.from(
        JSON.stringify({
          session_id: sid,
          cwd: root,
          hook_event_name: 'PostToolUse',
          tool_name: 'bash',
          tool_input: { command },
          tool_result: { result_type: 'success', text_result_for_llm: 'ok' },
        }),
      ),
      { env, root, snapshot: false },
    );
  expect(post('a').row?.tool_call).toEqual({ id: 't0', input: { command: 'a' }, name: 'bash' });
  appendFileSync(log, start('odd', '{"command":"b","n":1e999}') + start('t1', '{"command":"b"}'));
  expect(post('b').row?.tool_call).toEqual({ id: 't1', input: { command: 'b' }, name: 'bash' });
  appendFileSync(log, start('t2', '{"command":"c"}'));
  expect(post('c').row?.tool_call).toEqual({ id: 't2', input: { command: 'c' }, name: 'bash' });
});
