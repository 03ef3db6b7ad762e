import fc from 'fast-check';
import { cutTranscript } from '../src/agents/claude/cut';
import { cutRollout } from '../src/agents/codex/resume';
import { transcriptLines } from '../src/agents/transcript-cut';

// A transcript is cut where it lies in its bytes, each line decoded when it is asked for (a whole transcript as one
// string, split, with every entry kept parsed, took about seven times its size). The lines are the ones
// `text.split('\n')` gives, and a cut copies the lines up to it, renamed, byte for byte.

const SID = 'aaaaaaaa-1111-4222-8333-444444444444';
const NEW = 'bbbbbbbb-1111-4222-8333-444444444444';

const piece = fc.constantFrom(
  'a',
  'b',
  ' ',
  '\n',
  '\r',
  '\r\n',
  'é',
  '日本',
  '😀',
  '\uFEFF',
  '"',
  '\\',
  '{}',
  '\u2028',
);
const text = fc.array(piece, { maxLength: 40 }).map((p) => p.join(''));

test('the lines are the ones split gives, as text and as bytes', () => {
  fc.assert(
    fc.property(text, (t) => {
      const { raw } = transcriptLines(Buffer.from(t, 'utf8'), 'x.jsonl');
      const want = t.split('\n');
      expect(raw.length).toBe(want.length);
      for (let i = 0; i < want.length; i++) {
        expect(raw.line(i)).toBe(want[i]);
        expect(raw.bytes(i).equals(Buffer.from(want[i]!, 'utf8'))).toBe(true);
      }
    }),
    { numRuns: 500 },
  );
});

test('bytes that are not UTF-8 are refused, naming the file', () => {
  for (const bad of [Buffer.from([0xff]), Buffer.from('{"a":1}\n\xc3(', 'latin1'), Buffer.from([0xed, 0xa0, 0x80])])
    expect(() => transcriptLines(bad, '/t/x.jsonl')).toThrow(
      '/t/x.jsonl: not valid UTF-8; the conversation is not forked',
    );
});

/** One entry of a Claude Code transcript, as JSON text written one of several ways. */
interface Made {
  line: string;
  named: boolean;
}

/** A chain of tool calls and results, with filler lines (some naming no session) and CRLF endings here and there. */
const claudeTranscript = fc
  .array(
    fc.record({
      filler: fc.constantFrom('none', 'plain', 'unnamed', 'crlf'),
      text: fc.constantFrom('ok', 'résumé 日本', 'a "quoted" \\ path', '😀\u2028'),
    }),
    { minLength: 1, maxLength: 12 },
  )
  .map((calls) => {
    const made: Made[] = [];
    let parent: string | null = null;
    calls.forEach((c, k) => {
      const base = (o: Record<string, unknown>): string => JSON.stringify(o);
      if (c.filler === 'unnamed') made.push({ line: base({ type: 'summary', summary: c.text }), named: false });
      const a = base({
        parentUuid: parent,
        sessionId: SID,
        type: 'assistant',
        cwd: '/p',
        message: {
          id: `m${k}`,
          content: [
            { type: 'text', text: c.text },
            { type: 'tool_use', id: `t${k}`, input: {} },
          ],
        },
        uuid: `a${k}`,
      });
      made.push({ line: c.filler === 'crlf' ? `${a}\r` : a, named: true });
      const u = base({
        parentUuid: `a${k}`,
        sessionId: SID,
        type: 'user',
        message: { content: [{ type: 'tool_result', tool_use_id: `t${k}`, content: c.text }] },
        uuid: `u${k}`,
      });
      made.push({ line: u, named: true });
      parent = `u${k}`;
    });
    return { made, calls: calls.length };
  });

test('a Claude Code transcript cut: the lines up to the result, renamed, byte for byte, wherever the cut', () => {
  fc.assert(
    fc.property(claudeTranscript, fc.nat(), ({ made, calls }, pick) => {
      const k = pick % calls;
      const bytes = Buffer.from(`${made.map((m) => m.line).join('\n')}\n`, 'utf8');
      const cut = cutTranscript(bytes, 'x.jsonl', SID, `t${k}`, NEW);
      const end = made.findIndex((m) => m.line.includes(`"tool_use_id":"t${k}"`));
      const from = `"sessionId":${JSON.stringify(SID)}`;
      const to = `"sessionId":${JSON.stringify(NEW)}`;
      const want = made
        .slice(0, end + 1)
        .map((m) => (m.named ? m.line.split(from).join(to) : m.line))
        .join('\n');
      expect(cut.line).toBe(end + 1);
      expect(cut.bytes.toString('utf8')).toBe(`${want}\n`);
      expect(cut.firstCwd).toBe('/p');
    }),
    { numRuns: 200 },
  );
});

test('a Codex rollout cut: the lines up to the output, renamed', () => {
  const meta = JSON.stringify({ type: 'session_meta', payload: { id: SID, cwd: '/p' } });
  const call = (k: number): string =>
    JSON.stringify({ type: 'response_item', payload: { type: 'function_call', call_id: `c${k}`, name: 'shell' } });
  const out = (k: number): string =>
    JSON.stringify({ type: 'response_item', payload: { type: 'function_call_output', call_id: `c${k}`, output: 'é' } });
  const lines = [meta, call(0), out(0), call(1), out(1)];
  const r = cutRollout(Buffer.from(`${lines.join('\n')}\n`), 'r.jsonl', SID, 'c0', NEW);
  expect(r.line).toBe(3);
  expect(r.bytes.toString('utf8')).toBe(`${[meta.replace(SID, NEW), call(0), out(0)].join('\n')}\n`);
});
