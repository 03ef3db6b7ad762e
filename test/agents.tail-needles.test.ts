import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { canonical, parse } from '../src/canonical';
import { openCalls, readCalls } from '../src/agents/copilot/transcript';
import { transcriptCalls } from '../src/agents/gemini/transcript';
import { tempDir } from './helpers/tmp';

/**
 * The hooks of Copilot and Gemini CLI parse only the lines of a session file that hold the bytes of what they look
 * for (src/agents/tail-scan.ts verbatimNeedle): what they find must be exactly what reading every line finds,
 * whatever JSON writer wrote the file (spaced, `/` escaped, `<>&` escaped, non-ASCII escaped).
 */
const dir = tempDir('stepchain-tail-needles-');
let n = 0;

interface Writer {
  spaced: boolean;
  slash: boolean;
  html: boolean;
  ascii: boolean;
}

function str(s: string, w: Writer): string {
  let out = JSON.stringify(s);
  if (w.slash) out = out.replace(/\//g, '\\/');
  if (w.html) out = out.replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (w.ascii) out = out.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return out;
}

/** JSON as another writer would write it. */
function ser(v: unknown, w: Writer): string {
  const [comma, colon] = w.spaced ? [', ', ': '] : [',', ':'];
  if (typeof v === 'string') return str(v, w);
  if (Array.isArray(v)) return `[${v.map((x) => ser(x, w)).join(comma)}]`;
  if (typeof v === 'object' && v !== null)
    return `{${Object.entries(v)
      .map(([k, x]) => `${str(k, w)}${colon}${ser(x, w)}`)
      .join(comma)}}`;
  return JSON.stringify(v);
}

const writer = fc.record({ spaced: fc.boolean(), slash: fc.boolean(), html: fc.boolean(), ascii: fc.boolean() });
const text = fc.constantFrom('ls', 'ls src', 'echo a/b', 'cat <x> && y', 'grün', '"q"', 'a\\b', '', 'ls src ');
const args = fc.oneof(
  fc.record({ command: text }),
  fc.record({ command: text, timeout: fc.constantFrom(1, 100, 2.5) }),
  fc.record({ path: text, content: text }),
  fc.constant({}),
  fc.constant({ n: 1 }),
);
const id = fc.constantFrom('c1', 'c2', 'c3', 'c/4', 'c\u00e95', 'call_"6"');
const model = fc.constantFrom('m1', 'm2');

function file(lines: string[], cut: boolean): string {
  const f = path.join(dir, `log${n++}.jsonl`);
  writeFileSync(f, lines.join('\n') + (cut ? '\n{"torn' : '\n'));
  return f;
}

test('copilot: the open calls found through the arguments bytes are those every line gives', () => {
  const event = fc.oneof(
    fc.record({ id, a: args, m: model }).map((e) => ({
      type: 'tool.execution_start',
      data: { toolCallId: e.id, toolName: 'bash', arguments: e.a, model: e.m },
    })),
    fc.record({ id, a: args }).map((e) => ({
      type: 'tool.execution_complete',
      data: { toolCallId: e.id, success: true, result: { content: JSON.stringify(e.a) } },
    })),
    args.map((a) => ({ type: 'assistant.message', data: { content: a } })),
  );
  fc.assert(
    fc.property(
      fc.array(fc.tuple(event, writer), { maxLength: 14 }),
      args,
      fc.nat(),
      fc.boolean(),
      fc.option(fc.integer({ min: 1, max: 600 }), { nil: undefined }),
      (events, other, pick, cut, window) => {
        // Mostly the arguments of a call in the log.
        const starts = events.filter(([e]) => e.type === 'tool.execution_start');
        const want =
          starts.length > 0 && pick % 4 !== 0
            ? (starts[pick % starts.length]![0].data as { arguments: unknown }).arguments
            : other;
        const f = file(
          events.map(([e, w]) => ser(e, w)),
          cut,
        );
        const all = readCalls(f, window)!;
        const wanted = canonical(parse(JSON.stringify(want)));
        const expected = all.started.filter((s) => s.args === wanted && !all.completed.has(s.id));
        expect(openCalls(f, parse(JSON.stringify(want)), window)).toEqual(expected);
      },
    ),
    { numRuns: 400 },
  );
});

test('gemini: the calls found through the wanted bytes are exactly what every line says of them', () => {
  const call = fc.record({ id, name: fc.constantFrom('run_shell_command', 'write_file'), args });
  const rec = fc.record({ rid: fc.constantFrom('r1', 'r2', 'r3'), m: model, calls: fc.array(call, { maxLength: 3 }) });
  const line = fc.oneof(
    rec.map((r) => ({ id: r.rid, type: 'gemini', model: r.m, content: '', toolCalls: r.calls })),
    args.map((a) => ({ id: 'u', type: 'user', content: a })),
  );
  const plain = (v: unknown): string => canonical(parse(JSON.stringify(v)));
  fc.assert(
    fc.property(
      fc.array(fc.tuple(line, writer), { maxLength: 12 }),
      fc.array(fc.record({ name: fc.constantFrom('run_shell_command', 'write_file'), args }), { maxLength: 3 }),
      fc.array(fc.nat(), { maxLength: 3 }),
      fc.boolean(),
      fc.option(fc.integer({ min: 1, max: 800 }), { nil: undefined }),
      (lines, others, picks, cut, window) => {
        // Mostly calls of the transcript.
        const calls = lines.flatMap(([l]) => ('toolCalls' in l ? l.toolCalls : []));
        const wanted = [
          ...others,
          ...(calls.length === 0
            ? []
            : picks.map((p) => ({ name: calls[p % calls.length]!.name, args: calls[p % calls.length]!.args }))),
        ];
        const f = file(
          lines.map(([l, w]) => ser(l, w)),
          cut,
        );
        const every = transcriptCalls(f, window);
        const some = transcriptCalls(f, window, wanted);
        const ids = new Set(some.map((c) => c.id));
        // Each call found is what every line says of it, in the same order...
        expect(some).toEqual(every.filter((c) => ids.has(c.id)));
        // ...and none a wanted value names is missed.
        const keys = new Set(wanted.map((w) => `${w.name}\0${plain(w.args)}`));
        for (const c of every) if (keys.has(`${c.name}\0${plain(c.args)}`)) expect(ids.has(c.id)).toBe(true);
      },
    ),
    { numRuns: 400 },
  );
});
